"""Tables in CSV files: long format (one line per cell: codes, then the value) and
wide format (row labels down the left, column labels across the top, as a sheet).

The delimiter (`;` `,` tab `|`) is detected unless given, from the first lines
(ctadesk.io.csv_dialect), the encoding by ctadesk.io.text (UTF-8, else cp1252).
The decimal mark is decided by the file's numbers (ctadesk.io.numbers.number_style):
a long file's by its value column, from its first lines, every later line held to
them (ctadesk.io.csv_dialect.decimal_mark: a value written with the other mark is
refused naming its line); a wide file's by its data cells.  A mark that could be
either ('1.234') is a decimal comma in a semicolon file, and where nothing decides
the file is refused naming a number, unless decimal_comma is given.  Numbers must be
finite; values are read as data cells are (ctadesk.io.numbers.read_cell:
'12 e' is 12, '-' is 0, ':' and 'x' are refused naming the line).  Wide files
go through the same layout detection as Excel sheets (ctadesk.io.excel), so
indented or multi-column row labels, code and name columns and several header
lines make hierarchies there too; a wide file read as long is refused, naming
a column that holds numbers instead of codes.  Written label text that starts
with =, +, - or @ is prefixed with an apostrophe so spreadsheets never run it.

A long file's total code is recognised in the languages offices write it in
(ctadesk.io.excel.layout.TOTAL_CODES: Total, Gesamt, Insgesamt, Totaal, Ensemble,
Totale, Yhteensä, Razem, Celkem, Összesen, All, ... in any case) unless the
caller names it; a long table with no relation at all (no total code in any
column, no hierarchy given) is refused naming the codes looked for, unless the
caller says the table has no totals (no_totals=True).
"""

from __future__ import annotations

import csv
import dataclasses
import functools
from collections.abc import Mapping, Sequence
from itertools import repeat
from operator import itemgetter
from pathlib import Path

import numpy as np

from ctadesk.engine.errors import ProblemError
from ctadesk.engine.table.structure import Dimension, TableStructure
from ctadesk.io.cells import CellLocator
from ctadesk.io.csv_dialect import (
    CsvDialect,
    decimal_mark,
    detect_delimiter,
    header_missing,
    plain_numbers,
    sample_lines,
    sample_text,
    sniff_dialect,
)
from ctadesk.io.errors import FileFormatError
from ctadesk.io.excel.layout import TOTAL_CODES, DetectedLayout, detect_layout, is_total_code
from ctadesk.io.excel.table import ExcelTable, build_table
from ctadesk.io.excel.workbook import SheetGrid, coordinate
from ctadesk.io.gc_pause import gc_paused
from ctadesk.io.numbers import Kind, finite_values, not_a_number, out_of_range, parse_number, read_cell, unknown_value
from ctadesk.io.table_or_microdata import grid_records, microdata_reason, not_a_table, refuse_records
from ctadesk.io.text import csv_records, decode_text, read_bytes, read_text, split_lines

MAX_BYTES = 512 * 1024 * 1024
#: how much of a file guess_csv_kind reads
GUESS_BYTES = 16 * 1024
_FORMULA_STARTS = ("=", "+", "-", "@")


def _text(path: Path) -> str:
    text = read_text(path, max_bytes=MAX_BYTES)
    if "\x00" in text[:4096]:
        raise FileFormatError("this is not a text (CSV) file", file=path)
    return text


@dataclasses.dataclass(frozen=True, eq=False)
class CsvRecords:
    """A CSV file parsed once: its records (a blank line too, as []) with the line each starts
    on, its delimiter, its first lines (sample_text: its dialect is detected from them) and how
    many lines they are (sample_lines).  The kind of a file opened without saying which and its
    table are both read from it, so a million-line file is parsed once."""

    path: Path
    records: list[tuple[int, list[str]]]
    delimiter: str
    sample: str
    first_lines: int

    @functools.cached_property
    def filled(self) -> list[tuple[int, list[str]]]:
        """The records with a field that is not blank."""
        return _filled(self.records)


def _filled(records: list[tuple[int, list[str]]]) -> list[tuple[int, list[str]]]:
    return [record for record in records if (row := record[1]) and (row[0].strip() or "".join(row).strip())]


@gc_paused()
def read_csv_records(path: str | Path, delimiter: str | None = None) -> CsvRecords:
    """The file parsed (the delimiter detected from its first lines unless given)."""
    path = Path(path)
    text = _text(path)
    try:
        delimiter = delimiter or detect_delimiter(text)
    except csv.Error as error:
        raise FileFormatError(f"cannot be read as CSV ({error})", file=path) from None
    return CsvRecords(path, csv_records(split_lines(text), delimiter, path), delimiter, sample_text(text),
                      sample_lines(text))


def _parsed(source: str | Path | CsvRecords, delimiter: str | None = None) -> CsvRecords:
    """source itself when it is the file parsed with that delimiter, else the file read."""
    if isinstance(source, CsvRecords) and delimiter in (None, source.delimiter):
        return source
    return read_csv_records(source.path if isinstance(source, CsvRecords) else source, delimiter)


def guess_csv_kind(path: str | Path) -> str:
    """'microdata' when the lines look like records of respondents (ctadesk.io.table_or_microdata),
    'long' when the last column holds numbers and first-column codes repeat (one line per cell),
    else 'wide' (row labels listed once) -- the answer a reader offers before asking, from the
    file's first GUESS_BYTES, a few hundred lines: the window asks while it waits, and the 20 000
    lines of sample_data/business_microdata.csv read whole took 100 ms.  A field counts as a
    number under either decimal mark when the file does not tell which it uses."""
    path = Path(path)
    head = read_bytes(path, MAX_BYTES)[:GUESS_BYTES + 1]
    if len(head) > GUESS_BYTES:     # whole lines only (a character is never cut either)
        head = head[:head.rfind(b"\n", 0, GUESS_BYTES) + 1] or head[:GUESS_BYTES]
    text = decode_text(head, None, file=path)
    try:
        dialect = sniff_dialect(text)
    except csv.Error as error:
        raise FileFormatError(f"cannot be read as CSV ({error})", file=path) from None
    records = csv_records(split_lines(text), dialect.delimiter, path)
    return _kind(records, _filled(records), dialect)[0]


@gc_paused()
def csv_kind(source: str | Path | CsvRecords) -> tuple[str, str | None]:
    """guess_csv_kind's answer from the whole file, and for 'microdata' why (naming a column and
    lines), else None."""
    parsed = _parsed(source)
    try:
        dialect = sniff_dialect(parsed.sample, parsed.delimiter)
    except csv.Error as error:
        raise FileFormatError(f"cannot be read as CSV ({error})", file=parsed.path) from None
    return _kind(parsed.records, parsed.filled, dialect)


def _kind(records: list[tuple[int, list[str]]], filled: list[tuple[int, list[str]]], dialect: CsvDialect
          ) -> tuple[str, str | None]:
    """csv_kind's answer from the records and those of them with a field not blank."""
    if len(records) < 2 or len(records[0][1]) < 2:
        return "wide", None
    header, body = records[0][1], filled[1:] if filled and filled[0] is records[0] else filled
    if not body:
        return "wide", None
    why = microdata_reason(header, body)
    if why is not None:
        return "microdata", why
    marks = (False, True) if dialect.decimal_comma is None else (dialect.decimal_comma,)
    last_numbers = all(any(parse_number(row[-1], mark) is not None for mark in marks) for _, row in body[:200])
    return ("long" if last_numbers and _repeats([row[0] for _, row in body]) else "wide"), None


def _repeats(codes: list[str]) -> bool:
    """Whether two of the codes are the same without their surrounding spaces."""
    distinct = set(codes)
    return len(distinct) < len(codes) or len({code.strip() for code in distinct}) < len(codes)


def csv_header(path: str | Path) -> list[str]:
    """The names in the first line of a CSV file (its delimiter detected)."""
    text = sample_text(_text(Path(path)))
    header = next(csv.reader(text.splitlines()[:1], delimiter=detect_delimiter(text)), [])
    return [h.strip() for h in header if h.strip()]


@dataclasses.dataclass(frozen=True, eq=False)
class LongTable:
    """A table read from a long CSV: structure, values (C order) and the line of each cell (0: absent)."""

    path: Path
    structure: TableStructure
    values: np.ndarray
    lines: np.ndarray
    dialect: CsvDialect
    messages: tuple[str, ...] = ()


@gc_paused()
def read_long_csv(source: str | Path | CsvRecords, dimensions: Sequence[str] | None = None, value: str | None = None,
                  hierarchies: Mapping[str, Dimension] | None = None, total: str | None = None,
                  delimiter: str | None = None, decimal_comma: bool | None = None, *,
                  no_totals: bool = False) -> LongTable:
    """A long-format table: a header line, then one line per cell.

    dimensions   code columns (default: every column left of the value column)
    value        the value column (default: the last column)
    hierarchies  a Dimension per code column that has one (else flat, codes in order of
                 appearance, under the code `total` when it occurs; None: the one code
                 of the column that names a total, TOTAL_CODES)
    no_totals    the table has no totals: read it without relations (else such a table
                 is refused, naming the codes looked for)
    Cells the file does not list are 0 and reported.
    """
    parsed = _parsed(source, delimiter)
    path, delimiter, first_lines = parsed.path, parsed.delimiter, parsed.first_lines
    records = parsed.filled
    if len(records) < 2:
        raise FileFormatError("expected a header line and at least one line of cells", file=path)
    (header_line, header), body = records[0], records[1:]
    _refuse_headless(path, header_line, [fields for line, fields in records if line <= first_lines])
    header = [h.strip() for h in header]
    value = value or header[-1]
    if value not in header:
        raise FileFormatError(f"no column '{value}' (columns: {', '.join(header)})", file=path, row=header_line)
    value_at = header.index(value)
    dimensions = list(dimensions) if dimensions is not None else header[:value_at]
    missing = [d for d in dimensions if d not in header]
    if missing:
        raise FileFormatError(f"no code column '{missing[0]}' (columns: {', '.join(header)})",
                              file=path, row=header_line)
    if not dimensions:
        raise FileFormatError(f"no code column left of the value column '{value}'", file=path, row=header_line)
    code_at = [header.index(d) for d in dimensions]
    rows = [row for _, row in body]
    if set(map(len, rows)) != {len(header)}:
        line, row = next((line, row) for line, row in body if len(row) != len(header))
        raise FileFormatError(f"{len(row)} fields, the header has {len(header)}", file=path, row=line)
    columns = [list(map(itemgetter(at), rows)) for at in code_at]      # each code column's texts
    _refuse_wide(path, header, columns, code_at)
    texts = list(map(itemgetter(value_at), rows))
    if decimal_comma is None:
        decimal_comma = decimal_mark(path, texts, [line for line, _ in body], first_lines, delimiter == ";")
    structure, messages = _long_structure(path, dimensions, columns, dict(hierarchies or {}), total)
    related = no_totals or bool(sum(structure.relation_counts()))
    records_why = None if related else microdata_reason(header, body)
    if records_why is not None:
        raise not_a_table(path, records_why)
    locator = CellLocator(structure, path)
    values = np.zeros(structure.n_cells)
    cells = _locate(locator, body, columns, code_at)
    numbers = plain_numbers(texts, decimal_comma)
    flagged = 0
    for k in np.flatnonzero(np.isnan(numbers)).tolist():     # grouped, flagged, marks: read one by one
        line, row = body[k]
        numbers[k], flag = _long_value(path, line, value, row[value_at], decimal_comma)
        flagged += bool(flag)
    values[cells] = numbers
    if flagged:
        messages.append(f"{flagged} value(s) carry a footnote flag ('12 e'); the numbers were read, the flags "
                        "left out")
    if not related:
        looked_for = f"'{total}'" if total is not None else ", ".join(TOTAL_CODES) + " (in any case)"
        raise FileFormatError(f"no total code found in {', '.join(dimensions)}, so the table has no relation to "
                              f"keep; looked for {looked_for}; name the total code, or say the table has no totals "
                              "(microdata, one record per respondent, are tabulated by 'ctadesk protect FILE --span "
                              "VAR ... --response VAR')", file=path)
    lines = locator.lines
    absent = int((lines == 0).sum())
    if absent:
        messages.append(f"{absent} cell(s) not in the file were taken as 0")
    return LongTable(path, structure, values, lines, CsvDialect(delimiter, decimal_comma), tuple(messages))


def _refuse_headless(path: Path, line: int, rows: list[list[str]]) -> None:
    """FileFormatError naming the first line when it reads as a line of cells, not the names of
    the columns (ctadesk.io.csv_dialect.header_missing): read as names, its cell would be lost."""
    if header_missing(rows):
        raise FileFormatError(f"the first line ({', '.join(f.strip() for f in rows[0])}) reads as a line of cells "
                              "like those below it (each field a code they use, or a number), not as the names of "
                              "the columns; a long CSV starts with a line naming them, such as region;size;value",
                              file=path, row=line)


def _locate(locator: CellLocator, body: list[tuple[int, list[str]]], columns: list[list[str]],
            code_at: list[int]) -> np.ndarray:
    """The cell of each line of body (its code columns' texts in columns), as locator.locate
    finds it (a code exactly, else without its surrounding spaces), each code column looked up
    at once and the cells listed twice found by numpy; a line refused (a code not in its
    hierarchy, a cell listed again) is found by locating the lines one by one, so the message
    names it as locate does."""
    index = np.empty((len(columns), len(body)), np.int64)
    for found, column, position in zip(index, columns, locator.positions):
        get = position.get
        found[:] = np.fromiter(map(get, column, repeat(-1)), np.int64, len(column))
        for k in np.flatnonzero(found < 0).tolist():
            found[k] = get(column[k].strip(), -1)
    cells = np.asarray(np.ravel_multi_index(index, locator.structure.shape, mode="clip"), np.int64)
    if (index < 0).any() or np.bincount(cells, minlength=locator.lines.size).max(initial=0) > 1:
        return np.array([locator.locate([row[at] for at in code_at], line) for line, row in body], np.int64)
    locator.lines[cells] = [line for line, _ in body]
    return cells


def _total_code(path: Path, name: str, codes: list[str], total: str | None) -> str | None:
    """The total code among a column's codes: `total` when given and present, else the one code
    naming a total (is_total_code); several such codes are refused naming them."""
    if total is not None:
        return total if total in codes else None
    found = [code for code in codes if is_total_code(code)]
    if len(found) > 1:
        raise FileFormatError(f"{name}: the codes {', '.join(repr(c) for c in found)} all name a total; "
                              "name the one that is the total of the others", file=path)
    return found[0] if found else None


def _long_structure(path: Path, dimensions: list[str], columns: list[list[str]],
                    hierarchies: dict[str, Dimension], total: str | None) -> tuple[TableStructure, list[str]]:
    """The structure of a long table (a given hierarchy, else the codes seen in its code
    columns' texts, without their surrounding spaces, in order of appearance) and notes on it."""
    messages = []
    built = []
    for name, column in zip(dimensions, columns):
        if name in hierarchies:
            built.append(hierarchies[name])
            continue
        codes = list(dict.fromkeys(code.strip() for code in dict.fromkeys(column)))
        found = _total_code(path, name, codes, total)
        inner = [c for c in codes if c != found]
        if found is None:
            messages.append(f"{name}: no total code ({repr(total) if total is not None else 'Total, Gesamt, ...'}); "
                            "the variable has no total")
        try:
            built.append(Dimension.flat(name, inner, total=found, total_first=found is not None and codes[0] == found))
        except ProblemError as error:
            raise FileFormatError(str(error), file=path) from None
    return TableStructure(tuple(built)), messages


def _long_value(path: Path, line: int, name: str, text: str, decimal_comma: bool) -> tuple[float, str]:
    """The number of a long file's value field and its footnote flag; FileFormatError naming the
    line when it holds no number (an empty field, a mark such as ':' or 'x', other text)."""
    reading = read_cell(text, decimal_comma)
    if reading.number is not None:      # a number, or 0 for a zero mark
        return reading.number, reading.flag if reading.kind is Kind.NUMBER else ""
    why = unknown_value() if reading.kind is Kind.UNKNOWN else ""
    message = f"'{text}' is not a number: {why}" if why else not_a_number(text, decimal_comma)
    raise FileFormatError(f"{name} {message}", file=path, row=line)


def _refuse_wide(path: Path, header: list[str], columns: list[list[str]], code_at: list[int]) -> None:
    """FileFormatError when the file looks wide (columns: the texts of its code columns, at
    code_at): its first column names each of three or more lines once and every other code
    column holds numbers on most lines and marks such as '-' or ':' on the others, as a wide
    table's columns do, where a long table's codes repeat."""
    n_rows = len(columns[0])
    if n_rows < 3 or len(code_at) < 2 or _repeats(columns[0]):
        return
    kinds = [[read_cell(text, None).kind for text in column] for column in columns[1:]]
    data_like = (Kind.NUMBER, Kind.ZERO, Kind.UNKNOWN, Kind.EMPTY)
    if all(2 * column.count(Kind.NUMBER) > n_rows and all(k in data_like for k in column) for column in kinds):
        names = ", ".join(f"'{header[at]}'" for at in code_at[1:])
        raise FileFormatError(f"this looks like a wide table, not one line per cell: the first column names "
                              f"each line once and {names} hold numbers, not codes; read it as a wide table "
                              "(--wide)", file=path)


def write_long_csv(path: str | Path, structure: TableStructure, values: np.ndarray, *, value: str = "value",
                   delimiter: str = ";", decimal_comma: bool = False, decimals: int | None = None) -> Path:
    """One line per cell: its codes, then its value."""
    path = Path(path)
    values = finite_values(values, "values", path).reshape(-1)
    if values.size != structure.n_cells:
        raise FileFormatError(f"{values.size} values for a table of {structure.n_cells} cells", file=path)
    grids = np.meshgrid(*[np.arange(s) for s in structure.shape], indexing="ij")
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, delimiter=delimiter)
        writer.writerow([_safe(d.name) for d in structure.dimensions] + [_safe(value)])
        for i, coords in enumerate(zip(*(g.reshape(-1) for g in grids))):
            codes = [_safe(d.codes[k]) for d, k in zip(structure.dimensions, coords)]
            writer.writerow([*codes, _number(values[i], decimal_comma, decimals)])
    return path


def read_wide_csv(source: str | Path | CsvRecords, layout: DetectedLayout | None = None,
                  delimiter: str | None = None, decimal_comma: bool | None = None) -> ExcelTable:
    """A wide table (labels left, column labels on top) through the sheet layout detection."""
    parsed = _parsed(source, delimiter)
    path = parsed.path
    grid, delimiter = wide_grid(parsed)
    layout = layout or detect_layout(grid, decimal_comma=decimal_comma, comma_likely=delimiter == ";")
    table = build_table(grid, layout, path)
    refuse_records(path, table.structure, *grid_records(grid.values))
    return table


def wide_grid(source: Path | CsvRecords, delimiter: str | None = None) -> tuple[SheetGrid, str]:
    """The CSV as a sheet grid of texts (leading spaces of labels count as indentation), and its
    delimiter; numbers out of range are refused."""
    parsed = _parsed(source, delimiter)
    path, delimiter = parsed.path, parsed.delimiter
    rows = [fields for _, fields in parsed.records]
    width = max((len(r) for r in rows), default=0)
    values = []
    for r, row in enumerate(rows):
        cells = []
        for c, text in enumerate(row + [""] * (width - len(row))):
            if out_of_range(text, False) or out_of_range(text, True):
                raise FileFormatError(not_a_number(text), file=path, cell=coordinate(r, c))
            cells.append(text if text.strip() else None)
        values.append(tuple(cells))
    indents = tuple(tuple((len(t) - len(t.lstrip(" "))) // 2 for t in row + [""] * (width - len(row)))
                    for row in rows)
    return SheetGrid(str(path), path.stem, tuple(values), indents, ()), delimiter


def write_wide_csv(path: str | Path, table: ExcelTable, values: np.ndarray, *, delimiter: str | None = None,
                   decimal_comma: bool | None = None) -> Path:
    """The source CSV of `table` again, with `values` in its data cells."""
    path = Path(path)
    source = read_csv_records(table.source)
    rows = [fields for _, fields in source.records]
    delimiter = delimiter or source.delimiter
    decimal_comma = bool(table.layout.decimal_comma) if decimal_comma is None else decimal_comma
    grid = finite_values(values, "values", path).reshape(table.structure.shape)
    width = max(len(r) for r in rows)
    out = [[_safe(text) for text in row + [""] * (width - len(row))] for row in rows]
    for i, r in enumerate(table.rows):
        for j, c in enumerate(table.columns):
            out[r][c] = _number(grid[i, j], decimal_comma, None)
    with path.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle, delimiter=delimiter).writerows(out)
    return path


def _safe(text: str) -> str:
    """Label text a spreadsheet will not run as a formula (numbers are left alone)."""
    if text.startswith(_FORMULA_STARTS) and parse_number(text) is None and parse_number(text, True) is None:
        return "'" + text
    return text


def _number(value: float, decimal_comma: bool, decimals: int | None) -> str:
    text = f"{value:.{decimals}f}" if decimals is not None else (
        str(int(value)) if float(value).is_integer() else repr(float(value)))
    return text.replace(".", ",") if decimal_comma else text
