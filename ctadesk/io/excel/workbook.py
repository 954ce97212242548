"""Opening untrusted .xlsx files safely and reading one sheet into a grid.

openpyxl parses the XML through defusedxml when it is installed (it is a
dependency of ctadesk's file support), which stops entity-expansion attacks.
Before parsing, the archive's declared uncompressed size is capped (zip bombs),
and after loading each sheet's extent is capped; encrypted and legacy .xls
files are recognised by their OLE signature and reported as such.

A cell shows the result its formula had when the workbook was last saved.
Files written by programs (openpyxl, many report generators) store formulas
without results; ctadesk computes those that add and subtract: SUM of cells
and ranges, and + and - of cells and numbers ('=SUM(B5:B9)', '=B5+B6-B7').
Any other formula without a stored result is kept as unreadable, with the
reason, so that a table using that cell is refused naming it.  The grid also
tells which rows and columns the workbook hides.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import zipfile
import zlib
from collections.abc import Mapping
from pathlib import Path

import openpyxl
import openpyxl.xml
from openpyxl.utils import column_index_from_string, get_column_letter
from openpyxl.workbook.workbook import Workbook

from ctadesk.io.errors import FileFormatError
from ctadesk.io.numbers import ZERO_MARKS

#: largest sheet extent (rows x columns) read
MAX_CELLS = 4_000_000
#: largest total uncompressed size of the parts of an .xlsx archive
MAX_UNCOMPRESSED_BYTES = 400 * 1024 * 1024
#: a workbook part that unpacks to more than this many times its packed size, and to more
#: than BOMB_MIN_BYTES, is a zip bomb (sheets Excel or openpyxl write pack 5 to 15 times)
BOMB_RATIO = 100
BOMB_MIN_BYTES = 1024 * 1024
#: what a damaged workbook raises while openpyxl unpacks and parses it (XML errors
#: are SyntaxErrors; defusedxml's refusals ValueErrors; a cut deflate stream zlib.error or EOFError)
DAMAGED = (KeyError, ValueError, TypeError, IndexError, AttributeError, OSError, EOFError, SyntaxError,
           zipfile.BadZipFile, zlib.error)

_OLE_SIGNATURE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"


def open_workbook(path: str | Path, *, data_only: bool = True) -> Workbook:
    """Load a workbook after checking that it is a plain, reasonably sized .xlsx."""
    path = Path(path)
    if not openpyxl.xml.DEFUSEDXML:
        raise FileFormatError("reading workbooks needs the defusedxml package; install it first", file=path)
    check_workbook_archive(path)
    try:
        return openpyxl.load_workbook(path, data_only=data_only, keep_links=False)
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


def coordinate(row: int, column: int) -> str:
    """Excel name of the 0-based (row, column), e.g. (6, 2) -> 'C7'."""
    return f"{get_column_letter(column + 1)}{row + 1}"


_LEADING_SPACES = re.compile(r"^[ \u00a0]*")


def read_grid(workbook: Workbook, sheet: str | None, file: str | Path) -> SheetGrid:
    """The grid of `sheet` (the first visible sheet when None)."""
    if sheet is None:
        visible = [ws for ws in workbook.worksheets if ws.sheet_state == "visible"]
        if not visible:
            raise FileFormatError("the workbook has no visible sheet", file=file)
        worksheet = visible[0]
    elif sheet in workbook.sheetnames:
        worksheet = workbook[sheet]
    else:
        raise FileFormatError(f"no sheet named '{sheet}' (sheets: {', '.join(workbook.sheetnames)})", file=file)
    n_rows, n_columns = worksheet.max_row, worksheet.max_column
    if n_rows * n_columns > MAX_CELLS:
        raise FileFormatError(f"the sheet spans {n_rows} rows x {n_columns} columns, more than the "
                              f"{MAX_CELLS:,} cells ctadesk reads", file=file, sheet=worksheet.title)
    values, indents = [], []
    for row in worksheet.iter_rows(min_row=1, max_row=n_rows, max_col=n_columns):
        values.append([cell.value for cell in row])
        indents.append(tuple(_indent(cell) for cell in row))
    unreadable = compute_formulas(values, _formulas_without_results(file, worksheet.title, values))
    merged = tuple((r.min_row - 1, r.min_col - 1, r.max_row - 1, r.max_col - 1)
                   for r in worksheet.merged_cells.ranges)
    hidden_rows = frozenset(r - 1 for r, d in worksheet.row_dimensions.items() if d.hidden and r <= n_rows)
    return SheetGrid(str(file), worksheet.title, tuple(map(tuple, values)), tuple(indents), merged,
                     hidden_rows, _hidden_columns(worksheet, n_columns), unreadable)


def _hidden_columns(worksheet, n_columns: int) -> frozenset[int]:
    """The 0-based columns (within the sheet's extent) the worksheet hides; one entry may span several."""
    hidden = set()
    for key, dimension in worksheet.column_dimensions.items():
        if dimension.hidden:
            first = dimension.min or column_index_from_string(key)
            hidden.update(range(first - 1, min(dimension.max or first, n_columns)))
    return frozenset(hidden)


def _indent(cell) -> int:
    indent = int(cell.alignment.indent or 0) if cell.has_style else 0
    if isinstance(cell.value, str):
        indent += len(_LEADING_SPACES.match(cell.value).group()) // 2
    return indent


# ------------------------------------------------------------------ formulas
_FORMULA_TAG = re.compile(rb"<(?:\w+:)?f[ >/]")
_TOKEN = re.compile(r"\s*(?:(?P<sum>SUM\s*\()|(?P<range>\$?[A-Z]{1,3}\$?\d+:\$?[A-Z]{1,3}\$?\d+)"
                    r"|(?P<cell>\$?[A-Z]{1,3}\$?\d+)|(?P<number>\d+(?:\.\d*)?(?:E[+-]?\d+)?)|(?P<op>[-+(),]))",
                    re.IGNORECASE)


class _CannotCompute(Exception):
    """A formula ctadesk does not compute; the message says why."""


def _formulas_without_results(file: str | Path, sheet: str, values: list[list[object]]) -> dict[tuple[int, int], str]:
    """(row, column) -> formula text ('SUM(B2:B5)') of the cells whose formula has no stored
    result (their value in `values` is None)."""
    if not sheet_has_formulas(file, sheet):  # most sheets: no second reading of the whole sheet
        return {}
    try:
        workbook = openpyxl.load_workbook(file, read_only=True, data_only=False, keep_links=False)
    except (OSError, KeyError, ValueError, TypeError, zipfile.BadZipFile):
        return {}
    try:
        worksheet = workbook[sheet]
        if not _has_formulas(file, getattr(worksheet, "_worksheet_path", None)):
            return {}
        formulas = {}
        for r, row in enumerate(worksheet.iter_rows(min_row=1, max_row=len(values), min_col=1, values_only=True)):
            for c, value in enumerate(row[:len(values[r])]):
                text = getattr(value, "text", value)
                if values[r][c] is None and isinstance(text, str) and text.startswith("="):
                    formulas[r, c] = text[1:]
        return formulas
    finally:
        workbook.close()


def sheet_has_formulas(file: str | Path, sheet: str) -> bool:
    """Does the sheet's XML part hold a formula?  True when that cannot be told cheaply (the
    part is not found, the workbook is damaged): the caller then reads the formulas."""
    return _has_formulas(file, _sheet_part(file, sheet))


def _sheet_part(file: str | Path, sheet: str) -> str | None:
    """The archive path of the sheet's XML part ('xl/worksheets/sheet1.xml'), read from the
    workbook's manifest and relations only (None when not found)."""
    from openpyxl.reader.excel import ExcelReader, _find_workbook_part
    from openpyxl.reader.workbook import WorkbookParser

    try:
        reader = ExcelReader(file, read_only=True, keep_links=False)
    except Exception:  # noqa: BLE001 - the full reading reports what is wrong
        return None
    try:
        reader.read_manifest()
        part = _find_workbook_part(reader.package)
        parser = WorkbookParser(reader.archive, part.PartName[1:], keep_links=False)
        parser.parse()
        return next((rel.target for found, rel in parser.find_sheets() if found.name == sheet), None)
    except Exception:  # noqa: BLE001 - the full reading reports what is wrong
        return None
    finally:
        reader.archive.close()


def _has_formulas(file: str | Path, part: str | None) -> bool:
    """Does the sheet's XML part hold a formula (True when the part is unknown)?"""
    if part is None:
        return True
    with zipfile.ZipFile(file) as archive:
        try:
            return bool(_FORMULA_TAG.search(archive.read(part.lstrip("/"))))
        except KeyError:
            return True


def compute_formulas(values: list[list[object]], formulas: Mapping[tuple[int, int], str]) -> dict[tuple[int, int], str]:
    """Put the results of `formulas` (cells without stored results) into `values`, in place.
    Returns (row, column) -> why for the formulas that cannot be computed."""
    results: dict[tuple[int, int], float] = {}
    unreadable: dict[tuple[int, int], str] = {}
    for cell in formulas:  # in sheet order: what a formula refers to above or left of it is done first
        try:
            values[cell[0]][cell[1]] = _result(cell, values, formulas, results, set())
        except RecursionError:
            unreadable[cell] = (f"the formula ={formulas[cell]} has no stored result and refers to a chain of "
                                "formulas too long to compute; open and save the workbook in Excel or "
                                "LibreOffice so that it stores the results")
        except _CannotCompute as why:
            unreadable[cell] = (f"the formula ={formulas[cell]} has no stored result and ctadesk cannot compute "
                                f"it ({why}); open and save the workbook in Excel or LibreOffice so that it "
                                "stores the results, or write the number")
    return unreadable


def _result(cell: tuple[int, int], values: list[list[object]], formulas: Mapping[tuple[int, int], str],
            results: dict[tuple[int, int], float], active: set[tuple[int, int]]) -> float:
    """The result of the formula in cell (its references computed first)."""
    if cell in results:
        return results[cell]
    if cell in active:
        raise _CannotCompute(f"it refers to itself through {coordinate(*cell)}")
    active.add(cell)

    def value(r: int, c: int) -> float:
        if (r, c) in formulas:
            return _result((r, c), values, formulas, results, active)
        held = values[r][c] if r < len(values) and c < len(values[r]) else None
        if held is None or (isinstance(held, str) and (not held.strip() or held.strip() in ZERO_MARKS)):
            return 0.0
        if isinstance(held, (int, float)) and not isinstance(held, bool):
            return float(held)
        raise _CannotCompute(f"{coordinate(r, c)} holds '{held}', not a number")

    results[cell] = _evaluate(formulas[cell], value, (len(values), max(map(len, values))))
    active.discard(cell)
    return results[cell]


def _tokens(formula: str) -> list[tuple[str, str]]:
    """The (kind, text) tokens of a formula: sum, range, cell, number or op."""
    tokens, at = [], 0
    while at < len(formula.rstrip()):
        match = _TOKEN.match(formula, at)
        if not match:
            raise _CannotCompute("only SUM and + and - of cells and numbers are computed")
        tokens.append((match.lastgroup, match[match.lastgroup].strip()))
        at = match.end()
    return tokens


def _evaluate(formula: str, value, extent: tuple[int, int]) -> float:
    """formula (without '=') of SUM, +, -, parentheses, cells, ranges and numbers; value(r, c)
    gives a referenced cell's number; ranges are cut to the sheet's extent (rows, columns),
    beyond which every cell is empty."""
    tokens = _tokens(formula)
    at = 0

    def take(kind: str, text: str | None = None) -> bool:
        nonlocal at
        if at < len(tokens) and tokens[at][0] == kind and (text is None or tokens[at][1] == text):
            at += 1
            return True
        return False

    def term() -> float:
        if take("op", "-"):
            return -term()
        if take("op", "+"):
            return term()
        if take("number"):
            return float(tokens[at - 1][1])
        if take("cell"):
            return value(*_position(tokens[at - 1][1]))
        if take("op", "("):
            result = expression()
            if not take("op", ")"):
                raise _CannotCompute("a parenthesis is not closed")
            return result
        if take("sum"):
            return arguments()
        raise _CannotCompute("only SUM and + and - of cells and numbers are computed")

    def arguments() -> float:
        total = 0.0
        while True:
            if take("range"):
                (r0, c0), (r1, c1) = map(_position, tokens[at - 1][1].split(":"))
                total += sum(value(r, c) for r in range(min(r0, r1), min(max(r0, r1) + 1, extent[0]))
                             for c in range(min(c0, c1), min(max(c0, c1) + 1, extent[1])))
            else:
                total += expression()
            if take("op", ")"):
                return total
            if not take("op", ","):
                raise _CannotCompute("only SUM and + and - of cells and numbers are computed")

    def expression() -> float:
        result = term()
        while True:
            if take("op", "+"):
                result += term()
            elif take("op", "-"):
                result -= term()
            else:
                return result

    result = expression()
    if at != len(tokens):
        raise _CannotCompute("only SUM and + and - of cells and numbers are computed")
    return result


def _position(reference: str) -> tuple[int, int]:
    """0-based (row, column) of a reference such as 'B7' or '$B$7'."""
    match = re.fullmatch(r"\$?([A-Za-z]{1,3})\$?(\d+)", reference)
    if int(match[2]) == 0:
        raise _CannotCompute(f"'{reference}' is no cell")
    return int(match[2]) - 1, column_index_from_string(match[1].upper()) - 1
