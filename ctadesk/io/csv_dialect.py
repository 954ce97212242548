"""The dialect of a CSV file, detected from its first lines and held to by the rest.

The delimiter and the decimal mark are detected from a sample, the file's first SAMPLE_BYTES
characters cut after a line's end (a few thousand lines of a long table), as Python's
csv.Sniffer detects a dialect from a sample: reading every field of a million-line file only
to detect its dialect took 9 s (benchmarks/csv_read.py).  Quoting is the CSV standard's
(RFC 4180, Shafranovich 2005): a field may be enclosed in double quotes, a quote inside it
doubled.

The rest of the file is then read with that dialect, and a line that does not fit it is
refused naming its line, never read some other way: a line split into another number of
fields by the delimiter is refused by the readers; a number written with the other decimal
mark (the first lines read '12.5', a later line '12,5' or '1.234,5') by decimal_mark.  Whether
the file's numbers tell the mark at all is number_style's rule (ctadesk.io.numbers): when the
first lines hold only numbers that read alike with either mark (integers, say), the first
later number that tells decides, as it would reading every line.  The first line names the
columns unless it reads as one of the lines below it (header_missing); the readers refuse a
file without such a line, whose first cell would otherwise be read as names and lost.

decimal_mark sees every value nonetheless, at the cost of one pass in C: number_style's answer
depends only on which kinds of number text occur (read by one mark only, read by both
differently, a plain integer of four digits or more, ...) and on the first of each kind, and a
text's kind depends only on its shape (its digits 1-9 written 9, everything else as written),
so the first text of each shape, a few hundred in a million lines, gives number_style's answer
on every line.
"""

from __future__ import annotations

import csv
import dataclasses
import math
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ctadesk.io.errors import FileFormatError
from ctadesk.io.numbers import number_style, read_cell

DELIMITERS = ("\t", ";", ",", "|")  # in this order where several split the lines alike
#: how much of a file its dialect is detected from (whole lines)
SAMPLE_BYTES = 64 * 1024
#: digits 1-9 written 9: a number text's shape (0 is kept, so the leading digit and zeros stay)
_SHAPE = str.maketrans("123456789", "999999999")
#: texts of more characters (or with an exponent) are their own shape: their digits decide
#: whether the number is finite ('2e308' is not, '1e308' is)
_SHAPE_CHARACTERS = 300
#: value texts a float reads exactly as read_cell does, by decimal comma
_PLAIN = {False: re.compile(r"-?[0-9]+(?:\.[0-9]+)?"), True: re.compile(r"-?[0-9]+(?:,[0-9]+)?")}


@dataclasses.dataclass(frozen=True)
class CsvDialect:
    """delimiter, and decimal_comma: True, False, or None where the numbers do not tell."""

    delimiter: str
    decimal_comma: bool | None


def sample_text(text: str, size: int = SAMPLE_BYTES) -> str:
    """The first ``size`` characters of text, cut after the end of a line (the whole text when
    shorter; the first line whole when it alone is longer)."""
    if len(text) <= size:
        return text
    end = max(text.rfind("\n", 0, size), text.rfind("\r", 0, size)) + 1
    if not end:
        end = text.find("\n", size) + 1 or len(text)
    return text[:end]


def sample_lines(text: str) -> int:
    """How many lines sample_text(text) holds (the lines after it are held to its dialect)."""
    head = sample_text(text)
    return head.count("\n") + head.count("\r") - head.count("\r\n") + (not head.endswith(("\n", "\r")))


def detect_delimiter(text: str) -> str:
    """The delimiter that splits the first lines into the same number (> 1) of fields most often."""
    lines = [line for line in sample_text(text).splitlines()[:50] if line.strip()]
    best, delimiter = (0, 0), None
    for candidate in DELIMITERS:
        counts = [len(row) for row in csv.reader(lines, delimiter=candidate)]
        common = max(set(counts), key=counts.count) if counts else 1
        score = (counts.count(common), common) if common > 1 else (0, 0)
        if score > best:
            best, delimiter = score, candidate
    return delimiter or ","


def detect_dialect(text: str, delimiter: str | None = None, decimal_comma: bool | None = None) -> CsvDialect:
    """The delimiter (detect_delimiter) and whether the numbers of all the lines of ``text`` use a
    decimal comma (None when they do not tell; never with a comma delimiter)."""
    delimiter = delimiter or detect_delimiter(text)
    if decimal_comma is None:
        lines = enumerate(csv.reader(text.splitlines(), delimiter=delimiter), start=1)
        fields = ((field, f"line {line}") for line, row in lines for field in row)
        decimal_comma = False if delimiter == "," else number_style(fields, comma_likely=delimiter == ";")[0]
    return CsvDialect(delimiter, decimal_comma)


def sniff_dialect(text: str, delimiter: str | None = None, decimal_comma: bool | None = None) -> CsvDialect:
    """detect_dialect on the file's first lines only (sample_text)."""
    return detect_dialect(sample_text(text), delimiter, decimal_comma)


def _first_of_each_shape(texts: Sequence[str]) -> list[int]:
    """The index of the first text of each shape (module doc), in the order of the texts."""
    shapes = "\n".join(texts).translate(_SHAPE).split("\n")
    if len(shapes) != len(texts):        # a quoted value held a line break (or there are no texts)
        shapes = [text.translate(_SHAPE) for text in texts]
    last = len(shapes) - 1
    first = dict(zip(reversed(shapes), range(last, -1, -1)))     # the earliest index wins
    own = {shape for shape in first if len(shape) > _SHAPE_CHARACTERS or "e" in shape or "E" in shape}
    by_text = {texts[k]: k for k in range(last, -1, -1) if shapes[k] in own} if own else {}
    return sorted([k for shape, k in first.items() if shape not in own] + list(by_text.values()))


def _says_nothing(text: str) -> bool:
    """Does text read alike with either decimal mark (an integer, a label, a mark)?"""
    return read_cell(text, False).number == read_cell(text, True).number


def decimal_mark(path: Path, texts: Sequence[str], lines: Sequence[int], first_lines: int,
                 comma_likely: bool, undecided: bool | None = None) -> bool:
    """Whether the numbers ``texts`` (one per line, on ``lines``) use a decimal comma: as the
    file's first lines (those up to line ``first_lines``) tell by number_style, and every later
    one must agree; where the first lines tell nothing (module doc), as the first later number
    that tells.  FileFormatError naming the line of the first number that disagrees, or, unless
    ``undecided`` gives the mark then, the numbers whose mark number_style cannot tell."""
    firsts = [(texts[k], lines[k]) for k in _first_of_each_shape(texts)]
    cells = [(text, f"line {line}") for text, line in firsts]
    head = [cell for cell, (_, line) in zip(cells, firsts) if line <= first_lines]
    told = number_style(head, comma_likely)[0]
    whole, why = number_style(cells, comma_likely)
    if told is not None and whole != told and not all(_says_nothing(text) for text, _ in head):
        k = next(k for k in range(len(head), len(cells)) if number_style(cells[:k + 1], comma_likely)[0] != told)
        text, line = firsts[k]
        mark, other = ("comma", "point") if told else ("point", "comma")
        raise FileFormatError(f"'{text}' is written with a decimal {other}, but the numbers of the first "
                              f"{first_lines} lines use a decimal {mark}; choose the file's decimal mark",
                              file=path, row=line)
    if whole is None:
        if undecided is None:
            raise FileFormatError(why, file=path)
        return undecided
    return whole


def header_missing(rows: Sequence[Sequence[str]]) -> bool:
    """Does the first of ``rows`` (a file's first lines, blank ones left out) read as one of the
    lines under it rather than as the names of their columns: in every column, a text the lines
    under it hold in that column too (the codes of a long table repeat), or a number where they
    all hold numbers?  csv.Sniffer.has_header's rule, by columns of codes and of numbers."""
    first, rest = [f.strip() for f in rows[0]], [[f.strip() for f in row] for row in rows[1:]]
    if not rest or any(len(row) != len(first) for row in rest):
        return False
    for c, text in enumerate(first):
        column = [row[c] for row in rest]
        if text not in column and not all(_number(t) for t in [text, *column]):
            return False
    return True


def _number(text: str) -> bool:
    return read_cell(text, None).number is not None


def plain_numbers(texts: Sequence[str], decimal_comma: bool) -> np.ndarray:
    """The numbers of texts written with digits and the decimal mark only ('-1234.5'), as
    read_cell reads them; NaN for every other text (grouped, flagged, a mark, out of range),
    left to read_cell."""
    plain = _PLAIN[decimal_comma].fullmatch
    nan = math.nan
    if decimal_comma:
        numbers = [float(text.replace(",", ".")) if plain(text) else nan for text in texts]
    else:
        numbers = [float(text) if plain(text) else nan for text in texts]
    values = np.array(numbers, dtype=float)
    values[~np.isfinite(values)] = np.nan
    return values
