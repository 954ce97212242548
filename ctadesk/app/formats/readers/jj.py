"""Reading JJ files: a table with its sensitive cells, a release."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ctadesk.app.formats.model import Answers, Totals
from ctadesk.io.jj import read_jj
from ctadesk.io.project import Project

if TYPE_CHECKING:
    from ctadesk.engine.table.structure import TableStructure
    from ctadesk.io.released import ReleasedTable


def table(path: Path, answers: Answers) -> Project:
    """A JJ instance with its sensitive cells, protection levels and costs."""
    return Project.from_problem(read_jj(path, additive=answers.totals is not Totals.KEEP).problem)


def release(path: Path, structure: TableStructure, answers: Answers) -> ReleasedTable:
    """A release as a JJ file over the original's cells (the release readers load on this call)."""
    from ctadesk.io.released import released_jj

    return released_jj(path, structure)
