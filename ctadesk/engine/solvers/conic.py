"""Fixed-sense CTA with clarabel: L2 (5.8), SOC L1 (5.18) and pseudo-Huber (5.17), Petrenko 2017.

All three share the feasible set of (5.5): A z = b - A a and l <= z <= u with
the fixed-sense bounds (5.6)-(5.7) on deviations z = x - a.  Cells that may
not move are taken out of the model.  clarabel's interior-point answer can sit
a hair inside a bound, so it is clipped to the bounds before verification.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import time
from collections.abc import Callable

import clarabel
import numpy as np
import scipy.sparse as sp

from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.result import CTAResult, Progress, SolveOptions, Status
from ctadesk.engine.settings import HUBER_DELTA
from ctadesk.engine.solvers.dual_bounds import huber_dual_bound, l2_dual_bound
from ctadesk.engine.solvers.finish import describe, finish
from ctadesk.engine.solvers.highs import PROGRESS_INTERVAL
from ctadesk.engine.solvers.lp import fixed_senses, l1_column_bounds, solve_lp

#: clarabel's feasibility tolerance: tighter than its 1e-8 default so answers verify at rtol 1e-6
FEASIBILITY_TOLERANCE = 1e-9
#: clarabel's relative (and absolute) duality gap: looser than its 1e-8 default, which a
#: 300x350 L2 model (objective ~5e7) stalls at 2.6e-8 and then wanders for 200 iterations
GAP_TOLERANCE = 1e-7
#: clarabel's absolute duality gap: a table moved little against its unit has an objective of
#: 1e-8 in table units, which the default 1e-8 (or the relative 1e-7 taken as absolute) calls
#: solved at 4x the optimum
GAP_TOLERANCE_ABS = 1e-14

_STATUS = {
    "Solved": Status.OPTIMAL,
    "AlmostSolved": Status.FEASIBLE,
    "InsufficientProgress": Status.FEASIBLE,
    "MaxIterations": Status.FEASIBLE,
    "PrimalInfeasible": Status.INFEASIBLE,
    "AlmostPrimalInfeasible": Status.INFEASIBLE,
    "MaxTime": Status.TIME_LIMIT,
    "CallbackTerminated": Status.CANCELLED,
}
#: bounds farther from the original values than this many times the table's largest value or
#: protection level are left out of the cone model until a solution crosses one
FAR_BOUND = 1e3
#: solves with more bounds put back before the last answer is taken as it is
BOUND_ROUNDS = 3
#: statuses whose iterate is handed to the verifier as a table
_WITH_TABLE = {Status.OPTIMAL, Status.FEASIBLE}
#: how much closer in a model's own distance the L1 LP's table must be to withdraw an "optimal"
#: least-squares or pseudo-Huber table (_checked_distance)
CHECK_RTOL = 1e-6


def deviation_box(problem: CTAProblem, senses: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Bounds (5.6)-(5.7) on z = x - a for senses (s,) of +1/-1."""
    n = problem.n_cells
    col_lower, col_upper = l1_column_bounds(problem, senses)
    return col_lower[:n] - col_upper[n:], col_upper[:n] - col_lower[n:]


def solve_l2(problem: CTAProblem, options: SolveOptions = SolveOptions(),
             senses: np.ndarray | None = None) -> CTAResult:
    """Fixed-sense L2 CTA, model (5.8): min sum w_i z_i^2."""
    return solve_conic(problem, options, senses, "l2", l2_model, squares, check_optimal=True, dual_bound=l2_dual_bound)


def solve_soc(problem: CTAProblem, options: SolveOptions = SolveOptions(),
              senses: np.ndarray | None = None) -> CTAResult:
    """Fixed-sense L1 CTA as a second-order cone program, model (5.18): min sum w_i t_i, t_i >= |z_i|."""
    return solve_conic(problem, options, senses, "soc", cone_model(0.0), pseudo_huber(0.0), check_optimal=False)


def solve_huber(problem: CTAProblem, options: SolveOptions = SolveOptions(),
                senses: np.ndarray | None = None, delta: float = HUBER_DELTA) -> CTAResult:
    """Fixed-sense pseudo-Huber CTA, model (5.17): min sum w_i (t_i - delta), t_i >= sqrt(z_i^2 + delta^2);
    ``delta`` (5.14) in table units: near L1 for changes well above it, near L2 below."""
    return solve_conic(problem, options, senses, "huber", cone_model(delta), pseudo_huber(delta), check_optimal=True,
                       dual_bound=functools.partial(huber_dual_bound, delta=delta))


#: a model's own distance of deviations z (n,) under weights w (n,)
Objective = Callable[[np.ndarray, np.ndarray], float]


def squares(weights: np.ndarray, z: np.ndarray) -> float:
    """sum w_i z_i^2, the objective of (5.8)."""
    return float(weights @ (z * z))


def pseudo_huber(delta: float) -> Objective:
    """z -> sum w_i (sqrt(z_i^2 + delta^2) - delta), the objective of (5.17); sum w_i |z_i| at delta = 0 (5.18)."""
    return lambda weights, z: float(weights @ (np.sqrt(z * z + delta * delta) - delta))


#: a lower bound on a model's optimum from multipliers of its relations:
#: (weights, relations, rhs, lower, upper, pi) -> bound (solvers/dual_bounds.py)
DualBound = Callable[[np.ndarray, sp.sparray, np.ndarray, np.ndarray, np.ndarray, np.ndarray], float]


# A model builder takes (weights (k,), feasible-set rows A_f (csc, k columns), b_f, cones_f)
# and returns (P, q, A, b, cones).
_Builder = Callable[..., tuple]


def l2_model(weights, feasible, rhs, cones):
    """(5.8): min sum w z^2 over the deviations z (the clarabel data: P, q, A, b, cones)."""
    k = weights.size
    P = sp.diags_array(2.0 * weights, format="csc")
    return P, np.zeros(k), feasible, rhs, cones


def cone_model(delta: float) -> _Builder:
    """(5.17) for delta > 0, (5.18) for delta = 0: columns [z, t], one cone (t_i, z_i[, delta]) per cell."""
    def build(weights, feasible, rhs, cones):
        k = weights.size
        size = 3 if delta > 0 else 2
        cell = np.arange(k)
        rows = np.concatenate([size * cell, size * cell + 1])
        cols = np.concatenate([k + cell, cell])
        cone_rows = sp.csc_array((-np.ones(2 * k), (rows, cols)), shape=(size * k, 2 * k))
        cone_rhs = np.zeros(size * k)
        if delta > 0:
            cone_rhs[2::3] = delta
        A = sp.vstack([sp.hstack([feasible, sp.csc_array((feasible.shape[0], k))]), cone_rows], format="csc")
        P = sp.csc_array((2 * k, 2 * k))
        q = np.concatenate([np.zeros(k), weights])
        all_cones = cones + [clarabel.SecondOrderConeT(size)] * k
        return P, q, A, np.concatenate([rhs, cone_rhs]), all_cones
    return build


def solve_conic(problem: CTAProblem, options: SolveOptions, senses: np.ndarray | None, method: str,
                 builder: _Builder, objective_of: Objective, check_optimal: bool,
                 dual_bound: DualBound | None = None) -> CTAResult:
    """Solve with the bounds far beyond the table left out (cone data of 1e9 stalls the interior
    point method); an answer that respects them is the optimum with them, one that does not is
    solved again with the bounds it crossed.  A solve that ends inaccurate or infeasible is checked
    by the fixed-sense LP with the same senses before anything is said, and with ``check_optimal``
    so is an "optimal" table (_checked_distance) -- unless ``dual_bound``, evaluated at clarabel's
    multipliers of the relations, already proves it optimal within CHECK_RTOL.  ``objective_of``:
    the model's own objective."""
    started = time.perf_counter()
    options = options.begun()
    senses, origin = fixed_senses(problem, senses)
    lower, upper = deviation_box(problem, senses)
    if np.any(lower > upper):
        return solve_lp(problem, options, senses=senses).replace(method=method)
    far = FAR_BOUND * max(float(np.abs(problem.values).max(initial=0.0)),
                          float(problem.upper_protection.max(initial=0.0)),
                          float(problem.lower_protection.max(initial=0.0)), 1.0)
    kept_lower, kept_upper = lower > -far, upper < far
    log = ""
    for _ in range(BOUND_ROUNDS):
        z, pi, status, info, round_log = _cone_solve(problem, options, lower, upper, kept_lower, kept_upper,
                                                     builder)
        log += round_log
        if z is None:
            break
        crossed_lower, crossed_upper = (z < lower) & ~kept_lower, (z > upper) & ~kept_upper
        if not (crossed_lower.any() or crossed_upper.any()):
            break
        kept_lower, kept_upper = kept_lower | crossed_lower, kept_upper | crossed_upper
    build_seconds = info.pop("build_seconds")
    solve_seconds = time.perf_counter() - started - build_seconds
    info["senses_from"] = origin
    values = objective = None
    if z is not None:
        z = np.clip(z, lower, upper)
        values, objective = problem.values + z, objective_of(problem.weights, z)
    result = finish(problem, method, status, values, started=started, build_seconds=build_seconds,
                    solve_seconds=solve_seconds, senses=senses,
                    model_objective=math.nan if objective is None else objective, log=log, info=info)
    if result.verified and status is Status.OPTIMAL and check_optimal and not options.cancelled():
        if dual_bound is not None and _certified(problem, lower, upper, pi, dual_bound, result, options):
            return result
        return _checked_distance(problem, options, senses, objective_of, result)
    if result.verified or status is Status.CANCELLED or options.cancelled():
        return result
    return _checked_by_lp(problem, options, senses, method, objective_of, result)


def _certified(problem: CTAProblem, lower: np.ndarray, upper: np.ndarray, pi: np.ndarray, dual_bound: DualBound,
               result: CTAResult, options: SolveOptions) -> bool:
    """Whether ``dual_bound`` at the multipliers ``pi`` proves ``result`` optimal within CHECK_RTOL
    (said in the log either way)."""
    bound = dual_bound(problem.weights, problem.relations, problem.deviation_rhs, lower, upper, pi)
    objective = result.model_objective
    gap = (objective - bound) / objective if objective > 0 else math.inf
    if options.on_log is not None:
        options.on_log(f"clarabel's multipliers bound the optimum from below within {gap:.1e} of this table"
                       if math.isfinite(gap) else "clarabel's multipliers give no useful bound")
    return gap <= CHECK_RTOL


def _checked_distance(problem: CTAProblem, options: SolveOptions, senses: np.ndarray, objective_of: Objective,
                      result: CTAResult) -> CTAResult:
    """An "optimal" table checked against the fixed-sense L1 LP's table with the same senses: where
    that one is closer in the model's own distance, clarabel stopped early (tables of mixed
    magnitudes: 4x the optimum, called solved) and "optimal" is withdrawn."""
    checked = solve_lp(problem, dataclasses.replace(options, on_progress=None, on_log=None), senses=senses)
    if not checked.verified or objective_of(problem.weights, checked.values - problem.values) >= \
            result.model_objective * (1 - CHECK_RTOL):
        return result
    return result.replace(status=Status.FEASIBLE, message=f"{describe(Status.FEASIBLE)}; clarabel's answer is not "
                          "optimal: the L1 table with the same senses is closer in the model's own distance")


def _checked_by_lp(problem: CTAProblem, options: SolveOptions, senses: np.ndarray, method: str,
                   objective_of: Objective, result: CTAResult) -> CTAResult:
    """The fixed-sense L1 LP with the same senses, for a cone solve that gave no verified table:
    its table (said to be the LP's, its model objective the cone model's own distance of it)
    where it has one, its proof where it has none."""
    said = result.info.get("clarabel_status", result.status.value)
    checked = solve_lp(problem, dataclasses.replace(options, on_progress=None), senses=senses)
    if checked.verified:
        return checked.replace(method=method, status=Status.FEASIBLE, log=result.log + checked.log,
                               model_objective=objective_of(problem.weights, checked.values - problem.values),
                               message=f"clarabel ended '{said}'; this is the fixed-sense L1 LP's table with "
                                       "the same senses; verified",
                               info={**result.info, **checked.info, "fallback": "lp"})
    if checked.status is Status.INFEASIBLE:
        return checked.replace(method=method, log=result.log + checked.log, info={**result.info, **checked.info})
    return result


def _cone_solve(problem: CTAProblem, options: SolveOptions, lower: np.ndarray, upper: np.ndarray,
                kept_lower: np.ndarray, kept_upper: np.ndarray, builder: _Builder):
    """One clarabel solve over the deviations z with the bounds marked kept; returns
    (z or None, the multipliers pi of the relations (z = A^T pi / 2w where no bound holds) or None,
    status, info, log)."""
    began = time.perf_counter()
    movable = np.flatnonzero(lower < upper)
    z = np.where(lower == upper, lower, 0.0)  # cells that may not move sit at their only value
    A = problem.relations.tocsc()
    rhs = problem.deviation_rhs - A @ z
    A_moving = sp.csc_array(A[:, movable])
    k = movable.size
    has_upper = np.flatnonzero(np.isfinite(upper[movable]) & kept_upper[movable])
    has_lower = np.flatnonzero(np.isfinite(lower[movable]) & kept_lower[movable])
    box = sp.vstack([sp.csc_array((np.ones(has_upper.size), (np.arange(has_upper.size), has_upper)),
                                  shape=(has_upper.size, k)),
                     sp.csc_array((-np.ones(has_lower.size), (np.arange(has_lower.size), has_lower)),
                                  shape=(has_lower.size, k))], format="csc")
    feasible = sp.vstack([A_moving, box], format="csc")
    feasible_rhs = np.concatenate([rhs, upper[movable][has_upper], -lower[movable][has_lower]])
    cones = [clarabel.ZeroConeT(A_moving.shape[0]), clarabel.NonnegativeConeT(box.shape[0])]
    P, q, A_all, b_all, cones = builder(problem.weights[movable], feasible, feasible_rhs, cones)
    settings = clarabel.DefaultSettings()
    settings.verbose = True
    settings.time_limit = float(options.started_budget.remaining())
    settings.tol_feas = FEASIBILITY_TOLERANCE
    settings.tol_gap_rel = GAP_TOLERANCE
    settings.tol_gap_abs = GAP_TOLERANCE_ABS
    if options.threads is not None:
        settings.max_threads = int(options.threads)
    solver = clarabel.DefaultSolver(sp.csc_matrix(sp.triu(P, format="csc")), q, sp.csc_matrix(A_all),
                                    b_all, cones, settings)
    solver.print_to_buffer()
    solver.set_termination_callback(_callback(options, began))
    build_seconds = time.perf_counter() - began
    solution = solver.solve()
    log = solver.get_print_buffer()
    if options.on_log is not None:
        for line in log.splitlines():
            options.on_log(line)
    status = _STATUS.get(str(solution.status), Status.ERROR)
    info = {"clarabel_status": str(solution.status), "iterations": int(solution.iterations),
            "build_seconds": build_seconds}
    if status not in _WITH_TABLE:
        return None, None, status, info, log
    z[movable] = np.asarray(solution.x)[:k]
    # clarabel's Lagrangian is f(x) + y.(A x - b): its multipliers of the relations are -pi
    return z, -np.asarray(solution.z)[:A_moving.shape[0]], status, info, log


def _callback(options: SolveOptions, started: float) -> Callable[[object], bool]:
    """clarabel's termination callback: True stops the solve; reports throttled progress."""
    stop = options.started_budget.stop
    on_progress = options.on_progress
    last_report = [-math.inf]

    def callback(info) -> bool:
        if on_progress is not None:
            now = time.perf_counter() - started
            if now - last_report[0] >= PROGRESS_INTERVAL:
                last_report[0] = now
                on_progress(Progress(now, float(info.cost_primal), float(info.cost_dual), float(info.gap_rel),
                                     f"interior point iteration {info.iterations}"))
        return stop is not None and stop.is_set()
    return callback
