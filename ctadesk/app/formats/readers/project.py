"""Reading a saved ctadesk project (.ctaproj)."""

from __future__ import annotations

from pathlib import Path

from ctadesk.app.formats.model import Answers
from ctadesk.io.project import Project, load_project


def table(path: Path, answers: Answers) -> Project:
    """A saved project, as it was saved (it asks nothing)."""
    return load_project(path)
