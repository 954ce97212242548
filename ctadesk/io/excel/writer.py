"""Writing .xlsx workbooks fast: each sheet's rows streamed into the archive as they come.

A `WorkbookWriter` holds the shared strings and the cell formats (`StyleTable`)
of the workbook; `add_sheet` opens a `SheetWriter` whose rows are written in
order, each as its cells rendered (`cell`, or `number_cells` for a run of
numbers).  Text is always written as text, never as a formula; text that Excel
would take for one when edited ('=...', '+...', '-...', '@...') gets a quote
prefix.  The document properties name ctadesk as creator and nothing else.
The archive is written beside the target and moved onto it when complete.
Rendered rows are compressed into the archive by a second thread (zlib
releases the interpreter meanwhile) while the next rows are rendered.
"""

from __future__ import annotations

import datetime
import math
import os
import tempfile
import zipfile
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import numpy as np
from openpyxl.utils import get_column_letter
from openpyxl.utils.cell import coordinate_to_tuple
from openpyxl.utils.datetime import to_excel
from openpyxl.writer.theme import theme_xml

from ctadesk.io.excel.sheet_part import ColumnFormat
from ctadesk.io.excel.styles import StyleTable
from ctadesk.io.excel.xml_text import escape_attribute, escape_text

#: how text starts that Excel would take for a formula when the cell is edited
FORMULA_STARTS = ("=", "+", "-", "@")
_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
_MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
_RELATIONS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_PACKAGE_RELATIONS = "http://schemas.openxmlformats.org/package/2006/relationships"
_TYPES = "application/vnd.openxmlformats-officedocument"
#: rendered rows gathered before they are compressed into the archive
_FLUSH_CHARACTERS = 1 << 22


def column_letters(count: int) -> list[str]:
    """The letters of the first `count` columns ('A', 'B', ...)."""
    return [get_column_letter(c + 1) for c in range(count)]


def number_texts(values: np.ndarray) -> list[str]:
    """Finite numbers as a cell holds them: whole numbers as integers, others at full precision."""
    values = np.asarray(values, float).ravel()
    whole = (np.abs(values) < 2**53) & (values == np.round(values))
    if whole.all():
        return list(map(str, values.astype(np.int64).tolist()))
    return [str(int(v)) if w else repr(v) for v, w in zip(values.tolist(), whole.tolist())]


def style_attributes(styles: np.ndarray) -> list[str]:
    """The style attribute (' s="3"', nothing for style 0) of each style number, for number_cells
    and column_rows."""
    styles = np.asarray(styles, np.int64)
    names = np.array([f' s="{n}"' if n else "" for n in range(int(styles.max(initial=0)) + 1)], dtype=object)
    return names[styles].tolist()


def column_rows(first_row: int, letters: Sequence[str], values: Sequence[Sequence[str]],
                styles: Sequence[str | Sequence[str]], shared: Sequence[bool]) -> str:
    """Rendered rows first_row, first_row + 1, ... (1-based), each with one cell per column named by
    letters: values[j][i] is the value of row i in column j, as number_texts gives it or, where
    shared[j], as a shared-string number; styles[j] the style attribute (style_attributes) of
    every cell of column j, or of each."""
    cells, columns = [], []
    numbers = [str(r) for r in range(first_row, first_row + (len(values[0]) if values else 0))]
    for column, value, style, text in zip(letters, values, styles, shared):
        kind = ' t="s"' if text else ""
        if isinstance(style, str):
            cells.append(f'<c r="{column}%s"{style}{kind}><v>%s</v></c>')
            columns += [numbers, value]
        else:
            cells.append(f'<c r="{column}%s"%s{kind}><v>%s</v></c>')
            columns += [numbers, style, value]
    template = f'<row r="%s">{"".join(cells)}</row>'
    return "".join(map(template.__mod__, zip(numbers, *columns)))


def number_cells(letters: Sequence[str], row: int, texts: Sequence[str], styles: Sequence[str]) -> list[str]:
    """Rendered number cells of sheet row `row` (1-based) in the columns named by letters: their
    values as number_texts gives them, their style attributes as style_attributes gives them."""
    r = str(row)
    return [f'<c r="{column}{r}"{style}><v>{text}</v></c>' for column, style, text in zip(letters, styles, texts)]


class WorkbookWriter:
    """A workbook written sheet by sheet (see the module docstring); use as a context manager,
    or call close() when every sheet is written."""

    def __init__(self, target: str | Path) -> None:
        self.target = Path(target)
        self.styles = StyleTable()
        self._strings: dict[str, int] = {}
        self._titles: list[str] = []
        handle, name = tempfile.mkstemp(prefix=f".{self.target.name}.", dir=self.target.parent)
        os.close(handle)
        self._partial = Path(name)
        self._archive = zipfile.ZipFile(self._partial, "w", zipfile.ZIP_DEFLATED, compresslevel=1)
        self._compressor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="xlsx-writer")
        self._sheet: SheetWriter | None = None

    def __enter__(self) -> WorkbookWriter:
        return self

    def __exit__(self, kind, error, trace) -> None:
        if kind is None:
            self.close()
            return
        try:
            if self._sheet is not None:
                self._sheet.abandon()
        finally:
            self._compressor.shutdown()
            self._archive.close()
            self._partial.unlink(missing_ok=True)

    @property
    def titles(self) -> list[str]:
        """The sheets' names so far."""
        return list(self._titles)

    def add_sheet(self, title: str, columns: Sequence[ColumnFormat] = (), frozen: str | None = None) -> SheetWriter:
        """A new sheet (the previous one is finished); frozen names the top-left cell of the
        frozen panes ('B4')."""
        self._finish_sheet()
        self._titles.append(title)
        stream = self._archive.open(f"xl/worksheets/sheet{len(self._titles)}.xml", "w")
        self._sheet = SheetWriter(stream, self._compressor, columns, frozen)
        return self._sheet

    def string(self, text: str) -> int:
        """The shared-string number of text."""
        return self._strings.setdefault(text, len(self._strings))

    def _text_cell(self, reference: str, text: str, style: int) -> str:
        """A text cell; text Excel would run as a formula when edited gets a quote prefix."""
        if text.startswith(FORMULA_STARTS):
            style = self.styles.quoted(style)
        return f'<c r="{reference}"{_style(style)} t="s"><v>{self.string(text)}</v></c>'

    def cell(self, reference: str, value: object, style: int = 0) -> str:
        """A cell holding any value a sheet shows: text, number, boolean, date or time (None: the
        style alone).  A number that is not finite is written as its text."""
        if value is None:
            return f'<c r="{reference}"{_style(style)}/>' if style else ""
        if isinstance(value, str):
            return self._text_cell(reference, value, style)
        if isinstance(value, (bool, np.bool_)):
            return f'<c r="{reference}"{_style(style)} t="b"><v>{int(value)}</v></c>'
        if isinstance(value, (datetime.datetime, datetime.date, datetime.time, datetime.timedelta)):
            return f'<c r="{reference}"{_style(style)}><v>{to_excel(value)!r}</v></c>'
        if isinstance(value, (int, np.integer)):
            return f'<c r="{reference}"{_style(style)}><v>{int(value)}</v></c>'
        if isinstance(value, (float, np.floating)) and math.isfinite(value):
            return f'<c r="{reference}"{_style(style)}><v>{number_texts(np.array([value]))[0]}</v></c>'
        return self._text_cell(reference, str(value), style)

    def close(self) -> None:
        """Write the shared parts and move the archive onto the target."""
        self._finish_sheet()
        self._compressor.shutdown()
        archive = self._archive
        archive.writestr("[Content_Types].xml", self._content_types())
        archive.writestr("_rels/.rels", _relations([
            ("rId1", "officeDocument", "xl/workbook.xml", _RELATIONS),
            ("rId2", "metadata/core-properties", "docProps/core.xml", _PACKAGE_RELATIONS),
            ("rId3", "extended-properties", "docProps/app.xml", _RELATIONS)]))
        archive.writestr("docProps/core.xml", _core_properties())
        archive.writestr("docProps/app.xml", _HEAD + '<Properties xmlns="http://schemas.openxmlformats.org/'
                         'officeDocument/2006/extended-properties"><Application>ctadesk</Application></Properties>')
        archive.writestr("xl/workbook.xml", self._workbook())
        n = len(self._titles)
        archive.writestr("xl/_rels/workbook.xml.rels", _relations(
            [(f"rId{k + 1}", "worksheet", f"worksheets/sheet{k + 1}.xml", _RELATIONS) for k in range(n)]
            + [(f"rId{n + 1}", "styles", "styles.xml", _RELATIONS),
               (f"rId{n + 2}", "sharedStrings", "sharedStrings.xml", _RELATIONS),
               (f"rId{n + 3}", "theme", "theme/theme1.xml", _RELATIONS)]))
        archive.writestr("xl/styles.xml", self.styles.xml())
        archive.writestr("xl/sharedStrings.xml", self._shared_strings())
        archive.writestr("xl/theme/theme1.xml", theme_xml)
        archive.close()
        os.replace(self._partial, self.target)

    def _finish_sheet(self) -> None:
        if self._sheet is not None:
            self._sheet.close()
            self._sheet = None

    def _workbook(self) -> str:
        sheets = "".join(f'<sheet name="{escape_attribute(title)}" sheetId="{k + 1}" r:id="rId{k + 1}"/>'
                         for k, title in enumerate(self._titles))
        return (f'{_HEAD}<workbook xmlns="{_MAIN}" xmlns:r="{_RELATIONS}"><workbookPr/>'
                f'<bookViews><workbookView activeTab="0"/></bookViews><sheets>{sheets}</sheets></workbook>')

    def _shared_strings(self) -> str:
        items = "".join(f'<si><t xml:space="preserve">{escape_text(text)}</t></si>' for text in self._strings)
        return f'{_HEAD}<sst xmlns="{_MAIN}" uniqueCount="{len(self._strings)}">{items}</sst>'

    def _content_types(self) -> str:
        sheets = "".join(f'<Override PartName="/xl/worksheets/sheet{k + 1}.xml" '
                         f'ContentType="{_TYPES}.spreadsheetml.worksheet+xml"/>' for k in range(len(self._titles)))
        return (f'{_HEAD}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
                '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
                '<Default Extension="xml" ContentType="application/xml"/>'
                f'<Override PartName="/xl/workbook.xml" ContentType="{_TYPES}.spreadsheetml.sheet.main+xml"/>'
                f'{sheets}'
                f'<Override PartName="/xl/styles.xml" ContentType="{_TYPES}.spreadsheetml.styles+xml"/>'
                f'<Override PartName="/xl/sharedStrings.xml" ContentType="{_TYPES}.spreadsheetml.sharedStrings+xml"/>'
                f'<Override PartName="/xl/theme/theme1.xml" ContentType="{_TYPES}.theme+xml"/>'
                '<Override PartName="/docProps/core.xml" '
                'ContentType="application/vnd.openxmlformats-package.core-properties+xml"/>'
                f'<Override PartName="/docProps/app.xml" ContentType="{_TYPES}.extended-properties+xml"/>'
                '</Types>')


class SheetWriter:
    """One sheet's part, written row by row (rows in ascending order, cells in each row too)."""

    def __init__(self, stream, compressor: ThreadPoolExecutor, columns: Sequence[ColumnFormat],
                 frozen: str | None) -> None:
        self._stream = stream
        self._compressor = compressor
        self._writing: Future | None = None
        self._pending: list[str] = []
        self._size = 0
        self._merged: list[str] = []
        head = [_HEAD, f'<worksheet xmlns="{_MAIN}" xmlns:r="{_RELATIONS}">', _sheet_view(frozen),
                '<sheetFormatPr defaultRowHeight="15"/>']
        if columns:
            head.append("<cols>" + "".join(_column(c) for c in columns) + "</cols>")
        head.append("<sheetData>")
        self._write("".join(head))

    def row(self, number: int, cells: str, *, height: float | None = None, hidden: bool = False) -> None:
        """Sheet row `number` (1-based) holding the rendered cells."""
        settings = f' ht="{height!r}" customHeight="1"' if height is not None else ""
        settings += ' hidden="1"' if hidden else ""
        self._write(f'<row r="{number}"{settings}>{cells}</row>')

    def rendered_rows(self, rows: str) -> None:
        """Rows rendered by column_rows."""
        self._write(rows)

    def merge(self, reference: str) -> None:
        """Merge a range ('A1:E1')."""
        self._merged.append(reference)

    def close(self) -> None:
        tail = "</sheetData>"
        if self._merged:
            tail += f'<mergeCells count="{len(self._merged)}">' + "".join(
                f'<mergeCell ref="{reference}"/>' for reference in self._merged) + "</mergeCells>"
        self._write(tail + '<pageMargins left="0.75" right="0.75" top="1" bottom="1" header="0.5" footer="0.5"/>'
                    "</worksheet>")
        self._flush()
        self._written()
        self._stream.close()

    def abandon(self) -> None:
        """Stop writing (the workbook is not finished)."""
        try:
            self._written()
        finally:
            self._stream.close()

    def _write(self, text: str) -> None:
        self._pending.append(text)
        self._size += len(text)
        if self._size > _FLUSH_CHARACTERS:
            self._flush()

    def _flush(self) -> None:
        """Hand the pending rows to the compressing thread (once it is done with the previous ones)."""
        data = "".join(self._pending).encode("utf-8")
        self._pending, self._size = [], 0
        self._written()
        self._writing = self._compressor.submit(self._stream.write, data)

    def _written(self) -> None:
        """Wait until the rows handed over are in the archive (raising what writing them raised)."""
        if self._writing is not None:
            writing, self._writing = self._writing, None
            writing.result()


def _style(style: int) -> str:
    return f' s="{style}"' if style else ""


def _sheet_view(frozen: str | None) -> str:
    row, column = coordinate_to_tuple(frozen) if frozen else (1, 1)
    if (row, column) == (1, 1):
        return '<sheetViews><sheetView workbookViewId="0"/></sheetViews>'
    split = (f' xSplit="{column - 1}"' if column > 1 else "") + (f' ySplit="{row - 1}"' if row > 1 else "")
    pane = "bottomRight" if row > 1 and column > 1 else "bottomLeft" if row > 1 else "topRight"
    return (f'<sheetViews><sheetView workbookViewId="0"><pane{split} topLeftCell="{frozen}" activePane="{pane}" '
            f'state="frozen"/><selection pane="{pane}" activeCell="{frozen}" sqref="{frozen}"/></sheetView>'
            "</sheetViews>")


def _column(column: ColumnFormat) -> str:
    width = f' width="{column.width!r}" customWidth="1"' if column.width is not None else ""
    hidden = ' hidden="1"' if column.hidden else ""
    return f'<col min="{column.first + 1}" max="{column.last + 1}"{width}{hidden}/>'


def _relations(relations: list[tuple[str, str, str, str]]) -> str:
    items = "".join(f'<Relationship Id="{rid}" Type="{base}/{kind}" Target="{target}"/>'
                    for rid, kind, target, base in relations)
    return f'{_HEAD}<Relationships xmlns="{_PACKAGE_RELATIONS}">{items}</Relationships>'


def _core_properties() -> str:
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return (f'{_HEAD}<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/'
            'core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" '
            'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><dc:creator>ctadesk</dc:creator>'
            f'<dcterms:created xsi:type="dcterms:W3CDTF">{now}</dcterms:created>'
            f'<dcterms:modified xsi:type="dcterms:W3CDTF">{now}</dcterms:modified></cp:coreProperties>')
