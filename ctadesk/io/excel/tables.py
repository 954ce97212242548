"""Several tables in one workbook, each in the default layout (ctadesk.io.excel.grid): the
tables of one publication protected together (linked tables tabulated from one microdata set),
a sheet per table (or per slice of a table of three or more dimensions, or written long), then
the Quality, Method and Log sheets of the whole run.

What a release shows and an internal workbook adds is as for one table: the internal workbook
shades each table's sensitive cells and adds a '<table> cells' sheet per table with each cell's
status, original value, adjusted value and difference.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ctadesk.engine.table.structure import TableStructure
from ctadesk.io.excel.export import ExportOutcome, ExportReport, write_side_sheets
from ctadesk.io.excel.grid import _INVALID_TITLE, table_cells, write_table_sheets
from ctadesk.io.excel.writer import WorkbookWriter


@dataclasses.dataclass(frozen=True, eq=False)
class GridTable:
    """One table of the workbook: its title (e.g. 'Region x Size'), structure, original and
    adjusted values (C order of structure) and the positions of its sensitive cells."""

    title: str
    structure: TableStructure
    original: np.ndarray
    adjusted: np.ndarray
    sensitive: np.ndarray


def export_tables_workbook(target: str | Path, tables: Sequence[GridTable], *, internal: bool = False,
                           report: ExportReport | None = None, decimals: int | None = None) -> ExportOutcome:
    """Write the tables, a sheet (or slice sheets) each, then the side sheets (module docstring).
    ``decimals``: the precision the tables are published at, as in export_table_workbook."""
    target = Path(target)
    with WorkbookWriter(target) as writer:
        for table in tables:
            cells = table_cells(target, table.structure, table.original, table.adjusted, table.sensitive, internal,
                                decimals, f"table {table.title}")
            write_table_sheets(writer, target, table.structure, cells, _INVALID_TITLE.sub("_", table.title) or "Table")
        outcome = ExportOutcome(target, internal)
        write_side_sheets(writer, report or ExportReport(), outcome)
    return outcome
