"""Reading tau-argus tables (.tab with their .rda): a table, a release."""

from __future__ import annotations

from pathlib import Path

from ctadesk.app.files import project_from_tab
from ctadesk.app.formats.model import Answers, Totals
from ctadesk.engine.table.structure import TableStructure
from ctadesk.io.project import Project
from ctadesk.io.released import ReleasedTable, released_tab
from ctadesk.io.tauargus import read_tab


def table(path: Path, answers: Answers) -> Project:
    """A tau-argus table with its metadata (answers.metadata, else the .rda beside it): its unsafe
    cells sensitive, its statistics kept for the rules; totals that do not add up refused,
    recomputed or kept as answers.totals says."""
    found = read_tab(path, answers.metadata)
    recomputed = ""
    if answers.totals is Totals.RECOMPUTE and found.non_additive():
        found, changed = found.make_additive()
        recomputed = f"\n{len(changed)} total(s) recomputed from their parts"
    project = project_from_tab(found, keep_non_additive=answers.totals is Totals.KEEP)
    project.log += recomputed
    return project


def release(path: Path, structure: TableStructure, answers: Answers) -> ReleasedTable:
    return released_tab(path, structure, answers.metadata)
