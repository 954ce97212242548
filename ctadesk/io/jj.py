"""JJ instance files (tau-argus / sdcTable) and RCTA `.sol` answers.

Format: /work/shared/formats/JJ.md.  Line 1 is 0, line 2 the number of cells,
then one line per cell ``i value cost status lb ub lpl upl spl``, the number
of relations, and one line per relation ``rhs k : c1 (coef1) c2 (coef2) ...``.
Coefficients may be written ``(-1)`` or ``( -1 )``; duplicate cells in a
relation are merged by adding their coefficients; status ``z`` fixes a cell.
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp

from ctadesk.engine.errors import CTAError, ProblemError
from ctadesk.engine.problem import CTAProblem

STATUSES = ("s", "u", "m", "z")
_COEF = re.compile(r"\(\s*([^()\s]+)\s*\)")


class JJFormatError(CTAError):
    """A JJ file does not follow the format; the message names file and line."""


@dataclasses.dataclass(frozen=True)
class JJInstance:
    """A JJ file as read: the CTA problem plus what JJ carries beyond it."""

    problem: CTAProblem
    statuses: np.ndarray        # one of s/u/m/z per cell
    sliding_protection: np.ndarray
    costs: np.ndarray


def _number(text: str, path: str, line: int, what: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise JJFormatError(f"{path}, line {line}: {what} '{text}' is not a number") from None


def _numbers(texts: list[str], path: str, line: int, what: str) -> np.ndarray:
    try:
        return np.array(texts, dtype=float)
    except ValueError:
        return np.array([_number(t, path, line, what) for t in texts])


def _read_cells(lines: list[tuple[int, str]], n: int, path: str):
    """The n cell lines as arrays; a fast vectorised path, and a line-by-line one for messages."""
    if len(lines) < n:
        raise JJFormatError(f"{path}: the file ends after {len(lines)} of its {n} cell lines")
    texts = [text for _, text in lines[:n]]
    try:
        numbers = np.loadtxt(texts, usecols=(0, 1, 2, 4, 5, 6, 7, 8), ndmin=2)
        status = np.char.lower(np.loadtxt(texts, usecols=3, dtype="U1", ndmin=1))
    except ValueError:
        numbers = None
    if numbers is not None:
        index = numbers[:, 0].astype(np.int64)
        if np.array_equal(np.sort(index), np.arange(n)) and np.all(np.isin(status, STATUSES)):
            order = np.argsort(index)
            values, costs, lower, upper, lpl, upl, spl = numbers[order, 1:].T
            return values, costs, status[order], lower, upper, lpl, upl, spl
    values, costs, lower, upper, lpl, upl, spl = (np.zeros(n) for _ in range(7))
    statuses = np.empty(n, dtype="<U1")
    seen = np.zeros(n, bool)
    for number, text in lines:
        fields = text.split()
        if len(fields) < 8:
            raise JJFormatError(f"{path}, line {number}: a cell line needs 9 fields "
                                f"(i value cost status lb ub lpl upl spl), found {len(fields)}")
        i = int(_number(fields[0], path, number, "cell index"))
        if not 0 <= i < n:
            raise JJFormatError(f"{path}, line {number}: cell index {i} is outside 0..{n - 1}")
        if seen[i]:
            raise JJFormatError(f"{path}, line {number}: cell {i} is described twice")
        seen[i] = True
        status = fields[3].lower()
        if status not in STATUSES:
            raise JJFormatError(f"{path}, line {number}: cell {i} has status '{fields[3]}' (expected s, u, m or z)")
        statuses[i] = status
        values[i], costs[i], lower[i], upper[i], lpl[i], upl[i] = (
            _number(fields[k], path, number, name) for k, name in
            ((1, "value"), (2, "cost"), (4, "lower bound"), (5, "upper bound"),
             (6, "lower protection level"), (7, "upper protection level")))
        spl[i] = _number(fields[8], path, number, "sliding protection level") if len(fields) > 8 else 0.0
    return values, costs, statuses, lower, upper, lpl, upl, spl


def read_jj(path: str | os.PathLike) -> JJInstance:
    """Read a JJ file into a validated CTAProblem (costs become the weights)."""
    path = str(path)
    with open(path, encoding="utf-8-sig", errors="replace") as handle:
        lines = [(k + 1, line.strip()) for k, line in enumerate(handle)]
    lines = [(k, line) for k, line in lines if line]
    if len(lines) < 2:
        raise JJFormatError(f"{path}: too short to be a JJ file (needs '0' and the number of cells)")
    position = 0

    def next_line() -> tuple[int, str]:
        nonlocal position
        if position >= len(lines):
            raise JJFormatError(f"{path}: the file ends early (after line {lines[-1][0]})")
        position += 1
        return lines[position - 1]

    number, first = next_line()
    if first.split()[0] not in ("0",):
        raise JJFormatError(f"{path}, line {number}: the first line must be 0, found '{first}'")
    number, text = next_line()
    n = int(_number(text.split()[0], path, number, "number of cells"))
    if n <= 0:
        raise JJFormatError(f"{path}, line {number}: the number of cells must be positive")

    values, costs, statuses, lower, upper, lpl, upl, spl = _read_cells(lines[position:position + n], n, path)
    position += n

    number, text = next_line()
    m = int(_number(text.split()[0], path, number, "number of relations"))
    rows: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    data: list[np.ndarray] = []
    rhs = np.zeros(m)
    for r in range(m):
        number, text = next_line()
        head, colon, body = text.partition(":")
        if not colon:
            raise JJFormatError(f"{path}, line {number}: relation {r} lacks the ':' after 'rhs k'")
        head_fields = head.split()
        if len(head_fields) != 2:
            raise JJFormatError(f"{path}, line {number}: relation {r} must start with 'rhs k :'")
        rhs[r] = _number(head_fields[0], path, number, "right-hand side")
        count = int(_number(head_fields[1], path, number, "number of terms"))
        coefficients = _COEF.findall(body)
        cells = _COEF.sub(" ", body).split()
        if len(cells) != len(coefficients) or len(cells) != count:
            raise JJFormatError(f"{path}, line {number}: relation {r} announces {count} terms but has "
                                f"{len(cells)} cells and {len(coefficients)} coefficients")
        index = _numbers(cells, path, number, "cell index").astype(np.int64)
        missing = index[(index < 0) | (index >= n)]
        if missing.size:
            raise JJFormatError(f"{path}, line {number}: relation {r} refers to cell {missing[0]}, "
                                f"which does not exist (cells are 0..{n - 1})")
        rows.append(np.full(index.size, r))
        cols.append(index)
        data.append(_numbers(coefficients, path, number, "coefficient"))
    relations = sp.csr_array(
        (np.concatenate(data) if data else np.zeros(0),
         (np.concatenate(rows) if rows else np.zeros(0, np.int64), np.concatenate(cols) if cols else np.zeros(0, np.int64))),
        shape=(m, n))  # duplicate (row, cell) pairs are summed here

    sensitive = np.flatnonzero(statuses == "u")
    try:
        problem = CTAProblem(
            values=values, relations=relations, rhs=rhs, lower=lower, upper=upper,
            weights=costs, sensitive=sensitive, lower_protection=lpl[sensitive],
            upper_protection=upl[sensitive], fixed=statuses == "z")
    except ProblemError as error:
        raise JJFormatError(f"{path}: {error}") from None
    return JJInstance(problem, statuses, spl, costs)


def _format(value: float) -> str:
    return f"{value:.10g}" if math.isfinite(value) else ("1e+20" if value > 0 else "-1e+20")


def write_jj(path: str | os.PathLike, problem: CTAProblem,
             statuses: Sequence[str] | None = None) -> None:
    """Write problem as a JJ file (the weights as costs); statuses default from the problem."""
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
    columns = [_texts(problem.values), _texts(problem.weights), status.tolist(), _texts(problem.lower),
               _texts(problem.upper), _texts(lpl), _texts(upl)]
    coefficients = [f"{c} ({v})" for c, v in zip(relations.indices.tolist(), _texts(relations.data))]
    indptr = relations.indptr.tolist()
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(f"0\n{n}\n")
        handle.writelines(f"{i} {a} {w} {t} {lb} {ub} {lp} {up} 0\n" for i, (a, w, t, lb, ub, lp, up)
                          in enumerate(zip(*columns)))
        handle.write(f"{relations.shape[0]}\n")
        handle.writelines(f"{rhs} {stop - start} : {' '.join(coefficients[start:stop])}\n"
                          for rhs, start, stop in zip(_texts(problem.rhs), indptr[:-1], indptr[1:]))


def _texts(values: np.ndarray) -> list[str]:
    """Numbers as JJ text, infinities as +-1e+20 (what tau-argus writes for 'no bound')."""
    return [_format(v) for v in np.asarray(values, dtype=float).tolist()]


def write_sol(path: str | os.PathLike, problem: CTAProblem, adjusted: np.ndarray) -> None:
    """Write the RCTA answer layout: one line per cell ``i a_i x_i p_i`` (p_i = 1 if sensitive)."""
    flags = np.zeros(problem.n_cells, np.int64)
    flags[problem.sensitive] = 1
    adjusted = np.asarray(adjusted, dtype=float)
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        handle.writelines(f"{i} {_format(a)} {_format(x)} {p}\n"
                          for i, (a, x, p) in enumerate(zip(problem.values, adjusted, flags)))


def read_sol(path: str | os.PathLike, n_cells: int | None = None) -> np.ndarray:
    """Read the adjusted values x from an RCTA `.sol` file."""
    path = str(path)
    try:
        table = np.loadtxt(path, ndmin=2)
    except ValueError as error:
        raise JJFormatError(f"{path}: not an RCTA .sol file ({error})") from None
    if table.shape[1] != 4:
        raise JJFormatError(f"{path}: each line must hold 'i a_i x_i p_i', found {table.shape[1]} fields")
    index = table[:, 0].astype(np.int64)
    n = int(n_cells if n_cells is not None else index.max() + 1)
    if np.any((index < 0) | (index >= n)) or np.unique(index).size != n:
        raise JJFormatError(f"{path}: cell indices must be 0..{n - 1}, each once")
    adjusted = np.empty(n)
    adjusted[index] = table[:, 2]
    return adjusted


def read_weights(path: str | os.PathLike, n_cells: int) -> np.ndarray:
    """Read one weight per cell (whitespace or newline separated) for `--weights file`."""
    path = str(path)
    try:
        weights = np.loadtxt(path, ndmin=1, delimiter=None).reshape(-1)
    except ValueError as error:
        raise CTAError(f"{path}: weights must be numbers ({error})") from None
    if weights.size != n_cells:
        raise CTAError(f"{path}: {weights.size} weights for {n_cells} cells")
    return weights


