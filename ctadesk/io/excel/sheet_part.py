"""One worksheet part read in a single streaming pass: every cell's value, style and formula,
and the sheet's settings (merged ranges, hidden and sized rows and columns, frozen panes)
and extras a release leaves out (hyperlinks, conditional formats, validations, drawings).

Values are what Excel shows (ctadesk.io.excel.cell_values); a formula's is its
saved result, None when it has none.  Rows written the way Excel, LibreOffice
and openpyxl write them are read fast (ctadesk.io.excel.canonical_rows), any
other part by expat (ctadesk.io.excel.expat_sheet).  Extent and cell count are
capped while reading.
"""

from __future__ import annotations

import dataclasses
import zipfile

import numpy as np
from openpyxl.formula.tokenizer import TokenizerError
from openpyxl.formula.translate import Translator

from ctadesk.io.excel.canonical_rows import read_canonical
from ctadesk.io.excel.cell_values import DIGITS, TRUE, CellValues, ColumnNumbers, DamagedCell, coordinate
from ctadesk.io.excel.expat_sheet import cell_handlers
from ctadesk.io.excel.package import WorkbookFile
from ctadesk.io.excel.safe_xml import feed_part, safe_parser


class TooManyCells(ValueError):
    """The sheet holds more cells than the cap."""


@dataclasses.dataclass(frozen=True)
class ColumnFormat:
    """Width and visibility of the columns first..last (0-based, inclusive)."""

    first: int
    last: int
    width: float | None = None
    hidden: bool = False


@dataclasses.dataclass(frozen=True, eq=False)
class SheetPart:
    """A worksheet as read (see the module docstring).

    rows, columns, styles  0-based row, column and style number of each cell written
    values                 each cell's value
    formulas               cell index -> formula text without '=' (shared formulas resolved when asked)
    n_rows, n_columns      one past the last row and column holding a cell or a merged range (at least 1)
    merged                 merged ranges (first_row, first_col, last_row, last_col), 0-based inclusive
    hidden_rows, row_heights, column_formats   row and column settings (0-based)
    frozen                 top-left cell of the frozen panes ('B4'), None when nothing is frozen
    hyperlinks             cells and ranges ('A1', 'B2:C3') carrying a hyperlink
    conditional_formats, validations   how many of each the sheet has
    drawing                the sheet has pictures, charts or shapes
    """

    rows: np.ndarray
    columns: np.ndarray
    styles: np.ndarray
    values: list[object]
    formulas: dict[int, tuple[str, str | None]]
    n_rows: int
    n_columns: int
    merged: tuple[tuple[int, int, int, int], ...]
    hidden_rows: frozenset[int]
    row_heights: dict[int, float]
    column_formats: tuple[ColumnFormat, ...]
    frozen: str | None
    hyperlinks: tuple[str, ...]
    conditional_formats: int
    validations: int
    drawing: bool
    shared_formulas: dict[str, tuple[str, str]] = dataclasses.field(default_factory=dict)

    def formula(self, index: int) -> str:
        """The formula of cell `index` without '=' (a shared formula translated to the cell; ''
        when that cannot be done)."""
        text, shared = self.formulas[index]
        if text or shared is None or shared not in self.shared_formulas:
            return text
        master, origin = self.shared_formulas[shared]
        target = coordinate(int(self.rows[index]), int(self.columns[index]))
        try:
            return Translator(f"={master}", origin=origin).translate_formula(target)[1:]
        except (TokenizerError, ValueError, IndexError):
            return ""


def read_sheet_part(workbook: WorkbookFile, part: str, max_cells: int) -> SheetPart:
    """Read a sheet's part (its archive path, SheetEntry.part).  Raises DamagedCell, TooManyCells,
    or what the XML parser and the archive raise on damage (the caller names the file)."""
    with zipfile.ZipFile(workbook.path) as archive:
        reader = PartReader(workbook, max_cells)
        if not read_canonical(archive, part, reader):
            reader = PartReader(workbook, max_cells)
            feed_part(reader.parser, archive, part, reader.check_count)
    return reader.result()


def _range(reference: str) -> tuple[int, int, int, int]:
    """'B2:C5' or 'B2' as 0-based (first_row, first_col, last_row, last_col)."""
    numbers = ColumnNumbers()
    corners = []
    for corner in reference.replace("$", "").split(":"):
        letters = corner.rstrip(DIGITS)
        digits = corner[len(letters):]
        if not digits.isdigit() or int(digits) == 0:
            raise DamagedCell(f"'{reference}' is no cell range")
        corners.append((int(digits) - 1, numbers[letters]))
    (r0, c0), (r1, c1) = corners[0], corners[-1]
    return min(r0, r1), min(c0, c1), max(r0, r1), max(c0, c1)


class PartReader:
    """What is read of one sheet part, by expat (its parser) and by canonical_rows."""

    def __init__(self, workbook: WorkbookFile, max_cells: int) -> None:
        self.max_cells = max_cells
        self.rows: list[int] = []
        self.columns: list[int] = []
        self.styles: list[str] = []
        self.values: list[object] = []
        self.formulas: dict[int, tuple[str, str | None]] = {}
        self.shared: dict[str, tuple[str, str]] = {}
        self.merged: list[str] = []
        self.hidden_rows: set[int] = set()
        self.row_heights: dict[int, float] = {}
        self.column_formats: list[ColumnFormat] = []
        self.frozen: str | None = None
        self.hyperlinks: list[str] = []
        self.counts = {"conditionalFormatting": 0, "dataValidation": 0, "drawing": 0, "sheetData": 0}
        self.rows_read = 0  # row elements, and the prefix of element names: what canonical_rows checks
        self.last_row = -1
        self.prefix: str | None = None
        self.cell_values = CellValues(workbook)
        self.column_numbers = ColumnNumbers()
        self.parser = safe_parser()
        self.parser.StartElementHandler = self._first_element

    def check_count(self) -> None:
        """Refuse a sheet holding more than max_cells cells (while it is being read)."""
        if len(self.values) > self.max_cells:
            raise TooManyCells(f"the sheet holds more than the {self.max_cells:,} cells ctadesk reads")

    def _first_element(self, name: str, attrs: dict[str, str]) -> None:
        """The root names the prefix the part uses; then the cell handlers take over."""
        self.prefix = prefix = name[:-len("worksheet")] if name.endswith("worksheet") else ""
        start, end, data = cell_handlers(self, prefix)
        self.parser.StartElementHandler, self.parser.EndElementHandler = start, end
        self.parser.CharacterDataHandler = data

    def sheet_element(self, name: str, attrs: dict[str, str]) -> None:
        """An element outside the cells."""
        if name == "mergeCell":
            self.merged.append(attrs.get("ref", ""))
        elif name == "col":
            first, last = int(attrs.get("min", "1")) - 1, int(attrs.get("max", attrs.get("min", "1"))) - 1
            width = attrs.get("width")
            self.column_formats.append(ColumnFormat(max(first, 0), min(last, 16_383),
                                                    float(width) if width else None,
                                                    attrs.get("hidden", "0").lower() in TRUE))
        elif name == "pane" and attrs.get("state") in ("frozen", "frozenSplit"):
            self.frozen = attrs.get("topLeftCell") or _split_cell(attrs)
        elif name == "hyperlink":
            self.hyperlinks.append(attrs.get("ref", ""))
        elif name in self.counts:
            self.counts[name] += 1

    def add_row(self, number: str | None, hidden: str | None, height: str | None) -> int:
        """A row element's settings; returns its 0-based row (the one after the last row element's
        when it names none)."""
        row = int(number) - 1 if number is not None else self.last_row + 1
        if row < 0:
            raise DamagedCell(f"row {number} is no row")
        self.last_row = row
        if hidden is not None and hidden.lower() in TRUE:
            self.hidden_rows.add(row)
        if height:
            self.row_heights[row] = float(height)
        self.rows_read += 1
        return row

    def add_formula(self, formula: str, kind: str | None, shared_index: str | None, master: bool,
                    row: int, column: int) -> None:
        """The formula of the cell last added."""
        shared_index = shared_index if kind == "shared" else None
        self.formulas[len(self.values) - 1] = (formula, shared_index)
        if shared_index is not None and master and formula:
            self.shared[shared_index] = (formula, coordinate(row, column))

    def result(self) -> SheetPart:
        """The sheet read; refuses an extent beyond max_cells."""
        max_cells = self.max_cells
        try:
            styles = np.array(list(map(int, self.styles)), np.int64)
        except ValueError as error:
            raise DamagedCell(f"a cell names no style ({error})") from None
        rows, columns = np.array(self.rows, np.int64), np.array(self.columns, np.int64)
        merged = tuple(_range(reference) for reference in self.merged)
        n_rows = max([int(rows.max(initial=0)) + 1, *(r1 + 1 for _, _, r1, _ in merged)])
        n_columns = max([int(columns.max(initial=0)) + 1, *(c1 + 1 for _, _, _, c1 in merged)])
        if n_rows * n_columns > max_cells:
            raise TooManyCells(f"the sheet spans {n_rows} rows x {n_columns} columns, more than the "
                               f"{max_cells:,} cells ctadesk reads")
        if sum((r1 - r0 + 1) * (c1 - c0 + 1) for r0, c0, r1, c1 in merged) > max_cells:
            raise DamagedCell("the merged ranges cover more cells than the sheet holds")
        return SheetPart(rows, columns, styles, self.values, self.formulas, n_rows, n_columns, merged,
                         frozenset(self.hidden_rows), self.row_heights, tuple(self.column_formats), self.frozen,
                         tuple(self.hyperlinks), self.counts["conditionalFormatting"], self.counts["dataValidation"],
                         self.counts["drawing"] > 0, self.shared)


def _split_cell(attrs: dict[str, str]) -> str | None:
    """The first cell after a frozen split of xSplit columns and ySplit rows."""
    columns, rows = int(float(attrs.get("xSplit", "0"))), int(float(attrs.get("ySplit", "0")))
    return coordinate(rows, columns) if columns or rows else None


