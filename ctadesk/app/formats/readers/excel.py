"""Reading Excel workbooks: a table from one sheet, microdata, a release."""

from __future__ import annotations

from pathlib import Path

from ctadesk.app.files import project_from_excel
from ctadesk.app.formats.model import Answers, Totals
from ctadesk.engine.table.microdata import Microdata
from ctadesk.engine.table.structure import TableStructure
from ctadesk.io.excel import import_table
from ctadesk.io.microdata import MicrodataSpec, read_xlsx_microdata
from ctadesk.io.project import Project
from ctadesk.io.released import ReleasedTable, released_xlsx


def table(path: Path, answers: Answers) -> Project:
    """One sheet (answers.sheet, else the first visible one) in the layout detected."""
    found = import_table(path, answers.sheet, decimal_comma=answers.decimal_comma,
                         include_hidden=answers.include_hidden)
    return project_from_excel([found], keep_non_additive=answers.totals is Totals.KEEP)


def microdata(path: Path, spec: MicrodataSpec, answers: Answers) -> Microdata:
    """The microdata on one sheet (answers.sheet, else the first one)."""
    return read_xlsx_microdata(path, spec, sheet=answers.sheet)


def release(path: Path, structure: TableStructure, answers: Answers) -> ReleasedTable:
    return released_xlsx(path, structure)
