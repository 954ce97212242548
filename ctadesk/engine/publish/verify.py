"""Check an adjusted table against its CTA problem, independently of any solver.

Checks, in the terms of Castro & González 2011, model (1): A x = b, l <= x <= u, fixed
cells unchanged, and every sensitive cell at or beyond its safe value
(x_i <= a_i - lpl_i or x_i >= a_i + upl_i), on the side of its reported sense.

Every tolerance is fixed by the original table, never by the returned values
(issue 10): relation r may be off by RTOL times the largest of |b_r| and
|c_rj a_j| over its cells, a cell by RTOL times |a_i|, each with the floor
RTOL times the table's unit (ctadesk.engine.table.units), so a table that moved
cells to 3e19 is not excused by its own size.
"""

from __future__ import annotations

import dataclasses
import weakref
from typing import TYPE_CHECKING

import numpy as np

from ctadesk.engine.table.units import table_unit

if TYPE_CHECKING:
    from ctadesk.engine.problem import CTAProblem

#: relative tolerance of every check, in the table's own magnitudes (module docstring)
RTOL = 1e-9
#: at most this many violations are kept in detail; counts are always complete
MAX_DETAILS = 200


@dataclasses.dataclass(frozen=True)
class Violation:
    """One failed check: kind is relation, bound, fixed, protection or sense."""

    kind: str
    index: int
    amount: float
    message: str


@dataclasses.dataclass(frozen=True)
class Verification:
    """What the verifier found; ok is True only when nothing failed."""

    ok: bool
    counts: dict[str, int]
    violations: tuple[Violation, ...]
    max_relation_error: float
    max_bound_error: float
    min_protection_margin: float

    def summary(self) -> str:
        if self.ok:
            return "verified: additive, within bounds, every sensitive cell protected"
        parts = [f"{count} {kind} violation{'s' * (count != 1)}" for kind, count in self.counts.items() if count]
        first = self.violations[0].message if self.violations else ""
        return "NOT protected: " + ", ".join(parts) + (f"; first: {first}" if first else "")


def relation_scale(problem: CTAProblem, unit: float) -> np.ndarray:
    """Per relation: max(|b_r|, max_j |c_rj a_j|, unit), the magnitude its residual is measured in."""
    A = problem.relations
    terms = np.abs(A.data * problem.values[A.indices])
    largest = np.zeros(problem.n_relations)
    filled = (A.indptr[1:] > A.indptr[:-1]).nonzero()[0]
    if filled.size:
        largest[filled] = np.maximum.reduceat(terms, A.indptr[filled])
    return np.maximum(np.maximum(largest, np.abs(problem.rhs)), unit)


#: a problem -> (its table unit, relation_scale in it, read-only), while the problem lives
_SCALES: weakref.WeakKeyDictionary[CTAProblem, tuple[float, np.ndarray]] = weakref.WeakKeyDictionary()


def _kept_relation_scale(problem: CTAProblem, unit: float) -> np.ndarray:
    """relation_scale(problem, unit), worked out at the problem's first verification: a function of
    the immutable problem alone, which a run verifies many times (every method, every repeat, the
    precision grid's candidates); every relation is still checked against it each time."""
    kept = _SCALES.get(problem)
    if kept is None or kept[0] != unit:
        scale = relation_scale(problem, unit)
        scale.flags.writeable = False
        kept = _SCALES[problem] = (unit, scale)
    return kept[1]


def verify(problem: CTAProblem, values: np.ndarray, senses: np.ndarray | None = None,
           rtol: float = RTOL) -> Verification:
    """Verify adjusted values x (n,) for problem; senses (s,) if the method reported them."""
    x = np.asarray(values, dtype=float).reshape(-1)
    details: list[Violation] = []
    counts = {"shape": 0, "nonfinite": 0, "relation": 0, "bound": 0, "fixed": 0, "protection": 0, "sense": 0}

    def record(kind: str, idx: np.ndarray, amount: np.ndarray, text) -> None:
        if not idx.size:        # the usual case: a sort of nothing costs microseconds a check
            return
        counts[kind] += int(idx.size)
        order = np.argsort(-np.abs(amount), kind="stable")[: max(0, MAX_DETAILS - len(details))]
        details.extend(Violation(kind, int(idx[k]), float(amount[k]), text(int(idx[k]), float(amount[k])))
                       for k in order)

    if x.shape != (problem.n_cells,):
        counts["shape"] = 1
        message = f"{x.size} values returned for a table of {problem.n_cells} cells"
        return Verification(False, counts, (Violation("shape", -1, float(x.size), message),), np.inf, np.inf, -np.inf)
    finite = np.isfinite(x)
    if not finite.all():
        bad = (~finite).nonzero()[0]
        record("nonfinite", bad, np.full(bad.size, np.inf),
               lambda i, _: f"{problem.describe_cell(i)} is NaN or infinite")
        return Verification(False, counts, tuple(details), np.inf, np.inf, -np.inf)

    # the ufuncs and array methods themselves, not numpy's Python wrappers around them (np.max,
    # np.flatnonzero, ...): on a table of 50 cells the verification is some 40 calls of a microsecond
    a = problem.values
    unit = table_unit(problem)
    residual = problem.relations @ x - problem.rhs
    row_scale = _kept_relation_scale(problem, unit)
    off = np.abs(residual)
    bad = (off > rtol * row_scale).nonzero()[0]
    record("relation", bad, residual[bad],
           lambda r, amt: f"{problem.describe_relation(r)} does not add up (off by {amt:.6g})")
    max_relation_error = float(np.maximum.reduce(off / row_scale)) if residual.size else 0.0

    # each pass over the cells made once, in place where it can be (a million cells, three checks a run)
    cell_scale = np.maximum(np.abs(a), unit)
    tol = rtol * cell_scale
    excess = np.subtract(problem.lower, x)
    np.maximum(excess, np.subtract(x, problem.upper), out=excess)
    held = problem.fixed.nonzero()[0]       # the fixed cells alone: few in most tables, often none
    outside = excess > tol
    bad = (outside & ~problem.fixed if held.size else outside).nonzero()[0]
    record("bound", bad, excess[bad],
           lambda i, amt: f"{problem.describe_cell(i)} = {x[i]:.6g} lies outside its bounds "
                          f"[{problem.lower[i]:g}, {problem.upper[i]:g}]")
    max_bound_error = (max(0.0, float(np.maximum.reduce(np.divide(excess, cell_scale, out=excess))))
                       if x.size else 0.0)
    if held.size:
        moved = np.abs(x[held] - a[held])
        off = moved > tol[held]
        record("fixed", held[off], moved[off],
               lambda i, amt: f"{problem.describe_cell(i)} must not change but moved by {amt:.6g}")

    s_idx = problem.sensitive
    deviation = x[s_idx] - a[s_idx]
    up_margin = deviation - problem.upper_protection
    down_margin = -deviation - problem.lower_protection
    margin = np.maximum(up_margin, down_margin)
    floor = -tol[s_idx]
    short = margin < floor                  # margins are finite: the others are protected, margin >= floor
    unprotected = short.nonzero()[0]
    record("protection", s_idx[unprotected], margin[unprotected],
           lambda i, amt: f"{problem.describe_cell(i)} = {x[i]:.6g} is inside its protection interval "
                          f"({a[i] - problem.lower_protection[np.searchsorted(s_idx, i)]:g}, "
                          f"{a[i] + problem.upper_protection[np.searchsorted(s_idx, i)]:g})")
    required = problem.effective_senses if senses is None else np.asarray(senses)
    wrong = (~short & (((required == 1) & (up_margin < floor))
                       | ((required == -1) & (down_margin < floor)))).nonzero()[0]
    record("sense", s_idx[wrong], margin[wrong],
           lambda i, amt: f"{problem.describe_cell(i)} moved against its required sense")
    min_margin = float(np.minimum.reduce(margin / cell_scale[s_idx])) if s_idx.size else np.inf
    ok = not any(counts.values())
    return Verification(ok, counts, tuple(details), max_relation_error, max_bound_error, min_margin)
