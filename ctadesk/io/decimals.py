"""Decimal numbers parsed in bulk from a byte buffer, eight bytes at a time.

Python's ``float`` (and numpy's ``loadtxt``/``fromstring``) spend about 150 ns on a
number; a JJ file of a million cells holds some thirteen million of them.  Most are
short: ``474``, ``-1``, ``379.2``.  ``parse_decimals`` reads each token of at most
eight bytes -- an optional ``-``, digits and at most one ``.`` -- as one 64-bit word
(SWAR: the digits are combined pairwise in three multiply-adds) and divides the
integer of its digits by a power of ten.  Both are exact (at most eight digits, a
power of ten at most 10**7), so the division is correctly rounded and the value is
bit for bit what ``float`` gives.  Every other token (an exponent, ``inf``, more
digits) is handed to ``float`` itself, so the results never differ from it.

    buffer = padded(data)
    values, whole = parse_decimals(buffer, starts, ends)   # None if a token is no number
"""

from __future__ import annotations

import numpy as np

#: tokens parsed per step, so the step's arrays stay in the processor's cache
CHUNK = 1 << 16
_ONES = 0x0101010101010101
_ZEROS = np.uint64(0x30 * _ONES)
_HIGH_NIBBLES = np.uint64(0xF0 * _ONES)
_LOW_NIBBLES = np.uint64(0x0F * _ONES)
_SIX = np.uint64(0x06 * _ONES)
_LOW7 = np.uint64(0x7F * _ONES)
_HIGH_BITS = np.uint64(0x80 * _ONES)
_DOTS = np.uint64(0x2E * _ONES)
#: by a token's length L (1..8): the shift that puts its last byte on top, and the '0's
#: that fill the bytes below its first (leading zeros)
_SHIFTS = np.array([8 * (8 - length) for length in range(9)], dtype=np.uint64)
_PADS = np.array([(0x30 * _ONES) & ((1 << (8 * (8 - length))) - 1) for length in range(9)], dtype=np.uint64)
_POWERS = 10.0 ** np.arange(8)


def padded(data: bytes) -> np.ndarray:
    """data as a uint8 array with eight zero bytes after it, so a word can be read at any byte."""
    return np.frombuffer(data + bytes(8), np.uint8)


def _short(buffer: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Values of the tokens [starts, ends) of buffer that are short decimals, a mask of those
    tokens, and a mask of the ones written with digits only (whole numbers 0, 1, 2, ...)."""
    words = np.ndarray(shape=(buffer.size - 7,), dtype="<u8", buffer=buffer, strides=(1,))  # one at each byte
    negative = buffer[starts] == ord("-")
    signed = bool(negative.any())
    first = starts + negative if signed else starts
    length = ends - first
    simple = (length >= 1) & (length <= 8)
    length = np.clip(length, 1, 8)
    word = (words[first] << _SHIFTS[length]) | _PADS[length]  # last byte on top, '0's below the first
    dots = ~((((word ^ _DOTS) & _LOW7) + _LOW7) | (word ^ _DOTS)) & _HIGH_BITS  # the high bit of each '.'
    has_dot = dots != 0
    dotted = bool(has_dot.any())
    if dotted:
        simple &= (dots & (dots - np.uint64(1))) == 0  # one '.' at most
        dot = dots >> np.uint64(7)
        above = ~((dot << np.uint64(8)) - np.uint64(1))
        undotted = (word & above) | ((word & (dot - np.uint64(1))) << np.uint64(8)) | np.uint64(0x30)
        word = np.where(has_dot, undotted, word)
        simple &= length > has_dot  # a digit besides the '.'
    simple &= ((word & _HIGH_NIBBLES) == _ZEROS) & ((((word & _LOW_NIBBLES) + _SIX) & _HIGH_NIBBLES) == 0)
    digits = word - _ZEROS
    digits = (digits * np.uint64(10) + (digits >> np.uint64(8))) & np.uint64(0x00FF00FF00FF00FF)
    digits = (digits * np.uint64(100) + (digits >> np.uint64(16))) & np.uint64(0x0000FFFF0000FFFF)
    digits = (digits * np.uint64(10000) + (digits >> np.uint64(32))) & np.uint64(0xFFFFFFFF)
    values = digits.astype(float)
    whole = simple
    if dotted:
        values /= _POWERS[np.where(has_dot, np.bitwise_count(above) >> np.uint8(3), 0)]
        whole = whole & ~has_dot
    if signed:
        values = np.where(negative, -values, values)
        whole = whole & ~negative
    return values, simple, whole


def parse_decimals(buffer: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The numbers the tokens buffer[starts[k]:ends[k]] spell, as float would read them, and a mask
    of the tokens written as whole numbers (digits only, at most eight); None when a token is
    no number float reads.  buffer is padded (see padded)."""
    values = np.empty(starts.size)
    whole = np.empty(starts.size, bool)
    for begin in range(0, starts.size, CHUNK):
        part = slice(begin, begin + CHUNK)
        values[part], simple, whole[part] = _short(buffer, starts[part], ends[part])
        for k in (np.flatnonzero(~simple) + begin).tolist():
            try:
                values[k] = float(buffer[starts[k]:ends[k]].tobytes())
            except ValueError:
                return None
    return values, whole
