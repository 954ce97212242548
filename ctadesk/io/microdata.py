"""Microdata files (one record per respondent) read into ``Microdata``.

CSV and xlsx here; every reader ends in ``microdata_from_columns``, which takes
plain column arrays, so readers of other formats (SPSS, Stata, SAS) reuse it.
Errors name the file, the line (or row) and the column at fault.  Numbers must
be finite; CSV files are decoded as ctadesk.io.text decides (UTF-8, else cp1252).

Microdata files are untrusted input and get the table readers' guards, so a
damaged file ends in one line naming it (and the sheet or line), never a traceback:
* CSV: at most ctadesk.io.csv_table.MAX_BYTES, decoded as any text file;
* xlsx: refused before any XML is parsed when encrypted or a legacy .xls, not a
  zip archive, unpacking to more than MAX_UNCOMPRESSED_BYTES (as
  ctadesk.io.excel.workbook.check_workbook_archive) or with a part packed more than
  BOMB_RATIO times
  (a zip bomb); at most MAX_CELLS cells read; damaged XML reported;
* every table spans at most ctadesk.io.cells.MAX_TABLE_CELLS cells.
"""

from __future__ import annotations

import dataclasses
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
from openpyxl.utils import range_boundaries

from ctadesk.engine.errors import ProblemError
from ctadesk.engine.table.microdata import Microdata
from ctadesk.engine.table.structure import Dimension, TableStructure
from ctadesk.io.cells import check_table_size
from ctadesk.io.csv_table import MAX_BYTES
from ctadesk.io.errors import FileFormatError
from ctadesk.io.excel.cell_values import DamagedCell
from ctadesk.io.excel.safe_xml import UnsafeXML, safe_parser
from ctadesk.io.excel.sheet_part import PartReader, TooManyCells, read_sheet_part
from ctadesk.io.excel.workbook import DAMAGED, MAX_CELLS, open_workbook
from ctadesk.io.hierarchy import digit_levels, flat_dimension
from ctadesk.io.numbers import not_a_number, parse_number
from ctadesk.io.text import csv_records, read_text, split_lines

#: bytes of a sheet part parsed at a time while xlsx_columns looks for the end of its first row
HEADER_CHUNK = 1 << 16


@dataclasses.dataclass(frozen=True)
class MicrodataSpec:
    """Which columns make the table.

    spanning        names of the spanning (categorical) variables, in table order
    response        the numeric response variable; None to count records (a frequency table)
    weight, holding, request   optional column names
    request_codes   the two values of ``request`` that ask for protection (tau-argus <REQUEST> "1" "2")
    hierarchies     per spanning variable: a Dimension (e.g. from an .hrc file) or
                    digit widths (<HIERLEVELS> 3 1 1); others are flat over the codes seen
    missing         per spanning variable, codes that mean "missing"
    decimal_comma   numbers are written 12,5
    """

    spanning: tuple[str, ...]
    response: str | None = None
    weight: str | None = None
    holding: str | None = None
    request: str | None = None
    request_codes: tuple[str, str] = ("1", "2")
    hierarchies: Mapping[str, Dimension | Sequence[int]] = dataclasses.field(default_factory=dict)
    missing: Mapping[str, Sequence[str]] = dataclasses.field(default_factory=dict)
    decimal_comma: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "spanning", tuple(self.spanning))
        if not self.spanning:
            raise ProblemError("a table needs at least one spanning variable")

    @property
    def columns(self) -> list[str]:
        return [c for c in (*self.spanning, self.response, self.weight, self.holding, self.request) if c]


def _code_text(value: object) -> str:
    """A cell as a code: integral numbers without '.0', None as ''."""
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _numbers(column: Sequence, name: str, path, first_row: int | Sequence[int], decimal_comma: bool) -> np.ndarray:
    """A numeric column; the first entry that is not a number is reported with its row (record r
    is on row first_row + r, or on row first_row[r] when rows are listed)."""
    if not decimal_comma:
        try:
            values = np.asarray(column, dtype=float)
            if np.all(np.isfinite(values)):
                return values
        except (ValueError, TypeError):
            pass
    values = np.empty(len(column))
    for r, value in enumerate(column):
        number = parse_number(value, decimal_comma)
        if number is None:
            what = "an empty cell is not a number" if value in (None, "") else not_a_number(value, decimal_comma)
            row = r + first_row if isinstance(first_row, (int, np.integer)) else int(first_row[r])
            raise FileFormatError(f"column '{name}': {what}", file=path, row=row)
        values[r] = number
    return values


def microdata_from_columns(columns: Mapping[str, Sequence], spec: MicrodataSpec, source: str | Path | None = None,
                           first_row: int | Sequence[int] = 2, row_word: str = "line") -> Microdata:
    """Microdata from column arrays keyed by variable name (codes as text, numbers as
    numbers or text).  Record r is reported as ``row_word`` r + first_row, or first_row[r]
    when the rows are listed (a file with blank lines between records)."""
    absent = [name for name in spec.columns if name not in columns]
    if absent:
        raise FileFormatError(f"no column named '{absent[0]}' (columns: {', '.join(map(str, columns))})", file=source)
    code_columns = [[_code_text(v) for v in columns[name]] for name in spec.spanning]
    dimensions = []
    for name, codes in zip(spec.spanning, code_columns):
        hierarchy = spec.hierarchies.get(name)
        seen = set(codes) - set(spec.missing.get(name, ())) - {""}
        try:
            if isinstance(hierarchy, Dimension):
                dimension = hierarchy
            elif hierarchy is not None:
                dimension = digit_levels(name, seen, hierarchy)
            else:
                dimension = flat_dimension(name, seen)
        except ProblemError as error:
            raise FileFormatError(str(error), file=source) from None
        dimensions.append(dataclasses.replace(dimension, name=name) if dimension.name != name else dimension)
    structure = TableStructure(tuple(dimensions))
    check_table_size(structure, source)

    def number_column(name: str | None) -> np.ndarray | None:
        if name is None:
            return None
        return _numbers(columns[name], name, source, first_row, spec.decimal_comma)

    response = number_column(spec.response)
    request = None
    if spec.request:
        labels = [_code_text(v) for v in columns[spec.request]]
        request = np.select([np.asarray(labels) == spec.request_codes[0], np.asarray(labels) == spec.request_codes[1]],
                            [1, 2], 0).astype(np.int8)
    holding = [_code_text(v) for v in columns[spec.holding]] if spec.holding else None
    try:
        return Microdata.from_code_columns(structure, code_columns, response, weight=number_column(spec.weight),
                                           holding=holding, request=request, missing=spec.missing,
                                           first_record=first_row, record_word=row_word)
    except ProblemError as error:
        raise FileFormatError(str(error), file=source) from None


def read_csv_microdata(path: str | Path, spec: MicrodataSpec, delimiter: str | None = None,
                       encoding: str | None = None) -> Microdata:
    """A CSV file with a header line naming the variables; the delimiter (',', ';',
    tab) is sniffed from it unless given, the encoding detected unless given.
    Codes are kept as written, spaces included."""
    lines = split_lines(read_text(path, encoding, max_bytes=MAX_BYTES))
    if delimiter is None:
        first = next((line for line in lines if line.strip()), "")
        delimiter = max([",", ";", "\t", "|"], key=first.count)
    records = [(line, row) for line, row in csv_records(lines, delimiter, path) if any(f.strip() for f in row)]
    if not records:
        raise FileFormatError("the file is empty", file=path)
    header = [h.strip() for h in records[0][1]]
    for line, row in records[1:]:
        if len(row) != len(header):
            raise FileFormatError(f"{len(row)} fields, the header has {len(header)}", file=path, row=line)
    body = [row for _, row in records[1:]]
    columns = {name: [row[i] for row in body] for i, name in enumerate(header)}
    lines_of_records = [line for line, _ in records[1:]]
    return microdata_from_columns(columns, spec, source=path, first_row=lines_of_records, row_word="line")


def read_xlsx_microdata(path: str | Path, spec: MicrodataSpec, sheet: str | None = None) -> Microdata:
    """The first (or the named) sheet of an xlsx workbook; row 1 names the variables."""
    title, rows = _xlsx_rows(Path(path), sheet)
    while rows and all(v is None for v in rows[-1]):
        rows.pop()
    if not rows:
        raise FileFormatError("the sheet is empty", file=path, sheet=title)
    header = [_code_text(h).strip() for h in rows[0]]
    columns = {name: [row[i] if i < len(row) else None for row in rows[1:]] for i, name in enumerate(header) if name}
    return microdata_from_columns(columns, spec, source=path, first_row=2, row_word="row")


def _xlsx_rows(path: Path, sheet: str | None) -> tuple[str, list[list]]:
    """The title and the rows of values of the first (or the named) sheet, read by the workbook
    reader of ctadesk.io.excel (openpyxl's read-only worksheet, used before, parsed a sheet that
    declares no extent twice: once for the extent, once for the rows).  Refused beyond MAX_CELLS
    cells: by the extent the sheet declares, before reading; by the cells and the extent read."""
    workbook = open_workbook(path)
    if sheet is None and not workbook.worksheets:
        raise FileFormatError("the workbook has no sheet", file=path)
    entry = workbook.worksheets[0] if sheet is None else workbook.sheet(sheet)
    if entry.part is None:
        raise FileFormatError("the workbook names no part for this sheet", file=path, sheet=entry.title)
    try:
        with zipfile.ZipFile(path) as archive:
            declared = _declared_extent(archive, entry.part)
        if declared is not None and declared[0] * declared[1] > MAX_CELLS:
            raise TooManyCells(f"the sheet spans {declared[0]} rows x {declared[1]} columns, more than the "
                               f"{MAX_CELLS:,} cells ctadesk reads")
        part = read_sheet_part(workbook, entry.part, MAX_CELLS)
    except TooManyCells as error:
        raise FileFormatError(str(error), file=path, sheet=entry.title) from None
    except (*DAMAGED, UnsafeXML, DamagedCell) as error:
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise FileFormatError(f"the workbook is damaged and cannot be read ({first})", file=path,
                              sheet=entry.title) from None
    rows: list[list] = [[None] * part.n_columns for _ in range(part.n_rows)]
    for row, column, value in zip(part.rows.tolist(), part.columns.tolist(), part.values):
        rows[row][column] = value
    return entry.title, rows


class _SheetDataReached(Exception):
    """The cells of a sheet part start: what comes before them has been read."""


def _declared_extent(archive: zipfile.ZipFile, part: str) -> tuple[int, int] | None:
    """The rows and columns a sheet part's <dimension ref="A1:H20001"> declares (None when it
    declares none, or none that reads as a range), from what precedes its cells."""
    parser = safe_parser()
    references: list[str] = []

    def start(name: str, attrs: dict[str, str]) -> None:
        element = name.rpartition(":")[2]
        if element == "dimension":
            references.append(attrs.get("ref", ""))
        elif element == "sheetData":
            raise _SheetDataReached

    parser.StartElementHandler = start
    with archive.open(part) as stream:
        try:
            while chunk := stream.read(HEADER_CHUNK):
                parser.Parse(chunk, False)
        except _SheetDataReached:
            pass
    try:
        _, _, last_column, last_row = range_boundaries(references[0]) if references else (0, 0, None, None)
    except (ValueError, TypeError):
        return None
    return None if last_row is None or last_column is None else (last_row, last_column)


def xlsx_columns(path: str | Path) -> list[str]:
    """The variable names of xlsx microdata: the first row of the first sheet, read alone.

    The sheet's part is parsed in HEADER_CHUNK pieces only until its second row starts, with the
    workbook reader's own cell handlers (ctadesk.io.excel): a workbook of 20,000 records gives
    its names in milliseconds, where reading every row (or openpyxl, which scans the whole
    sheet for its extent when the sheet does not declare one) takes seconds.  Empty and blank
    header cells are left out, as read_xlsx_microdata leaves them out."""
    path = Path(path)
    workbook = open_workbook(path)
    if not workbook.worksheets:
        return []
    sheet = workbook.worksheets[0]
    if sheet.part is None:
        raise FileFormatError("the workbook names no part for this sheet", file=path, sheet=sheet.title)
    reader = PartReader(workbook, MAX_CELLS)
    try:
        with zipfile.ZipFile(path) as archive, archive.open(sheet.part) as stream:
            while reader.last_row < 1:
                chunk = stream.read(HEADER_CHUNK)
                reader.parser.Parse(chunk, not chunk)
                if not chunk:
                    break
    except (*DAMAGED, UnsafeXML, DamagedCell) as error:
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise FileFormatError(f"the workbook is damaged and cannot be read ({first})", file=path,
                              sheet=sheet.title) from None
    header = sorted((column, value) for row, column, value in zip(reader.rows, reader.columns, reader.values)
                    if row == 0 and value is not None)
    return [name for name in (str(value).strip() for _, value in header) if name]
