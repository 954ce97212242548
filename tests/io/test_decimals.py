"""Decimals parsed in bulk are bit for bit what float reads, and what float refuses is refused."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ctadesk.io.decimals import CHUNK, WHOLE_DIGITS, parse_decimals, parse_whole

_TOKENS = st.one_of(
    st.from_regex(r"-?[0-9]{0,9}(\.[0-9]{0,9})?", fullmatch=True),
    st.from_regex(r"[-+]?[0-9]{0,10}(\.[0-9]{0,10})?([eE][-+]?[0-9]{1,3})?", fullmatch=True),
    st.text(alphabet="0123456789.-+eE", min_size=1, max_size=12),
    st.sampled_from(["inf", "-inf", "Infinity", "1e20", "-0", ".5", "5.", "00000007"]),
)


def _parse(tokens: list[str]):
    """parse_decimals of tokens written one after the other, a space between (the last token
    ends the buffer: fewer than eight bytes are left after its first)."""
    data = " ".join(tokens).encode()
    lengths = np.array([len(token) for token in tokens])
    starts = np.cumsum(lengths + 1) - lengths - 1
    return parse_decimals(np.frombuffer(data, np.uint8), starts, starts + lengths)


@settings(max_examples=300, deadline=None)
@given(st.lists(_TOKENS, min_size=1, max_size=40))
def test_numbers_are_read_as_float_reads_them(tokens):
    readable = []
    for token in tokens:
        try:
            readable.append(float(token))
        except ValueError:
            assert _parse([token]) is None, token
    tokens = [token for token in tokens if token.strip() and _readable(token)]
    if tokens:
        values, whole = _parse(tokens)
        expected = np.array([float(token) for token in tokens])
        assert np.array_equal(values.view(np.uint64), expected.view(np.uint64)), tokens
        assert whole.tolist() == [token.isdigit() and len(token) <= 8 for token in tokens]


def _readable(token: str) -> bool:
    """Does float read token?"""
    try:
        float(token)
    except ValueError:
        return False
    return True


#: tokens on the edges of the eight bytes read at once: a '-' before eight of them, a '.' first or last
EDGES = ["-12345678", "-123456789", "-1234567.8", "-.1234567", "-.12345678", "-1234567.", "12345678",
         "123456789", "1234567.8", ".1234567", "1234567.", "-0", "-0.0", "-.0", "-0.", "00000000.", "-9.9999999"]


def test_tokens_on_the_edges_of_a_word_are_read_as_float_reads_them():
    values, whole = _parse(EDGES)
    assert np.array_equal(values.view(np.uint64), np.array([float(token) for token in EDGES]).view(np.uint64))
    assert whole.tolist() == [token.isdigit() and len(token) <= 8 for token in EDGES]
    for refused in ("-", "--1", "-.", ".", "1..2", "1.2.3", "-1-", "1-"):
        assert _parse(["5", refused]) is None, refused


def test_many_tokens_over_several_chunks():
    numbers = np.random.default_rng(1).integers(-10**7, 10**7, 3 * CHUNK) / 10.0
    values, _ = _parse([f"{number:.10g}" for number in numbers.tolist()])
    assert np.array_equal(values, numbers)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.from_regex(r"[0-9]{1,20}", fullmatch=True),
                          st.text(alphabet="0123456789.-+eE ", min_size=1, max_size=10)), min_size=1, max_size=40))
def test_whole_numbers_are_their_digits_and_anything_else_is_refused(tokens):
    tokens = [token for token in tokens if token.strip() == token]
    if not tokens:
        return
    data = " ".join(tokens).encode()
    lengths = np.array([len(token) for token in tokens])
    starts = np.cumsum(lengths + 1) - lengths - 1
    values = parse_whole(np.frombuffer(data, np.uint8), starts, starts + lengths)
    if all(token.isdigit() and len(token) <= WHOLE_DIGITS for token in tokens):
        assert values is not None and values.tolist() == [int(token) for token in tokens]
    else:
        assert values is None


def test_tokens_near_the_end_of_the_buffer_are_read_there():
    data = b"12345678 -1234567 -5 7 -0.5 3"
    buffer = np.frombuffer(data, np.uint8)
    tokens = data.split()
    starts = np.array([data.index(token, 0 if k == 0 else data.index(tokens[k - 1]) + 1)
                       for k, token in enumerate(tokens)])
    ends = starts + np.array([len(token) for token in tokens])
    values, _ = parse_decimals(buffer, starts, ends)
    assert values.tolist() == [float(token) for token in tokens]
    assert parse_whole(buffer, starts[[0, 3, 5]], ends[[0, 3, 5]]).tolist() == [12345678, 7, 3]
    assert parse_whole(buffer[:1], np.array([0]), np.array([1])).tolist() == [1]
    end = np.array([buffer.size])
    assert parse_decimals(buffer, end, end) is None and parse_whole(buffer, end, end) is None


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(list("0123456789")), min_size=1, max_size=30),
       st.lists(_TOKENS.filter(lambda token: token.strip() == token and _readable(token)), max_size=10),
       st.randoms())
def test_mostly_single_digits_are_read_by_the_byte_as_float_reads_them(digits, others, random):
    tokens = digits + others
    random.shuffle(tokens)
    values, whole = _parse(tokens)
    assert np.array_equal(values.view(np.uint64), np.array([float(token) for token in tokens]).view(np.uint64))
    assert whole.tolist() == [token.isdigit() and len(token) <= 8 for token in tokens]
