"""A JJ file read in bulk is read exactly as line by line; what the bulk reading does not take
is read line by line (the messages naming the line stay theirs)."""

from __future__ import annotations

import numpy as np
import pytest

from ctadesk.engine.table.generate import cox_table
from ctadesk.io.jj import JJFormatError, _read_bulk, _read_lines, read_jj, write_jj


def _same(bulk, lines) -> None:
    """The two readings agree: cell columns, relations, right-hand sides and relation lines."""
    for ours, theirs in zip(bulk[0], lines[0]):
        assert np.array_equal(ours, theirs)
    assert (bulk[1] != lines[1]).nnz == 0 and bulk[1].shape == lines[1].shape
    assert np.array_equal(bulk[2], lines[2]) and np.array_equal(bulk[3], lines[3])


@pytest.mark.parametrize("shape", [(3, 4), (12, 9), (4, 3, 5)])
def test_written_tables_are_read_alike(tmp_path, shape):
    path = tmp_path / "t.jj"
    write_jj(path, cox_table(shape, seed=3)[1])
    raw = path.read_bytes()
    bulk = _read_bulk(raw)
    assert bulk is not None
    _same(bulk, _read_lines(raw.decode(), str(path)))


VARIANTS = {
    "windows lines, upper-case status, tabs": "0\r\n3\r\n0 5 1 S 0 100 0 0 0\r\n1\t2 1 u -1e20 inf 1 1 0\r\n"
                                              "2 3 1 Z 0 100 0 0 0\r\n1\r\n0.0 3 : 0 (-1) 1 (1) 2 ( 1 )\r\n",
    "lines out of order, a cell twice in a relation": "0\n3\n2 3 1 z 0 100 0 0 0\n0 5 1 s 0 100 0 0 0\n"
                                                      "1 2 1 u 0 100 1 1 0\n1\n0 4 : 0 (-1) 1 (1) 2 (0.5) 2 (.5)\n\n",
    "no relations": "0\n1\n0 5 1 s 0 100 0 0 0\n0\n",
    "no newline after the last relation, its last term at the end": "0\n1\n0 5 1 s 0 100 0 0 0\n1\n5 1 : 0 (1)",
    "spaces doubled, before and after a line": "0\n2\n0  5 1 s 0 100 0 0 0\n 1 5 1 s 0 100 0 0 0 \n1\n"
                                               "0  2 :0(1)  1 (-1)\n",
}


@pytest.mark.parametrize("text", VARIANTS.values(), ids=VARIANTS.keys())
def test_variants_are_read_alike(tmp_path, text):
    raw = text.encode()
    bulk = _read_bulk(raw)
    assert bulk is not None
    _same(bulk, _read_lines(text, "t.jj"))


REFUSED = {
    "a blank line among the cells": ("0\n2\n0 5 1 s 0 100 0 0 0\n\n1 5 1 s 0 100 0 0 0\n1\n0 2 : 0 (1) 1 (-1)\n", None),
    "eight fields beside a doubled space, as many spaces as nine": (
        "0\n2\n0  5 1 s 0 100 0 0\n1 5 1 s 0 100 0 0 0\n1\n0 2 : 0 (1) 1 (-1)\n", None),
    "eight fields": ("0\n2\n0 5 1 s 0 100 0 0\n1 5 1 s 0 100 0 0 0 0\n1\n0 2 : 0 (1) 1 (-1)\n", None),
    "a term too many": ("0\n2\n0 5 1 s 0 100 0 0 0\n1 5 1 s 0 100 0 0 0\n1\n0 1 : 0 (1) 1 (-1)\n",
                        "announces 1 terms"),
    "a cell beyond the table": ("0\n2\n0 5 1 s 0 100 0 0 0\n1 5 1 s 0 100 0 0 0\n1\n0 2 : 0 (1) 2 (-1)\n",
                                "refers to cell 2"),
    "a ':' in place of a cell, the tokens as many as two terms": (
        "0\n2\n0 5 1 s 0 100 0 0 0\n1 5 1 s 0 100 0 0 0\n1\n0 2 : 0 (1) : (-1)\n", "cell index ':'"),
    "a value 5x": ("0\n2\n0 5x 1 s 0 100 0 0 0\n1 5 1 s 0 100 0 0 0\n1\n0 2 : 0 (1) 1 (-1)\n", "value"),
    "a cell index 1.0": ("0\n2\n0 5 1 s 0 100 0 0 0\n1.0 5 1 s 0 100 0 0 0\n1\n0 2 : 0 (1) 1 (-1)\n",
                         "cell index '1.0'"),
    "a status of a byte the file may hold, no status": (
        "0\n2\n0 5 1 s 0 100 0 0 0\n1 5 1 E 0 100 0 0 0\n1\n0 2 : 0 (1) 1 (-1)\n", "status 'E'"),
}


@pytest.mark.parametrize(("text", "message"), REFUSED.values(), ids=REFUSED.keys())
def test_what_the_bulk_reading_does_not_take_is_read_line_by_line(tmp_path, text, message):
    path = tmp_path / "t.jj"
    path.write_bytes(text.encode())
    assert _read_bulk(text.encode()) is None
    if message is None:
        _same_problem(read_jj(path), _read_lines(text, str(path)))
    else:
        with pytest.raises(JJFormatError, match=message):
            read_jj(path)


def _same_problem(instance, lines) -> None:
    """read_jj's problem holds the line-by-line reading's values and relations."""
    assert np.array_equal(instance.problem.values, lines[0][0])
    assert (instance.problem.relations != lines[1]).nnz == 0
