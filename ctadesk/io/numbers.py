"""Numbers as offices write them in tables.

A number written as text may group its thousands with a comma, a dot, a space,
a no-break space (U+00A0), a narrow no-break space (U+202F) or an apostrophe
('1,234', '1.234', '1 234', "1'234"), in groups of three; its decimal mark is a
point or a comma, decided once per file (`number_style`) from all its numbers.
A sign may be '+', '-' or the minus sign U+2212.  Only finite numbers are
numbers: '1e400' (beyond a float's range), 'nan' and 'inf' are not, so no table
ctadesk reads holds an infinity or a NaN.

What a data cell of a published table holds (`read_cell`):

* a number, possibly with a footnote flag after it ('12 e', '12.5p', '7 bep',
  '12*', '12 (p)', '12¹'): the number counts, the flag is dropped;
* a zero mark ('-', '–', '—'): nothing, the value is 0;
* an unknown mark (':', '..', '...', '…', '.', 'x', 'c', 'NaN', 'n/a', '(D)',
  ': c', a lone footnote letter, an error value such as '#REF!'): the value is
  not available or confidential; a table cannot be adjusted without it, so the
  readers refuse such a cell, naming it;
* text otherwise.
"""

from __future__ import annotations

import dataclasses
import enum
import math
import os
import re
from collections.abc import Iterable

import numpy as np

from ctadesk.io.errors import FileFormatError

_SPACE_GROUPS = " \u00a0\u202f'\u2019"
_POINT = re.compile(r"^[+\-]?(?=\.?\d)(?:[1-9]\d{0,2}(?P<g>[," + _SPACE_GROUPS + r"])\d{3}(?:(?P=g)\d{3})*|\d*)"
                    r"(?:\.\d*)?(?:[eE][+-]?\d+)?$")
_COMMA = re.compile(r"^[+\-]?(?=,?\d)(?:[1-9]\d{0,2}(?P<g>[." + _SPACE_GROUPS + r"])\d{3}(?:(?P=g)\d{3})*|\d*)"
                    r"(?:,\d*)?$")
_GROUP_MARKS = re.compile(f"[{_SPACE_GROUPS}]")
_PLAIN_INTEGER = re.compile(r"^[+\-]?\d+$")

#: footnote flags written after a number or alone in a flag column: one letter, two or three
#: Eurostat flag letters ('bep'), a bracketed letter '(p)', stars, superscript digits
_FOOTNOTE = r"(?:[a-z]|[bcdefinprsuz]{2,3}|\([a-z]{1,3}\)|\*{1,3}|[\u00b9\u00b2\u00b3\u2070-\u2079]+)"
_FLAGGED = re.compile(rf"^(?P<number>.*\d\.?)\s*(?P<flag>{_FOOTNOTE})$")
_LONE_FLAG = re.compile(rf"^{_FOOTNOTE}$")

#: texts that stand for an empty (zero) cell in published tables
ZERO_MARKS = frozenset({"-", "\u2013", "\u2014"})
#: texts that stand for a value not available or confidential (compared in lower case)
UNKNOWN_MARKS = frozenset({":", ".", "..", "...", "\u2026", "x", "c", "/", "nan", "na", "n/a", "n.a.", "n.a",
                           "n.v.", "k.a.", "conf", "conf."})
_UNKNOWN_PATTERNS = re.compile(r"^(:\s*[a-z]{1,3}|\([a-z]{1,2}\)|#[a-z/0!?]+[!?]?)$", re.IGNORECASE)


def parse_number(value: object, decimal_comma: bool | None = False) -> float | None:
    """The number a cell holds, or None when it is not a (finite) number.

    '1,234.5' and '1.234,5' (with decimal_comma) and '1 234' are 1234.5 / 1234.5 /
    1234; '12,5' is 12.5 only with decimal_comma.  Booleans are not numbers.
    """
    number = _parse(value, bool(decimal_comma))
    return number if number is not None and math.isfinite(number) else None


def not_a_number(value: object, decimal_comma: bool | None = False) -> str:
    """Why parse_number refused value, for a message: "'1e400' is out of range (...)"
    or "'n/a' is not a number"."""
    if out_of_range(value, decimal_comma):
        return f"'{value}' is out of range (numbers must lie within ±1.8e308)"
    return f"'{value}' is not a number"


def out_of_range(value: object, decimal_comma: bool | None = False) -> bool:
    """True when value is written as a number but lies beyond a float's range ('1e400')."""
    return _parse(value, bool(decimal_comma)) in (math.inf, -math.inf)


def _parse(value: object, decimal_comma: bool) -> float | None:
    """parse_number without the finiteness check (1e400 is inf here)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, float):
        return value
    if isinstance(value, int):
        try:
            return float(value)
        except OverflowError:
            return math.inf if value > 0 else -math.inf
    if not isinstance(value, str):
        return None
    text = value.strip().replace("\u2212", "-")
    if decimal_comma:
        if not _COMMA.match(text):
            return None
        return float(_GROUP_MARKS.sub("", text).replace(".", "").replace(",", "."))
    if not _POINT.match(text):
        return None
    return float(_GROUP_MARKS.sub("", text).replace(",", ""))


class Kind(enum.Enum):
    """What a cell of a table holds."""

    EMPTY = "empty"
    NUMBER = "number"
    ZERO = "zero mark"
    UNKNOWN = "unknown mark"
    TEXT = "text"


@dataclasses.dataclass(frozen=True)
class CellReading:
    """A cell read as a data cell: its kind, its number (NUMBER: the number, ZERO: 0)
    and the flag or mark written in it ('' when none)."""

    kind: Kind
    number: float | None = None
    flag: str = ""


def read_cell(value: object, decimal_comma: bool | None) -> CellReading:
    """What a data cell holds; decimal_comma None reads a number in either style
    (the style that reads it; a point first), for telling numbers from labels."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return CellReading(Kind.EMPTY)
    if not isinstance(value, str):
        number = parse_number(value)
        return CellReading(Kind.NUMBER, number) if number is not None else CellReading(Kind.TEXT)
    text = value.strip()
    number = _either(text, decimal_comma)
    if number is not None:
        return CellReading(Kind.NUMBER, number)
    if text in ZERO_MARKS:
        return CellReading(Kind.ZERO, 0.0, text)
    if is_unknown_mark(text):
        return CellReading(Kind.UNKNOWN, None, text)
    flagged = _FLAGGED.match(text)
    if flagged:
        number = _either(flagged["number"].strip(), decimal_comma)
        if number is not None:
            return CellReading(Kind.NUMBER, number, flagged["flag"])
    return CellReading(Kind.TEXT)


def _either(text: str, decimal_comma: bool | None) -> float | None:
    if decimal_comma is not None:
        return parse_number(text, decimal_comma)
    number = parse_number(text, False)
    return number if number is not None else parse_number(text, True)


def is_unknown_mark(text: str) -> bool:
    """Does text stand for a value not available or confidential (':', 'x', 'c', '..', 'NaN', '#N/A')?"""
    text = text.strip()
    return (text.lower() in UNKNOWN_MARKS or bool(_UNKNOWN_PATTERNS.match(text))
            or bool(_LONE_FLAG.match(text)))


def is_footnote_flag(value: object) -> bool:
    """Is value a footnote flag alone ('e', 'p', 'bep', '(e)', '*'), as in a flag column?"""
    return isinstance(value, str) and bool(_LONE_FLAG.match(value.strip()))


def is_bare_integer(value: object) -> bool:
    """Is value text made of digits only ('01', '12'): a code as often as a number?"""
    return isinstance(value, str) and value.strip().isdigit()


def unknown_value() -> str:
    """Why a cell holding an unknown mark cannot be read, for a message."""
    return ("it marks a value that is not available or confidential; ctadesk needs the value of every cell "
            "of the table (enter the number, or leave the row or column out of the table)")


# ------------------------------------------------------------------ decimal style
def _number_part(text: str) -> str:
    """text without a footnote flag and a sign, as written."""
    text = text.strip().replace("\u2212", "-")
    flagged = _FLAGGED.match(text)
    if flagged and _either(text, None) is None:
        text = flagged["number"].strip()
    return text.lstrip("+-")


def number_style(cells: Iterable[tuple[object, str]], comma_likely: bool = False) -> tuple[bool | None, str]:
    """Whether the numbers written as text use a decimal comma, decided from all of them.

    cells: (value, where) pairs, where naming the cell for a message ('B7', 'line 7').
    A text read by one style only decides ('12,5', '1.234,5', '12.345.678' a comma;
    '12.5', '0.125', '1,234.5' a point).  When every such text could be either
    ('1.234', '5,678'), integers written without separators decide: one of 1000 or
    more ('1234') shows the file groups no thousands, so the mark is a decimal mark;
    else smaller ones ('950') show that larger numbers were grouped.  Failing those,
    comma_likely (a semicolon CSV) decides for the comma.  Returns (decimal_comma,
    '') or (None, why) when the numbers disagree or nothing decides.
    """
    comma = point = ambiguous = None
    marks: set[str] = set()
    long_plain = short_plain = False
    for value, where in cells:
        if not isinstance(value, str):
            continue
        text = _number_part(value)
        as_point, as_comma = parse_number(text, False), parse_number(text, True)
        if as_point is None and as_comma is None:
            continue
        if as_point is not None and _PLAIN_INTEGER.match(text):  # a plain integer reads with a point
            long_plain |= abs(as_point) >= 1000
            short_plain |= abs(as_point) < 1000
        elif as_comma is None:
            point = point or (value, where)
        elif as_point is None:
            comma = comma or (value, where)
        elif as_point != as_comma:
            ambiguous = ambiguous or (value, where)
            marks.add("." if "." in text else ",")
    if comma and point:
        return None, (f"numbers use a decimal comma ('{comma[0]}' in {comma[1]}) and a decimal point "
                      f"('{point[0]}' in {point[1]}); choose one")
    if comma or point or not ambiguous:
        return bool(comma), ""
    if len(marks) == 1 and (long_plain or short_plain):
        return (marks == {","}) if long_plain else (marks == {"."}), ""
    if comma_likely:
        return True, ""
    text = _number_part(ambiguous[0])
    return None, (f"cannot tell whether '{ambiguous[0]}' in {ambiguous[1]} is {parse_number(text, True):g} or "
                  f"{parse_number(text, False):g}: no other number says whether the file uses a decimal "
                  "comma or point; choose one")


def finite_values(values: object, what: str, file: str | os.PathLike[str], item: str = "cell") -> np.ndarray:
    """values as a float array for writing to file; FileFormatError naming the first
    NaN or infinity (what: e.g. 'values'; item: what one entry is, e.g. 'cell')."""
    values = np.asarray(values, dtype=float)
    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size:
        raise FileFormatError(f"cannot write the {what}: {item} {bad[0]} is {values.flat[bad[0]]} "
                              "(files hold finite numbers only)", file=file)
    return values
