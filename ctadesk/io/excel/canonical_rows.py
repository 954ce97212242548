"""Reading the rows of a sheet part written the way Excel, LibreOffice and openpyxl write them.

Their cells come in one fixed form ('<c r="B4" s="3" t="s"><v>12</v></c>'):
one regular expression (`_CANONICAL`) reads a chunk of rows at C speed and
must account for every character of it; the rest of the part, with the rows
taken out, goes to expat.  A part that strays from that form anywhere (other
attribute orders, rich text, comments, other encodings) is read by expat
alone (ctadesk.io.excel.expat_sheet), with the same result.
"""

from __future__ import annotations

import re
import zipfile
from typing import TYPE_CHECKING

from ctadesk.io.excel.xml_text import NOT_XML

if TYPE_CHECKING:
    from ctadesk.io.excel.sheet_part import PartReader

#: a row's cells as Excel, LibreOffice and openpyxl write them; every other character of the
#: rows is caught by the last group, which sends the part to expat.  Groups: column letters,
#: row digits, style, type, '<f' and its attributes and text, value, '<is>' and its text,
#: 'row' and its attributes and '/', '</row>', anything else
_CANONICAL = re.compile(
    r'<c r="([A-Z]{1,3})([0-9]{1,7})"(?: s="([0-9]{1,9})")?(?: t="([a-zA-Z]{1,9})")?(?: (?:cm|vm|ph)="[0-9]{1,9}")*'
    r'(?: ?/>|>(?:(<f)((?: [a-zA-Z]{1,12}="[^"<&]*")*)(?: ?/>|>([^<]*)</f>))?(?:<v>([^<]*)</v>|<v ?/>)?'
    r'(?:(<is>)<t(?: xml:space="preserve")?>([^<]*)</t></is>)?</c>)'
    r'|<(row)((?: [a-zA-Z0-9:]{1,30}="[^"<&]*")*) ?(/?)>|(</row>)|[ \t\r\n]+|(.)', re.DOTALL)
#: the bytes read at a time: the regular expression holds the GIL over a whole chunk (128 ms over 1 MiB
#: on a loaded machine, 2-14 ms over 64 KiB), and a window reading a workbook in a worker thread
#: cannot repaint meanwhile; the reading takes as long either way
CHUNK = 1 << 16
_ATTRIBUTE = re.compile(r' ([a-zA-Z0-9:]+)="([^"]*)"')
_REFERENCE = re.compile(r"&(?:(amp|lt|gt|quot|apos)|#([0-9]{1,7})|#x([0-9a-fA-F]{1,6}));|&")
_NAMED = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}


class _NotCanonical(Exception):
    """The part strays from the form _CANONICAL reads: expat reads it."""


def _text(raw: str) -> str:
    """Element text as XML gives it: line ends normalised, then references replaced."""
    if "\r" in raw:
        raw = raw.replace("\r\n", "\n").replace("\r", "\n")
    if "&" in raw:
        raw = _REFERENCE.sub(_reference, raw)
    return raw


def _reference(match: re.Match) -> str:
    """The character a reference stands for."""
    named, decimal, hexadecimal = match.groups()
    if named:
        return _NAMED[named]
    if decimal is None and hexadecimal is None:
        raise _NotCanonical  # a bare '&'
    code = int(decimal) if decimal is not None else int(hexadecimal, 16)
    if not (code in (0x9, 0xA, 0xD) or 0x20 <= code <= 0xD7FF or 0xE000 <= code <= 0xFFFD
            or 0x10000 <= code <= 0x10FFFF):
        raise _NotCanonical  # no character XML holds
    return chr(code)


def read_canonical(archive: zipfile.ZipFile, part: str, reader: PartReader) -> bool:
    """Read the part into reader the fast way (see the module docstring); False when it strays
    from the canonical form anywhere (reader then holds part of it and is to be dropped).  The
    rest of the part must hold exactly the one sheetData element emptied here, and no cell."""
    prefix = b""
    buffer = b""
    in_body = done = False
    with archive.open(part) as stream:
        while chunk := stream.read(CHUNK):
            buffer += chunk
            if not in_body and not done:
                at = buffer.find(b"<sheetData")
                if at < 0 or len(buffer) < at + 12:
                    continue
                prefix, rest = buffer[:at], buffer[at:]
                if rest.startswith(b"<sheetData/>"):
                    buffer, done = rest[12:], True
                elif rest.startswith(b"<sheetData>"):
                    buffer, in_body = rest[11:], True
                else:
                    return False
            if in_body:
                end = buffer.find(b"</sheetData>")
                last_row = buffer.rfind(b"</row>")
                cut = end if end >= 0 else last_row + 6 if last_row >= 0 else 0  # whole rows only
                if cut and not _rows(reader, buffer[:cut]):
                    return False
                buffer = buffer[cut + 12:] if end >= 0 else buffer[cut:]
                in_body, done = end < 0, end >= 0
                reader.check_count()
    if not done or (b"encoding=" in prefix[:200] and not re.search(rb'encoding="utf-?8"', prefix[:200], re.I)):
        return False
    cells, rows = len(reader.values), reader.rows_read
    reader.parser.Parse(prefix + b"<sheetData/>" + buffer, True)
    return (len(reader.values) == cells and reader.rows_read == rows and reader.prefix == ""
            and reader.counts["sheetData"] == 1)


def _rows(reader: PartReader, chunk: bytes) -> bool:
    """Read rows written in the canonical form into reader; False where the chunk strays from it."""
    try:
        rows_text = chunk.decode("utf-8")
    except UnicodeDecodeError:
        return False
    if NOT_XML.search(rows_text):
        return False
    found = _CANONICAL.findall(rows_text)
    plain = "&" not in rows_text and "\r" not in rows_text  # no text needs decoding
    rows, columns, styles, values = reader.rows, reader.columns, reader.styles, reader.values
    value_of, column_numbers, dated = reader.cell_values.value, reader.column_numbers, bool(reader.cell_values.dates)
    row, row_text, in_row = -1, "", False
    try:
        for (letters, digits, style, kind, formula, formula_attributes, formula_text, value, inline, inline_text,
             row_tag, row_attributes, empty_row, row_end, other) in found:
            if letters:
                if not in_row:
                    return False
                column = column_numbers[letters]
                if digits != row_text:
                    if digits[0] == "0":
                        return False
                    row, row_text = int(digits) - 1, digits
                text = inline_text if inline else value
                if not text:
                    values.append(text if inline and kind == "inlineStr" else None)
                elif (not kind or kind == "n") and not dated and text.isdecimal():  # the common case: a whole number
                    values.append(int(text))
                else:
                    values.append(value_of(kind or None, text if plain else _text(text), style or "0", row, column))
                rows.append(row)
                columns.append(column)
                styles.append(style or "0")
                if formula:
                    attributes = dict(_ATTRIBUTE.findall(formula_attributes))
                    reader.add_formula(formula_text if plain else _text(formula_text), attributes.get("t"),
                                       attributes.get("si"), "ref" in attributes, row, column)
            elif row_tag:
                if in_row:
                    return False
                attributes = dict(_ATTRIBUTE.findall(row_attributes))
                row = reader.add_row(attributes.get("r"), attributes.get("hidden"), attributes.get("ht"))
                row_text, in_row = attributes.get("r") or str(row + 1), not empty_row
            elif row_end:
                if not in_row:
                    return False
                in_row = False
            elif other:
                return False
    except _NotCanonical:
        return False
    return not in_row
