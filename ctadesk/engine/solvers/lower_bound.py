"""A certified lower bound on the weighted-L1 CTA optimum without a MILP, for tables of any size.

A protected table moves every sensitive cell i by at least its protection
level, one way or the other (Castro & González 2011, (2e)): that costs at least
w_i min(lpl_i, upl_i), or the level of its sense where the sense is fixed.
Each relation r then needs its non-sensitive cells O_r to move by at least
D_r in total (the imbalance of solvers/cuts.py):

    sum_{j in O_r} |c_rj| |z_j|  >=  D_r.

and no cell moves further than its room rho_j (its bounds, narrowed by
propagation).  Any y >= 0 and mu_j = max(sum_r y_r |c_rj| - w_j, 0) turn
these into sum_j w_j |z_j| >= sum_r y_r D_r - sum_j rho_j mu_j (LP duality
on the cuts), so

    bound = sum_S w_i min-level_i + sum_r y_r D_r - sum_j rho_j mu_j.

The best y solves the dual of the covering LP min w.t, C t >= D,
0 <= t <= rho (a few thousand rows), which HiGHS solves within the caller's
budget; its row duals are the certificate.  A greedy y with mu = 0
(y_r = min_{j in O_r} w_j / kappa_j, kappa_j = sum_r |c_rj|, raised by
passes that hand each cell's unused weight to its relations) is the
fallback.  On Cox tables the rooms bind where one cell crosses the
relations of several imbalances: 10x10x10 seed 0 37 163.3 without them,
37 278.4 with them (plain HiGHS's dual bound after 600 s: 37 858.6); 4x4x3
seed 2 2 859.0 and 3 214.6 (the optimum 4 153.6).  Without the rooms the
bound equalled the root bound of the MILP with imbalance cuts to within
0.3 % (25x25: 19514, the bound HiGHS still reports after 900 s).  All in a
fraction of a second.
"""

from __future__ import annotations

import dataclasses
import math
import weakref

import highspy
import numpy as np
import scipy.sparse as sp

from ctadesk.engine.budget import Budget
from ctadesk.engine.problem import SENSE_DOWN, SENSE_FREE, SENSE_UP, CTAProblem
from ctadesk.engine.result import CTAResult, SolveOptions, Status, relative_gap
from ctadesk.engine.solvers.cuts import imbalance_bounds
from ctadesk.engine.solvers.highs import ColumnMatrix, HighsRun, LinearModel
from ctadesk.engine.solvers.lp import l1_column_bounds
from ctadesk.engine.solvers.propagation import propagated_deviation_bounds

#: passes that raise the relation multipliers y with the cells' unused weight
PACKING_PASSES = 8
#: bounds already found, per (immutable) problem: a heuristic's rounds in a portfolio ask again and again
_FOUND: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


@dataclasses.dataclass(frozen=True)
class LowerBound:
    """value = protection + imbalance, or slices where that is higher (solvers/slice_bound.py: -inf
    where not computed); relations = how many relations have D_r > 0."""

    value: float
    protection: float
    imbalance: float
    relations: int
    slices: float = -math.inf


def lower_bound(problem: CTAProblem, budget: Budget = Budget()) -> LowerBound:
    """A value no protected table's cost sum w |x - a| can be below (module docstring); the
    packing LP runs within ``budget`` (the greedy bound where it ends first, not kept for later)."""
    if problem in _FOUND:
        return _FOUND[problem]
    found, complete = _lower_bound(problem, budget)
    if complete:
        _FOUND[problem] = found
    return found


def _lower_bound(problem: CTAProblem, budget: Budget) -> tuple[LowerBound, bool]:
    if not problem.free_senses:
        # no relation holds a free sensitive cell, so imbalance_bounds finds no D_r > 0 (it enumerates
        # the senses of 1..MAX_FREE free cells a relation holds) and the packing adds nothing: the
        # protection part alone, without the column bounds and the relations' enumeration (on office
        # tables of 49-250 cells, fixed senses: 40 of the bound's 100 microseconds)
        protection = _protection_part(problem, problem.effective_senses, *_own_rooms(problem))
        return LowerBound(protection, protection, 0.0, 0), True
    n = problem.n_cells
    senses = problem.effective_senses
    free = senses == SENSE_FREE
    # propagation narrows free cells' ranges (without free senses the cells' own ranges do, above: a
    # fixed sense's level it only finds unreachable where no table is protected, then every bound holds)
    implied_lower, implied_upper = propagated_deviation_bounds(problem)
    col_lower, col_upper = l1_column_bounds(problem, senses)
    cells = problem.sensitive[free]
    col_upper[cells] = np.minimum(col_upper[cells], np.maximum(implied_upper[cells], 0.0))
    col_upper[n + cells] = np.minimum(col_upper[n + cells], np.maximum(-implied_lower[cells], 0.0))
    protection = _protection_part(problem, senses, -implied_lower[problem.sensitive], implied_upper[problem.sensitive])
    deficit = imbalance_bounds(problem, col_lower, col_upper)
    deficit = np.where(np.isfinite(deficit), deficit, 0.0)
    # how far a cell may move either way: |z_j| <= its room (the covering LP's column bound below)
    room = np.maximum(np.minimum(col_upper[:n], np.maximum(implied_upper, 0.0)),
                      np.minimum(col_upper[n:], np.maximum(-implied_lower, 0.0)))
    imbalance, complete = _packing(problem, deficit, room, budget)
    return LowerBound(protection + imbalance, protection, imbalance, int(np.count_nonzero(deficit > 0))), complete


def with_lower_bound(problem: CTAProblem, result: CTAResult, options: SolveOptions) -> CTAResult:
    """``result`` with the higher of its own bound and lower_bound(problem), and the gap to it.

    A verified table within options.gap of the bound is reported OPTIMAL (a MILP stopped by its
    time limit may have found the optimum without proving it; this bound can prove it).
    """
    if not result.verified:
        return result
    certified = lower_bound(problem, options.begun().started_budget)
    own = result.bound if result.bound is not None and math.isfinite(result.bound) else -math.inf
    if certified.value <= own:
        return result
    gap = relative_gap(result.objective, certified.value)
    status = result.status
    if gap <= options.gap and status in (Status.FEASIBLE, Status.TIME_LIMIT):
        status = Status.OPTIMAL
    return result.replace(bound=certified.value, gap=gap, status=status,
                          info={**result.info, "bound_from": "protection levels and relation imbalances",
                                "solver_bound": None if own == -math.inf else own})


def _protection_part(problem: CTAProblem, senses: np.ndarray, down_room: np.ndarray, up_room: np.ndarray) -> float:
    """sum w_i times the smallest move that protects sensitive cell i in a direction it can take:
    ``down_room`` and ``up_room`` say how far each sensitive cell may move down and up."""
    upl, lpl = problem.upper_protection, problem.lower_protection
    can_up = (senses != SENSE_DOWN) & (upl <= up_room * (1 + 1e-9) + 1e-9)
    can_down = (senses != SENSE_UP) & (lpl <= down_room * (1 + 1e-9) + 1e-9)
    level = np.minimum(np.where(can_up, upl, np.inf), np.where(can_down, lpl, np.inf))
    level = np.where(np.isfinite(level), level, np.minimum(upl, lpl))
    return float(problem.weights[problem.sensitive] @ level)


def _own_rooms(problem: CTAProblem) -> tuple[np.ndarray, np.ndarray]:
    """How far each sensitive cell may move down and up by its own bounds, a - l and u - a:
    deviation_bounds over the sensitive cells alone, to the bit (a - l is -(l - a) exactly), for
    the bounds that need no propagation (every sense fixed; a million cells' protection part)."""
    values = problem.values[problem.sensitive]
    return values - problem.lower[problem.sensitive], problem.upper[problem.sensitive] - values


def _packing(problem: CTAProblem, deficit: np.ndarray, room: np.ndarray, budget: Budget) -> tuple[float, bool]:
    """max sum_r y_r D_r - sum_j room_j mu_j over y, mu >= 0 with sum_r y_r |c_rj| - mu_j <= w_j (non-sensitive j
    with room > 0), approximately; and whether the LP had the time it needed."""
    rows_with = np.flatnonzero(deficit > 0)
    if not rows_with.size:
        return 0.0, True
    sensitive = np.zeros(problem.n_cells, bool)
    sensitive[problem.sensitive] = True
    C = abs(sp.csr_array(problem.relations)[rows_with]).tocoo()
    keep = (room[C.col] > 0) & ~sensitive[C.col]
    row, col, coef = C.row[keep], C.col[keep], C.data[keep]
    weights = problem.weights
    deficit = deficit[rows_with]
    packed, complete = _lp_packing(row, col, coef, weights, room, deficit, budget)
    return max(_greedy_packing(row, col, coef, weights, deficit), packed), complete


def _greedy_packing(row: np.ndarray, col: np.ndarray, coef: np.ndarray, weights: np.ndarray,
                    deficit: np.ndarray) -> float:
    """A feasible y built in passes (module docstring) and its value y . D."""
    n_rows = deficit.size
    kappa = np.bincount(col, weights=coef, minlength=weights.size)
    y = np.full(n_rows, np.inf)
    with np.errstate(divide="ignore", invalid="ignore"):
        np.minimum.at(y, row, weights[col] / kappa[col])
    y = np.where(np.isfinite(y), y, 0.0)  # a relation with no movable cell: D_r > 0 means no table; claim nothing
    count = np.bincount(col, minlength=weights.size)
    for _ in range(PACKING_PASSES):
        used = np.bincount(col, weights=coef * y[row], minlength=weights.size)
        slack = np.maximum(weights - used, 0.0)
        # each cell offers its slack to its relations in equal shares; a relation rises by the least offer
        offer = np.full(n_rows, np.inf)
        np.minimum.at(offer, row, slack[col] / (coef * count[col]))
        offer = np.where(np.isfinite(offer), offer, 0.0)
        if not offer.any():
            break
        y += offer
    return float(y @ deficit)


def _lp_packing(row: np.ndarray, col: np.ndarray, coef: np.ndarray, weights: np.ndarray, room: np.ndarray,
                deficit: np.ndarray, budget: Budget) -> tuple[float, bool]:
    """The bound of the row duals y of the covering LP min w.t s.t. C t >= D, 0 <= t <= room (0 when
    HiGHS gives no duals), and whether HiGHS finished within ``budget``.

    Any y >= 0 certifies y.D - room.max(C^T y - w, 0): for every t of the LP, w.t >= (C^T y - mu).t
    >= y.D - mu.room.  Where that is lower (an infinite room), y scaled down to C^T y <= w gives the
    bound of the packing alone.  The rooms are what lifts the bound above the packing's: a cell
    shared by a slice's crossing relations absorbs all their imbalances in the packing, but it may
    move only by its capacity (Cox tables: 20 % of its value), so the others must move too.  This
    covering LP is the LP relaxation of every relation's disjunction over its senses at once
    (Balas's hull of each relation with its cells' bounds): on Cox tables, where a table and its
    mirror cost the same, the hulls' LP reaches no higher (measured: 4x4x3 seed 2, 3 214.6 either
    way; 2 859.0 without the rooms; the optimum 4 153.6)."""
    columns, position = np.unique(col, return_inverse=True)
    matrix = sp.csc_array((coef, (row, position)), shape=(deficit.size, columns.size))
    matrix.sum_duplicates()
    matrix.sort_indices()
    model = LinearModel(weights[columns], np.zeros(columns.size), room[columns],
                        ColumnMatrix.from_csc(matrix), deficit, np.full(deficit.size, np.inf))
    run = HighsRun(SolveOptions(budget=budget), quiet=True)
    if not run.pass_model(model):
        return 0.0, True
    run.run()
    h = run.highs
    complete = run.status() not in (Status.TIME_LIMIT, Status.CANCELLED)
    if h.getInfo().dual_solution_status != highspy.SolutionStatus.kSolutionStatusFeasible:
        return 0.0, complete
    y = np.maximum(np.asarray(h.getSolution().row_dual, dtype=float), 0.0)
    used = matrix.T @ y
    cap = weights[columns]
    over = used > cap
    if not over.any():
        return float(y @ deficit), complete
    rooms = float(y @ deficit - room[columns][over] @ (used[over] - cap[over]))     # -inf: an infinite room
    with np.errstate(divide="ignore", invalid="ignore"):
        scaled = float(y @ deficit) * float(np.min(np.where(used[over] > 0, cap[over] / used[over], 0.0)))
    return max(rooms, scaled) if math.isfinite(rooms) else scaled, complete


__all__ = ["LowerBound", "lower_bound", "with_lower_bound"]
