"""Finding the original value of a sensitive cell in a text or a number about to be released.

A figure counts as shown when a text or number states it in any common
spelling: exactly, rounded to 2, 1 or 0 decimals, with or without thousands
separators (``4817``, ``4,817``, ``4.817,00``, ``4 817``), with a decimal point
or a decimal comma.  Signs are ignored.  The check is deliberately eager: a
title that happens to mention the same number as a sensitive original is
dropped too, and the export report says so.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable

#: a number as people write it: digits, optionally grouped and with a decimal part
_NUMBER = re.compile(r"\d+(?:[.,'\u00a0\u202f ]\d+)*")
_SPACES = re.compile(r"[\u00a0\u202f ]")
_GROUPING = re.compile(r"[.,']")
#: decimals a figure is compared at (the key of a figure)
_KEY_DECIMALS = 6


def _key(number: float) -> float:
    return round(abs(number), _KEY_DECIMALS)


class OriginalFigures:
    """The original values of sensitive cells, and every rounding of them a text might show."""

    def __init__(self, originals: Iterable[float]) -> None:
        self._keys: dict[float, float] = {}
        for original in map(float, originals):
            if original.is_integer():  # every rounding of a whole number is the number
                self._keys.setdefault(abs(original), original)
            elif math.isfinite(original):
                for shown in _roundings(original):
                    if shown != 0:
                        self._keys.setdefault(_key(shown), original)

    def __bool__(self) -> bool:
        return bool(self._keys)

    def found_in(self, content: object) -> float | None:
        """The original value `content` (a text or a number) shows, or None."""
        if isinstance(content, bool) or not self._keys:
            return None
        if isinstance(content, (int, float)):
            return self._keys.get(_key(float(content))) if math.isfinite(content) else None
        if isinstance(content, str):
            for token in _NUMBER.findall(content):
                for reading in _readings(token):
                    if _key(reading) in self._keys:
                        return self._keys[_key(reading)]
        return None


def _roundings(number: float) -> set[float]:
    """The number, and it rounded to 2, 1 and 0 decimals (to even, and half away from zero as Excel does)."""
    shown = {number}
    for decimals in (2, 1, 0):
        scale = 10.0 ** decimals
        shown |= {round(number, decimals), math.copysign(math.floor(abs(number) * scale + 0.5), number) / scale}
    return shown


def _readings(token: str) -> set[float]:
    """The numbers a written token may mean: grouped as a whole, and each space-separated part."""
    parts = [token, *_SPACES.split(token)] if _SPACES.search(token) else [token]
    readings: set[float] = set()
    for part in parts:
        readings |= _part_readings(_SPACES.sub("", part))
    return readings


def _part_readings(part: str) -> set[float]:
    """A token without spaces: every separator a grouping mark, or the last '.'/',' a decimal mark."""
    readings = {float(_GROUPING.sub("", part))}
    marks = list(re.finditer(r"[.,]", part))
    if marks:
        last = marks[-1].start()
        readings.add(float(f"{_GROUPING.sub('', part[:last])}.{part[last + 1:]}"))
    return readings
