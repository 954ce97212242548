"""JJ instance files (tau-argus / sdcTable) and RCTA `.sol` answers.

Format: /work/shared/formats/JJ.md.  Line 1 is 0, line 2 the number of cells,
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
import math
import os
import re
from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp

from ctadesk.engine.errors import ProblemError
from ctadesk.engine.problem import NO_BOUND, CTAProblem
from ctadesk.io.additivity import require_additive
from ctadesk.io.errors import FileFormatError
from ctadesk.io.numbers import finite_values, not_a_number
from ctadesk.io.text import read_lines

STATUSES = ("s", "u", "m", "z")
_COEF = re.compile(r"\(\s*([^()\s]+)\s*\)")
_WHOLE = re.compile(r"\+?[0-9]+")
#: the fields of a cell line, parsed in one pass by np.loadtxt
_CELL_LINE = np.dtype([("index", np.int64), ("value", float), ("cost", float), ("status", "U2"),
                       ("lower", float), ("upper", float), ("lpl", float), ("upl", float), ("spl", float)])
_SOL_LINE = np.dtype([("index", np.int64), ("value", float), ("adjusted", float), ("sensitive", np.int64)])


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
        raise JJFormatError(f"{what} '{text}' leaves the cell no value (no bound is written "
                            f"{'-' if no_bound < 0 else ''}inf or {'-' if no_bound < 0 else ''}1e20)", file=path, row=line)
    return _number(text, path, line, what)


def _bound_columns(lower: np.ndarray, upper: np.ndarray) -> bool:
    """Are the bound columns read in one pass usable: finite, or infinite on their own side?"""
    return bool(np.all(np.isfinite(lower) | (lower == -np.inf)) and np.all(np.isfinite(upper) | (upper == np.inf)))


def _read_cells(lines: list[tuple[int, str]], n: int, path: str):
    """The n cell lines as arrays; a fast vectorised path, and a line-by-line one for messages."""
    try:
        table = np.loadtxt([text for _, text in lines], dtype=_CELL_LINE, ndmin=1, comments=None)
    except ValueError:
        table = None
    if table is not None:
        index = table["index"]
        status = np.char.lower(table["status"])
        numbers = [table[name] for name in ("value", "cost", "lower", "upper", "lpl", "upl", "spl")]
        in_order = np.array_equal(index, np.arange(n))
        finite = [numbers[k] for k in (0, 1, 4, 5, 6)]
        if ((in_order or np.array_equal(np.sort(index), np.arange(n))) and np.all(np.isin(status, STATUSES))
                and all(np.all(np.isfinite(column)) for column in finite) and _bound_columns(numbers[2], numbers[3])):
            order = slice(None) if in_order else np.argsort(index)
            values, costs, lower, upper, lpl, upl, spl = (column[order] for column in numbers)
            return (values, costs, status[order], *_bounds(lower, upper), lpl, upl, spl)
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
    relation, its line and the amount); additive=False reads such a file as it is."""
    path = str(path)
    lines = [(k, text) for k, line in enumerate(read_lines(path), start=1) if (text := line.strip())]
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
    values, costs, statuses, lower, upper, lpl, upl, spl = _read_cells(lines[position:position + n], n, path)
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
         (np.concatenate(rows) if rows else np.zeros(0, np.int64), np.concatenate(cols) if cols else np.zeros(0, np.int64))),
        shape=(m, n))  # duplicate (row, cell) pairs are summed here

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
