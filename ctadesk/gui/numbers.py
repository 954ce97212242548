"""Numbers as a statistician reads them on screen: one format per table, the locale's separators.

A published table shows every cell at one precision, the one it is released at (engine/publish/
precision.py, ``published_decimals``): "691.0" beside "220.1", never "691" beside "220.1", and
never a cell in scientific notation.  Figures about a table (objective, bound, widths, changes)
show their significant digits in plain notation too; only numbers of 10^15 and beyond, past what
a table of counts or money reaches, keep an exponent.  Thousands and decimal separators are the
locale's (QLocale), so an office user reads 1.234.567,5 where that is the custom.  Nothing shows
as "nan": a number that is not there says so in words.
"""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QLocale

from ctadesk.engine.publish.precision import MAX_DECIMALS

#: numbers from this magnitude on keep an exponent (no table of counts or money reaches it)
PLAIN_LIMIT = 1e15
#: the most decimals a figure shows (a smaller leftover of arithmetic shows as 0)
MAX_FIGURE_DECIMALS = 10
#: what is shown for a number that is not there (NaN)
MISSING = "—"
#: values table_decimals looks at first (evenly spread over the table), and at a time
DECIMALS_SAMPLE, DECIMALS_CHUNK = 1000, 32_768


def table_decimals(*arrays: np.ndarray) -> int:
    """The decimals a table is shown at: the fewest that show every finite value of ``arrays``
    exactly (up to the float's own representation error), at most MAX_DECIMALS, the finest
    precision a table is published at (a count table: 0; a table rounded at publication: its
    decimals; 123456789.1 keeps its decimal however large the number).

    The count only grows as values are looked at, so it is found on an evenly spread sample of
    DECIMALS_SAMPLE values first, then checked on the values in chunks of DECIMALS_CHUNK (that
    stay in the processor's cache): one pass over a million values as a rule, ~5 ms."""
    decimals = 0
    for array in arrays:
        values = np.asarray(array, float).reshape(-1)
        decimals = _fewest_decimals(values[::max(1, values.size // DECIMALS_SAMPLE)], decimals)
        for start in range(0, values.size, DECIMALS_CHUNK):
            if decimals == MAX_DECIMALS:
                return decimals
            decimals = _fewest_decimals(values[start:start + DECIMALS_CHUNK], decimals)
    return decimals


def _fewest_decimals(values: np.ndarray, start: int) -> int:
    """The fewest decimals from ``start`` on that show every finite one of ``values`` below
    PLAIN_LIMIT exactly (MAX_DECIMALS at most)."""
    values = values[np.isfinite(values) & (np.abs(values) < PLAIN_LIMIT)]
    for decimals in range(start, MAX_DECIMALS):
        scaled = values * 10.0 ** decimals
        if np.all(np.abs(scaled - np.round(scaled)) <= 1e-6 + 8 * np.finfo(float).eps * np.abs(scaled)):
            return decimals
    return MAX_DECIMALS


def user_locale() -> QLocale:
    """The user's locale; an unset one ("C", as on a server without LANG) reads as English, so
    large numbers keep their thousands separators."""
    locale = QLocale()
    return QLocale(QLocale.Language.English, QLocale.Country.UnitedStates) if locale.language() == QLocale.Language.C \
        else locale


def _special(value: float) -> str | None:
    """The words or symbol for a number that is not an ordinary one (None for an ordinary one)."""
    if math.isnan(value):
        return MISSING
    if math.isinf(value):
        return "∞" if value > 0 else "−∞"
    return None


def fixed(value: float, decimals: int, locale: QLocale | None = None) -> str:
    """``value`` at ``decimals`` decimals with the locale's separators ("12,345.60"); from
    PLAIN_LIMIT on in the locale's exponent form; never "-0"."""
    special = _special(value)
    if special is not None:
        return special
    locale = locale or user_locale()
    if abs(value) >= PLAIN_LIMIT:
        return locale.toString(float(value), "g", 6)
    rounded = round(float(value), decimals)
    return locale.toString(rounded if rounded != 0 else 0.0, "f", decimals)


def figure(value: float | None, digits: int = 6, locale: QLocale | None = None) -> str:
    """A figure about a table with ``digits`` significant digits in plain notation and the locale's
    separators, trailing zeros dropped ("2,616,750", "0.140429", "12.5"); MISSING for None or NaN."""
    if value is None:
        return MISSING
    value = float(value)
    special = _special(value)
    if special is not None:
        return special
    locale = locale or user_locale()
    if value == 0 or abs(value) >= PLAIN_LIMIT:
        return locale.toString(value, "g", digits) if value else "0"
    decimals = min(MAX_FIGURE_DECIMALS, max(0, digits - 1 - math.floor(math.log10(abs(value)))))
    text = fixed(value, decimals, locale)
    point = locale.decimalPoint()
    if decimals and point in text:
        text = text.rstrip("0").rstrip(point)
    return "0" if text in ("-0", "−0") else text


def _plus(text: str, value: float) -> str:
    """``text`` with a "+" in front when ``value`` is positive and does not show as 0."""
    return f"+{text}" if value > 0 and any(digit in text for digit in "123456789") else text


class TableFormat:
    """One table's number format: its decimals and the locale (the grid, the cell pane, exports shown)."""

    def __init__(self, decimals: int = 0, locale: QLocale | None = None) -> None:
        self.decimals = int(min(max(decimals, 0), MAX_DECIMALS))
        self.locale = locale or user_locale()

    def text(self, value: float) -> str:
        """A cell's value as the table shows it."""
        return fixed(value, self.decimals, self.locale)

    def items(self, values) -> str:
        """Several values in a row, separated so a decimal comma does not run them together."""
        return ("; " if self.locale.decimalPoint() == "," else ", ").join(self.text(v) for v in values)

    def signed(self, value: float) -> str:
        """A change at the table's precision, with its sign ("+12.5", "-3.0", "0")."""
        return _plus(self.text(value), value)

    def percent(self, value: float) -> str:
        """A relative change in percent, with its sign, at 2 decimals."""
        return _plus(fixed(value, 2, self.locale), value)

    def parse(self, text: str) -> float | None:
        """A number typed in the locale's form or in the plain form ("1,234.5", "1234.5"); None if it is none."""
        text = text.strip()
        number, ok = self.locale.toDouble(text)
        if ok:
            return number
        try:
            return float(text.replace(self.locale.groupSeparator(), "").replace(",", ""))
        except ValueError:
            return None


__all__ = ["MISSING", "PLAIN_LIMIT", "TableFormat", "figure", "fixed", "table_decimals", "user_locale"]
