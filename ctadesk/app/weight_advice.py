"""When to suggest 1/value weights instead of unit weights.

With unit weights the objective is the total absolute change (Cox 2005b, eq. (1) with w = 1):
moving a cell of 10 by 500 costs what moving one of 1,000,000 by 500 costs, so on a table whose
cells span orders of magnitude the cheapest adjustment lands on the small cells, moving them by
many times their value, or takes a large cell down to 0.  Weights 1/|a| make the objective the
total relative change and spread the adjustment in proportion to cell size (Cox 2005a, §3:
"percent change" as the measure of quality).

``before_run`` says so before a run on a table with unit weights whose cells span
SPAN_ORDERS orders of magnitude; ``after_run`` after a unit-weight run that moved a
non-sensitive cell by more than MOVED_SHARE of its value or set a large cell to 0.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np

from ctadesk.engine.problem import CTAProblem

#: a non-sensitive cell moved by more than this share of its value is "moved by orders of magnitude"
MOVED_SHARE = 1.0
#: a cell at or above this quantile of the non-zero |values| (the median) is large
LARGE_QUANTILE = 0.5
#: cells spanning this many orders of magnitude get the advice before a run
SPAN_ORDERS = 3.0


@dataclasses.dataclass(frozen=True)
class WeightAdvice:
    """Why 1/value weights would do better, in a sentence naming the worst cell."""

    reason: str
    cells: tuple[int, ...]

    def text(self) -> str:
        return f"{self.reason} Weights 1/value spread the change in proportion to each cell's size."


def before_run(values: np.ndarray, weights: np.ndarray, label: Callable[[int], str]) -> WeightAdvice | None:
    """Advice for a table with unit ``weights`` whose non-zero ``values`` span SPAN_ORDERS orders
    of magnitude or more (a tau-argus table of turnover, say); None otherwise.  ``label`` names
    a cell."""
    if weights.size == 0 or not np.all(weights == weights[0]):
        return None
    sizes = np.abs(values)
    nonzero = np.flatnonzero(sizes > 0)
    if nonzero.size < 2:
        return None
    small, large = int(nonzero[np.argmin(sizes[nonzero])]), int(nonzero[np.argmax(sizes[nonzero])])
    orders = float(np.log10(sizes[large] / sizes[small]))
    if orders < SPAN_ORDERS:
        return None
    return WeightAdvice(f"The cells span {orders:.0f} orders of magnitude ({label(small)}: {values[small]:,.10g}; "
                        f"{label(large)}: {values[large]:,.10g}): unit weights move small cells by many times "
                        "their value.", (small, large))


def after_run(problem: CTAProblem, adjusted: np.ndarray | None) -> WeightAdvice | None:
    """Advice after a unit-weight run on ``problem`` gave ``adjusted``: a non-sensitive cell moved
    by more than MOVED_SHARE of its value, or a large cell set to 0; None otherwise."""
    weights = problem.weights
    if adjusted is None or weights.size == 0 or not np.all(weights == weights[0]):
        return None
    a = problem.values
    other = np.ones(a.size, bool)
    other[problem.sensitive] = False
    sizes = np.abs(a)
    change = np.abs(adjusted - a)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(sizes > 0, change / sizes, 0.0)
    moved = np.flatnonzero(other & (share > MOVED_SHARE))
    nonzero = sizes[sizes > 0]
    large = np.quantile(nonzero, LARGE_QUANTILE) if nonzero.size else np.inf
    zeroed = np.flatnonzero(other & (sizes >= large) & (sizes > 0) & (adjusted == 0))
    if zeroed.size:
        worst = int(zeroed[np.argmax(sizes[zeroed])])
        reason = (f"Unit weights set {zeroed.size:,} large cell(s) to 0, among them "
                  f"{problem.describe_cell(worst)} (was {a[worst]:,.10g}).")
        return WeightAdvice(reason, tuple(int(c) for c in zeroed))
    if moved.size:
        worst = int(moved[np.argmax(share[moved])])
        reason = (f"Unit weights moved {moved.size:,} non-sensitive cell(s) by more than "
                  f"{100 * MOVED_SHARE:.0f} % of their value, the most {problem.describe_cell(worst)} by "
                  f"{100 * share[worst]:,.0f} % ({a[worst]:,.10g} to {adjusted[worst]:,.10g}).")
        return WeightAdvice(reason, tuple(int(c) for c in moved))
    return None
