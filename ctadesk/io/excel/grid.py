"""Any table as a workbook in a clean default layout, for tables that did not come from Excel
(JJ, tau-argus, CSV, generated and tabulated tables).

A one-dimensional table is a column of labels and values; a two-dimensional one
has the first variable down the rows (codes indented by their depth in the
hierarchy, totals bold) and the second across the columns.  Beyond two
dimensions each combination of the leading variables gets a sheet of its own
(at most `MAX_SLICE_SHEETS`); a table with more slices, or too wide or long for
a sheet, is written long: one row per cell with its codes and its value.

Every table cell of a sheet is formatted alike (whole numbers grouped by
thousands when the sheet holds whole numbers only), so nothing tells a
sensitive cell apart in a release.  An internal workbook shades the sensitive cells and adds a
'Cells' sheet with each cell's status, original value, adjusted value and
difference.
"""

from __future__ import annotations

import dataclasses
import math
import re
from pathlib import Path

import numpy as np
from openpyxl.styles import Alignment, Font

from ctadesk.engine.table.structure import Dimension, TableStructure
from ctadesk.io.errors import FileFormatError
from ctadesk.io.excel.export import ExportOutcome, ExportReport, unique_title, write_side_sheets
from ctadesk.io.excel.source_sheet import SENSITIVE_NOTE
from ctadesk.io.excel.styles import SENSITIVE_FILL, CellFormat
from ctadesk.io.excel.writer import (
    FORMULA_STARTS,
    ColumnFormat,
    SheetWriter,
    WorkbookWriter,
    column_letters,
    column_rows,
    number_cells,
    number_texts,
    style_attributes,
)
from ctadesk.io.numbers import finite_values

#: most sheets a table of three or more dimensions is spread over (else it is written long)
MAX_SLICE_SHEETS = 50
#: rows and columns of an Excel sheet
MAX_ROWS, MAX_COLUMNS = 1_048_576, 16_384
#: sheet row (1-based) of the column header; the table starts below it
HEADER_ROW = 3
#: rows of a long sheet rendered at a time
_BLOCK = 65_536
_INVALID_TITLE = re.compile(r"[\[\]:*?/\\]")
_HEADING = CellFormat(font=Font(bold=True, size=12))
_BOLD = CellFormat(font=Font(bold=True))
_NOTE = CellFormat(font=Font(italic=True))


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
        if n + HEADER_ROW > MAX_ROWS:
            return None
        return [GridSheet("Table", dimensions[0].name, np.arange(n).reshape(n, 1), dimensions[0], None)]
    rows, columns = dimensions[-2:]
    leading = dimensions[:-2]
    n_slices = math.prod(d.size for d in leading)
    if n_slices > MAX_SLICE_SHEETS or rows.size + HEADER_ROW > MAX_ROWS or columns.size + 1 > MAX_COLUMNS:
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
                          report: ExportReport | None = None, decimals: int | None = None) -> ExportOutcome:
    """Write the protected table in the default layout (see the module docstring).

    original, adjusted  cell values (C order of structure); sensitive: indices of the sensitive cells
    internal            shade the sensitive cells and add the 'Cells' sheet
    decimals            the precision the table is published at: its values are written as the
                        decimal numbers they are at it (150597557.9, never 150597557.89999998) in
                        the number format that shows exactly that many decimals (published_format)
    """
    target = Path(target)
    cells = table_cells(target, structure, original, adjusted, sensitive, internal, decimals, "a table")
    with WorkbookWriter(target) as writer:
        write_table_sheets(writer, target, structure, cells)
        outcome = ExportOutcome(target, internal)
        write_side_sheets(writer, report or ExportReport(), outcome)
    return outcome


@dataclasses.dataclass(frozen=True)
class TableCells:
    """What the sheets of one table show: its original and adjusted values (the latter at the
    published precision), the shading of its sensitive cells (internal workbooks only, else None)
    and the number format of the precision (None: unrounded)."""

    original: np.ndarray
    adjusted: np.ndarray
    shaded: np.ndarray | None
    shown: str | None


def table_cells(target: Path, structure: TableStructure, original: np.ndarray, adjusted: np.ndarray,
                sensitive: np.ndarray, internal: bool, decimals: int | None, what: str) -> TableCells:
    """The values checked (finite, one per cell of ``what``, e.g. 'a table') and put at ``decimals``."""
    original = finite_values(original, "original values", target)
    adjusted = finite_values(adjusted, "adjusted values", target)
    if not original.shape == adjusted.shape == (structure.n_cells,):
        raise FileFormatError(f"{adjusted.size} adjusted values for {what} of {structure.n_cells} cells",
                              file=target)
    shown = None
    if decimals is not None:
        adjusted, shown = np.round(adjusted, decimals), published_format(decimals)
    shaded = None
    if internal:
        shaded = np.zeros(structure.n_cells, bool)
        shaded[np.asarray(sensitive, np.int64)] = True
    return TableCells(original, adjusted, shaded, shown)


def write_table_sheets(writer: WorkbookWriter, target: Path, structure: TableStructure, cells: TableCells,
                       title: str | None = None) -> None:
    """One table's sheets: its grid sheets (titled by the table's ``title`` when given), or one long
    sheet where no grid fits, and in an internal workbook the sheet of every cell's status,
    original, adjusted value and difference ('Cells', or '<title> cells')."""
    plans = grid_sheets(structure)
    if plans is None:
        _check_long(structure, target)
        _write_long(writer, title or "Table", structure, [("Value", cells.adjusted)], cells.shaded, cells.shown)
        plans = []
    for plan in plans:
        if title is not None:
            plan = dataclasses.replace(plan, title=title if len(plans) == 1 else f"{title} {plan.title}")
        _write_grid(writer, plan, cells.adjusted, cells.shaded, cells.shown)
    if cells.shaded is not None:
        _check_long(structure, target)
        status = np.where(cells.shaded, "sensitive", "safe")
        _write_long(writer, "Cells" if title is None else f"{title} cells", structure,
                    [("Status", status), ("Original", cells.original), ("Adjusted", cells.adjusted),
                     ("Difference", cells.adjusted - cells.original)], None, number_format="General")


def published_format(decimals: int) -> str:
    """The Excel number format of a table published at ``decimals``: thousands grouped, exactly
    that many decimals shown ("#,##0", "#,##0.00")."""
    return "#,##0" + ("." + "0" * decimals if decimals > 0 else "")


def _number_format(values: np.ndarray) -> str:
    """Whole numbers grouped by thousands; anything else as Excel shows it by default."""
    return "#,##0" if np.all(values == np.round(values)) else "General"


def _value_styles(writer: WorkbookWriter, values: np.ndarray, shaded: np.ndarray | None,
                  number_format: str | None = None) -> np.ndarray:
    """The style number of each value cell: one format for all, decided from the values of the
    sheet unless given, the sensitive cells of an internal workbook shaded."""
    look = CellFormat(number_format=number_format or _number_format(values))
    styles = np.full(values.size, writer.styles.add(look), np.int64)
    if shaded is not None:
        styles[shaded] = writer.styles.add(dataclasses.replace(look, fill=SENSITIVE_FILL))
    return styles


def _check_long(structure: TableStructure, target: Path) -> None:
    if structure.n_cells + HEADER_ROW > MAX_ROWS:
        raise FileFormatError(f"a table of {structure.n_cells:,} cells does not fit in a workbook "
                              f"({MAX_ROWS:,} rows a sheet); export it as CSV", file=target)


def _write_grid(writer: WorkbookWriter, plan: GridSheet, values: np.ndarray, shaded: np.ndarray | None,
                number_format: str | None = None) -> None:
    """One grid sheet: heading, column labels, row labels (indented by depth, totals bold), values."""
    depth, leaf = plan.rows.depth, plan.rows.is_leaf
    width = max(12, min(60, max(map(len, plan.rows.codes)) + 2 * int(depth.max()) + 2))
    sheet = writer.add_sheet(unique_title(writer.titles, plan.title), [ColumnFormat(0, 0, float(width))],
                             frozen=f"B{HEADER_ROW + 1}")
    column_codes = plan.columns.codes if plan.columns is not None else ("Value",)
    letters = column_letters(len(column_codes) + 1)
    heading = writer.styles.add(_HEADING)
    sheet.row(1, writer.cell("A1", plan.heading, heading))
    bold = writer.styles.add(_BOLD)
    centred = writer.styles.add(dataclasses.replace(_BOLD, alignment=Alignment(horizontal="center")))
    sheet.row(HEADER_ROW, writer.cell(f"A{HEADER_ROW}", plan.rows.name, bold) + "".join(
        writer.cell(f"{letters[j + 1]}{HEADER_ROW}", code, centred) for j, code in enumerate(column_codes)))
    cells = plan.cells.reshape(-1)
    texts = number_texts(values[cells])
    styles = style_attributes(_value_styles(writer, values[cells], None if shaded is None else shaded[cells],
                                            number_format))
    labels = {}
    n = plan.cells.shape[1]
    for i, code in enumerate(plan.rows.codes):
        row = HEADER_ROW + 1 + i
        key = (int(depth[i]), not leaf[i])
        if key not in labels:
            labels[key] = writer.styles.add(CellFormat(font=Font(bold=key[1]), alignment=Alignment(indent=key[0])))
        sheet.row(row, writer.cell(f"A{row}", code, labels[key])
                  + "".join(number_cells(letters[1:], row, texts[i * n:(i + 1) * n], styles[i * n:(i + 1) * n])))
    if shaded is not None and shaded[cells].any():
        _note(writer, sheet, HEADER_ROW + plan.rows.size + 2)


def _write_long(writer: WorkbookWriter, title: str, structure: TableStructure,
                columns: list[tuple[str, np.ndarray]], shaded: np.ndarray | None,
                number_format: str | None = None) -> None:
    """One row per cell: its code on every variable, then the given columns (the first of them
    shaded where `shaded`); rendered a block of rows at a time."""
    names = [d.name for d in structure.dimensions] + [name for name, _ in columns]
    letters = column_letters(len(names))
    sheet = writer.add_sheet(unique_title(writer.titles, title), frozen=f"A{HEADER_ROW + 1}")
    sheet.row(1, writer.cell("A1", " × ".join(d.name for d in structure.dimensions), writer.styles.add(_HEADING)))
    bold = writer.styles.add(_BOLD)
    sheet.row(HEADER_ROW, "".join(writer.cell(f"{letters[c]}{HEADER_ROW}", name, bold)
                                   for c, name in enumerate(names)))
    codes = [_TextColumn(writer, dimension.codes) for dimension in structure.dimensions]
    # per column: a number column's style numbers, or a text column's texts and each cell's position in them
    renders: list[np.ndarray | tuple[_TextColumn, np.ndarray]] = []
    for k, (_, column) in enumerate(columns):
        if column.dtype.kind in "biuf":
            renders.append(_value_styles(writer, column, shaded if k == 0 else None, number_format))
        else:
            kinds, positions = np.unique(column, return_inverse=True)
            renders.append((_TextColumn(writer, [str(kind) for kind in kinds]), positions))
    shared = [True] * len(codes) + [not isinstance(render, np.ndarray) for render in renders]
    for first in range(0, structure.n_cells, _BLOCK):
        cells = np.arange(first, min(first + _BLOCK, structure.n_cells))
        coordinates = np.unravel_index(cells, structure.shape)
        block_values = [column.numbers(at) for column, at in zip(codes, coordinates)]
        block_styles = [column.styles(at) for column, at in zip(codes, coordinates)]
        for (_, column), render in zip(columns, renders):
            if isinstance(render, np.ndarray):
                block_values.append(number_texts(column[cells]))
                block_styles.append(_uniform(style_attributes(render[cells])))
            else:
                text, positions = render
                block_values.append(text.numbers(positions[cells]))
                block_styles.append(text.styles(positions[cells]))
        sheet.rendered_rows(column_rows(HEADER_ROW + 1 + first, letters, block_values, block_styles, shared))
    if shaded is not None and shaded.any():
        _note(writer, sheet, HEADER_ROW + structure.n_cells + 2)


def _uniform(styles: list[str]) -> str | list[str]:
    """The style attribute of every cell when they are all alike (column_rows renders such a
    column faster), else each cell's."""
    return styles[0] if styles and styles.count(styles[0]) == len(styles) else styles


class _TextColumn:
    """Texts taken from a few codes: their shared-string numbers and style attributes (a quote
    prefix where Excel would take the text for a formula), by position in codes."""

    def __init__(self, writer: WorkbookWriter, codes) -> None:
        formula_like = [code.startswith(FORMULA_STARTS) for code in codes]
        quoted = writer.styles.quoted(0) if any(formula_like) else 0
        self._numbers = np.array([str(writer.string(code)) for code in codes], dtype=object)
        self._styles = np.array(style_attributes(np.array(formula_like, np.int64) * quoted), dtype=object)

    def numbers(self, positions: np.ndarray) -> list[str]:
        return self._numbers[positions].tolist()

    def styles(self, positions: np.ndarray) -> str | list[str]:
        return _uniform(self._styles[positions].tolist())


def _note(writer: WorkbookWriter, sheet: SheetWriter, row: int) -> None:
    """Say what shading means, below the table."""
    sheet.row(row, writer.cell(f"A{row}", SENSITIVE_NOTE, writer.styles.add(_NOTE)))
