"""A small independent checker of CTA tables and a brute-force reference solver.

Written from the definition of a protected table only; it reads the fields of
``CTAProblem`` and nothing else from ctadesk (no verifier, no solver, no model code).

A table x is protected when
  * every entry is finite,
  * A x = b: relation r within RTOL * max(|b_r|, max_j |A_rj a_j|, unit),
  * lower <= x <= upper, where a bound with |bound| >= NO_BOUND (1e20) or inf is no bound,
  * fixed cells keep their value, and
  * every sensitive cell lies at x_i <= a_i - lpl_i or x_i >= a_i + upl_i, on the side
    of its given sense when the problem gives one,
each cell check within RTOL * max(|a_i|, unit).  ``unit`` is the median of the
nonzero |a| of the ORIGINAL table (1 if there is none): no tolerance depends on
the values being checked, so a table that moved cells to 3e19 is not excused by
its own size.

The reference solver enumerates every sense vector of the free sensitive cells
(at most ``max_free`` of them have two possible sides) and solves the
fixed-sense weighted-L1 LP of each with scipy's HiGHS on the instance divided
by ``unit`` (costs divided by the median positive weight).  The least objective
of a table that passes ``check_table`` is the reference optimum; when every
sense vector is infeasible the instance is reference-infeasible.
"""

from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np
import scipy.optimize
import scipy.sparse as sp

RTOL = 1e-6
NO_BOUND = 1e20
#: reasons kept per kind of violation
MAX_REASONS = 3


def table_unit(values: np.ndarray) -> float:
    """Median of the nonzero |a|, 1 when every value is zero."""
    magnitudes = np.abs(np.asarray(values, dtype=float))
    magnitudes = magnitudes[magnitudes > 0]
    return float(np.median(magnitudes)) if magnitudes.size else 1.0


def effective_bounds(problem) -> tuple[np.ndarray, np.ndarray]:
    """lower/upper with every |bound| >= 1e20 (and +-inf) replaced by -inf/+inf."""
    lower = np.array(problem.lower, dtype=float)
    upper = np.array(problem.upper, dtype=float)
    lower[~(np.abs(lower) < NO_BOUND)] = -np.inf
    upper[~(np.abs(upper) < NO_BOUND)] = np.inf
    return lower, upper


def cell_tolerance(problem) -> np.ndarray:
    """RTOL * max(|a_i|, unit) per cell."""
    a = np.asarray(problem.values, dtype=float)
    return RTOL * np.maximum(np.abs(a), table_unit(a))


def relation_tolerance(problem) -> np.ndarray:
    """RTOL * max(|b_r|, max_j |A_rj a_j|, unit) per relation."""
    A = sp.csr_array(problem.relations)
    a = np.asarray(problem.values, dtype=float)
    m = A.shape[0]
    largest = np.zeros(m)
    if A.nnz:
        rows = np.repeat(np.arange(m), np.diff(A.indptr))
        np.maximum.at(largest, rows, np.abs(A.data * a[A.indices]))
    return RTOL * np.maximum(np.maximum(np.abs(np.asarray(problem.rhs, dtype=float)), largest), table_unit(a))


@dataclasses.dataclass(frozen=True)
class Check:
    """What check_table found: ok, and a few human reasons when not."""

    ok: bool
    reasons: tuple[str, ...] = ()
    counts: dict = dataclasses.field(default_factory=dict)

    def __str__(self) -> str:
        return "protected" if self.ok else "NOT protected: " + "; ".join(self.reasons)


def check_table(problem, x) -> Check:
    """Is x a protected table of problem (module docstring)?"""
    a = np.asarray(problem.values, dtype=float)
    n = a.size
    if x is None:
        return Check(False, ("no table",), {"missing": 1})
    x = np.asarray(x, dtype=float).reshape(-1)
    if x.shape != (n,):
        return Check(False, (f"table has {x.size} cells, expected {n}",), {"shape": 1})
    reasons: list[str] = []
    counts: dict[str, int] = {}

    def report(kind: str, indices: np.ndarray, describe) -> None:
        if indices.size:
            counts[kind] = int(indices.size)
            reasons.extend(describe(int(i)) for i in indices[:MAX_REASONS])
            if indices.size > MAX_REASONS:
                reasons.append(f"... {indices.size - MAX_REASONS} more {kind} violations")

    finite = np.isfinite(x)
    report("non-finite", np.flatnonzero(~finite), lambda i: f"cell {i} is {x[i]}")
    if not finite.all():
        return Check(False, tuple(reasons), counts)

    tol = cell_tolerance(problem)
    A = sp.csr_array(problem.relations)
    b = np.asarray(problem.rhs, dtype=float)
    residual = A @ x - b
    rtol = relation_tolerance(problem)
    report("relation", np.flatnonzero(~(np.abs(residual) <= rtol)),
           lambda r: f"relation {r} off by {residual[r]:.6g} (tolerance {rtol[r]:.3g})")

    lower, upper = effective_bounds(problem)
    report("lower bound", np.flatnonzero(x < lower - tol),
           lambda i: f"cell {i} = {x[i]:.10g} below its lower bound {lower[i]:.10g}")
    report("upper bound", np.flatnonzero(x > upper + tol),
           lambda i: f"cell {i} = {x[i]:.10g} above its upper bound {upper[i]:.10g}")

    fixed = np.asarray(problem.fixed, dtype=bool)
    report("fixed", np.flatnonzero(fixed & (np.abs(x - a) > tol)),
           lambda i: f"fixed cell {i} moved from {a[i]:.10g} to {x[i]:.10g}")

    up_ok, down_ok = _protection_sides(problem, x)
    s = np.asarray(problem.sensitive, dtype=np.int64)
    senses = np.asarray(problem.senses)
    safe = np.where(senses > 0, up_ok, np.where(senses < 0, down_ok, up_ok | down_ok))
    lpl = np.asarray(problem.lower_protection, dtype=float)
    upl = np.asarray(problem.upper_protection, dtype=float)

    def describe_protection(k: int) -> str:
        i = int(s[k])
        side = {1: " (sense up)", -1: " (sense down)"}.get(int(senses[k]), "")
        return (f"sensitive cell {i} = {x[i]:.10g} inside ({a[i] - lpl[k]:.10g}, {a[i] + upl[k]:.10g})"
                f"{side}")

    report("protection", np.flatnonzero(~safe), describe_protection)
    return Check(not reasons, tuple(reasons), counts)


def _protection_sides(problem, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per sensitive cell: is x at or above a + upl, at or below a - lpl (within tolerance)?"""
    s = np.asarray(problem.sensitive, dtype=np.int64)
    a = np.asarray(problem.values, dtype=float)[s]
    tol = cell_tolerance(problem)[s]
    up_ok = x[s] >= a + np.asarray(problem.upper_protection, dtype=float) - tol
    down_ok = x[s] <= a - np.asarray(problem.lower_protection, dtype=float) + tol
    return up_ok, down_ok


def table_senses(problem, x) -> np.ndarray:
    """+1/-1 per sensitive cell for the side x is on, 0 when it is on both (or neither)."""
    up_ok, down_ok = _protection_sides(problem, np.asarray(x, dtype=float))
    return np.where(up_ok & ~down_ok, 1, np.where(down_ok & ~up_ok, -1, 0)).astype(np.int8)


def senses_agree(table: np.ndarray, senses) -> bool:
    """Do the sides of a table (table_senses) fit the +-1 senses given?"""
    senses = np.asarray(senses)
    return bool(np.all((table == 0) | (table == senses)))


def weighted_l1(problem, x) -> float:
    return float(np.asarray(problem.weights, dtype=float) @ np.abs(np.asarray(x, dtype=float) - problem.values))


def weighted_l2(problem, x) -> float:
    """sum w z^2, the model objective of l2 and network-l2."""
    z = np.asarray(x, dtype=float) - problem.values
    return float(np.asarray(problem.weights, dtype=float) @ (z * z))


def pseudo_huber(problem, x, delta: float) -> float:
    """sum w (sqrt(z^2 + delta^2) - delta), the model objective of huber."""
    z = np.asarray(x, dtype=float) - problem.values
    return float(np.asarray(problem.weights, dtype=float) @ (np.sqrt(z * z + delta * delta) - delta))


# ---------------------------------------------------------------- reference solver
@dataclasses.dataclass(frozen=True)
class SenseSolution:
    """The fixed-sense L1 LP of one sense vector: status optimal / infeasible / unreliable / error."""

    senses: tuple[int, ...]
    status: str
    objective: float = math.nan
    values: np.ndarray | None = None
    note: str = ""


@dataclasses.dataclass(frozen=True)
class Reference:
    """The reference optimum of a problem.

    status     optimal (objective/values/senses set), infeasible (every sense vector is),
               skipped (more than max_free free cells) or unreliable (no LP optimum passed
               check_table although some sense vector was not infeasible)
    solutions  every sense vector solved, by its tuple of +-1
    """

    status: str
    objective: float = math.nan
    values: np.ndarray | None = None
    senses: tuple[int, ...] | None = None
    solutions: dict = dataclasses.field(default_factory=dict)
    free: int = 0
    note: str = ""

    def for_senses(self, senses) -> SenseSolution | None:
        return self.solutions.get(tuple(int(v) for v in np.asarray(senses).reshape(-1)))


def possible_sides(problem) -> list[tuple[int, ...]]:
    """The sides (+1, -1) each sensitive cell may take: its given sense, else those whose safe
    value fits its bounds (both when neither fits, so that the LP reports it infeasible)."""
    s = np.asarray(problem.sensitive, dtype=np.int64)
    a = np.asarray(problem.values, dtype=float)[s]
    lower, upper = effective_bounds(problem)
    tol = cell_tolerance(problem)[s]
    fits_up = a + np.asarray(problem.upper_protection, dtype=float) <= upper[s] + tol
    fits_down = a - np.asarray(problem.lower_protection, dtype=float) >= lower[s] - tol
    fixed = np.asarray(problem.fixed, dtype=bool)[s]
    sides = []
    for k, sense in enumerate(np.asarray(problem.senses)):
        if sense != 0:
            sides.append((int(sense),))
        elif fits_up[k] and not fits_down[k]:
            sides.append((1,))
        elif fits_down[k] and not fits_up[k]:
            sides.append((-1,))
        elif fixed[k]:  # a fixed cell stays put: either side (lpl = upl = 0 here) is the same table
            sides.append((1,))
        else:
            sides.append((1, -1))
    return sides


def solve_fixed_senses(problem, senses) -> SenseSolution:
    """min sum w |x - a| over tables with every sensitive cell on the side senses[k], by linprog
    (HiGHS) on the instance divided by unit; the table found is checked by check_table."""
    senses = tuple(int(v) for v in np.asarray(senses).reshape(-1))
    a = np.asarray(problem.values, dtype=float)
    n = a.size
    unit = table_unit(a)
    A = sp.csr_array(problem.relations)
    lower, upper = effective_bounds(problem)
    # deviations z = zp - zm >= 0 each, in units of `unit`
    zp_high = (upper - a) / unit
    zm_high = (a - lower) / unit
    zp_low = np.zeros(n)
    zm_low = np.zeros(n)
    fixed = np.asarray(problem.fixed, dtype=bool)
    zp_high[fixed] = 0.0
    zm_high[fixed] = 0.0
    s = np.asarray(problem.sensitive, dtype=np.int64)
    lpl = np.asarray(problem.lower_protection, dtype=float) / unit
    upl = np.asarray(problem.upper_protection, dtype=float) / unit
    for k, sense in enumerate(senses):
        i = s[k]
        if sense > 0:
            zp_low[i] = max(zp_low[i], upl[k])
            zm_high[i] = 0.0
        else:
            zm_low[i] = max(zm_low[i], lpl[k])
            zp_high[i] = 0.0
    low = np.concatenate([zp_low, zm_low])
    high = np.concatenate([zp_high, zm_high])
    # within the cells' tolerance (as possible_sides): on a Cox-recipe table the safe value is the
    # bound itself, and (upper - a) / unit comes out a rounding below upl / unit
    if np.any(low > high + np.tile(cell_tolerance(problem), 2) / unit):
        return SenseSolution(senses, "infeasible", note="a safe value lies outside the bounds")
    low = np.minimum(low, high)
    bounds = [(lo, None if math.isinf(hi) else hi) for lo, hi in zip(low, high)]
    weights = np.asarray(problem.weights, dtype=float)
    positive = weights[weights > 0]
    # costs of order 1 too: HiGHS's dual tolerance is absolute (1e-7), weights like 1/a are not
    cost = np.concatenate([weights, weights]) / (float(np.median(positive)) if positive.size else 1.0)
    rhs = (np.asarray(problem.rhs, dtype=float) - A @ a) / unit
    A_eq = sp.hstack([A, -A], format="csr") if A.shape[0] else None
    try:
        outcome = scipy.optimize.linprog(cost, A_eq=A_eq, b_eq=rhs if A_eq is not None else None,
                                         bounds=bounds, method="highs")
    except ValueError as error:  # scipy refuses some degenerate inputs
        return SenseSolution(senses, "error", note=str(error))
    if outcome.status == 2:
        return SenseSolution(senses, "infeasible", note=outcome.message)
    if outcome.status != 0 or outcome.x is None:
        return SenseSolution(senses, "error", note=outcome.message)
    z = outcome.x[:n] - outcome.x[n:]
    x = a + unit * z
    check = check_table(problem, x)
    if not check.ok:
        return SenseSolution(senses, "unreliable", weighted_l1(problem, x), x, note=str(check))
    return SenseSolution(senses, "optimal", weighted_l1(problem, x), x)


def reference(problem, max_free: int = 10) -> Reference:
    """The least weighted-L1 cost over all sense vectors (module docstring)."""
    sides = possible_sides(problem)
    free = sum(len(option) > 1 for option in sides)
    if free > max_free:
        return Reference("skipped", free=free, note=f"{free} free sensitive cells > {max_free}")
    solutions = {}
    best: SenseSolution | None = None
    for senses in itertools.product(*sides):
        solution = solve_fixed_senses(problem, senses)
        solutions[solution.senses] = solution
        if solution.status == "optimal" and (best is None or solution.objective < best.objective):
            best = solution
    if best is not None:
        return Reference("optimal", best.objective, best.values, best.senses, solutions, free)
    if all(solution.status == "infeasible" for solution in solutions.values()):
        return Reference("infeasible", solutions=solutions, free=free)
    odd = next(sol for sol in solutions.values() if sol.status != "infeasible")
    return Reference("unreliable", solutions=solutions, free=free, note=f"{odd.status}: {odd.note}")
