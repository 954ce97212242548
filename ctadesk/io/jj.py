"""JJ instance files (tau-argus / sdcTable) and RCTA `.sol` answers.

Format: docs/formats.md.  Line 1 is 0, line 2 the number of cells,
then one line per cell ``i value cost status lb ub lpl upl spl``, the number
of relations, and one line per relation ``rhs k : c1 (coef1) c2 (coef2) ...``.
Coefficients may be written ``(-1)`` or ``( -1 )``; duplicate cells in a
relation are merged by adding their coefficients; status ``z`` fixes a cell.
Bounds of magnitude 1e20 or more mean "no bound" (tau-argus writes +-1e20), and so
do bounds written ``inf``/``-inf``/``Infinity`` (a lower bound -inf, an upper bound
+inf); both are read as +-inf and written as +-1e20.  Counts and indices are whole
numbers the file can hold; every other number is finite.  The values must satisfy
the relations (ctadesk.io.additivity; a relation is named by its line) unless the
caller reads a file it knows is not additive.  A file that is not text (an .xlsx
renamed .jj) is refused as such (ctadesk.io.text).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import os
import re
from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp

from ctadesk.engine.errors import ProblemError
from ctadesk.engine.problem import NO_BOUND, CTAProblem
from ctadesk.io.additivity import require_additive
from ctadesk.io.decimals import parse_decimals, parse_whole
from ctadesk.io.errors import FileFormatError
from ctadesk.io.numbers import finite_values, not_a_number
from ctadesk.io.text import decode_text, read_bytes, read_lines, split_lines

STATUSES = ("s", "u", "m", "z")
#: the statuses' bytes (in lower case), for the cell lines read in bulk
_STATUS_BYTES = np.zeros(256, bool)
_STATUS_BYTES[[ord(status) for status in STATUSES]] = True
_COEF = re.compile(r"\(\s*([^()\s]+)\s*\)")
_WHOLE = re.compile(r"\+?[0-9]+")
#: the fields of a cell line, parsed in one pass by np.loadtxt
_CELL_LINE = np.dtype([("index", np.int64), ("value", float), ("cost", float), ("status", "U2"),
                       ("lower", float), ("upper", float), ("lpl", float), ("upl", float), ("spl", float)])
#: bytes of lines read in bulk at a time
BLOCK = 1 << 20
#: the bytes a file read in bulk may hold (beyond them: line by line)
_BULK_BYTES = b"0123456789.+-eE \t\n():sumzSUMZinfINFtyTY"
#: a relation line's tokens by kind: 0 a number, 1 '(', 2 ')', 3 ':'
_KINDS = np.zeros(256, np.int8)
_KINDS[[ord("("), ord(")"), ord(":")]] = [1, 2, 3]
#: the kinds of a relation line's first tokens ``rhs k :`` (then 'c ( v )' for each term)
_HEAD_KINDS = np.array([0, 0, 3], np.int8)
_SOL_LINE = np.dtype([("index", np.int64), ("value", float), ("adjusted", float), ("sensitive", np.int64)])


#: a JJ file as read: the cell columns (_checked_cells), the relations, their right-hand sides and lines
_Parsed = tuple[tuple, sp.csr_array, np.ndarray, np.ndarray]


class JJFormatError(FileFormatError):
    """A JJ or .sol file does not follow the format; the message names file and line."""


@dataclasses.dataclass(frozen=True)
class JJInstance:
    """A JJ file as read: the CTA problem plus what JJ carries beyond it."""

    problem: CTAProblem
    statuses: np.ndarray        # one of s/u/m/z per cell
    sliding_protection: np.ndarray
    costs: np.ndarray


def _number(text: str, path: str, line: int, what: str) -> float:
    """The finite number text spells; anything else (also 'nan', 'inf', '1e400') is refused."""
    try:
        number = float(text)
    except ValueError:
        number = math.nan
    if not math.isfinite(number):
        raise JJFormatError(f"{what} {not_a_number(text)}", file=path, row=line)
    return number


def _numbers(texts: list[str], path: str, line: int, what: str) -> np.ndarray:
    """_number of each text, vectorised while every text is a finite number."""
    try:
        numbers = np.array(texts, dtype=float)
    except ValueError:
        numbers = None
    if numbers is None or not np.all(np.isfinite(numbers)):
        numbers = np.array([_number(t, path, line, what) for t in texts])
    return numbers


def _whole(text: str, path: str, line: int, what: str) -> int:
    """The whole number 0, 1, 2, ... that text spells; '1.5', '1e-400', '7.0' and '-1' are refused."""
    if not _WHOLE.fullmatch(text):
        raise JJFormatError(f"{what} '{text}' must be a whole number, 0 or more", file=path, row=line)
    if len(text.lstrip("+0")) > 18:  # beyond int64, and beyond any file's lines
        raise JJFormatError(f"{what} '{text[:40]}' is too large", file=path, row=line)
    return int(text)


def _indices(texts: list[str], path: str, line: int, what: str) -> np.ndarray:
    """_whole of each text, vectorised while every text is one."""
    try:
        return np.array(texts, dtype=np.int64)
    except (ValueError, OverflowError):
        return np.array([_whole(t, path, line, what) for t in texts], dtype=np.int64)


def _bounds(lower: np.ndarray, upper: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The bounds with tau-argus' "no bound" (|bound| >= 1e20) as -inf / +inf."""
    return np.where(lower <= -NO_BOUND, -np.inf, lower), np.where(upper >= NO_BOUND, np.inf, upper)


def _bound(text: str, path: str, line: int, what: str, no_bound: float) -> float:
    """A bound: a finite number, or ``no_bound`` (-inf for a lower bound, +inf for an upper one)
    written as inf, Infinity or 1e20 and beyond; NaN and the infinity of the other side are refused."""
    try:
        number = float(text)
    except ValueError:
        number = math.nan
    if number == no_bound:
        return number
    if number == -no_bound:
        sign = "-" if no_bound < 0 else ""
        raise JJFormatError(f"{what} '{text}' leaves the cell no value (no bound is written {sign}inf or {sign}1e20)",
                            file=path, row=line)
    return _number(text, path, line, what)


def _bound_columns(lower: np.ndarray, upper: np.ndarray) -> bool:
    """Are the bound columns read in one pass usable: finite, or infinite on their own side?"""
    return bool(np.all(np.isfinite(lower) | (lower == -np.inf)) and np.all(np.isfinite(upper) | (upper == np.inf)))


def _checked_cells(index: np.ndarray, status: np.ndarray, numbers: list[np.ndarray], n: int,
                   statuses_known: bool = False) -> tuple | None:
    """The cell columns read in bulk (value, cost, lower, upper, lpl, upl, spl), in the order of
    their indices, when they are right: each index 0..n-1 once, a known status (checked by the
    caller where ``statuses_known``), finite numbers and bounds infinite only on their own side;
    None otherwise (the line-by-line reading names the fault)."""
    in_order = np.array_equal(index, np.arange(n))
    finite = [numbers[k] for k in (0, 1, 4, 5, 6)]
    if not ((in_order or np.array_equal(np.sort(index), np.arange(n)))
            and (statuses_known or np.all(np.isin(status, STATUSES)))
            and all(np.all(np.isfinite(column)) for column in finite) and _bound_columns(numbers[2], numbers[3])):
        return None
    order = slice(None) if in_order else np.argsort(index)
    values, costs, lower, upper, lpl, upl, spl = (column[order] for column in numbers)
    return (values, costs, status[order], *_bounds(lower, upper), lpl, upl, spl)


def _read_cells(lines: list[tuple[int, str]], n: int, path: str):
    """The n cell lines as arrays; a fast vectorised path, and a line-by-line one for messages."""
    try:
        table = np.loadtxt([text for _, text in lines], dtype=_CELL_LINE, ndmin=1, comments=None)
    except ValueError:
        table = None
    if table is not None:
        numbers = [table[name] for name in ("value", "cost", "lower", "upper", "lpl", "upl", "spl")]
        cells = _checked_cells(table["index"], np.char.lower(table["status"]), numbers, n)
        if cells is not None:
            return cells
    values, costs, lower, upper, lpl, upl, spl = (np.zeros(n) for _ in range(7))
    statuses = np.empty(n, dtype="<U1")
    seen = np.zeros(n, bool)
    for number, text in lines:
        fields = text.split()
        if len(fields) < 8:
            raise JJFormatError(f"a cell line needs 9 fields (i value cost status lb ub lpl upl spl), "
                                f"found {len(fields)}", file=path, row=number)
        i = _whole(fields[0], path, number, "cell index")
        if i >= n:
            raise JJFormatError(f"cell index {i} is outside 0..{n - 1}", file=path, row=number)
        if seen[i]:
            raise JJFormatError(f"cell {i} is described twice", file=path, row=number)
        seen[i] = True
        status = fields[3].lower()
        if status not in STATUSES:
            raise JJFormatError(f"cell {i} has status '{fields[3]}' (expected s, u, m or z)", file=path, row=number)
        statuses[i] = status
        values[i], costs[i], lpl[i], upl[i] = (
            _number(fields[k], path, number, name) for k, name in
            ((1, "value"), (2, "cost"), (6, "lower protection level"), (7, "upper protection level")))
        lower[i] = _bound(fields[4], path, number, "lower bound", -np.inf)
        upper[i] = _bound(fields[5], path, number, "upper bound", np.inf)
        spl[i] = _number(fields[8], path, number, "sliding protection level") if len(fields) > 8 else 0.0
    return (values, costs, statuses, *_bounds(lower, upper), lpl, upl, spl)


def read_jj(path: str | os.PathLike, *, additive: bool = True) -> JJInstance:
    """Read a JJ file into a validated CTAProblem (costs become the weights).  With additive
    (the default) values that break a relation are refused (NonAdditiveError naming the
    relation, its line and the amount); additive=False reads such a file as it is.

    A well-formed ASCII file is read in bulk (_read_bulk); any other, and any the bulk reading
    does not take, line by line (_read_lines), which reads it the same or names the line at fault."""
    path = str(path)
    raw = read_bytes(path)
    parsed = _read_bulk(raw) if raw.isascii() else None
    if parsed is None:
        parsed = _read_lines(decode_text(raw, file=path), path)
    (values, costs, statuses, lower, upper, lpl, upl, spl), relations, rhs, relation_lines = parsed
    if additive:
        require_additive(relations, values, lambda r: f"relation {r} (line {relation_lines[r]})", rhs=rhs,
                         file=path, advice="a JJ file's values must satisfy its relations")
    sensitive = np.flatnonzero(statuses == "u")
    try:
        problem = CTAProblem(
            values=values, relations=relations, rhs=rhs, lower=lower, upper=upper,
            weights=costs, sensitive=sensitive, lower_protection=lpl[sensitive],
            upper_protection=upl[sensitive], fixed=statuses == "z")
    except ProblemError as error:
        raise JJFormatError(str(error), file=path) from None
    return JJInstance(problem, statuses, spl, costs)


def _read_bulk(raw: bytes) -> _Parsed | None:
    """A JJ file read in bulk: its cell and relation lines tokenised with numpy, their numbers
    parsed by ctadesk.io.decimals.  It takes only a file whose lines are all there (no blank
    line before the last relation), of the bytes _BULK_BYTES, and right; None for any other,
    so that _read_lines reads it or names the fault."""
    if b"\r" in raw:
        raw = raw.replace(b"\r\n", b"\n")
    if raw.translate(None, _BULK_BYTES):
        return None
    if not raw.endswith(b"\n"):
        raw += b"\n"
    buffer = np.frombuffer(raw, np.uint8)  # the file's bytes themselves, not a copy
    ends = _newlines(buffer)
    starts = np.r_[0, ends[:-1] + 1]

    def fields(line: int) -> list[bytes]:
        """The fields of line (0-based)."""
        return buffer[starts[line]:ends[line]].tobytes().split() if line < ends.size else []

    def count(line: int) -> int | None:
        """The whole number alone on line, if it is."""
        number = fields(line)
        return int(number[0]) if len(number) == 1 and number[0].isdigit() and len(number[0]) <= 18 else None

    n = count(1)
    m = count(n + 2) if n else None
    if fields(0) != [b"0"] or not n or m is None:
        return None
    last = n + 2 + m
    if last >= ends.size or raw[ends[last]:].strip():
        return None
    cells = _bulk_cells(buffer, starts[2:n + 2], ends[2:n + 2])
    relations = _bulk_relations(buffer, starts[n + 3:last + 1], ends[n + 3:last + 1], n)
    if cells is None or relations is None:
        return None
    return cells, *relations, np.arange(n + 4, n + 4 + m)


def _newlines(buffer: np.ndarray) -> np.ndarray:
    """Where buffer's newlines are, looked for BLOCK bytes at a time: a mask of the whole file
    would be as large as the file, and memory a process touches first is slow to come by."""
    return np.concatenate([np.flatnonzero(buffer[at:at + BLOCK] == ord("\n")) + at
                           for at in range(0, buffer.size, BLOCK)])


def _blocks(line_starts: np.ndarray, line_ends: np.ndarray) -> list[slice]:
    """The lines cut into runs of about BLOCK bytes (at least one line each), read one run at a
    time so that the arrays of a run stay in the processor's cache."""
    cuts = np.searchsorted(line_ends, np.arange(line_starts[0], line_ends[-1], BLOCK), side="right")
    cuts = np.unique(np.r_[0, cuts[1:], line_starts.size]).tolist()
    return [slice(begin, end) for begin, end in itertools.pairwise(cuts)]


def _fields(block: np.ndarray, separators: np.ndarray, offset: int) -> tuple[np.ndarray, np.ndarray]:
    """Where the runs of block's bytes that are not separators start and end (offset added);
    block starts and ends with a separator."""
    edges = np.flatnonzero(separators[:-1] != separators[1:]) + (offset + 1)
    return edges[0::2], edges[1::2]


def _single_spaced(block: np.ndarray, offset: int, count: int) -> tuple[np.ndarray, np.ndarray] | None:
    """_fields of a block that holds count fields, each after one white-space byte (the way JJ
    files are written), found from the white space alone: half the work; None for another block."""
    gaps = np.flatnonzero(_spaces(block)) + offset
    if gaps.size != count + 1 or np.diff(gaps).min(initial=2) < 2:
        return None
    return gaps[:-1] + 1, gaps[1:]


def _spaces(block: np.ndarray) -> np.ndarray:
    """Which bytes of block are white space (space, tab, newline: all _BULK_BYTES has, and the
    only bytes up to the space it has, so one comparison finds them)."""
    return block <= ord(" ")


def _bulk_cells(buffer: np.ndarray, line_starts: np.ndarray, line_ends: np.ndarray) -> tuple | None:
    """The cell lines [line_starts, line_ends) of buffer read in bulk: nine fields on each line,
    a one-letter status; None when they are not, or not right (_checked_cells)."""
    n = line_starts.size
    index = np.empty(n, np.int64)
    columns = np.empty((7, n))  # value cost lower upper lpl upl spl
    status = np.empty(n, np.uint8)
    for lines in _blocks(line_starts, line_ends):
        offset = line_starts[lines.start] - 1  # the newline before the block's first line
        block = buffer[offset:line_ends[lines.stop - 1] + 1]
        count = lines.stop - lines.start
        starts, ends = _single_spaced(block, offset, 9 * count) or _fields(block, _spaces(block), offset)
        if starts.size != 9 * count:
            return None
        starts, ends = starts.reshape(count, 9).T, ends.reshape(count, 9).T
        if not (np.all(starts[0] >= line_starts[lines]) and np.all(starts[8] < line_ends[lines])
                and np.all(ends[3] - starts[3] == 1)):
            return None  # not nine fields on each line, or a status of more than one letter
        indices = parse_whole(buffer, starts[0], ends[0])
        if indices is None:
            return None
        index[lines] = indices
        for column, field in enumerate((1, 2, 4, 5, 6, 7, 8)):
            parsed = parse_decimals(buffer, starts[field], ends[field])
            if parsed is None:
                return None
            columns[column, lines] = parsed[0]
        status[lines] = buffer[starts[3]] | np.uint8(0x20)  # in lower case
    if not np.all(_STATUS_BYTES[status]):
        return None
    # one letter a cell, as text: its byte widened to the code point numpy's one-letter strings hold
    return _checked_cells(index, status.astype(np.uint32).view("U1"), list(columns), n, statuses_known=True)


def _bulk_relations(buffer: np.ndarray, line_starts: np.ndarray, line_ends: np.ndarray,
                    n: int) -> tuple[sp.csr_array, np.ndarray] | None:
    """The relation lines [line_starts, line_ends) of buffer read in bulk, each ``rhs k : c1 (v1) ...``
    with k terms, cells 0..n-1 and finite numbers: the relations and their right-hand sides;
    None when a line is not such."""
    m = line_starts.size
    if m == 0:
        return sp.csr_array((0, n)), np.zeros(0)
    rhs = np.empty(m)
    terms = np.empty(m, np.int64)
    cells: list[np.ndarray] = []
    coefficients: list[np.ndarray] = []
    for lines in _blocks(line_starts, line_ends):
        read = _relation_block(buffer, line_starts[lines], line_ends[lines], n)
        if read is None:
            return None
        rhs[lines], terms[lines], block_cells, block_coefficients = read
        cells.append(block_cells)
        coefficients.append(block_coefficients)
    relations = sp.csr_array((np.concatenate(coefficients), np.concatenate(cells), np.r_[0, np.cumsum(terms)]),
                             shape=(m, n))
    relations.sum_duplicates()  # a cell named twice in a relation: its coefficients added
    return relations, rhs


def _relation_block(buffer: np.ndarray, line_starts: np.ndarray, line_ends: np.ndarray, n: int
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """Relation lines of buffer, each ``rhs k : c1 (v1) ...`` with k terms, cells 0..n-1 and
    finite numbers: their right-hand sides, term counts, cells and coefficients; None when
    a line is not such."""
    m = line_starts.size
    offset = line_starts[0] - 1
    block = buffer[offset:line_ends[-1] + 1]
    mark = (block == ord("(")) | (block == ord(")")) | (block == ord(":"))
    apart = _spaces(block) | mark
    word = ~apart
    tokens = np.flatnonzero(mark[1:] | (word[1:] & apart[:-1])) + 1
    counts = np.diff(np.searchsorted(tokens, line_ends - offset), prepend=0)
    terms = (counts - 3) // 4
    if np.any(counts < 3) or np.any(counts % 4 != 3):
        return None
    heads = np.zeros(tokens.size, bool)  # the first three tokens of each line, 'rhs k :'
    first = np.cumsum(counts) - counts
    heads[first], heads[first + 1], heads[first + 2] = True, True, True
    head, body = tokens[heads].reshape(m, 3) + offset, tokens[~heads].reshape(-1, 4) + offset  # body: 'c ( v )'
    # 'rhs k :' and '( )' where they belong, and no other mark: then every other token is a number
    if not (np.all(_KINDS[buffer[head]] == _HEAD_KINDS) and np.all(buffer[body[:, 1]] == ord("("))
            and np.all(buffer[body[:, 3]] == ord(")")) and np.count_nonzero(mark) == m + 2 * body.shape[0]):
        return None
    # where the numbers end (their runs of word bytes): rhs and k, then c and v of each term, line by line
    ends = np.flatnonzero(word[:-1] & apart[1:]) + (offset + 1)
    first = np.cumsum(2 + 2 * terms) - (2 + 2 * terms)
    term = np.ones(ends.size, bool)
    term[first], term[first + 1] = False, False
    term_ends = ends[term].reshape(-1, 2).T
    rhs = parse_decimals(buffer, head[:, 0], ends[first])
    counts = parse_whole(buffer, head[:, 1], ends[first + 1])
    cells = parse_whole(buffer, body[:, 0], term_ends[0])
    coefficients = _coefficients(buffer, body[:, 2], term_ends[1])
    if rhs is None or counts is None or cells is None or coefficients is None:
        return None
    if not (np.array_equal(counts, terms) and np.all(cells < n) and np.all(np.isfinite(rhs[0]))
            and np.all(np.isfinite(coefficients))):
        return None
    return rhs[0], terms, cells, coefficients


def _coefficients(buffer: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray | None:
    """The coefficients [starts, ends) of buffer: 1 and -1 (nearly all of them) by their bytes,
    the others by parse_decimals; None when one is no number."""
    length = ends - starts
    sign = buffer[starts]
    one = (length == 1) & (sign == ord("1"))
    minus_one = (length == 2) & (sign == ord("-")) & (buffer[starts + 1] == ord("1"))
    values = np.where(minus_one, -1.0, 1.0)
    other = np.flatnonzero(~(one | minus_one))
    if other.size:
        parsed = parse_decimals(buffer, starts[other], ends[other])
        if parsed is None:
            return None
        values[other] = parsed[0]
    return values


def _read_lines(text: str, path: str) -> _Parsed:
    """A JJ file read line by line: its cells, relations, right-hand sides and the relations'
    lines; JJFormatError naming the line at fault."""
    lines = [(k, text) for k, line in enumerate(split_lines(text), start=1) if (text := line.strip())]
    if len(lines) < 2:
        raise JJFormatError("too short to be a JJ file (needs '0' and the number of cells)", file=path)
    position = 0

    def next_line() -> tuple[int, str]:
        nonlocal position
        if position >= len(lines):
            raise JJFormatError(f"the file ends early (after line {lines[-1][0]})", file=path)
        position += 1
        return lines[position - 1]

    def count(what: str) -> int:
        """The number of `what` lines on the next line; more than the lines that follow are refused."""
        number, text = next_line()
        value = _whole(text.split()[0], path, number, f"the number of {what}s")
        if value > len(lines) - position:
            raise JJFormatError(f"the file ends after {len(lines) - position} of its {value} {what} lines",
                                file=path, row=number)
        return value

    number, first = next_line()
    if first.split()[0] != "0":
        raise JJFormatError(f"the first line must be 0, found '{first}'", file=path, row=number)
    n = count("cell")
    if n == 0:
        raise JJFormatError("the number of cells must be positive", file=path, row=lines[position - 1][0])
    cell_columns = _read_cells(lines[position:position + n], n, path)
    position += n

    m = count("relation")
    rows: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    data: list[np.ndarray] = []
    rhs = np.zeros(m)
    relation_lines = np.zeros(m, np.int64)
    for r in range(m):
        number, text = next_line()
        relation_lines[r] = number
        head, colon, body = text.partition(":")
        if not colon:
            raise JJFormatError(f"relation {r} lacks the ':' after 'rhs k'", file=path, row=number)
        head_fields = head.split()
        if len(head_fields) != 2:
            raise JJFormatError(f"relation {r} must start with 'rhs k :'", file=path, row=number)
        rhs[r] = _number(head_fields[0], path, number, "right-hand side")
        terms = _whole(head_fields[1], path, number, "number of terms")
        coefficients = _COEF.findall(body)
        cells = _COEF.sub(" ", body).split()
        if len(cells) != len(coefficients) or len(cells) != terms:
            raise JJFormatError(f"relation {r} announces {terms} terms but has {len(cells)} cells and "
                                f"{len(coefficients)} coefficients", file=path, row=number)
        index = _indices(cells, path, number, "cell index")
        missing = index[(index < 0) | (index >= n)]
        if missing.size:
            raise JJFormatError(f"relation {r} refers to cell {missing[0]}, which does not exist "
                                f"(cells are 0..{n - 1})", file=path, row=number)
        rows.append(np.full(index.size, r))
        cols.append(index)
        data.append(_numbers(coefficients, path, number, "coefficient"))
    relations = sp.csr_array(
        (np.concatenate(data) if data else np.zeros(0),
         (np.concatenate(rows) if rows else np.zeros(0, np.int64),
          np.concatenate(cols) if cols else np.zeros(0, np.int64))),
        shape=(m, n))  # duplicate (row, cell) pairs are summed here
    return cell_columns, relations, rhs, relation_lines


def write_jj(path: str | os.PathLike, problem: CTAProblem,
             statuses: Sequence[str] | None = None) -> None:
    """Write problem as a JJ file (the weights as costs); statuses default from the problem.
    Infinite bounds are written +-1e20, as tau-argus writes "no bound"."""
    n = problem.n_cells
    if statuses is None:
        status = np.full(n, "s", dtype="<U1")
        status[problem.fixed] = "z"
        status[problem.sensitive] = "u"
    else:
        status = np.asarray(statuses, dtype="<U1")
    lpl = np.zeros(n)
    upl = np.zeros(n)
    lpl[problem.sensitive] = problem.lower_protection
    upl[problem.sensitive] = problem.upper_protection
    relations = problem.relations.tocsr()
    columns = [_texts(problem.values, path, "values"), _texts(problem.weights, path, "weights"), status.tolist(),
               _bound_texts(problem.lower, path, "lower bounds"), _bound_texts(problem.upper, path, "upper bounds"),
               _texts(lpl, path, "lower protection levels"), _texts(upl, path, "upper protection levels")]
    coefficients = [f"{c} ({v})" for c, v in
                    zip(relations.indices.tolist(), _texts(relations.data, path, "coefficients", "entry"))]
    rhs = _texts(problem.rhs, path, "right-hand sides", "relation")
    indptr = relations.indptr.tolist()
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(f"0\n{n}\n")
        handle.writelines(f"{i} {a} {w} {t} {lb} {ub} {lp} {up} 0\n" for i, (a, w, t, lb, ub, lp, up)
                          in enumerate(zip(*columns)))
        handle.write(f"{relations.shape[0]}\n")
        handle.writelines(f"{b} {stop - start} : {' '.join(coefficients[start:stop])}\n"
                          for b, start, stop in zip(rhs, indptr[:-1], indptr[1:]))


def _texts(values: np.ndarray, path: str | os.PathLike, what: str, item: str = "cell") -> list[str]:
    """Finite numbers as JJ text; FileFormatError for a NaN or an infinity."""
    return [f"{v:.10g}" for v in finite_values(values, what, path, item).tolist()]


def _bound_texts(bounds: np.ndarray, path: str | os.PathLike, what: str) -> list[str]:
    """Bounds as JJ text, infinities (and anything beyond) as +-1e20, what tau-argus writes for 'no bound'."""
    return _texts(np.clip(np.asarray(bounds, dtype=float), -NO_BOUND, NO_BOUND), path, what)


def write_sol(path: str | os.PathLike, problem: CTAProblem, adjusted: np.ndarray) -> None:
    """Write the RCTA answer layout: one line per cell ``i a_i x_i p_i`` (p_i = 1 if sensitive)."""
    adjusted = np.asarray(adjusted, dtype=float)
    if adjusted.shape != (problem.n_cells,):
        raise FileFormatError(f"{adjusted.size} adjusted values for {problem.n_cells} cells", file=path)
    flags = np.zeros(problem.n_cells, np.int64)
    flags[problem.sensitive] = 1
    columns = (_texts(problem.values, path, "values"), _texts(adjusted, path, "adjusted values"), flags.tolist())
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        handle.writelines(f"{i} {a} {x} {p}\n" for i, (a, x, p) in enumerate(zip(*columns)))


def read_sol(path: str | os.PathLike, n_cells: int | None = None) -> np.ndarray:
    """Read the adjusted values x from an RCTA `.sol` file: one line ``i a_i x_i p_i`` for
    each of its n_cells cells (default: as many cells as lines)."""
    path = str(path)
    lines = [(k, text) for k, line in enumerate(read_lines(path), start=1) if (text := line.strip())]
    n = len(lines) if n_cells is None else n_cells
    if not lines or len(lines) != n:
        raise JJFormatError(f"{len(lines)} lines for {n} cells (one line 'i a_i x_i p_i' per cell)", file=path)
    try:
        table = np.loadtxt([text for _, text in lines], dtype=_SOL_LINE, ndmin=1, comments=None)
    except ValueError:
        table = None
    if (table is None or not np.array_equal(np.sort(table["index"]), np.arange(n))
            or not np.all(np.isin(table["sensitive"], (0, 1)))
            or not np.all(np.isfinite(table["value"]) & np.isfinite(table["adjusted"]))):
        return _read_sol_lines(lines, path)
    adjusted = np.empty(n)
    adjusted[table["index"]] = table["adjusted"]
    return adjusted


def _read_sol_lines(lines: list[tuple[int, str]], path: str) -> np.ndarray:
    """read_sol line by line, for a message naming the line at fault."""
    n = len(lines)
    adjusted = np.empty(n)
    seen = np.zeros(n, bool)
    for number, text in lines:
        fields = text.split()
        if len(fields) != 4:
            raise JJFormatError(f"a line must hold 'i a_i x_i p_i', found {len(fields)} fields", file=path, row=number)
        i = _whole(fields[0], path, number, "cell index")
        if i >= n:
            raise JJFormatError(f"cell index {i} is outside 0..{n - 1}", file=path, row=number)
        if seen[i]:
            raise JJFormatError(f"cell {i} is listed twice", file=path, row=number)
        seen[i] = True
        _number(fields[1], path, number, "original value")
        adjusted[i] = _number(fields[2], path, number, "adjusted value")
        if fields[3] not in ("0", "1"):
            raise JJFormatError(f"the sensitivity flag '{fields[3]}' must be 0 or 1", file=path, row=number)
    return adjusted


def read_weights(path: str | os.PathLike, n_cells: int) -> np.ndarray:
    """Read one weight per cell (separated by spaces or newlines) for `--weights file`."""
    path = str(path)
    tokens = [(k, text) for k, line in enumerate(read_lines(path), start=1) for text in line.split()]
    if len(tokens) != n_cells:
        raise JJFormatError(f"{len(tokens)} weights for {n_cells} cells", file=path)
    try:
        weights = np.array([text for _, text in tokens], dtype=float)
        if np.all(np.isfinite(weights)):
            return weights
    except ValueError:
        pass
    return np.array([_number(text, path, number, "weight") for number, text in tokens])
