"""Where a table sits on a sheet, detected the way people lay tables out.

A sheet holds, top to bottom: title rows (one text in the label area), header
rows (column labels; several rows make hierarchical columns, merged cells span
their group), then the body: data rows (a label and numbers), heading rows (a
label and no numbers: a group name), blank spacer rows, and footnotes after
the last data row.  Label columns lie left of the first data column; several
of them, or indentation inside one, make hierarchical row labels.  Totals are
rows/columns whose label says so (Total, Totaal, Gesamt, ...).

`detect_layout` returns a `DetectedLayout` the user can inspect and correct
(every field is plain sheet row/column numbers, 0-based) before the table is
built from it.
"""

from __future__ import annotations

import dataclasses
import re

from ctadesk.io.excel.workbook import SheetGrid, coordinate
from ctadesk.io.numbers import ZERO_MARKS, parse_number, uses_decimal_comma

_TOTAL_WORDS = re.compile(
    r"^(grand\s+)?(sub)?(total|totals|totaal|totale|gesamt|insgesamt|summe|sum|all|ensemble|tot\.?)\b"
    r"|\b(total|totals|totaal|totale|gesamt|insgesamt|summe|sum)$", re.IGNORECASE)


def is_total_label(label: object) -> bool:
    """Does a label name a total ('Total', 'Total North', 'North total', 'Gesamt', 'All')?"""
    return isinstance(label, str) and bool(_TOTAL_WORDS.search(label.strip()))


@dataclasses.dataclass
class DetectedLayout:
    """A table's place on a sheet; 0-based sheet rows/columns; edit freely, then build.

    title_rows      rows above the table holding a title or notes
    header_rows     rows holding column labels, outermost first
    label_columns   columns holding row labels, outermost first
    data_rows       body rows holding numbers (one table row each)
    heading_rows    body rows holding only a group label (no cell of their own)
    data_columns    columns holding numbers (one table column each)
    total_rows      data rows that are totals of their group
    total_columns   data columns that are totals of their group
    decimal_comma   numbers stored as text use a decimal comma
    row_name        name of the row variable (the label-area header, or 'Rows')
    column_name     name of the column variable (or 'Columns')
    """

    sheet: str
    title_rows: list[int]
    header_rows: list[int]
    label_columns: list[int]
    data_rows: list[int]
    heading_rows: list[int]
    data_columns: list[int]
    total_rows: set[int]
    total_columns: set[int]
    decimal_comma: bool = False
    row_name: str = "Rows"
    column_name: str = "Columns"

    def describe(self) -> str:
        """A few lines saying what was found, in sheet coordinates, for the user to check."""
        def rows(items):
            return ", ".join(str(r + 1) for r in sorted(items)) or "none"

        def cols(items):
            return ", ".join(coordinate(0, c)[:-1] for c in sorted(items)) or "none"

        return "\n".join([
            f"sheet '{self.sheet}'",
            f"title rows: {rows(self.title_rows)}",
            f"header rows: {rows(self.header_rows)}",
            f"label columns: {cols(self.label_columns)}",
            f"data rows: {rows(self.data_rows)} (totals: {rows(self.total_rows)})",
            f"group headings: {rows(self.heading_rows)}",
            f"data columns: {cols(self.data_columns)} (totals: {cols(self.total_columns)})",
            f"numbers use a decimal {'comma' if self.decimal_comma else 'point'}",
        ])


def detect_layout(grid: SheetGrid) -> DetectedLayout:
    """Find title, header, label and data areas and the totals of a sheet."""
    n_rows, n_columns = grid.n_rows, grid.n_columns
    texts = [v for row in grid.values for v in row if isinstance(v, str)]
    decimal_comma = uses_decimal_comma(texts)
    number = [[parse_number(v, decimal_comma) is not None for v in row] for row in grid.values]
    filled = [[_filled(v) for v in row] for row in grid.values]

    first_data_column = _first_data_column(grid, number, filled)
    if first_data_column is None:
        raise grid.error("no column of numbers found; is this a table?")
    label_columns = [c for c in range(first_data_column)
                     if any(filled[r][c] and not number[r][c] for r in range(n_rows))]

    def in_labels(r: int) -> bool:
        return any(filled[r][c] for c in label_columns)

    def in_data(r: int) -> list[int]:
        return [c for c in range(first_data_column, n_columns) if filled[r][c]]

    title_rows, header_rows, body_rows = [], [], []
    for r in range(n_rows):
        data_cells = in_data(r)
        if not data_cells and not in_labels(r):
            if any(filled[r]):
                title_rows.append(r)
            continue
        if body_rows:
            body_rows.append(r)
            continue
        label_only = in_labels(r) and not data_cells
        single = sum(filled[r]) == 1
        if not header_rows and (label_only and single or _is_title_merge(grid, r, first_data_column)):
            title_rows.append(r)
        elif not header_rows or (data_cells and not all(number[r][c] for c in data_cells)):
            header_rows.append(r)
        elif label_only and header_rows:
            body_rows.append(r)
        elif not in_labels(r) and all(number[r][c] for c in data_cells) and _all_year_like(grid, r, data_cells):
            header_rows.append(r)
        else:
            body_rows.append(r)
    if not header_rows:
        raise grid.error("no header row (column labels) found above the numbers")

    data_rows = [r for r in body_rows if any(number[r][c] or _zero_mark(grid.values[r][c])
                                             for c in range(first_data_column, n_columns))]
    if not data_rows:
        raise grid.error("no row of numbers found below the header")
    last, data_set = data_rows[-1], set(data_rows)
    heading_rows = [r for r in body_rows if r not in data_set and r < last and in_labels(r)]
    data_columns = [c for c in range(first_data_column, n_columns)
                    if any(filled[r][c] for r in data_rows)
                    and (any(_filled(grid.merged_value(h, c)) for h in header_rows)
                         or 2 * sum(number[r][c] for r in data_rows) >= len(data_rows))]
    total_rows = {r for r in data_rows if is_total_label(_row_label(grid, r, label_columns))}
    total_columns = {c for c in data_columns if is_total_label(_column_label(grid, c, header_rows))}
    row_name = next((str(grid.merged_value(r, c)).strip() for r in header_rows for c in label_columns
                     if filled[r][c]), "Rows")
    return DetectedLayout(grid.sheet, title_rows, header_rows, label_columns, data_rows, heading_rows,
                          data_columns, total_rows, total_columns, decimal_comma, row_name, "Columns")


def _filled(value: object) -> bool:
    return value is not None and not (isinstance(value, str) and not value.strip())


def _zero_mark(value: object) -> bool:
    return isinstance(value, str) and value.strip() in ZERO_MARKS


def _first_data_column(grid: SheetGrid, number, filled) -> int | None:
    """Leftmost column with at least two numbers making up most of its filled cells.

    Cells that hold real numbers count first: codes written as text ('1', '01')
    make label columns, and numbers stored as text are a minority among data.
    Only in a sheet without real numbers do numbers written as text count.
    """
    real = [[isinstance(v, (int, float)) and not isinstance(v, bool) for v in row] for row in grid.values]
    has_real = any(any(row) for row in real)
    for c in range(grid.n_columns):
        numbers = sum((real if has_real else number)[r][c] for r in range(grid.n_rows))
        cells = sum(filled[r][c] for r in range(grid.n_rows))
        if numbers >= 2 and numbers * 2 >= cells:
            return c
    return None


def _is_title_merge(grid: SheetGrid, r: int, first_data_column: int) -> bool:
    """A row whose only content is one merged cell starting in the label area."""
    filled = [c for c in range(grid.n_columns) if _filled(grid.values[r][c])]
    return (len(filled) == 1 and filled[0] < first_data_column
            and any(r0 == r and c0 == filled[0] for r0, c0, _, _ in grid.merged))


def _all_year_like(grid: SheetGrid, r: int, columns: list[int]) -> bool:
    values = [parse_number(grid.values[r][c]) for c in columns]
    return all(v is not None and v.is_integer() and 1800 <= v <= 2200 for v in values)


def _row_label(grid: SheetGrid, r: int, label_columns: list[int]) -> object:
    """The innermost label written on row r."""
    labels = [grid.merged_value(r, c) for c in label_columns if _filled(grid.merged_value(r, c))]
    return labels[-1] if labels else None


def _column_label(grid: SheetGrid, c: int, header_rows: list[int]) -> object:
    """The innermost label written above column c."""
    labels = [grid.merged_value(r, c) for r in header_rows if _filled(grid.merged_value(r, c))]
    return labels[-1] if labels else None
