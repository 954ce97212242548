"""Reading RCTA solution files (.sol) as releases."""

from __future__ import annotations

from pathlib import Path

from ctadesk.app.formats.model import Answers
from ctadesk.engine.table.structure import TableStructure
from ctadesk.io.released import ReleasedTable, released_sol


def release(path: Path, structure: TableStructure, answers: Answers) -> ReleasedTable:
    return released_sol(path, structure)
