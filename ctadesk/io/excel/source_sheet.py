"""Copying a table's source sheet into a release or an internal workbook, cell by cell.

The sheet is rebuilt, never copied whole: titles, headers and labels with their
fonts, fills, borders, alignment, number formats, merged ranges, column widths,
hidden columns and rows, row heights and frozen panes; the table's cells get
the values written.

In a **release** nothing may tell the sensitive cells apart or carry an
original value:

* the table's labels (header rows over the table's columns, label columns
  beside its rows) are copied as plain values;
* every other cell is copied as plain text only when it is neither a formula
  (its saved result may be an original: ``=D5``, ``="Largest: "&MAX(...)``)
  nor a stray number, and mentions no original figure (`OriginalFigures`);
  otherwise it is dropped and the report says where and why;
* a number format that spells out an original figure is reset to General;
* a non-sensitive table cell keeps its own look; a sensitive one takes its
  row's when that row is styled apart from the table (a bold total row), else
  its column's: the most common look among the non-sensitive cells there, so a
  mark the source put on a sensitive cell (a fill, a number format) does not
  travel;
* comments, hyperlinks, conditional formats, data validations and drawings
  are never copied.

An **internal** workbook keeps every value (formulas as their saved results),
each cell's own look, and shades the sensitive cells with a note.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from openpyxl.styles import Font

from ctadesk.io.excel.cell_values import coordinate
from ctadesk.io.excel.figures import OriginalFigures
from ctadesk.io.excel.package import SheetEntry, WorkbookFile
from ctadesk.io.excel.sheet_part import SheetPart
from ctadesk.io.excel.styles import SENSITIVE_FILL, CellFormat
from ctadesk.io.excel.table import ExcelTable
from ctadesk.io.excel.writer import WorkbookWriter, number_cells, number_texts, style_attributes

SENSITIVE_NOTE = "Shaded cells were sensitive; their values were adjusted to protect confidentiality."


@dataclasses.dataclass(frozen=True)
class Dropped:
    """Something of the source left out of a workbook: where it was and why."""

    where: str
    why: str

    def __str__(self) -> str:
        return f"{self.where}: {self.why}"


@dataclasses.dataclass(frozen=True)
class SourceSheet:
    """A table with its source sheet as read, and the workbook it is in."""

    table: ExcelTable
    workbook: WorkbookFile
    entry: SheetEntry
    part: SheetPart


class SheetCopy:
    """A source sheet ready to be written into a workbook, once or several times with other
    values in the table (see the module docstring); `dropped` lists what was left out."""

    def __init__(self, source: SourceSheet, writer: WorkbookWriter, sensitive: np.ndarray, *, release: bool,
                 figures: OriginalFigures) -> None:
        self._writer = writer
        self._table = table = source.table
        part = source.part
        self.dropped: list[Dropped] = _sheet_extras(source) if release else []
        self._others = self._other_cells(source, release, figures)
        own = _table_styles(source)
        chosen = _release_styles(source, own, sensitive) if release else own
        self._styles = self._style_numbers(source, chosen, None if release else sensitive, figures if release else None)
        self._letters = [coordinate(0, c)[:-1] for c in table.columns]
        self._note_row = max(part.n_rows, max(table.rows) + 1) + 2 if not release and len(sensitive) else None
        self._merged = [f"{coordinate(r0, c0)}:{coordinate(r1, c1)}" for r0, c0, r1, c1 in part.merged]
        self._heights, self._hidden = part.row_heights, part.hidden_rows
        self._columns, self._frozen = part.column_formats, part.frozen

    def write(self, title: str, cell_values: np.ndarray) -> None:
        """A sheet named title: the source sheet with cell_values (C order) in the table's cells."""
        sheet = self._writer.add_sheet(title, self._columns, self._frozen)
        for reference in self._merged:
            sheet.merge(reference)
        table, width = self._table, len(self._table.columns)
        texts = number_texts(cell_values)
        table_rows = {r: i for i, r in enumerate(table.rows)}
        note = {} if self._note_row is None else {self._note_row - 1: [(0, self._writer.cell(
            f"A{self._note_row}", SENSITIVE_NOTE, self._writer.styles.add(CellFormat(font=Font(italic=True)))))]}
        rows = sorted(set(self._others) | set(table_rows) | set(self._heights) | set(self._hidden) | set(note))
        for r in rows:
            others = self._others.get(r, []) + note.get(r, [])
            if r in table_rows:
                i = table_rows[r]
                cells = _interleave(others, table.columns, number_cells(
                    self._letters, r + 1, texts[i * width:(i + 1) * width], self._styles[i]))
            else:
                cells = "".join(xml for _, xml in others)
            sheet.row(r + 1, cells, height=self._heights.get(r), hidden=r in self._hidden)

    # ------------------------------------------------------------ cells outside the table
    def _other_cells(self, source: SourceSheet, release: bool,
                     figures: OriginalFigures) -> dict[int, list[tuple[int, str]]]:
        """Sheet row -> (column, rendered cell) of every cell outside the table, in column order."""
        part, table, writer = source.part, self._table, self._writer
        in_rows = np.zeros(part.n_rows + 1, bool)
        in_rows[[r for r in table.rows if r < part.n_rows]] = True
        in_columns = np.zeros(part.n_columns + 1, bool)
        in_columns[[c for c in table.columns if c < part.n_columns]] = True
        outside = np.flatnonzero(~(in_rows[part.rows] & in_columns[part.columns]))
        outside = outside[np.lexsort((part.columns[outside], part.rows[outside]))]
        covered = {(r, c) for r0, c0, r1, c1 in part.merged for r in range(r0, r1 + 1)
                   for c in range(c0, c1 + 1)} - {(r0, c0) for r0, c0, _, _ in part.merged}
        labels = _label_positions(table)
        guard = figures if release else None
        cells: dict[int, list[tuple[int, str]]] = {}
        for k in outside.tolist():
            r, c = int(part.rows[k]), int(part.columns[k])
            where = f"{table.sheet}!{coordinate(r, c)}"
            style = 0
            if part.styles[k]:
                cell_format, reset = _guarded(source.workbook.formats.format(int(part.styles[k])), guard)
                if reset:
                    self.dropped.append(Dropped(where, "number format showing an original value (reset to General)"))
                style = writer.styles.add(cell_format)
            value = None if (r, c) in covered else part.values[k]
            if release and (r, c) not in labels and (r, c) not in covered:
                reason = _release_refusal(value, k in part.formulas, figures)
                if reason:
                    self.dropped.append(Dropped(where, reason))
                    value = None
            xml = writer.cell(coordinate(r, c), value, style)
            if xml:
                cells.setdefault(r, []).append((c, xml))
        return cells

    # ------------------------------------------------------------ the table's cells
    def _style_numbers(self, source: SourceSheet, chosen: np.ndarray, shaded: np.ndarray | None,
                       figures: OriginalFigures | None) -> list[list[str]]:
        """The written style of each table cell (rows x columns, as style_attributes gives it);
        shaded: the sensitive cells of an internal workbook."""
        formats = source.workbook.formats
        styles, inverse = np.unique(chosen, return_inverse=True)
        looks = [formats.format(style) if style else CellFormat() for style in styles.tolist()]
        written = []
        for look in looks:
            look, reset = _guarded(look, figures)
            if reset:
                self.dropped.append(Dropped(f"{self._table.sheet}!table cells",
                                            "number format showing an original value (reset to General)"))
            written.append(self._writer.styles.add(look))
        numbers = np.array(written, np.int64)[inverse].reshape(chosen.shape)
        if shaded is not None and shaded.size:
            marked = np.asarray(shaded, np.int64)
            shades = np.array([self._writer.styles.add(dataclasses.replace(look, fill=SENSITIVE_FILL))
                               for look in looks], np.int64)
            numbers.flat[marked] = shades[inverse.ravel()[marked]]
        return [style_attributes(row) for row in numbers]


def _interleave(others: list[tuple[int, str]], columns: tuple[int, ...], table_cells: list[str]) -> str:
    """A row's cells in column order: those outside the table and the table's."""
    if not others or others[-1][0] < columns[0]:
        return "".join(xml for _, xml in others) + "".join(table_cells)
    if others[0][0] > columns[-1]:
        return "".join(table_cells) + "".join(xml for _, xml in others)
    return "".join(xml for _, xml in sorted([*others, *zip(columns, table_cells)]))


def _table_styles(source: SourceSheet) -> np.ndarray:
    """The source style number of each table cell (rows x columns)."""
    part, table = source.part, source.table
    grid = np.zeros((max(part.n_rows, max(table.rows) + 1), max(part.n_columns, max(table.columns) + 1)), np.int64)
    grid[part.rows, part.columns] = part.styles
    return grid[np.ix_(table.rows, table.columns)]


def _release_styles(source: SourceSheet, own: np.ndarray, sensitive: np.ndarray) -> np.ndarray:
    """The source style each table cell takes in a release (see the module docstring): looks that
    are equal count as one."""
    formats = source.workbook.formats
    looks: dict[CellFormat, int] = {}
    styles, inverse = np.unique(own, return_inverse=True)
    first_of_look = [looks.setdefault(formats.format(style) if style else CellFormat(), style)
                     for style in styles.tolist()]
    keys: np.ndarray = np.array(first_of_look, np.int64)[inverse].reshape(own.shape)
    flat_safe = np.ones(keys.size, bool)
    flat_safe[sensitive] = False
    safe = flat_safe.reshape(keys.shape)
    overall = _most_common(keys[safe] if safe.any() else keys.ravel())
    by_row = [_most_common(keys[i][safe[i]]) for i in range(keys.shape[0])]
    by_column = [_most_common(keys[:, j][safe[:, j]]) for j in range(keys.shape[1])]
    row_choice = np.array([-1 if k is None or k == overall else k for k in by_row], np.int64)
    column_choice = np.array([overall if k is None else k for k in by_column], np.int64)
    taken = np.where(row_choice[:, None] >= 0, row_choice[:, None], column_choice[None, :])
    return np.where(safe, own, taken)


def _most_common(keys: np.ndarray) -> int | None:
    """The most frequent key (the first seen of equals), None when there are none."""
    if keys.size == 0:
        return None
    values, first, counts = np.unique(keys, return_index=True, return_counts=True)
    best = np.flatnonzero(counts == counts.max())
    return int(values[best[np.argmin(first[best])]])


def _guarded(cell_format: CellFormat, figures: OriginalFigures | None) -> tuple[CellFormat, bool]:
    """The format, with a number format showing an original figure reset to General (release)."""
    if figures is not None and figures.found_in(cell_format.number_format) is not None:
        return dataclasses.replace(cell_format, number_format="General"), True
    return cell_format, False


def _label_positions(table: ExcelTable) -> set[tuple[int, int]]:
    """The table's own labels: header rows over its columns, label columns beside its rows."""
    layout = table.layout
    columns = set(layout.label_columns) | set(table.columns)
    rows = set(layout.header_rows) | set(layout.data_rows) | set(layout.heading_rows)
    return ({(r, c) for r in layout.header_rows for c in columns}
            | {(r, c) for r in rows for c in layout.label_columns})


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


def _sheet_extras(source: SourceSheet) -> list[Dropped]:
    """Sheet-level things a release never carries, when the sheet has them."""
    part, name = source.part, source.table.sheet
    extras = [(part.conditional_formats, "conditional formatting (it may single out cells)"),
              (part.validations, "data validation rules"),
              (part.drawing, "pictures, charts and shapes")]
    dropped = [Dropped(f"sheet '{name}'", why) for count, why in extras if count]
    marked = [(reference, "comment (comments are never released)")
              for reference in source.workbook.comment_cells(source.entry)]
    marked += [(reference, "hyperlink (links are never released)") for reference in part.hyperlinks]
    for reference, why in sorted(marked, key=lambda item: _position(item[0])):
        dropped.append(Dropped(f"{name}!{reference}", why))
    return dropped


def _position(reference: str) -> tuple[int, str]:
    """Sort key of a cell reference in sheet order ('B4' -> (4, 'B'))."""
    first = reference.split(":")[0]
    letters = first.rstrip("0123456789")
    digits = first[len(letters):]
    return (int(digits) if digits.isdigit() else 0), letters.rjust(3)
