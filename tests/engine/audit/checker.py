"""An independent checker for the audit: the attacker's box written out cell by cell, and two
scipy ``linprog`` calls per sensitive cell on the whole table, no shortcuts."""

from __future__ import annotations

import numpy as np
from scipy.optimize import linprog

from ctadesk.engine.problem import CTAProblem


def box(problem: CTAProblem, published: np.ndarray, missing: np.ndarray, *, exact: bool,
        capacity: tuple[str, float] | None, sign_only: bool,
        value_range: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The attacker's bounds on each original value, one cell at a time (``value_range``: each
    value known a priori to within that share of itself, fixed cells exactly, signs kept)."""
    n = problem.n_cells
    lower, upper = np.empty(n), np.empty(n)
    sensitive = set(problem.sensitive.tolist())
    for i in range(n):
        a = problem.values[i]
        if sign_only:
            lower[i], upper[i] = (0.0 if problem.values.min() >= 0 else -np.inf), np.inf
        elif value_range is not None and problem.lower[i] == problem.upper[i]:
            lower[i] = upper[i] = a
        elif value_range is not None:
            lower[i], upper[i] = a - value_range * abs(a), a + value_range * abs(a)
            if problem.values.min() >= 0:
                lower[i] = max(lower[i], 0.0)
        else:
            lower[i], upper[i] = problem.lower[i], problem.upper[i]
        x = published[i]
        if missing[i]:
            continue
        if exact or (capacity is not None and problem.fixed[i]):
            lower[i] = upper[i] = x
        elif capacity is not None and i not in sensitive:
            kind, c = capacity
            if kind == "abs":
                low, high = x - c, x + c
            else:
                low, high = sorted((x / (1 + c), x / (1 - c)))
            lower[i], upper[i] = max(lower[i], low), min(upper[i], high)
        lower[i], upper[i] = min(lower[i], problem.values[i]), max(upper[i], problem.values[i])
    return lower, upper


def intervals(problem: CTAProblem, lower: np.ndarray, upper: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """min and max of each sensitive cell subject to the relations and the box (scaled to unit
    magnitude for linprog's absolute tolerances)."""
    scale = float(np.median(np.abs(problem.values[problem.values != 0]))) if np.any(problem.values) else 1.0
    A = problem.relations.toarray()
    bounds = [(lo / scale if np.isfinite(lo) else None, hi / scale if np.isfinite(hi) else None)
              for lo, hi in zip(lower, upper)]
    ends = []
    for sign in (1.0, -1.0):
        column = []
        for i in problem.sensitive:
            cost = np.zeros(problem.n_cells)
            cost[i] = sign
            result = linprog(cost, A_eq=A, b_eq=problem.rhs / scale, bounds=bounds, method="highs")
            assert result.status in (0, 3), result.message
            column.append(-sign * np.inf if result.status == 3 else sign * result.fun * scale)
        ends.append(np.array(column))
    return ends[0], ends[1]
