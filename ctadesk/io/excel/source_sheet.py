"""Copying a table's source sheet into a release or an internal workbook, cell by cell.

The sheet is rebuilt, never copied whole: titles, headers and labels with their
fonts, fills, borders, alignment, number formats, merged ranges, column widths
and row heights; the table's cells get the values written.

In a **release** nothing may tell the sensitive cells apart or carry an
original value:

* the table's labels (header rows over the table's columns, label columns
  beside its rows) are copied as plain values;
* every other cell is copied as plain text only when it is neither a formula
  (its saved result may be an original: ``=D5``, ``="Largest: "&MAX(...)``)
  nor a stray number, and mentions no original figure (`OriginalFigures`);
  otherwise it is dropped and the report says where and why;
* a non-sensitive table cell keeps its own style; a sensitive one takes its
  row's style when that row is styled apart from the table (a bold total row),
  else its column's: the most common style among the non-sensitive cells
  there, so a mark the source put on a sensitive cell (a fill, a number
  format) does not travel;
* comments, hyperlinks, conditional formats, data validations and pictures
  are never copied.

An **internal** workbook keeps every value (formulas as their saved results),
each cell's own style, and shades the sensitive cells with a note.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterator
from copy import copy

import numpy as np
from openpyxl.cell.cell import Cell
from openpyxl.styles import Font, PatternFill
from openpyxl.worksheet.worksheet import Worksheet

from ctadesk.io.excel.figures import OriginalFigures
from ctadesk.io.excel.table import ExcelTable
from ctadesk.io.excel.text import write_text

#: fill of the sensitive cells in an internal workbook
SENSITIVE_FILL = PatternFill("solid", start_color="FFF8CBAD", end_color="FFF8CBAD")
SENSITIVE_NOTE = "Shaded cells were sensitive; their values were adjusted to protect confidentiality."


@dataclasses.dataclass(frozen=True)
class Dropped:
    """Something of the source left out of a workbook: where it was and why."""

    where: str
    why: str

    def __str__(self) -> str:
        return f"{self.where}: {self.why}"


@dataclasses.dataclass(frozen=True)
class SheetSource:
    """A table with both readings of its sheet: saved results (`values`) and formulas."""

    table: ExcelTable
    values: Worksheet
    formulas: Worksheet


def copy_sheet(source: SheetSource, sheet: Worksheet, cell_values: np.ndarray, sensitive: np.ndarray, *,
               release: bool, figures: OriginalFigures) -> list[Dropped]:
    """Rebuild `source`'s sheet on `sheet` with `cell_values` (C order) in the table's cells,
    as a release or (release=False) an internal copy; returns what was left out."""
    table = source.table
    guard = figures if release else None
    inside = _copy_merges(source.values, sheet)
    data = set(_data_positions(table))
    labels = _label_positions(table)
    dropped = _sheet_extras(source.values, table.sheet) if release else []
    for cell, formula in _cell_pairs(source):
        position = (cell.row - 1, cell.column - 1)
        if position in data:
            continue
        target = sheet.cell(cell.row, cell.column)
        dropped += _copy_style(cell, target, guard)
        reason = None if position in inside else _copy_value(cell, formula, target, position in labels, guard)
        if reason:
            dropped.append(Dropped(f"{table.sheet}!{cell.coordinate}", reason))
    _write_table(sheet, table, cell_values, _release_styles(source, sensitive) if release else _own_styles(source))
    if not release and len(sensitive):
        _shade(sheet, table, sensitive, note_row=max(source.values.max_row, max(table.rows) + 1) + 2)
    _copy_dimensions(source.values, sheet)
    return dropped


# ----------------------------------------------------------------- cells
def _cell_pairs(source: SheetSource) -> Iterator[tuple[Cell, Cell]]:
    """Every cell of the sheet with its formula reading (same coordinates)."""
    for row in source.values.iter_rows():
        for cell in row:
            yield cell, source.formulas.cell(cell.row, cell.column)


def _data_positions(table: ExcelTable) -> list[tuple[int, int]]:
    """Sheet (row, column) of each table cell, C order."""
    return [(r, c) for r in table.rows for c in table.columns]


def _label_positions(table: ExcelTable) -> set[tuple[int, int]]:
    """The table's own labels: header rows over its columns, label columns beside its rows."""
    layout = table.layout
    columns = set(layout.label_columns) | set(table.columns)
    rows = set(layout.header_rows) | set(layout.data_rows) | set(layout.heading_rows)
    return ({(r, c) for r in layout.header_rows for c in columns}
            | {(r, c) for r in rows for c in layout.label_columns})


def _copy_value(cell: Cell, formula: Cell, target: Cell, is_label: bool,
                figures: OriginalFigures | None) -> str | None:
    """Copy a cell outside the table as a plain value (a formula as its saved result);
    in a release (figures given) returns why it was left out instead, if it may not go."""
    if figures is not None and not is_label:
        reason = _release_refusal(cell.value, formula.data_type == "f", figures)
        if reason:
            return reason
    if isinstance(cell.value, str):
        write_text(target, cell.value)
    elif cell.value is not None:
        target.value = cell.value
    return None


def _release_refusal(value: object, is_formula: bool, figures: OriginalFigures) -> str | None:
    """Why a cell outside the table and its labels may not go into a release (None: it may)."""
    if is_formula:
        return "formula (its saved result may hold an original value; a release holds plain values only)"
    if value is None:
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return "number outside the table (it may be derived from original values)"
    shown = figures.found_in(str(value))
    if shown is not None:
        return f"text showing {shown:g}, the original value of a sensitive cell"
    return None


def _sheet_extras(sheet: Worksheet, name: str) -> list[Dropped]:
    """Sheet-level things a release never carries, when the sheet has them."""
    pictures = len(getattr(sheet, "_images", ())) + len(getattr(sheet, "_charts", ()))
    extras = [(len(sheet.conditional_formatting), "conditional formatting (it may single out cells)"),
              (len(sheet.data_validations.dataValidation), "data validation rules"),
              (pictures, "pictures and charts")]
    dropped = [Dropped(f"sheet '{name}'", why) for count, why in extras if count]
    for row in sheet.iter_rows():
        for cell in row:
            if cell.comment is not None:
                dropped.append(Dropped(f"{name}!{cell.coordinate}", "comment (comments are never released)"))
            if cell.hyperlink is not None:
                dropped.append(Dropped(f"{name}!{cell.coordinate}", "hyperlink (links are never released)"))
    return dropped


# ---------------------------------------------------------------- styles
def _copy_style(cell: Cell, target: Cell, figures: OriginalFigures | None) -> list[Dropped]:
    """Copy a cell's formatting; in a release, a number format that spells out an original is reset."""
    if not cell.has_style:
        return []
    target.font = copy(cell.font)
    target.border = copy(cell.border)
    target.fill = copy(cell.fill)
    target.protection = copy(cell.protection)
    target.alignment = copy(cell.alignment)
    target.number_format = cell.number_format
    if figures is not None and figures.found_in(cell.number_format) is not None:
        target.number_format = "General"
        return [Dropped(f"{cell.parent.title}!{cell.coordinate}",
                        "number format showing an original value (reset to General)")]
    return []


def _own_styles(source: SheetSource) -> list[Cell]:
    """Each table cell formatted as in the source."""
    return [source.values.cell(r + 1, c + 1) for r, c in _data_positions(source.table)]


def _release_styles(source: SheetSource, sensitive: np.ndarray) -> list[Cell]:
    """The cell whose formatting each table cell takes in a release (see the module docstring)."""
    cells = _own_styles(source)
    shape = (len(source.table.rows), len(source.table.columns))
    keys = np.array([_style_key(cell) for cell in cells], np.int64).reshape(shape)
    safe = np.ones(keys.size, bool)
    safe[np.asarray(sensitive, np.int64)] = False
    safe = safe.reshape(shape)
    overall = _most_common(keys[safe] if safe.any() else keys.ravel())
    by_row = [_most_common(keys[i][safe[i]]) for i in range(shape[0])]
    by_column = [_most_common(keys[:, j][safe[:, j]]) for j in range(shape[1])]
    example: dict[int, Cell] = {}
    for key, cell in zip(keys.ravel().tolist(), cells):
        example.setdefault(key, cell)
    chosen = []
    for (i, j), cell in zip(np.ndindex(*shape), cells):
        if safe[i, j]:
            chosen.append(cell)
        elif by_row[i] is not None and by_row[i] != overall:
            chosen.append(example[by_row[i]])
        else:
            chosen.append(example[overall if by_column[j] is None else by_column[j]])
    return chosen


def _style_key(cell: Cell) -> int:
    """The workbook's number for a cell's formatting (equal numbers look the same)."""
    return cell.style_id if cell.has_style else 0


def _most_common(keys: np.ndarray) -> int | None:
    """The most frequent key (the first seen of equals), None when there are none."""
    counts = Counter(keys.tolist())
    return counts.most_common(1)[0][0] if counts else None


def _write_table(sheet: Worksheet, table: ExcelTable, cell_values: np.ndarray, styles: list[Cell]) -> None:
    """The table's values, each formatted like its style cell."""
    grid = np.asarray(cell_values, float).reshape(-1)
    for k, ((r, c), style) in enumerate(zip(_data_positions(table), styles, strict=True)):
        target = sheet.cell(r + 1, c + 1)
        value = float(grid[k])
        target.value = int(value) if value.is_integer() and abs(value) < 2**53 else value
        if style.has_style:
            target.font = copy(style.font)
            target.border = copy(style.border)
            target.fill = copy(style.fill)
            target.protection = copy(style.protection)
            target.alignment = copy(style.alignment)
            target.number_format = style.number_format


def _shade(sheet: Worksheet, table: ExcelTable, sensitive: np.ndarray, note_row: int) -> None:
    """Mark the sensitive cells (internal workbooks) and say what the shading means."""
    positions = _data_positions(table)
    for i in np.asarray(sensitive, np.int64).tolist():
        r, c = positions[i]
        sheet.cell(r + 1, c + 1).fill = copy(SENSITIVE_FILL)
    write_text(sheet.cell(note_row, 1), SENSITIVE_NOTE).font = Font(italic=True)


# ---------------------------------------------------------------- layout
def _copy_merges(source: Worksheet, sheet: Worksheet) -> set[tuple[int, int]]:
    """Merge the same ranges; returns the covered cells (all but each range's first)."""
    inside = set()
    for merged in source.merged_cells.ranges:
        sheet.merge_cells(str(merged))
        for r in range(merged.min_row, merged.max_row + 1):
            for c in range(merged.min_col, merged.max_col + 1):
                if (r, c) != (merged.min_row, merged.min_col):
                    inside.add((r - 1, c - 1))
    return inside


def _copy_dimensions(source: Worksheet, sheet: Worksheet) -> None:
    """Column widths (and hidden columns), row heights and frozen panes."""
    for key, dimension in source.column_dimensions.items():
        sheet.column_dimensions[key].width = dimension.width
        sheet.column_dimensions[key].hidden = dimension.hidden
    for key, dimension in source.row_dimensions.items():
        if dimension.height is not None:
            sheet.row_dimensions[key].height = dimension.height
    sheet.freeze_panes = source.freeze_panes
