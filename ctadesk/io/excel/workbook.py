"""Opening untrusted .xlsx files safely and reading one sheet into a grid.

openpyxl parses the XML through defusedxml when it is installed (it is a
dependency of ctadesk's file support), which stops entity-expansion attacks.
Before parsing, the archive's declared uncompressed size is capped (zip bombs),
and after loading each sheet's extent is capped; encrypted and legacy .xls
files are recognised by their OLE signature and reported as such.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import zipfile
from pathlib import Path

import openpyxl
import openpyxl.xml
from openpyxl.utils import get_column_letter
from openpyxl.workbook.workbook import Workbook

from ctadesk.io.errors import FileFormatError

#: largest sheet extent (rows x columns) read
MAX_CELLS = 4_000_000
#: largest total uncompressed size of the parts of an .xlsx archive
MAX_UNCOMPRESSED_BYTES = 400 * 1024 * 1024

_OLE_SIGNATURE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"


def open_workbook(path: str | Path, *, data_only: bool = True) -> Workbook:
    """Load a workbook after checking that it is a plain, reasonably sized .xlsx."""
    path = Path(path)
    if not openpyxl.xml.DEFUSEDXML:
        raise FileFormatError("reading workbooks needs the defusedxml package; install it first", file=path)
    with path.open("rb") as handle:
        head = handle.read(8)
    if head == _OLE_SIGNATURE:
        raise FileFormatError("the workbook is password-protected (encrypted) or a legacy .xls file; "
                              "remove the password or save it as .xlsx first", file=path)
    try:
        with zipfile.ZipFile(path) as archive:
            declared = sum(info.file_size for info in archive.infolist())
    except zipfile.BadZipFile:
        raise FileFormatError("not an .xlsx workbook, or the file is damaged", file=path) from None
    if declared > MAX_UNCOMPRESSED_BYTES:
        raise FileFormatError(f"the workbook unpacks to {declared / 2**20:.0f} MB, more than the "
                              f"{MAX_UNCOMPRESSED_BYTES / 2**20:.0f} MB ctadesk reads", file=path)
    try:
        return openpyxl.load_workbook(path, data_only=data_only, keep_links=False)
    except (KeyError, ValueError, TypeError, OSError, zipfile.BadZipFile) as error:
        raise FileFormatError(f"the workbook is damaged and cannot be read ({error})", file=path) from None


@dataclasses.dataclass(frozen=True)
class SheetGrid:
    """The cells of one sheet as plain Python values, 0-based [row][column].

    values    cell value (None, str, int, float, bool, datetime); merged ranges
              hold their value only in the top-left cell, as in the file
    indents   indentation level of each cell (alignment indent, or leading spaces / 2)
    merged    merged ranges as (first_row, first_col, last_row, last_col), 0-based inclusive
    """

    file: str
    sheet: str
    values: tuple[tuple[object, ...], ...]
    indents: tuple[tuple[int, ...], ...]
    merged: tuple[tuple[int, int, int, int], ...]

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
        values.append(tuple(cell.value for cell in row))
        indents.append(tuple(_indent(cell) for cell in row))
    merged = tuple((r.min_row - 1, r.min_col - 1, r.max_row - 1, r.max_col - 1)
                   for r in worksheet.merged_cells.ranges)
    return SheetGrid(str(file), worksheet.title, tuple(values), tuple(indents), merged)


def _indent(cell) -> int:
    indent = int(cell.alignment.indent or 0) if cell.has_style else 0
    if isinstance(cell.value, str):
        indent += len(_LEADING_SPACES.match(cell.value).group()) // 2
    return indent
