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

    buffer = np.frombuffer(data, np.uint8)
    values, whole = parse_decimals(buffer, starts, ends)   # None if a token is no number
    indices = parse_whole(buffer, starts, ends)            # None if a token is not digits only

A column of mostly one-digit tokens (a JJ file's costs 1 and protection levels 0, told by a
sample of SAMPLE tokens) is read by the byte, and only its other tokens word by word.  A token's
word is read at its first byte, and again past its '-' for the negative ones; its bytes are
checked to be digits in one step (adding 0x46 sets a byte's high bit from ':' on, subtracting
'0' below '0'), and that subtraction is kept as the digits.

The buffer is the data itself, not a copy: a token with fewer than eight bytes from its first to
the buffer's end (the last one or two of a file) is read by float or int.

``parse_whole`` reads tokens that must be whole numbers (the cells of a JJ relation, its count
of terms, a cell's index) with the digit step alone: a third of the work of a decimal.
"""

from __future__ import annotations

import numpy as np

#: tokens parsed per step, so the step's arrays stay in the processor's cache
CHUNK = 1 << 16
#: tokens looked at to tell a column of mostly one-digit numbers
SAMPLE = 1024
_ONES = 0x0101010101010101
_ZEROS = np.uint64(0x30 * _ONES)
#: added to a byte, this sets its high bit from ':' (one past '9') on; subtracting '0' does below '0'
_PAST_NINE = np.uint64(0x46 * _ONES)
_LOW7 = np.uint64(0x7F * _ONES)
_HIGH_BITS = np.uint64(0x80 * _ONES)
_DOTS = np.uint64(0x2E * _ONES)
#: by a token's length L (1..8): the factor (a shift) that puts its last byte on top, and the '0's
#: that fill the bytes below its first (leading zeros)
_FACTORS = np.array([1 << (8 * (8 - length)) if length else 0 for length in range(9)], dtype=np.uint64)
_PADS = np.array([(0x30 * _ONES) & ((1 << (8 * (8 - length))) - 1) for length in range(9)], dtype=np.uint64)
_POWERS = 10.0 ** np.arange(8)
#: the three steps of _digits: pairs, fours, eights of digits
_STEPS = [(np.uint64(10), np.uint64(8), np.uint64(0x00FF00FF00FF00FF)),
          (np.uint64(100), np.uint64(16), np.uint64(0x0000FFFF0000FFFF)),
          (np.uint64(10000), np.uint64(32), np.uint64(0xFFFFFFFF))]
#: the most digits of a whole number parse_whole reads (int64 holds any of 18)
WHOLE_DIGITS = 18


def _words(buffer: np.ndarray, at: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """The eight bytes of buffer from each position in at, as little-endian words, and a mask of
    the positions with eight bytes left in buffer (None when all have them: nearly always)."""
    count = max(buffer.size - 7, 0)
    words = np.ndarray(shape=(count,), dtype="<u8", buffer=buffer, strides=(1,))  # one at each byte
    if at.size == 0 or at.max() < count:
        return words[at], None
    inside = at < count
    return (words[np.where(inside, at, 0)] if count else np.zeros(at.size, np.uint64)), inside


def _short(buffer: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Values of the tokens [starts, ends) of buffer that are short decimals, a mask of those
    tokens, and a mask of the ones written with digits only (whole numbers 0, 1, 2, ...)."""
    word, inside = _words(buffer, starts)
    negative = (word & np.uint64(0xFF)) == np.uint64(ord("-"))
    signed = bool(negative.any())
    length = ends - starts
    if signed:  # the word after the '-'
        length -= negative
        after = np.flatnonzero(negative)
        word[after], inside_after = _words(buffer, starts[after] + 1)
        if inside_after is not None:
            inside = np.ones(starts.size, bool) if inside is None else inside
            inside[after] &= inside_after
    simple = (length >= 1) & (length <= 8)
    if inside is not None:
        simple &= inside
    length = np.clip(length, 1, 8)
    word *= _FACTORS[length]  # the last byte on top (numpy's shift by an array is slow)
    word |= _PADS[length]  # '0's below the first
    dots = ~((((word ^ _DOTS) & _LOW7) + _LOW7) | (word ^ _DOTS)) & _HIGH_BITS  # the high bit of each '.'
    has_dot = dots != 0
    dotted = bool(has_dot.any())
    if dotted:
        simple &= (dots & (dots - np.uint64(1))) == 0  # one '.' at most
        dot = dots >> np.uint64(7)
        above = ~((dot << np.uint64(8)) - np.uint64(1))  # 0 where there is no '.'
        undotted = (word & above) | ((word & (dot - np.uint64(1))) << np.uint64(8)) | np.uint64(0x30)
        undotted ^= word
        undotted &= np.uint64(0) - has_dot.astype(np.uint64)
        word ^= undotted  # the undotted word where there is a '.' (cheaper than numpy's where)
        simple &= length > has_dot  # a digit besides the '.'
    text, word = word, word - _ZEROS
    simple &= (((text + _PAST_NINE) | word) & _HIGH_BITS) == 0  # every byte a digit
    values = _digits(word).astype(float)
    whole = simple
    if dotted:
        values /= _POWERS[np.bitwise_count(above) >> np.uint8(3)]
        whole = whole & ~has_dot
    if signed:
        np.negative(values, out=values, where=negative)
        whole = whole & ~negative
    return values, simple, whole


def _short_whole(buffer: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Values of the tokens [starts, ends) of buffer written with one to eight digits and
    nothing else, and a mask of those tokens."""
    word, inside = _words(buffer, starts)
    length = ends - starts
    simple = (length >= 1) & (length <= 8)
    if inside is not None:
        simple &= inside
    length = np.clip(length, 1, 8)
    word *= _FACTORS[length]
    word |= _PADS[length]
    text, word = word, word - _ZEROS
    simple &= (((text + _PAST_NINE) | word) & _HIGH_BITS) == 0  # every byte a digit
    return _digits(word).astype(np.int64), simple


def _digits(digits: np.ndarray) -> np.ndarray:
    """The integer of eight digit bytes (0-9 each, the first on top), pairwise in three steps;
    digits is overwritten (in place: each temporary array costs as much as a step)."""
    high = np.empty_like(digits)
    for times, shift, mask in _STEPS:
        np.right_shift(digits, shift, out=high)
        digits *= times
        digits += high
        digits &= mask
    return digits


def parse_whole(buffer: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray | None:
    """The whole numbers the tokens buffer[starts[k]:ends[k]] spell with digits alone (at most
    WHOLE_DIGITS of them), as int64; None when a token is not such."""
    values = np.empty(starts.size, np.int64)
    for begin in range(0, starts.size, CHUNK):
        part = slice(begin, begin + CHUNK)
        values[part], simple = _short_whole(buffer, starts[part], ends[part])
        for k in (np.flatnonzero(~simple) + begin).tolist():
            text = buffer[starts[k]:ends[k]].tobytes()
            if not (text.isdigit() and len(text) <= WHOLE_DIGITS):
                return None
            values[k] = int(text)
    return values


def _one_digit(buffer: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The first byte of each token [starts, ends) less '0', and a mask of the tokens of one digit."""
    digits = buffer[starts] - np.uint8(ord("0"))
    return digits, (ends - starts == 1) & (digits <= np.uint8(9))


def parse_decimals(buffer: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The numbers the tokens buffer[starts[k]:ends[k]] spell, as float would read them, and a mask
    of the tokens written as whole numbers (digits only, at most eight); None when a token is
    no number float reads."""
    if starts.size and starts.max() >= buffer.size:  # an empty token after the last byte
        return None
    sample = slice(None, None, max(1, starts.size // SAMPLE))
    if np.count_nonzero(_one_digit(buffer, starts[sample], ends[sample])[1]) * 2 > starts[sample].size:
        # mostly one digit (costs 1, levels 0), as the sample shows: read by the byte
        digits, digit = _one_digit(buffer, starts, ends)
        values = digits.astype(float)
        whole = np.ones(starts.size, bool)
        rest = np.flatnonzero(~digit)
        parsed = parse_decimals(buffer, starts[rest], ends[rest]) if rest.size else (values[:0], whole[:0])
        if parsed is None:
            return None
        values[rest], whole[rest] = parsed
        return values, whole
    values = np.empty(starts.size)
    whole = np.empty(starts.size, bool)
    for begin in range(0, starts.size, CHUNK):
        part = slice(begin, begin + CHUNK)
        values[part], simple, whole[part] = _short(buffer, starts[part], ends[part])
        for k in (np.flatnonzero(~simple) + begin).tolist():
            text = buffer[starts[k]:ends[k]].tobytes()
            try:
                values[k] = float(text)
            except ValueError:
                return None
            whole[k] = text.isdigit() and len(text) <= 8  # a short one near the buffer's end
    return values, whole
