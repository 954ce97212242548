"""Cell formats: read from a workbook's stylesheet, and collected for a workbook being written.

A `CellFormat` is everything about a cell's look (font, fill, border, alignment,
protection, number format, quote prefix) as openpyxl's style objects, which
compare by value: two cells look alike exactly when their formats are equal.
openpyxl parses the stylesheet (a small part) and serialises each distinct
font, fill, border, alignment and protection of a written workbook.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np
from openpyxl.styles import Alignment, Border, Font, PatternFill, Protection
from openpyxl.styles.borders import DEFAULT_BORDER
from openpyxl.styles.fills import DEFAULT_EMPTY_FILL, DEFAULT_GRAY_FILL, Fill
from openpyxl.styles.fonts import DEFAULT_FONT
from openpyxl.styles.numbers import (
    BUILTIN_FORMATS,
    BUILTIN_FORMATS_MAX_SIZE,
    BUILTIN_FORMATS_REVERSE,
    is_date_format,
    is_timedelta_format,
)
from openpyxl.styles.stylesheet import Stylesheet
from openpyxl.xml.functions import fromstring, tostring

from ctadesk.io.excel.xml_text import escape_attribute

_NO_ALIGNMENT = Alignment()
_NO_PROTECTION = Protection()


@dataclasses.dataclass(frozen=True)
class CellFormat:
    """How a cell looks; the default is a cell without formatting."""

    font: Font = DEFAULT_FONT
    fill: Fill = DEFAULT_EMPTY_FILL
    border: Border = DEFAULT_BORDER
    alignment: Alignment = _NO_ALIGNMENT
    protection: Protection = _NO_PROTECTION
    number_format: str = "General"
    quote_prefix: bool = False


DEFAULT_FORMAT = CellFormat()


@dataclasses.dataclass(frozen=True)
class SourceFormats:
    """The cell formats of a workbook read, by the style number cells refer to (`s`).

    formats  look of each style (style 0 is the look of an unformatted cell)
    indents  alignment indent of each style
    dates    styles whose numbers are dates ('date') or durations ('timedelta')
    """

    formats: tuple[CellFormat, ...] = (DEFAULT_FORMAT,)
    indents: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(1, np.int64))
    dates: dict[int, str] = dataclasses.field(default_factory=dict)

    def format(self, style: int) -> CellFormat:
        """The look of a style number (an unknown number looks unformatted)."""
        return self.formats[style] if 0 <= style < len(self.formats) else DEFAULT_FORMAT


def read_formats(data: bytes | None) -> SourceFormats:
    """The cell formats of a stylesheet part (None: the workbook has none).  Ids of fonts,
    fills or borders beyond the stylesheet's lists read as the default."""
    if data is None:
        return SourceFormats()
    sheet = Stylesheet.from_tree(fromstring(data))
    custom = sheet.custom_formats
    formats, dates = [], {}
    for style, xf in enumerate(sheet.cellXfs.xf):
        code = custom.get(xf.numFmtId) or BUILTIN_FORMATS.get(xf.numFmtId, "General")
        formats.append(CellFormat(_item(sheet.fonts, xf.fontId, DEFAULT_FONT),
                                  _item(sheet.fills, xf.fillId, DEFAULT_EMPTY_FILL),
                                  _item(sheet.borders, xf.borderId, DEFAULT_BORDER),
                                  xf.alignment or _NO_ALIGNMENT, xf.protection or _NO_PROTECTION,
                                  code, bool(xf.quotePrefix)))
        if is_date_format(code):
            dates[style] = "timedelta" if is_timedelta_format(code) else "date"
    indents = np.array([int(f.alignment.indent or 0) for f in formats] or [0], np.int64)
    return SourceFormats(tuple(formats) or (DEFAULT_FORMAT,), indents, dates)


def _item(items: Sequence, index: int | None, default):
    return items[index] if index is not None and 0 <= index < len(items) else default


class StyleTable:
    """The cell formats of a workbook being written, each stored once; number 0 is the default."""

    def __init__(self) -> None:
        self._numbers: dict[CellFormat, int] = {DEFAULT_FORMAT: 0}
        self._formats: list[CellFormat] = [DEFAULT_FORMAT]

    def add(self, cell_format: CellFormat) -> int:
        """The style number of a format (added when new)."""
        number = self._numbers.setdefault(cell_format, len(self._formats))
        if number == len(self._formats):
            self._formats.append(cell_format)
        return number

    def quoted(self, style: int) -> int:
        """The style number of `style` with a quote prefix (Excel keeps the cell text when edited)."""
        return self.add(dataclasses.replace(self._formats[style], quote_prefix=True))

    def xml(self) -> bytes:
        """The stylesheet part."""
        fonts: dict[Font, int] = {DEFAULT_FONT: 0}
        fills: dict[Fill, int] = {DEFAULT_EMPTY_FILL: 0, DEFAULT_GRAY_FILL: 1}
        borders: dict[Border, int] = {DEFAULT_BORDER: 0}
        custom: dict[str, int] = {}
        xfs = []
        for cell_format in self._formats:
            number_format = BUILTIN_FORMATS_REVERSE.get(cell_format.number_format)
            if number_format is None:
                number_format = custom.setdefault(cell_format.number_format, BUILTIN_FORMATS_MAX_SIZE + len(custom))
            font = fonts.setdefault(cell_format.font, len(fonts))
            fill = fills.setdefault(cell_format.fill, len(fills))
            border = borders.setdefault(cell_format.border, len(borders))
            xfs.append(_xf(cell_format, number_format, font, fill, border))
        number_formats = "".join(f'<numFmt numFmtId="{number}" formatCode="{escape_attribute(code)}"/>'
                                 for code, number in custom.items())
        parts = [
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
            '<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">',
            f'<numFmts count="{len(custom)}">{number_formats}</numFmts>' if custom else "",
            _list("fonts", fonts), _list("fills", fills), _list("borders", borders),
            '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>',
            f'<cellXfs count="{len(xfs)}">{"".join(xfs)}</cellXfs>',
            '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>',
            "</styleSheet>"]
        return "".join(parts).encode("utf-8")


def _xf(cell_format: CellFormat, number_format: int, font: int, fill: int, border: int) -> str:
    """One cellXfs entry."""
    applied = "".join(f' {name}="1"' for name, used in (
        ("applyNumberFormat", number_format != 0), ("applyFont", font != 0), ("applyFill", fill != 0),
        ("applyBorder", border != 0), ("applyAlignment", cell_format.alignment != _NO_ALIGNMENT),
        ("applyProtection", cell_format.protection != _NO_PROTECTION), ("quotePrefix", cell_format.quote_prefix))
        if used)
    inner = ""
    if cell_format.alignment != _NO_ALIGNMENT:
        inner += _serialised(cell_format.alignment)
    if cell_format.protection != _NO_PROTECTION:
        inner += _serialised(cell_format.protection)
    head = f'<xf numFmtId="{number_format}" fontId="{font}" fillId="{fill}" borderId="{border}" xfId="0"{applied}'
    return f"{head}>{inner}</xf>" if inner else f"{head}/>"


def _list(tag: str, items: dict) -> str:
    return f'<{tag} count="{len(items)}">{"".join(map(_serialised, items))}</{tag}>'


def _serialised(item) -> str:
    return tostring(item.to_tree()).decode("utf-8")


#: fill of the sensitive cells in an internal workbook
SENSITIVE_FILL = PatternFill("solid", start_color="FFF8CBAD", end_color="FFF8CBAD")
