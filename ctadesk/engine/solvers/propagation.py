"""Bound propagation over the relations: the deviation range each cell keeps once the others'
ranges are taken into account (one pass of an LP presolve's bound tightening, vectorised).

Used for the MILP's big-M values (Castro & González 2011, (2e)), the audit's outer bounds on interval ends
(audit/model.py, without the slack) and wherever a cell's reachable range matters.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.solvers.lp import deviation_bounds

#: rounds of bound propagation over the relations
PROPAGATION_ROUNDS = 3
#: slack added to a derived bound so rounding never cuts off a solution, relative to the magnitude
#: of the sum it came from (a bound of 1 derived from cells of 1e11 carries their rounding error)
BOUND_SLACK = 1e-9


def propagated_deviation_bounds(problem: CTAProblem, rounds: int = PROPAGATION_ROUNDS) -> tuple[np.ndarray, np.ndarray]:
    """Bounds l_z <= z <= u_z implied by l - a <= z <= u - a and A z = b - A a (implied_bounds,
    with BOUND_SLACK)."""
    lower, upper = deviation_bounds(problem)
    return implied_bounds(problem.relations, problem.deviation_rhs, lower, upper, rounds, BOUND_SLACK)


def implied_bounds(matrix: sp.sparray, rhs: np.ndarray, lower: np.ndarray, upper: np.ndarray, rounds: int,
                   slack: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Bounds on every column implied by matrix x = rhs and lower <= x <= upper.

    Each row bounds every one of its columns by its right-hand side minus the
    extreme activity of the others (one pass of LP presolve's bound
    propagation, vectorised over all entries), repeated ``rounds`` times.
    Each derived bound is widened by ``slack`` times the magnitude of the sum it
    came from (0: the bounds as computed, without a safety margin; the audit compares them with
    attained values, audit/model.py).
    """
    coo = matrix.tocoo()
    rows, cols, coef = coo.row, coo.col, coo.data
    d = rhs[rows]
    m = matrix.shape[0]
    positive = coef > 0
    for _ in range(rounds):
        low_part = np.where(positive, coef * lower[cols], coef * upper[cols])
        high_part = np.where(positive, coef * upper[cols], coef * lower[cols])
        rest_low = _activity_of_others(rows, low_part, m, -np.inf)
        rest_high = _activity_of_others(rows, high_part, m, np.inf)
        with np.errstate(invalid="ignore", over="ignore"):
            z_high = np.where(positive, (d - rest_low) / coef, (d - rest_high) / coef)
            z_low = np.where(positive, (d - rest_high) / coef, (d - rest_low) / coef)
            if slack:
                magnitude = np.bincount(rows, weights=_finite_abs(low_part) + _finite_abs(high_part), minlength=m)
                rounding = slack * (magnitude[rows] + np.abs(d)) / np.abs(coef)
                z_high = z_high + rounding + slack * np.maximum(1.0, np.abs(z_high))
                z_low = z_low - rounding - slack * np.maximum(1.0, np.abs(z_low))
        new_upper, new_lower = upper.copy(), lower.copy()
        np.minimum.at(new_upper, cols, np.where(np.isnan(z_high), np.inf, z_high))
        np.maximum.at(new_lower, cols, np.where(np.isnan(z_low), -np.inf, z_low))
        if np.array_equal(new_upper, upper) and np.array_equal(new_lower, lower):
            break
        upper, lower = new_upper, new_lower
    return lower, upper


def _finite_abs(part: np.ndarray) -> np.ndarray:
    return np.where(np.isfinite(part), np.abs(part), 0.0)


def _activity_of_others(rows: np.ndarray, part: np.ndarray, m: int, infinity: float) -> np.ndarray:
    """Per entry: the sum of the other entries' parts in its row (``infinity`` if one is infinite)."""
    infinite = ~np.isfinite(part)
    finite_part = np.where(infinite, 0.0, part)
    finite_sum = np.bincount(rows, weights=finite_part, minlength=m)
    inf_count = np.bincount(rows, weights=infinite, minlength=m)
    others_infinite = inf_count[rows] - infinite > 0
    return np.where(others_infinite, infinity, finite_sum[rows] - finite_part)


__all__ = ["implied_bounds", "propagated_deviation_bounds"]
