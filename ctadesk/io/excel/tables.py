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
from ctadesk.io.errors import FileFormatError
from ctadesk.io.excel.export import ExportOutcome, ExportReport, write_side_sheets
from ctadesk.io.excel.grid import _INVALID_TITLE, _check_long, _write_grid, _write_long, grid_sheets, published_format
from ctadesk.io.excel.writer import WorkbookWriter
from ctadesk.io.numbers import finite_values


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
            title = _INVALID_TITLE.sub("_", table.title) or "Table"
            structure = table.structure
            original = finite_values(table.original, "original values", target)
            adjusted = finite_values(table.adjusted, "adjusted values", target)
            if not original.shape == adjusted.shape == (structure.n_cells,):
                raise FileFormatError(f"{adjusted.size} adjusted values for table {table.title} of "
                                      f"{structure.n_cells} cells", file=target)
            shown = None
            if decimals is not None:
                adjusted, shown = np.round(adjusted, decimals), published_format(decimals)
            shaded = None
            if internal:
                shaded = np.zeros(structure.n_cells, bool)
                shaded[np.asarray(table.sensitive, np.int64)] = True
            plans = grid_sheets(structure)
            if plans is None:
                _check_long(structure, target)
                _write_long(writer, title, structure, [("Value", adjusted)], shaded, shown)
            else:
                for plan in plans:
                    sheet_title = title if len(plans) == 1 else f"{title} {plan.title}"
                    _write_grid(writer, dataclasses.replace(plan, title=sheet_title), adjusted, shaded, shown)
            if shaded is not None:
                _check_long(structure, target)
                status = np.where(shaded, "sensitive", "safe")
                _write_long(writer, f"{title} cells", structure,
                            [("Status", status), ("Original", original), ("Adjusted", adjusted),
                             ("Difference", adjusted - original)], None, number_format="General")
        outcome = ExportOutcome(target, internal)
        write_side_sheets(writer, report or ExportReport(), outcome)
    return outcome
