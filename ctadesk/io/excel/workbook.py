"""Opening untrusted .xlsx files safely and reading one sheet into a grid.

Before anything is parsed, the archive's declared uncompressed size is capped
(zip bombs), and encrypted and legacy .xls files are recognised by their OLE
signature and reported as such.  The parts are then read with expat refusing
any document type declaration (ctadesk.io.excel.safe_xml), each sheet in one
streaming pass whose extent is capped (ctadesk.io.excel.sheet_part).

A cell shows the result its formula had when the workbook was last saved; a
formula saved without one is computed when it only adds and subtracts, else
kept as unreadable with the reason (ctadesk.io.excel.formulas).  The grid also
tells which rows and columns the workbook hides.
"""

from __future__ import annotations

import dataclasses
import functools
import zipfile
import zlib
from collections.abc import Mapping
from pathlib import Path
from xml.parsers import expat

import numpy as np
import openpyxl.xml

from ctadesk.io.errors import FileFormatError
from ctadesk.io.excel.cell_values import DamagedCell, coordinate
from ctadesk.io.excel.formulas import compute_formulas
from ctadesk.io.excel.package import WorkbookFile, read_workbook_file
from ctadesk.io.excel.safe_xml import UnsafeXML, check_prolog
from ctadesk.io.excel.sheet_part import SheetPart, TooManyCells, read_sheet_part
from ctadesk.io.numbers import Kind, read_cell

#: largest sheet extent (rows x columns) read
MAX_CELLS = 4_000_000
#: largest total uncompressed size of the parts of an .xlsx archive
MAX_UNCOMPRESSED_BYTES = 400 * 1024 * 1024
#: a workbook part that unpacks to more than this many times its packed size, and to more
#: than BOMB_MIN_BYTES, is a zip bomb (sheets Excel or openpyxl write pack 5 to 15 times)
BOMB_RATIO = 100
BOMB_MIN_BYTES = 1024 * 1024
#: what a damaged workbook raises while it is unpacked and parsed (XML errors are SyntaxErrors
#: or ExpatErrors, an unknown encoding a LookupError, a number too large for its field an
#: OverflowError; refusals ValueErrors; a cut deflate stream zlib.error or EOFError)
DAMAGED = (KeyError, ValueError, TypeError, IndexError, AttributeError, OSError, EOFError, SyntaxError,
           LookupError, OverflowError, zipfile.BadZipFile, zlib.error, expat.ExpatError)

_OLE_SIGNATURE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"


def open_workbook(path: str | Path) -> WorkbookFile:
    """The manifest, shared strings and cell formats of a workbook, after checking that it is a
    plain, reasonably sized .xlsx (its sheets are read by read_grid)."""
    path = Path(path)
    if not openpyxl.xml.DEFUSEDXML:
        raise FileFormatError("reading workbooks needs the defusedxml package; install it first", file=path)
    check_workbook_archive(path)
    try:
        return read_workbook_file(path)
    except DAMAGED as error:
        raise FileFormatError(f"the workbook is damaged and cannot be read ({error})", file=path) from None


def check_workbook_archive(path: Path) -> None:
    """Refuse, before anything is parsed, an encrypted or legacy workbook, a file that is not a
    zip archive, an archive whose parts unpack to more than MAX_UNCOMPRESSED_BYTES, and a part
    packed more than BOMB_RATIO times (a zip bomb small enough to pass the size cap would
    still take minutes to parse).  The table and the microdata readers both call it."""
    try:
        with path.open("rb") as handle:
            head = handle.read(len(_OLE_SIGNATURE))
    except FileNotFoundError:
        raise FileFormatError("file not found", file=path) from None
    except OSError as error:
        raise FileFormatError(f"cannot be read ({error.strerror or error})", file=path) from None
    if head == _OLE_SIGNATURE:
        raise FileFormatError("the workbook is password-protected (encrypted) or a legacy .xls file; "
                              "remove the password or save it as .xlsx first", file=path)
    try:
        with zipfile.ZipFile(path) as archive:
            parts = archive.infolist()
    except (OSError, EOFError, zipfile.BadZipFile):
        raise FileFormatError("not an .xlsx workbook, or the file is damaged", file=path) from None
    declared = sum(part.file_size for part in parts)
    if declared > MAX_UNCOMPRESSED_BYTES:
        raise FileFormatError(f"the workbook unpacks to {declared / 2**20:.0f} MB, more than the "
                              f"{MAX_UNCOMPRESSED_BYTES / 2**20:.0f} MB ctadesk reads", file=path)
    for part in parts:
        if part.file_size > max(BOMB_MIN_BYTES, BOMB_RATIO * part.compress_size):
            raise FileFormatError(f"'{part.filename}' unpacks to {part.file_size / 2**20:.0f} MB from "
                                  f"{part.compress_size / 2**10:.0f} KB, more than {BOMB_RATIO} times: "
                                  "a zip bomb, not a workbook", file=path)
    _check_prologs(path, [part.filename for part in parts if part.filename.lower().endswith((".xml", ".rels"))])


def _check_prologs(path: Path, names: list[str]) -> None:
    """Refuse, in one line naming the part, a workbook an XML part of which declares a document
    type or entities (the billion-laughs expansion needs them; openpyxl would raise a
    many-line error from defusedxml)."""
    try:
        with zipfile.ZipFile(path) as archive:
            for name in names:
                try:
                    check_prolog(archive, name)
                except UnsafeXML:
                    raise FileFormatError(f"the workbook is damaged and cannot be read: its part '{name}' declares "
                                          "a document type or XML entities (an entity expansion, 'billion laughs'), "
                                          "which no workbook does", file=path) from None
    except (OSError, EOFError, zipfile.BadZipFile, zlib.error, NotImplementedError) as error:
        raise FileFormatError(f"the workbook is damaged and cannot be read ({error})", file=path) from None


@dataclasses.dataclass(frozen=True)
class SheetGrid:
    """The cells of one sheet as plain Python values, 0-based [row][column].

    values    cell value (None, str, int, float, bool, datetime); merged ranges
              hold their value only in the top-left cell, as in the file
    indents   indentation level of each cell (alignment indent, or leading spaces / 2)
    merged    merged ranges as (first_row, first_col, last_row, last_col), 0-based inclusive
    hidden_rows, hidden_columns   rows and columns the workbook hides
    unreadable  (row, column) -> why: cells whose formula has no stored result and
                cannot be computed by ctadesk (their value is None)
    """

    file: str
    sheet: str
    values: tuple[tuple[object, ...], ...]
    indents: tuple[tuple[int, ...], ...]
    merged: tuple[tuple[int, int, int, int], ...]
    hidden_rows: frozenset[int] = frozenset()
    hidden_columns: frozenset[int] = frozenset()
    unreadable: Mapping[tuple[int, int], str] = dataclasses.field(default_factory=dict)

    @property
    def n_rows(self) -> int:
        return len(self.values)

    @property
    def n_columns(self) -> int:
        return len(self.values[0]) if self.values else 0

    @functools.cached_property
    def _merge_origin(self) -> dict[tuple[int, int], tuple[int, int]]:
        return {(r, c): (r0, c0) for r0, c0, r1, c1 in self.merged
                for r in range(r0, r1 + 1) for c in range(c0, c1 + 1)}

    def merged_value(self, row: int, column: int) -> object:
        """The value shown at (row, column): a merged range's value fills its whole range."""
        r, c = self._merge_origin.get((row, column), (row, column))
        return self.values[r][c]

    def error(self, message: str, row: int | None = None, column: int | None = None) -> FileFormatError:
        cell = None if row is None or column is None else coordinate(row, column)
        return FileFormatError(message, file=self.file, sheet=self.sheet,
                               row=None if row is None else row + 1, cell=cell)

    @functools.cached_property
    def kinds(self) -> CellKinds:
        """Every cell read once as a data cell (see CellKinds)."""
        return CellKinds.of(self.values, self.n_columns)


#: the kinds of cell, numbered as in CellKinds.kinds
KINDS = (Kind.EMPTY, Kind.NUMBER, Kind.ZERO, Kind.UNKNOWN, Kind.TEXT)
_CODES = {kind: code for code, kind in enumerate(KINDS)}


@dataclasses.dataclass(frozen=True)
class CellKinds:
    """The cells of a grid read as data cells, as arrays [row, column].

    kinds    the number in KINDS of what each cell holds (read_cell with either decimal mark)
    numbers  the number of each cell stored as a number (int or float, not bool), NaN elsewhere
    texts    the cell holds text
    """

    kinds: np.ndarray
    numbers: np.ndarray
    texts: np.ndarray

    @classmethod
    def of(cls, values: tuple[tuple[object, ...], ...], n_columns: int) -> CellKinds:
        shape = (len(values), n_columns)
        kinds, numbers, texts = np.zeros(shape, np.int8), np.full(shape, np.nan), np.zeros(shape, bool)
        empty, number, text = _CODES[Kind.EMPTY], _CODES[Kind.NUMBER], _CODES[Kind.TEXT]
        of_text: dict[str, int] = {}
        for r, row in enumerate(values):
            row_kinds, row_numbers, row_texts = [], [], []
            for value in row:
                kind = type(value)
                row_texts.append(kind is str)
                if kind is int or kind is float:
                    row_kinds.append(number)
                    row_numbers.append(value)
                    continue
                row_numbers.append(np.nan)
                if value is None:
                    row_kinds.append(empty)
                elif isinstance(value, str):
                    if value not in of_text:
                        of_text[value] = _CODES[read_cell(value, None).kind]
                    row_kinds.append(of_text[value])
                else:
                    row_kinds.append(_CODES[read_cell(value, None).kind])
            kinds[r], texts[r] = row_kinds, row_texts
            try:
                numbers[r] = row_numbers
            except OverflowError:  # an integer beyond a float's range is no number
                numbers[r] = [v if not isinstance(v, int) or abs(v) < 2**1000 else np.inf for v in row_numbers]
        beyond = (kinds == number) & ~texts & ~np.isfinite(numbers)
        kinds[beyond], numbers[beyond] = text, np.nan
        return cls(kinds, numbers, texts)


def read_sheet(workbook: WorkbookFile, sheet: str | None) -> SheetPart:
    """The cells and settings of `sheet` (the first visible sheet when None), read once."""
    entry = workbook.sheet(sheet)
    if entry.part is None:
        raise FileFormatError("the workbook names no part for this sheet", file=workbook.path, sheet=entry.title)
    try:
        return read_sheet_part(workbook, entry.part, MAX_CELLS)
    except TooManyCells as error:
        raise FileFormatError(str(error), file=workbook.path, sheet=entry.title) from None
    except (*DAMAGED, UnsafeXML, DamagedCell) as error:
        raise FileFormatError(f"the workbook is damaged and cannot be read ({error})", file=workbook.path,
                              sheet=entry.title) from None


def read_grid(workbook: WorkbookFile, sheet: str | None, file: str | Path) -> SheetGrid:
    """The grid of `sheet` (the first visible sheet when None)."""
    part = read_sheet(workbook, sheet)
    title = workbook.sheet(sheet).title
    values: list[list[object]] = [[None] * part.n_columns for _ in range(part.n_rows)]
    indents = np.zeros((part.n_rows, part.n_columns), np.int64)
    styled = part.styles > 0  # as openpyxl: a cell of the default style (0) has no indent
    indents[part.rows[styled], part.columns[styled]] = workbook.formats.indents[
        np.minimum(part.styles[styled], workbook.formats.indents.size - 1)]
    for r, c, value in zip(part.rows.tolist(), part.columns.tolist(), part.values):
        values[r][c] = value
        if isinstance(value, str) and value.startswith((" ", "\u00a0")):
            indents[r, c] += (len(value) - len(value.lstrip(" \u00a0"))) // 2
    formulas = {(int(part.rows[k]), int(part.columns[k])): part.formula(k)
                for k in part.formulas if part.values[k] is None}
    unreadable = compute_formulas(values, formulas)
    hidden_columns = frozenset(c for f in part.column_formats if f.hidden
                               for c in range(f.first, min(f.last + 1, part.n_columns)))
    return SheetGrid(str(file), title, tuple(map(tuple, values)), tuple(map(tuple, indents.tolist())), part.merged,
                     frozenset(r for r in part.hidden_rows if r < part.n_rows), hidden_columns, unreadable)
