"""Any table as a workbook in a clean default layout, for tables that did not come from Excel
(JJ, tau-argus, CSV, generated and tabulated tables).

A one-dimensional table is a column of labels and values; a two-dimensional one
has the first variable down the rows (codes indented by their depth in the
hierarchy, totals bold) and the second across the columns.  Beyond two
dimensions each combination of the leading variables gets a sheet of its own
(at most `MAX_SLICE_SHEETS`); a table with more slices, or too wide or long for
a sheet, is written long: one row per cell with its codes and its value.

Every table cell is formatted alike, so nothing tells a sensitive cell apart
in a release.  An internal workbook shades the sensitive cells and adds a
'Cells' sheet with each cell's status, original value, adjusted value and
difference.
"""

from __future__ import annotations

import dataclasses
import math
import re
from copy import copy
from pathlib import Path

import numpy as np
from openpyxl.styles import Alignment, Font
from openpyxl.workbook.workbook import Workbook
from openpyxl.worksheet.worksheet import Worksheet

from ctadesk.engine.structure import Dimension, TableStructure
from ctadesk.io.errors import FileFormatError
from ctadesk.io.excel.export import ExportOutcome, ExportReport, new_workbook, unique_title, write_side_sheets
from ctadesk.io.excel.source_sheet import SENSITIVE_FILL, SENSITIVE_NOTE
from ctadesk.io.excel.text import write_text

#: most sheets a table of three or more dimensions is spread over (else it is written long)
MAX_SLICE_SHEETS = 50
#: rows and columns of an Excel sheet
MAX_ROWS, MAX_COLUMNS = 1_048_576, 16_384
#: sheet row (1-based) of the column header; the table starts below it
_HEADER_ROW = 3
_INVALID_TITLE = re.compile(r"[\[\]:*?/\\]")

#: where each cell was written: cell index -> (sheet, row, column), 1-based
Places = dict[int, tuple[Worksheet, int, int]]


@dataclasses.dataclass(frozen=True)
class GridSheet:
    """One sheet of the default layout: `cells[r, c]` is the table cell shown at row r, column c.

    rows     the variable down the rows; columns the one across (None: a single 'Value' column)
    """

    title: str
    heading: str
    cells: np.ndarray
    rows: Dimension
    columns: Dimension | None


def grid_sheets(structure: TableStructure) -> list[GridSheet] | None:
    """The sheets of the default layout, or None when the table is to be written long."""
    dimensions = structure.dimensions
    n = structure.n_cells
    if len(dimensions) == 1:
        if n + _HEADER_ROW > MAX_ROWS:
            return None
        return [GridSheet("Table", dimensions[0].name, np.arange(n).reshape(n, 1), dimensions[0], None)]
    rows, columns = dimensions[-2:]
    leading = dimensions[:-2]
    n_slices = math.prod(d.size for d in leading)
    if n_slices > MAX_SLICE_SHEETS or rows.size + _HEADER_ROW > MAX_ROWS or columns.size + 1 > MAX_COLUMNS:
        return None
    heading = f"{rows.name} × {columns.name}"
    slices = np.arange(n).reshape(n_slices, rows.size, columns.size)
    if not leading:
        return [GridSheet("Table", heading, slices[0], rows, columns)]
    sheets = []
    for s, position in enumerate(np.ndindex(*(d.size for d in leading))):
        where = ", ".join(f"{d.name}={d.codes[k]}" for d, k in zip(leading, position))
        title = _INVALID_TITLE.sub("_", " ".join(d.codes[k] for d, k in zip(leading, position))) or "Table"
        sheets.append(GridSheet(title, f"{heading} at {where}", slices[s], rows, columns))
    return sheets


def export_table_workbook(target: str | Path, structure: TableStructure, original: np.ndarray,
                          adjusted: np.ndarray, sensitive: np.ndarray, *, internal: bool = False,
                          report: ExportReport | None = None) -> ExportOutcome:
    """Write the protected table in the default layout (see the module docstring).

    original, adjusted  cell values (C order of structure); sensitive: indices of the sensitive cells
    internal            shade the sensitive cells and add the 'Cells' sheet
    """
    target = Path(target)
    original, adjusted = np.asarray(original, float), np.asarray(adjusted, float)
    if not original.shape == adjusted.shape == (structure.n_cells,):
        raise FileFormatError(f"{adjusted.size} adjusted values for a table of {structure.n_cells} cells",
                              file=target)
    workbook = new_workbook()
    places = _write_table(workbook, structure, adjusted, target)
    if internal:
        sensitive = np.asarray(sensitive, np.int64)
        _shade(places, sensitive)
        _write_cells_sheet(workbook.create_sheet("Cells"), structure, original, adjusted, sensitive, target)
    outcome = ExportOutcome(target, internal)
    write_side_sheets(workbook, report or ExportReport(), outcome)
    workbook.save(target)
    return outcome


def _write_table(workbook: Workbook, structure: TableStructure, values: np.ndarray, target: Path) -> Places:
    """The table's sheets (grid, or one long sheet), every value cell formatted alike."""
    number_format = "#,##0" if np.all(values == np.round(values)) else "General"
    plans = grid_sheets(structure)
    if plans is None:
        _check_long(structure, target)
        return _write_long(workbook.create_sheet("Table"), structure, [("Value", values)], number_format)
    places: Places = {}
    for plan in plans:
        sheet = workbook.create_sheet(unique_title(workbook, plan.title))
        places.update(_write_grid(sheet, plan, values, number_format))
    return places


def _write_cells_sheet(sheet: Worksheet, structure: TableStructure, original: np.ndarray, adjusted: np.ndarray,
                       sensitive: np.ndarray, target: Path) -> None:
    """The internal 'Cells' sheet: per cell its codes, status, original, adjusted value and difference."""
    _check_long(structure, target)
    status = np.full(structure.n_cells, "safe", dtype=object)
    status[sensitive] = "sensitive"
    _write_long(sheet, structure, [("Status", status), ("Original", original), ("Adjusted", adjusted),
                                   ("Difference", adjusted - original)], "General")


def _check_long(structure: TableStructure, target: Path) -> None:
    if structure.n_cells + _HEADER_ROW > MAX_ROWS:
        raise FileFormatError(f"a table of {structure.n_cells:,} cells does not fit in a workbook "
                              f"({MAX_ROWS:,} rows a sheet); export it as CSV", file=target)


def _write_grid(sheet: Worksheet, plan: GridSheet, values: np.ndarray, number_format: str) -> Places:
    """One grid sheet: heading, column labels, row labels (indented by depth, totals bold), values."""
    write_text(sheet.cell(1, 1), plan.heading).font = Font(bold=True, size=12)
    write_text(sheet.cell(_HEADER_ROW, 1), plan.rows.name).font = Font(bold=True)
    column_codes = plan.columns.codes if plan.columns is not None else ("Value",)
    for j, code in enumerate(column_codes):
        cell = write_text(sheet.cell(_HEADER_ROW, j + 2), code)
        cell.font = Font(bold=True)
        cell.alignment = Alignment(horizontal="center")
    depth, leaf = plan.rows.depth, plan.rows.is_leaf
    places: Places = {}
    numbers = _numbers(values[plan.cells.reshape(-1)])
    width = plan.cells.shape[1]
    formatted = _Formatted(number_format)
    for i, code in enumerate(plan.rows.codes):
        row = _HEADER_ROW + 1 + i
        label = write_text(sheet.cell(row, 1), code)
        label.alignment = Alignment(indent=int(depth[i]))
        label.font = Font(bold=not leaf[i])
        for j, index in enumerate(plan.cells[i].tolist()):
            formatted(sheet.cell(row, j + 2, numbers[i * width + j]))
            places[index] = (sheet, row, j + 2)
    sheet.column_dimensions["A"].width = max(12, min(60, max(map(len, plan.rows.codes)) + 2 * int(depth.max()) + 2))
    sheet.freeze_panes = sheet.cell(_HEADER_ROW + 1, 2)
    return places


def _write_long(sheet: Worksheet, structure: TableStructure, columns: list[tuple[str, np.ndarray]],
                number_format: str) -> Places:
    """One row per cell: its code on every variable, then the given columns."""
    write_text(sheet.cell(1, 1), " × ".join(d.name for d in structure.dimensions)).font = Font(bold=True, size=12)
    names = [d.name for d in structure.dimensions] + [name for name, _ in columns]
    for c, name in enumerate(names, start=1):
        write_text(sheet.cell(_HEADER_ROW, c), name).font = Font(bold=True)
    coordinates = np.unravel_index(np.arange(structure.n_cells), structure.shape)
    first_value = len(structure.dimensions) + 1
    places: Places = {}
    numbers = [_numbers(values) for _, values in columns]
    codes = [[dimension.codes[k] for k in coordinates[d].tolist()] for d, dimension in enumerate(structure.dimensions)]
    formatted = _Formatted(number_format)
    for i in range(structure.n_cells):
        row = _HEADER_ROW + 1 + i
        for k, column_codes in enumerate(codes):
            write_text(sheet.cell(row, k + 1), column_codes[i])
        for c, column in enumerate(numbers, start=first_value):
            formatted(sheet.cell(row, c, column[i]))
        places[i] = (sheet, row, first_value)
    sheet.freeze_panes = sheet.cell(_HEADER_ROW + 1, 1)
    return places


class _Formatted:
    """Gives cells one number format: the first cell's style, copied to the others (what
    setting `number_format` on each does, without looking the format up per cell)."""

    def __init__(self, number_format: str) -> None:
        self.number_format = number_format
        self.style = None

    def __call__(self, cell) -> None:
        if self.style is not None:
            cell._style = copy(self.style)
        elif self.number_format != "General" or cell.has_style:  # General on a plain cell changes nothing
            cell.number_format = self.number_format
            self.style = copy(cell._style)


def _numbers(values: np.ndarray) -> list[object]:
    """`_number` of each value, whole numbers found at once."""
    values = np.asarray(values)
    if values.dtype.kind not in "biuf":
        return [_number(value) for value in values.tolist()]
    values = values.astype(float)
    cells = values.astype(object)
    whole = (values == np.round(values)) & (np.abs(values) < 2**53)
    cells[whole] = values[whole].astype(np.int64).astype(object)
    return cells.tolist()


def _number(value: object) -> object:
    """A cell value: whole floats as integers, texts as they are."""
    if isinstance(value, str):
        return value
    value = float(value)
    return int(value) if value.is_integer() and abs(value) < 2**53 else value


def _shade(places: Places, sensitive: np.ndarray) -> None:
    """Shade the sensitive cells and note what shading means on every sheet that has one."""
    noted = set()
    for i in sensitive.tolist():
        sheet, row, column = places[i]
        sheet.cell(row, column).fill = SENSITIVE_FILL
        noted.add(sheet)
    for sheet in noted:
        write_text(sheet.cell(sheet.max_row + 2, 1), SENSITIVE_NOTE).font = Font(italic=True)
