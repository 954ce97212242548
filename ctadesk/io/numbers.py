"""Numbers written as text the way offices write them: thousands separators,
decimal comma, spaces, a leading sign, and dashes for zero cells.

Only finite numbers are numbers: '1e400' (beyond a float's range), 'nan' and
'inf' are not, so no table ctadesk reads holds an infinity or a NaN.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np

from ctadesk.io.errors import FileFormatError

_COMMA_THOUSANDS = re.compile(r"^[+-]?\d{1,3}(,\d{3})+(\.\d+)?$")
_DOT_THOUSANDS = re.compile(r"^[+-]?\d{1,3}(\.\d{3})+(,\d+)?$")
_PLAIN_DOT = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")
_PLAIN_COMMA = re.compile(r"^[+-]?(\d+(,\d*)?|,\d+)$")
_SPACES = re.compile(r"[ \u00a0\u202f']")

#: texts that stand for an empty (zero) cell in published tables
ZERO_MARKS = frozenset({"-", "\u2013", "\u2014", "."})


def parse_number(value: object, decimal_comma: bool = False) -> float | None:
    """The number a cell holds, or None when it is not a (finite) number.

    '1,234.5' and '1.234,5' (with decimal_comma) and '1 234' are 1234.5 / 1234.5 /
    1234; '12,5' is 12.5 only with decimal_comma.  Booleans are not numbers.
    """
    number = _parse(value, decimal_comma)
    return number if number is not None and math.isfinite(number) else None


def not_a_number(value: object, decimal_comma: bool = False) -> str:
    """Why parse_number refused value, for a message: "'1e400' is out of range (...)"
    or "'n/a' is not a number"."""
    if out_of_range(value, decimal_comma):
        return f"'{value}' is out of range (numbers must lie within ±1.8e308)"
    return f"'{value}' is not a number"


def out_of_range(value: object, decimal_comma: bool = False) -> bool:
    """True when value is written as a number but lies beyond a float's range ('1e400')."""
    return _parse(value, decimal_comma) in (math.inf, -math.inf)


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


def finite_values(values: object, what: str, file: str | Path, item: str = "cell") -> np.ndarray:
    """values as a float array for writing to file; FileFormatError naming the first
    NaN or infinity (what: e.g. 'values'; item: what one entry is, e.g. 'cell')."""
    values = np.asarray(values, dtype=float)
    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size:
        raise FileFormatError(f"cannot write the {what}: {item} {bad[0]} is {values.flat[bad[0]]} "
                              "(files hold finite numbers only)", file=file)
    return values
