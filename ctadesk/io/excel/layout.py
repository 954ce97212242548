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

import numpy as np

from ctadesk.io.excel.workbook import KINDS, SheetGrid, coordinate
from ctadesk.io.numbers import Kind, is_bare_integer, is_footnote_flag, number_style, parse_number

#: codes that name a total by themselves, in the languages of European statistical offices
#: (compared case-insensitively; a long CSV's total code is one of them)
TOTAL_CODES = ("Total", "Totals", "Grand total", "Total general", "Totaal", "Totale", "Gesamt", "Insgesamt",
               "Summe", "Ensemble", "Tous", "Tutti", "All", "Alle", "Kaikki", "Yhteensä", "Totalt", "Razem",
               "Celkem", "Összesen", "Tot", "_T", "_Z_T")
_TOTAL_WORDS = re.compile(
    r"^(grand\s+)?(sub)?(total|totals|totaal|totale|gesamt|insgesamt|summe|sum|all|alle|ensemble|tous|tutti|"
    r"kaikki|yhteensä|totalt|razem|celkem|összesen|tot\.?)\b"
    r"|\b(total|totals|totaal|totale|gesamt|insgesamt|summe|sum|yhteensä|totalt|razem|celkem|összesen)$",
    re.IGNORECASE)
_TOTAL_CODE_SET = frozenset(code.casefold() for code in TOTAL_CODES)
#: labels of a year's total among its quarters or months ('Year' under '2023')
_YEAR_TOTALS = re.compile(r"^(year|annual|full\s+year|whole\s+year|year\s+total|annual\s+total|jahr|"
                          r"jahressumme|ann[ée]e|jaar|jaartotaal|anno|fy)$", re.IGNORECASE)
_TOTAL_CODES = frozenset({"_T", "_Z_T", "TOT", "TOTAL"})
#: headers of flag columns (Eurostat-style tables give each value column one)
_FLAG_HEADERS = re.compile(r"^(flags?|notes?|fn|footnotes?|fu(ss|ß)noten?|status|obs_status|[*])$", re.IGNORECASE)
_EMPTY, _NUMBER, _ZERO, _UNKNOWN, _TEXT = (KINDS.index(kind) for kind in
                                           (Kind.EMPTY, Kind.NUMBER, Kind.ZERO, Kind.UNKNOWN, Kind.TEXT))


def is_total_code(code: str) -> bool:
    """Is a code by itself the code of a total (one of TOTAL_CODES, in any case)?"""
    return " ".join(code.split()).casefold() in _TOTAL_CODE_SET


def is_total_label(label: object) -> bool:
    """Does a label name a total ('Total', 'Total North', 'North total', 'Gesamt', 'All', a year's
    'Year' or 'Annual', the code '_T')?"""
    if not isinstance(label, str):
        return False
    text = label.strip()
    return bool(_TOTAL_WORDS.search(text) or _YEAR_TOTALS.match(text)) or text.upper() in _TOTAL_CODES


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
    decimal_comma   numbers stored as text use a decimal comma (None: the numbers
                    do not tell; a table needing it is refused until it is set)
    row_name        name of the row variable (the label-area header, or 'Rows')
    column_name     name of the column variable (or 'Columns')
    code_columns    label columns holding codes of the names in the label column
                    right of them (code and name make one label; the codes may
                    give the hierarchy)
    flag_columns    columns of footnote flags ('e', 'p') beside data columns, left out
    hidden_rows     rows the workbook hides, left out of the table
    hidden_columns  columns the workbook hides, left out of the table
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
    decimal_comma: bool | None = False
    row_name: str = "Rows"
    column_name: str = "Columns"
    code_columns: list[int] = dataclasses.field(default_factory=list)
    flag_columns: list[int] = dataclasses.field(default_factory=list)
    hidden_rows: list[int] = dataclasses.field(default_factory=list)
    hidden_columns: list[int] = dataclasses.field(default_factory=list)

    def describe(self) -> str:
        """A few lines saying what was found, in sheet coordinates, for the user to check; rows
        in a run of three or more as "6-16" (a sheet of 20,000 records has one run)."""
        def rows(items):
            ordered = sorted(items)
            starts = [k for k, r in enumerate(ordered) if k == 0 or ordered[k - 1] != r - 1]
            runs = [ordered[a:b] for a, b in zip(starts, [*starts[1:], len(ordered)])]
            return ", ".join(f"{run[0] + 1}-{run[-1] + 1}" if len(run) > 2 else ", ".join(str(r + 1) for r in run)
                             for run in runs) or "none"

        def cols(items):
            return ", ".join(coordinate(0, c)[:-1] for c in sorted(items)) or "none"

        mark = {True: "a decimal comma", False: "a decimal point", None: "an undecided decimal mark: choose one"}
        lines = [
            f"sheet '{self.sheet}'",
            f"title rows: {rows(self.title_rows)}",
            f"header rows: {rows(self.header_rows)}",
            f"label columns: {cols(self.label_columns)}",
            f"data rows: {rows(self.data_rows)} (totals: {rows(self.total_rows)})",
            f"group headings: {rows(self.heading_rows)}",
            f"data columns: {cols(self.data_columns)} (totals: {cols(self.total_columns)})",
            f"numbers use {mark[self.decimal_comma]}",
        ]
        if self.code_columns:
            lines.append(f"code columns: {cols(self.code_columns)} (codes of the names right of them)")
        if self.flag_columns:
            lines.append(f"flag columns (left out): {cols(self.flag_columns)}")
        if self.hidden_rows:
            lines.append(f"hidden rows (left out): {rows(self.hidden_rows)}")
        if self.hidden_columns:
            lines.append(f"hidden columns (left out): {cols(self.hidden_columns)}")
        return "\n".join(lines)


@dataclasses.dataclass(frozen=True)
class _Cells:
    """Each cell of a sheet classified once, as arrays [row, column].

    kinds   what the cell holds, numbered as in KINDS (hidden rows and columns left out
            read as empty; formulas ctadesk cannot compute as numbers)
    counts  the cell counts as a number when looking for the data columns: numbers
            stored as numbers, formulas, and number texts other than bare integers
            ('01' is a code as often as a number) unless the sheet has no numbers
            stored as numbers (a CSV file) or the column holds other numbers
    """

    kinds: np.ndarray
    counts: np.ndarray

    @property
    def filled(self) -> np.ndarray:
        return self.kinds != _EMPTY

    @property
    def datum(self) -> np.ndarray:
        return np.isin(self.kinds, (_NUMBER, _ZERO, _UNKNOWN))

    @property
    def marks(self) -> np.ndarray:
        return np.isin(self.kinds, (_ZERO, _UNKNOWN))


def _classify(grid: SheetGrid, hidden_rows: list[int], hidden_columns: list[int]) -> _Cells:
    """The cells of grid classified (see _Cells)."""
    kinds = grid.kinds.kinds.copy()
    for r, c in grid.unreadable:
        kinds[r, c] = _NUMBER
    kinds[hidden_rows, :] = _EMPTY
    kinds[:, hidden_columns] = _EMPTY
    number = kinds == _NUMBER
    strong = number.copy()
    for r, c in np.argwhere(number & grid.kinds.texts).tolist():
        strong[r, c] = not is_bare_integer(grid.values[r][c])
    stored = bool(np.isfinite(grid.kinds.numbers).any())
    counts = strong | (number & (strong.any(axis=0)[None, :] if stored else True))
    return _Cells(kinds, counts)


def detect_layout(grid: SheetGrid, *, decimal_comma: bool | None = None, include_hidden: bool = False,
                  comma_likely: bool = False) -> DetectedLayout:
    """Find title, header, label and data areas and the totals of a sheet.

    decimal_comma   the decimal mark of numbers written as text (None: decided from
                    the data cells, see ctadesk.io.numbers.number_style)
    include_hidden  read hidden rows and columns as part of the table
    comma_likely    a mark that could be either is a decimal comma (a semicolon CSV)
    """
    hidden_rows, hidden_columns = ([], []) if include_hidden else _hidden(grid)
    cells = _classify(grid, hidden_rows, hidden_columns)
    first_data_column = _first_data_column(cells)
    if first_data_column is None:
        raise grid.error("no column of numbers found; is this a table?")
    labelled = (cells.filled & (cells.kinds != _NUMBER))[:, :first_data_column].any(axis=0)
    label_columns = np.flatnonzero(labelled).tolist()
    title_rows, header_rows, body_rows = _split_rows(grid, cells, label_columns, first_data_column)
    if not header_rows:
        raise grid.error("no header row (column labels) found above the numbers")
    with_data = np.any(cells.datum[:, first_data_column:], axis=1)
    data_rows = [r for r in body_rows if with_data[r]]
    if not data_rows:
        raise grid.error("no row of numbers found below the header")
    _one_table(grid, cells, first_data_column, title_rows + header_rows, data_rows, body_rows)
    last, data_set = data_rows[-1], set(data_rows)
    in_labels = np.any(cells.filled[:, label_columns], axis=1)
    heading_rows = [r for r in body_rows if r not in data_set and r < last and in_labels[r]]
    flag_columns = _flag_columns(grid, cells, first_data_column, data_rows, header_rows)
    data_columns = _data_columns(grid, cells, first_data_column, flag_columns, data_rows, header_rows)
    total_rows = {r for r in data_rows if is_total_label(_row_label(grid, r, label_columns))}
    total_columns = {c for c in data_columns if is_total_label(_column_label(grid, c, header_rows))}
    code_columns = _code_columns(grid, label_columns, data_rows, heading_rows, total_rows)
    total_rows |= {r for r in data_rows for c in code_columns if is_total_label(grid.merged_value(r, c))}
    if decimal_comma is None:
        decimal_comma = number_style(text_cells(grid, data_rows, data_columns), comma_likely)[0]
    names = [c for c in label_columns if c not in code_columns]
    row_name = next((str(grid.merged_value(r, c)).strip() for r in header_rows for c in names
                     if _filled(grid.merged_value(r, c))), "Rows")
    return DetectedLayout(grid.sheet, title_rows, header_rows, label_columns, data_rows, heading_rows,
                          data_columns, total_rows, total_columns, decimal_comma, row_name, "Columns",
                          code_columns, flag_columns, hidden_rows, hidden_columns)


def _one_table(grid: SheetGrid, cells: _Cells, first_data_column: int, top: list[int], data_rows: list[int],
               body_rows: list[int]) -> None:
    """Refuse a sheet holding a second table below the first: a row below data rows whose cells
    right of the labels are two or more texts and no number is a second header (a heading names a
    group in the label columns only).  The message names the sheet and each table's rows."""
    texts = (cells.filled & ~cells.datum)[:, first_data_column:].sum(axis=1)
    numbers = np.any(cells.datum[:, first_data_column:], axis=1)
    header = next((r for r in body_rows if r > data_rows[0] and texts[r] >= 2 and not numbers[r]), None)
    if header is None:
        return
    first = [r for r in data_rows if r < header]
    second = [r for r in data_rows if r > header]
    if not second:
        return
    start = header
    while start - 1 > first[-1] and cells.filled[start - 1].any():  # its title lines just above
        start -= 1
    raise grid.error(f"sheet '{grid.sheet}' holds two tables, rows {min(top) + 1}-{first[-1] + 1} and rows "
                     f"{start + 1}-{second[-1] + 1} (its header on row {header + 1}); ctadesk reads one table "
                     "per sheet: put each table on a sheet of its own (sheets can be linked)",
                     header, first_data_column)


def text_cells(grid: SheetGrid, rows: list[int], columns: list[int]) -> list[tuple[str, str]]:
    """(text, 'B7') of the cells in rows x columns holding text, row by row: the cells that decide
    the decimal mark (ctadesk.io.numbers.number_style); numbers stored as numbers do not."""
    held = grid.kinds.texts[np.ix_(rows, columns)]
    return [(str(grid.values[rows[i]][columns[j]]), coordinate(rows[i], columns[j]))
            for i, j in np.argwhere(held).tolist()]


def _hidden(grid: SheetGrid) -> tuple[list[int], list[int]]:
    """The hidden rows and columns of grid that hold something."""
    rows = sorted(r for r in grid.hidden_rows if any(map(_filled, grid.values[r])))
    columns = sorted(c for c in grid.hidden_columns if any(_filled(row[c]) for row in grid.values))
    return rows, columns


def _data_columns(grid: SheetGrid, cells: _Cells, first_data_column: int, flag_columns: list[int],
                  data_rows: list[int], header_rows: list[int]) -> list[int]:
    """The columns from first_data_column on (flag columns left out) holding something in the data
    rows, and a label above or numbers in most rows."""
    filled = np.any(cells.filled[data_rows], axis=0)
    numbers = (cells.kinds[data_rows] == _NUMBER).sum(axis=0)
    return [c for c in range(first_data_column, grid.n_columns)
            if c not in flag_columns and filled[c]
            and (2 * numbers[c] >= len(data_rows) or any(_filled(grid.merged_value(h, c)) for h in header_rows))]


def _split_rows(grid: SheetGrid, cells: _Cells, label_columns: list[int],
                first_data_column: int) -> tuple[list[int], list[int], list[int]]:
    """Title, header and body rows, top to bottom.  A flag or mark (':', 'c', '12 e') is a
    data cell, so a row of numbers and flags is never a header."""
    filled = cells.filled
    data_filled = filled[:, first_data_column:]
    with_data = np.any(data_filled, axis=1)
    in_labels = np.any(filled[:, label_columns], axis=1)
    with_anything = np.any(filled, axis=1)
    single = filled.sum(axis=1) == 1
    all_data = ~np.any(data_filled & ~cells.datum[:, first_data_column:], axis=1)
    title_rows: list[int] = []
    header_rows: list[int] = []
    body_rows: list[int] = []
    for r in range(grid.n_rows):
        if not with_data[r] and not in_labels[r]:
            if with_anything[r]:
                title_rows.append(r)
            continue
        if body_rows:
            body_rows.append(r)
            continue
        label_only = in_labels[r] and not with_data[r]
        if not header_rows and ((label_only and single[r]) or _is_title_merge(grid, r, first_data_column)):
            title_rows.append(r)
        elif not header_rows or (with_data[r] and not all_data[r]):
            header_rows.append(r)
        elif label_only:
            body_rows.append(r)
        elif not in_labels[r] and all_data[r] and _all_year_like(
                grid, r, (np.flatnonzero(data_filled[r]) + first_data_column).tolist()):
            header_rows.append(r)
        else:
            body_rows.append(r)
    return title_rows, header_rows, body_rows


def _filled(value: object) -> bool:
    return value is not None and not (isinstance(value, str) and not value.strip())


def _first_data_column(cells: _Cells) -> int | None:
    """Leftmost column with at least two numbers making up most of its filled cells (flags
    and marks count with the numbers), and no column of labels right of it.

    Codes written as digits ('01') count as numbers only in a sheet without numbers
    stored as numbers, or in a column holding other numbers; a code column beside
    a name column lies left of that name column, so it is never taken for data.
    """
    counts, marks = cells.counts, cells.marks
    numbers, marked = counts.sum(axis=0), marks.sum(axis=0)
    numeric = np.flatnonzero((numbers >= 2) & (2 * (numbers + marked) >= cells.filled.sum(axis=0))).tolist()
    if not numeric:
        return None
    with_numbers = counts.any(axis=1)
    texts = (cells.kinds[with_numbers] == _TEXT).sum(axis=0)
    others = counts[with_numbers].sum(axis=0) + marks[with_numbers].sum(axis=0)
    textual = np.flatnonzero((texts >= 2) & (texts > others))
    return next((c for c in numeric if c > max(textual.tolist(), default=-1)), numeric[0])


def _flag_columns(grid: SheetGrid, cells: _Cells, first_data_column: int, data_rows: list[int],
                  header_rows: list[int]) -> list[int]:
    """Columns right of a column of numbers holding only footnote flags ('e', 'p', '(b)') in the
    data rows, under no header of their own (empty, 'flag', or the value column's merged header)."""
    kinds = cells.kinds[data_rows]
    written = kinds != _EMPTY
    # a footnote flag alone is a mark of an unknown value, so only such columns can hold flags
    marks_only = written.any(axis=0) & ~(written & (kinds != _UNKNOWN)).any(axis=0)
    numbers = (kinds == _NUMBER).any(axis=0)
    flags = []
    for c in np.flatnonzero(marks_only).tolist():
        if c <= first_data_column or c - 1 in flags or not numbers[c - 1]:
            continue
        texts = [grid.values[r][c] for r, filled in zip(data_rows, written[:, c].tolist()) if filled]
        headers = [grid.values[h][c] for h in header_rows if _filled(grid.values[h][c])]
        if (all(is_footnote_flag(v) for v in texts)
                and all(isinstance(h, str) and _FLAG_HEADERS.match(h.strip()) for h in headers)):
            flags.append(c)
    return flags


def _code_columns(grid: SheetGrid, label_columns: list[int], data_rows: list[int], heading_rows: list[int],
                  total_rows: set[int]) -> list[int]:
    """Label columns holding a code for the name right of them: every row with a code has a
    name, only total rows and group headings lack a code, and the codes are all different
    single words ('01', 'A', 'DE1', '_T')."""
    body = sorted(data_rows + heading_rows)
    codes = []
    for c in label_columns:
        if c + 1 not in label_columns or c - 1 in codes:
            continue
        written = {r: str(grid.merged_value(r, c)).strip() for r in body if _filled(grid.merged_value(r, c))}
        named = {r for r in body if _filled(grid.merged_value(r, c + 1))}
        texts = list(written.values())
        if (len(written) >= 2 and set(written) <= named and len(set(texts)) == len(texts)
                and all(len(text.split()) == 1 for text in texts)
                and all(r in total_rows or r in heading_rows for r in named - set(written))):
            codes.append(c)
    return codes


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
