"""Numbers written as text the way offices write them: thousands separators,
decimal comma, spaces, a leading sign, and dashes for zero cells."""

from __future__ import annotations

import re

_COMMA_THOUSANDS = re.compile(r"^[+-]?\d{1,3}(,\d{3})+(\.\d+)?$")
_DOT_THOUSANDS = re.compile(r"^[+-]?\d{1,3}(\.\d{3})+(,\d+)?$")
_PLAIN_DOT = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")
_PLAIN_COMMA = re.compile(r"^[+-]?(\d+(,\d*)?|,\d+)$")
_SPACES = re.compile(r"[ \u00a0\u202f']")

#: texts that stand for an empty (zero) cell in published tables
ZERO_MARKS = frozenset({"-", "\u2013", "\u2014", "."})


def parse_number(value: object, decimal_comma: bool = False) -> float | None:
    """The number a cell holds, or None when it is not a number.

    '1,234.5' and '1.234,5' (with decimal_comma) and '1 234' are 1234.5 / 1234.5 /
    1234; '12,5' is 12.5 only with decimal_comma.  Booleans are not numbers.
    """
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if not isinstance(value, str):
        return None
    text = _SPACES.sub("", value.strip())
    if not text:
        return None
    if decimal_comma:
        if _DOT_THOUSANDS.match(text):
            return float(text.replace(".", "").replace(",", "."))
        if _PLAIN_COMMA.match(text):
            return float(text.replace(",", "."))
        return None
    if _COMMA_THOUSANDS.match(text):
        return float(text.replace(",", ""))
    if _PLAIN_DOT.match(text):
        return float(text)
    return None


def uses_decimal_comma(texts) -> bool:
    """True when some text is only a number read with a decimal comma ('12,5', '1.234,56')
    and none is only a number read with a decimal point ('12.5', '1,234.5')."""
    comma = point = False
    for text in texts:
        if not isinstance(text, str):
            continue
        as_point = parse_number(text, False)
        as_comma = parse_number(text, True)
        if as_comma is not None and (as_point is None or ("," in text and "." not in text
                                                          and not _COMMA_THOUSANDS.match(text.strip()))):
            comma = True
        elif as_point is not None and as_comma is None:
            point = True
    return comma and not point
