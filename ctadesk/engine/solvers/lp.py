"""Fixed-sense L1 CTA as an LP: Petrenko (2017) model (5.10) with bounds (5.12), Petrenko 2017.

Columns are the deviations [z+ (n), z- (n)] with x = a + z+ - z-; rows are
A (z+ - z-) = b - A a.  A sensitive cell going up has upl <= z+ and z- = 0,
one going down has z+ = 0 and lpl <= z-.  Solved by HiGHS's interior point
method (docs/solvers.md: the fastest on 2-D and 3-D tables).  The matrix and the
bounds are separate functions so heuristics can re-solve with other senses
cheaply.
"""

from __future__ import annotations

import math
import time

import numpy as np

from ctadesk.engine.problem import BOUND_RTOL, SENSE_DOWN, SENSE_FREE, SENSE_UP, CTAProblem
from ctadesk.engine.result import CTAResult, SolveOptions, Status
from ctadesk.engine.solvers.finish import finish
from ctadesk.engine.solvers.highs import (
    ColumnMatrix,
    HighsOutcome,
    HighsSetting,
    LinearModel,
    bound_from_reduced_costs,
    cost_tolerances,
    irreducible_conflict,
    proves_infeasible,
    reduced_costs,
    solve_model,
)
from ctadesk.engine.solvers.sparse import optimal_face, sparsest_on_face, with_fewer_changes

METHOD = "lp"
#: HiGHS settings of the fixed-sense LP: IPM without presolve, then crossover to a vertex.  A vertex
#: changes far fewer cells than the interior point (about a third of a Cox table's, against nearly
#: all) and is exact to the simplex tolerances, for a small multiple of the IPM's time at most:
#: benchmarks/lp_choice.py --crossover prints both, seconds and cells changed, per table.
IPM_SETTINGS: dict[str, HighsSetting] = {"solver": "ipm", "run_crossover": "on", "presolve": "off"}
#: the fallback when the IPM ends without an optimum or with a table that fails verification
#: (badly scaled tables, cells of 1e11 beside cells of 1): dual simplex after presolve, whose
#: basic solutions are exact to the solver's tolerances
SIMPLEX_SETTINGS: dict[str, HighsSetting] = {"solver": "simplex", "presolve": "on"}
#: the dual simplex from the slack basis, asked for (simplex=True) where few protection levels
#: bind (an on-line server's tables, J. Castro's office tables); on Cox-recipe tables, 30 %
#: sensitive, the IPM wins: benchmarks/lp_choice.py prints both, side by side, per table
DUAL_SIMPLEX_SETTINGS: dict[str, HighsSetting] = {"solver": "simplex", "simplex_strategy": 1, "presolve": "off"}
#: an LP HiGHS called infeasible where neither a conflict (its IIS) nor its dual ray, checked here,
#: confirms it: HiGHS's presolve with its interior point method called a feasible 1 M-cell 3-D table
#: infeasible (the same LP without presolve: optimal, verified), so the claim is not passed on
UNCONFIRMED_INFEASIBLE = ("HiGHS found no table with the senses chosen, but neither a conflict nor a certificate "
                          "confirms that none exists: give it more time, or choose other senses or another method")
#: how many cells and relations an infeasibility message names
CONFLICT_NAMES = 6


def l1_matrix(problem: CTAProblem) -> ColumnMatrix:
    """[A, -A] in column-compressed form: the rows of (5.10) over columns [z+, z-]."""
    csc = problem.relations.tocsc()
    csc.sort_indices()
    nnz = csc.indptr[-1]
    start = np.concatenate([csc.indptr, csc.indptr[1:] + nnz]).astype(np.int32)
    index = np.concatenate([csc.indices, csc.indices]).astype(np.int32)
    value = np.concatenate([csc.data, -csc.data])
    return ColumnMatrix(problem.n_relations, start, index, value)


def deviation_bounds(problem: CTAProblem) -> tuple[np.ndarray, np.ndarray]:
    """l_z = l - a <= 0 and u_z = u - a >= 0 of every cell (Castro & González 2011, (2c))."""
    return problem.lower - problem.values, problem.upper - problem.values


def l1_column_bounds(problem: CTAProblem, senses: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Bounds (5.12) of the columns [z+, z-] for senses (s,) of +1/-1."""
    n = problem.n_cells
    lower_z, upper_z = deviation_bounds(problem)
    col_lower = np.zeros(2 * n)
    col_upper = np.concatenate([upper_z, -lower_z])
    cells = problem.sensitive
    up = senses == SENSE_UP
    down = senses == SENSE_DOWN
    col_lower[cells[up]] = _within_capacity(problem.upper_protection[up], upper_z[cells[up]],
                                            problem.values[cells[up]])
    col_upper[n + cells[up]] = 0.0
    col_upper[cells[down]] = 0.0
    col_lower[n + cells[down]] = _within_capacity(problem.lower_protection[down], -lower_z[cells[down]],
                                                  problem.values[cells[down]])
    return col_lower, col_upper


def _within_capacity(level: np.ndarray, capacity: np.ndarray, values: np.ndarray) -> np.ndarray:
    """A protection level cut to the capacity where it exceeds it only by rounding
    (the tolerance CTAProblem accepts a safe value with)."""
    rounding = level <= capacity + BOUND_RTOL * np.maximum(1.0, np.abs(values))
    return np.where(rounding, np.minimum(level, capacity), level)


def fixed_senses(problem: CTAProblem, senses: np.ndarray | None) -> tuple[np.ndarray, str]:
    """The senses a fixed-sense model uses, and where they came from: the given ones, else the
    problem's own when it fixes every sense.  Choosing the others is not a solver's business
    (ctadesk.engine.methods completes them by the ordering heuristic)."""
    if senses is not None:
        senses = np.asarray(senses, dtype=np.int8).reshape(-1)
        if senses.shape != (problem.n_sensitive,) or np.any(senses == SENSE_FREE) or \
                np.any(np.abs(senses) != 1):
            raise ValueError(f"senses must hold +1 or -1 for each of the {problem.n_sensitive} sensitive cells")
        return senses, "given"
    free = problem.free_senses
    if free:
        raise ValueError(f"a fixed-sense model needs a sense for each sensitive cell; {free} are free")
    return problem.effective_senses, "problem"


def solve_lp(problem: CTAProblem, options: SolveOptions = SolveOptions(),
             senses: np.ndarray | None = None, matrix: ColumnMatrix | None = None,
             explain: bool = True, fewest_changes: bool = False, simplex: bool = False) -> CTAResult:
    """Fixed-sense L1 CTA, model (5.10): the closest table in weighted L1 for the given senses.

    senses  (s,) +1/-1; default: the problem's own, when it fixes every sense
    matrix  l1_matrix(problem), passed in by callers that solve many times
    explain name the conflict of an infeasible LP (HiGHS's IIS); heuristics that try many
            sense vectors do not need it
    fewest_changes  among the optimal tables, the one changing fewest cells (solvers/sparse.py)
    simplex the dual simplex (DUAL_SIMPLEX_SETTINGS) instead of the interior point method
    """
    started = time.perf_counter()
    options = options.begun()
    senses, origin = fixed_senses(problem, senses)
    if matrix is None:
        matrix = l1_matrix(problem)
    col_lower, col_upper = l1_column_bounds(problem, senses)
    n = problem.n_cells
    beyond = np.flatnonzero(col_lower > col_upper)
    if beyond.size:
        message = "no table with the senses chosen fits the bounds: " + ", ".join(
            _describe_cell(problem, int(i), senses) for i in beyond[:CONFLICT_NAMES] % n
        ) + " cannot reach its safe value"
        return finish(problem, METHOD, Status.INFEASIBLE, None, started=started,
                      build_seconds=time.perf_counter() - started, solve_seconds=0.0, senses=senses,
                      message=message, info={"senses_from": origin})
    rhs = problem.deviation_rhs
    model = LinearModel(np.concatenate([problem.weights, problem.weights]), col_lower, col_upper,
                        matrix, rhs, rhs)
    build_seconds = time.perf_counter() - started
    tolerances = cost_tolerances(model.cost)
    outcome = solve_model(model, options, {**(DUAL_SIMPLEX_SETTINGS if simplex else IPM_SETTINGS), **tolerances})
    result = _lp_result(problem, model, outcome, senses, origin, started, build_seconds, options, explain)
    if result.status in (Status.ERROR, Status.NOT_PROTECTED) and not options.cancelled():
        retry = solve_model(model, options, {**SIMPLEX_SETTINGS, **tolerances})
        retried = _lp_result(problem, model, retry, senses, origin, started, build_seconds, options, explain)
        if retried.status is not Status.ERROR:
            result = retried.replace(log=result.log + retried.log,
                                     info={**retried.info, "ipm_status": result.info["highs_status"]})
            outcome = retry
    if fewest_changes and result.status is Status.OPTIMAL and result.verified and outcome.highs is not None \
            and not options.started_budget.over():
        row_dual = np.asarray(outcome.highs.getSolution().row_dual)
        result = _with_fewest_changes(problem, model, row_dual, result, options)
    return result


def _with_fewest_changes(problem: CTAProblem, model: LinearModel, row_dual: np.ndarray, result: CTAResult,
                         options: SolveOptions) -> CTAResult:
    """``result`` replaced by the optimal table of (5.10) changing fewest cells (solvers/sparse.py):
    the face from the LP's duals ``row_dual``, reweighted LPs over it by IPM and crossover (vertices)."""
    n = problem.n_cells
    reduced = reduced_costs(model, row_dual)
    lower, upper = model.col_lower[:n] - model.col_upper[n:], model.col_upper[:n] - model.col_lower[n:]
    face_lower, face_upper = optimal_face(problem, lower, upper, reduced[:n], reduced[n:])

    def weighted_l1(costs: np.ndarray, low: np.ndarray, high: np.ndarray, within: SolveOptions) -> np.ndarray | None:
        face = LinearModel(np.concatenate([costs, costs]),
                           np.concatenate([np.maximum(low, 0.0), np.maximum(-high, 0.0)]),
                           np.concatenate([np.maximum(high, 0.0), np.maximum(-low, 0.0)]),
                           model.matrix, model.row_lower, model.row_upper)
        found = solve_model(face, within, {**SIMPLEX_SETTINGS, **cost_tolerances(face.cost)})
        if found.status is not Status.OPTIMAL or found.values is None:
            return None
        return np.clip(found.values[:n] - found.values[n:], low, high)

    z = sparsest_on_face(problem, result.values - problem.values, face_lower, face_upper, weighted_l1, options)
    return with_fewer_changes(problem, result, z)


def _lp_result(problem: CTAProblem, model: LinearModel, outcome: HighsOutcome, senses: np.ndarray, origin: str,
               started: float, build_seconds: float, options: SolveOptions, explain: bool = True) -> CTAResult:
    """The verified result of one HiGHS run of (5.10); a run that ended without an optimum leaves no
    table.  info["senses_bound"] is a safe lower bound for these senses (senses_bound).  An
    infeasible LP is explained within what is left of the options' budget."""
    n = problem.n_cells
    values = None
    if outcome.values is not None and outcome.status in (Status.OPTIMAL, Status.TIME_LIMIT, Status.CANCELLED):
        values = np.clip(problem.values + outcome.values[:n] - outcome.values[n:], problem.lower, problem.upper)
    message = ""
    status = outcome.status
    if status is Status.INFEASIBLE and not explain:
        message = "no table with the senses chosen satisfies the relations, bounds and protection levels"
    elif status is Status.INFEASIBLE:
        message, named = infeasibility_message(problem, outcome, senses, options)
        if not named and not (outcome.highs is not None and proves_infeasible(outcome.highs, model)):
            status = Status.NOT_FOUND
            message = UNCONFIRMED_INFEASIBLE
    elif status is Status.ERROR:
        message = f"HiGHS failed: {outcome.model_status}"
    info: dict[str, object] = {"senses_from": origin, "highs_status": outcome.model_status}
    if outcome.status is Status.OPTIMAL and outcome.highs is not None:
        y = np.asarray(outcome.highs.getSolution().row_dual)
        info["senses_bound"] = senses_bound(problem, model.col_lower, model.col_upper, reduced_costs(model, y), y)
    return finish(problem, METHOD, status, values, started=started, build_seconds=build_seconds,
                  solve_seconds=outcome.seconds, senses=senses, message=message,
                  model_objective=outcome.objective, log=outcome.log, info=info)


def senses_bound(problem: CTAProblem, col_lower: np.ndarray, col_upper: np.ndarray, reduced: np.ndarray,
                 row_dual: np.ndarray) -> float:
    """A lower bound on the cost of every table with the senses of the column bounds (5.12) of
    [z+, z-], from an LP's row duals y and the reduced costs [w, w] - [A, -A]^T y computed from
    them (highs.bound_from_reduced_costs: valid whatever the solver's tolerances); where a cell has no
    bound of its own, the bound propagation over the relations gives one."""
    rhs = problem.deviation_rhs
    bound = bound_from_reduced_costs(reduced, col_lower, col_upper, row_dual, rhs, rhs)
    if np.isfinite(bound):
        return bound
    from ctadesk.engine.solvers.propagation import propagated_deviation_bounds

    lower_z, upper_z = propagated_deviation_bounds(problem)
    col_upper = np.minimum(col_upper, np.concatenate([np.maximum(upper_z, 0.0), np.maximum(-lower_z, 0.0)]))
    bound = bound_from_reduced_costs(reduced, col_lower, col_upper, row_dual, rhs, rhs)
    if np.isfinite(bound):
        return bound
    return _shrunk_dual_bound(problem, col_lower, col_upper, reduced, row_dual)


def _shrunk_dual_bound(problem: CTAProblem, col_lower: np.ndarray, col_upper: np.ndarray, reduced: np.ndarray,
                       row_dual: np.ndarray) -> float:
    """senses_bound from the duals scaled by the largest t <= 1 that leaves no negative reduced
    cost on a column without an upper bound: a reduced cost a hair below 0 there (the solver's
    dual tolerance) sinks the bound to -inf, though the LP is solved.  The reduced costs are
    linear in the duals: c - t M^T y = (1 - t) c + t (c - M^T y), with c = [w, w]."""
    cost = np.concatenate([problem.weights, problem.weights])
    pushed = cost - reduced                                  # M^T y
    open_below = (reduced < 0) & ~np.isfinite(col_upper)     # there pushed > cost >= 0
    if not open_below.any():
        return -math.inf
    t = min(1.0, float(np.min(cost[open_below] / pushed[open_below]))) * (1.0 - 1e-12)   # c - t M^T y > 0 rounded
    rhs = problem.deviation_rhs
    return bound_from_reduced_costs(cost - t * pushed, col_lower, col_upper, t * row_dual, rhs, rhs)


def infeasibility_message(problem: CTAProblem, outcome: HighsOutcome, senses: np.ndarray | None,
                          options: SolveOptions) -> tuple[str, bool]:
    """Name the relations and cells of a small conflict (HiGHS's IIS, looked for within the
    options' budget) for the user; and whether it named any."""
    rows, cols = irreducible_conflict(outcome.highs, options.begun().started_budget)
    cells = np.unique(cols % problem.n_cells)
    fixed = "with the senses chosen " if senses is not None else ""
    text = f"no table {fixed}satisfies the relations, bounds and protection levels"
    if rows.size or cells.size:
        named = [problem.describe_relation(int(r)) for r in rows[:CONFLICT_NAMES]]
        named += [_describe_cell(problem, int(i), senses) for i in cells[:CONFLICT_NAMES]]
        more = max(0, rows.size - CONFLICT_NAMES) + max(0, cells.size - CONFLICT_NAMES)
        text += "; conflict among " + ", ".join(named) + (f" and {more} more" if more else "")
    return text, bool(rows.size or cells.size)


def _describe_cell(problem: CTAProblem, i: int, senses: np.ndarray | None) -> str:
    name = problem.describe_cell(i)
    k = int(np.searchsorted(problem.sensitive, i))
    if senses is not None and k < problem.n_sensitive and problem.sensitive[k] == i:
        return f"{name} (sensitive, {'up' if senses[k] == SENSE_UP else 'down'})"
    return name
