"""The mirror symmetry of model (2): a table's deviations negated, every free sense flipped.

Where the relations hold at the original values (A a = b), every cell may move as far down as up,
and each free sensitive cell's protection levels are equal (the Cox-recipe tables of Cox 2005b, §3),
the table a - (x - a) is protected whenever x is, with the same weighted L1 cost: model (2) of
Castro & González (2011) maps onto itself by swapping z+ with z- and y with 1 - y.  Branch and bound
then searches every subtree twice, once as its mirror.  Fixing one free cell's sense (y = 1) keeps an
optimum (the mirror of any optimum satisfies it) and drops the mirrored half: a symmetry-breaking
bound in the sense of Margot (2010).  HiGHS's own symmetry detection finds permutations of columns
only, not this complement.  On 2-D Cox tables of 15x15 (seeds 0-2) HiGHS proved the same optimum with
it in 3.5, 2.3 and 2.6 s of CPU against 7.2, 4.9 and 6.8 s without (nodes 372, 426, 200 against 604,
571, 883); docs/exact_l1.md has the portfolio's figures, to a proof and at 60 s.

The check is made on the model itself (mirror_symmetric), so that a given sense, a one-sided bound, an
unequal pair of levels or big-Ms, or a shifted right-hand side leaves the model as it is.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ctadesk.engine.problem import SENSE_DOWN, SENSE_UP, CTAProblem
from ctadesk.engine.solvers.highs import LinearModel

#: two bounds (or a right-hand side and zero) count as equal within this share of the table's largest
#: value: value + room and value - room, computed apart, leave the two columns' bounds 1e-13 apart
RTOL = 1e-9


def mirror_symmetric(problem: CTAProblem, model: LinearModel, free: np.ndarray) -> bool:
    """Whether ``model`` (solvers/milp.milp_model's columns [z+, z-, y] with ``free`` the free
    sensitive cells' positions) maps onto itself under z+ <-> z-, y <-> 1 - y: equal bounds on each
    cell's two columns, equal costs, equal protection levels both ways, and relations that hold at
    the original values (all within RTOL)."""
    n = problem.n_cells
    if not free.size:
        return False
    tolerance = RTOL * max(1.0, float(np.abs(problem.values).max(initial=0.0)))

    def same(a: np.ndarray, b: np.ndarray) -> bool:
        return bool(np.all(np.isclose(a, b, rtol=0.0, atol=tolerance)))     # equal infinities too

    lower, upper, cost = model.col_lower, model.col_upper, model.cost
    return (same(problem.deviation_rhs, np.zeros(problem.n_relations))
            and same(lower[:n], lower[n:2 * n]) and same(upper[:n], upper[n:2 * n])
            and same(cost[:n], cost[n:2 * n])
            and same(problem.upper_protection[free], problem.lower_protection[free]))


def anchor(problem: CTAProblem, free: np.ndarray) -> int:
    """The position (among ``free``) of the free cell whose sense the break fixes: the one of the
    largest protection level, whose fixed move shifts the relaxation most."""
    return int(np.argmax(problem.upper_protection[free]))


def broken(model: LinearModel, n: int, k: int) -> LinearModel:
    """``model`` with free cell ``k``'s binary (column 2n + k) fixed to 1: that cell goes up."""
    lower, upper = model.col_lower.copy(), model.col_upper.copy()
    lower[2 * n + k] = upper[2 * n + k] = 1.0
    return dataclasses.replace(model, col_lower=lower, col_upper=upper)


def mirrored(problem: CTAProblem, values: np.ndarray, senses: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The mirror table a - (x - a) of ``values`` and its senses (every sense flipped)."""
    senses = np.asarray(senses)
    flipped = np.where(senses == SENSE_UP, SENSE_DOWN, np.where(senses == SENSE_DOWN, SENSE_UP, senses))
    return 2.0 * problem.values - values, flipped.astype(senses.dtype)
