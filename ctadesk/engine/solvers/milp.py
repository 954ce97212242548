"""Exact weighted-L1 CTA as a MILP: Castro & González (2011) model (2a)-(2e).

Columns [z+ (n), z- (n), y (f)] with x = a + z+ - z- and one binary y per
sensitive cell whose sense is free (given or bound-forced senses just fix
bounds as in the LP).  For a free cell, (2e) reads

    upl_i y_i <= z+_i <= U_i y_i,    lpl_i (1 - y_i) <= z-_i <= L_i (1 - y_i)

with big-M values U_i, L_i tightened from the table by bound propagation over
the relations (never raw attacker bounds: a huge M lets an "integral" y of
1e-7 switch a protection level on).  Senses are read from the sign of
x - a, and a table that misses verification by a hair is re-solved as the
fixed-sense LP with those senses.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterable, Iterator

import numpy as np
import scipy.sparse as sp

from ctadesk.engine.problem import SENSE_DOWN, SENSE_FREE, SENSE_UP, CTAProblem
from ctadesk.engine.result import CTAResult, SolveOptions, Status, relative_gap
from ctadesk.engine.solvers.cuts import with_imbalance_cuts
from ctadesk.engine.solvers.finish import describe, finish, senses_of
from ctadesk.engine.solvers.highs import ColumnMatrix, LinearModel, cost_tolerances, irreducible_conflict, solve_model
from ctadesk.engine.solvers.lower_bound import with_lower_bound
from ctadesk.engine.solvers.lp import CONFLICT_NAMES, deviation_bounds, l1_column_bounds, l1_matrix, solve_lp
from ctadesk.engine.solvers.propagation import propagated_deviation_bounds
from ctadesk.engine.solvers.sparse import FACE_RTOL

METHOD = "milp"
#: sense vectors to try, in order, for a fixed-sense reference table (big_m); the caller chooses
#: them (ctadesk.engine.senses.feasible_start.starting_senses: the ordering heuristic's, then the
#: 2-SAT start's), as choosing senses is not a solver's business
SenseStarts = Callable[[CTAProblem], Iterable[np.ndarray]]
#: no big-M exceeds this many times the table's largest value or protection level: a larger one is
#: replaced by the move a fixed-sense LP's cost allows, or failing that by this cap, certified
#: afterwards by the optimum's own cost (big_m; HiGHS takes y = 1e-6 as integral, and its LPs go
#: wrong with bounds near 1e16 times its tolerances)
LARGE_M = 1e3
#: nor this, in the model's own units (a method's are the table's: engine/table/units.py): HiGHS's
#: tolerances are absolute (1e-6 for a MIP's feasibility), and with M = 1e9 on cells of about 1 its
#: LP bound went above the optimum (big_m)
MAX_M = 1e7
#: share of the time left that the big-M's reference LPs may take
REFERENCE_SHARE = 0.25
#: share of the time left that HiGHS's branch and cut takes; the rest is for the polishing LP (and
#: its search for the table changing fewest cells) and, for an infeasible model, its explanation
#: (the certified bound is found before the method runs: solvers/claims.py)
MILP_SHARE = 0.99


@dataclasses.dataclass(frozen=True)
class BigM:
    """Big-M values U (up) and L (down) of the free sensitive cells, where they came from, and which
    cells' values were not derived from the table (``guessed``): an optimum over them is certified
    only if it costs no more than w_i M_i for each such cell (``certifies``)."""

    up: np.ndarray
    down: np.ndarray
    origin: str
    guessed_up: np.ndarray      # bool per free cell
    guessed_down: np.ndarray
    reference: CTAResult | None = None     # the verified fixed-sense table M was taken from

    @property
    def guessed(self) -> np.ndarray:
        return self.guessed_up | self.guessed_down

    def certifies(self, problem: CTAProblem, free: np.ndarray, objective: float) -> bool:
        """True when no table cheaper than ``objective`` can move a cell past a guessed M."""
        weights = problem.weights[problem.sensitive[free]]
        reach = weights * np.minimum(np.where(self.guessed_up, self.up, np.inf),
                                     np.where(self.guessed_down, self.down, np.inf))
        return bool(np.all(reach >= objective))


def no_starts(problem: CTAProblem) -> Iterator[np.ndarray]:
    """No sense vectors: the big-M comes from propagation alone (or is guessed)."""
    return iter(())


def big_m(problem: CTAProblem, free: np.ndarray, options: SolveOptions, starts: SenseStarts = no_starts) -> BigM:
    """Finite U (up) and L (down) for the free sensitive cells ``free`` (positions in sensitive),
    never more than LARGE_M times the table's largest value or protection level, nor MAX_M.

    From bound propagation (valid for every table); where that leaves a bound above the cap, also
    from the objective F of a fixed-sense LP (no table cheaper than F moves cell i by more than
    F / w_i; senses: the first of ``starts`` whose LP has a table).  Where both leave it above the
    cap (or infinite), M is the cap and counts as guessed: an optimum found with it is certified
    afterwards from its own cost (BigM.certifies).  An M above the cap is never used: on the 4-D
    cross-check table 2:34 (cells of at most 16 table units, bounds of 1e9) propagation alone gave
    M = 8e9, HiGHS warned of bounds 8e15 times its feasibility tolerance, and its root LP put the
    bound 8.5 % above the optimum found by enumerating the senses (3:82: 30 % with M = 2e12).
    """
    lower, upper = propagated_deviation_bounds(problem)
    cells = problem.sensitive[free]
    # a cell the relations force down (a shifted right-hand side) has a negative upper deviation
    # bound: it cannot go up at all, so its M up is 0 (and likewise down)
    up_m, down_m = np.maximum(upper[cells], 0.0), np.maximum(-lower[cells], 0.0)
    origin = "propagation"
    magnitude = max(float(np.abs(problem.values).max(initial=0.0)),
                    float(problem.upper_protection.max(initial=0.0)),
                    float(problem.lower_protection.max(initial=0.0)), 1e-300)
    cap = min(LARGE_M * magnitude, MAX_M)
    none = np.zeros(free.size, bool)
    if np.all(up_m <= cap) and np.all(down_m <= cap):
        return BigM(up_m, down_m, origin, none, none)
    reference = None
    options = options.begun()
    quiet = options.within(options.started_budget.child(fraction=REFERENCE_SHARE), on_log=None, on_progress=None)
    # network_l1 (scipy's csgraph, LEMON) is loaded only where a reference LP is needed
    from ctadesk.engine.solvers.network_l1 import solve_network_l1

    for senses in starts(problem):
        reference = solve_network_l1(problem, quiet, senses=senses)    # solve_lp where not a network
        if reference.verified or quiet.started_budget.over():
            break
    weights = problem.weights[cells]
    if reference is not None and reference.verified:
        with np.errstate(divide="ignore"):
            by_objective = np.where(weights > 0, reference.objective / weights, np.inf)
        up_m, down_m = np.minimum(up_m, by_objective), np.minimum(down_m, by_objective)
        origin = "propagation and a fixed-sense LP"
    guessed_up, guessed_down = up_m > cap, down_m > cap
    if guessed_up.any() or guessed_down.any():
        origin += f"; a guessed M of {cap:.3g} where the table gives none as small"
    return BigM(np.minimum(up_m, cap), np.minimum(down_m, cap), origin, guessed_up, guessed_down,
                reference if reference is not None and reference.verified else None)


def milp_model(problem: CTAProblem, options: SolveOptions, starts: SenseStarts = no_starts):
    """The LinearModel of (2a)-(2e), the positions of the free sensitive cells, and its BigM
    (``starts``: see big_m)."""
    n = problem.n_cells
    senses = problem.effective_senses
    free = np.flatnonzero(senses == SENSE_FREE)
    f = free.size
    col_lower, col_upper = l1_column_bounds(problem, senses)
    none = np.zeros(0, bool)
    m = big_m(problem, free, options, starts) if f else BigM(np.zeros(0), np.zeros(0), "", none, none)
    up_m, down_m = m.up, m.down
    cells = problem.sensitive[free]
    col_lower[cells] = 0.0
    col_lower[n + cells] = 0.0
    col_upper[cells] = np.minimum(col_upper[cells], up_m)
    col_upper[n + cells] = np.minimum(col_upper[n + cells], down_m)
    upl, lpl = problem.upper_protection[free], problem.lower_protection[free]
    # M below the protection level only says that sense is impossible; the relations still say so
    up_m, down_m = np.maximum(col_upper[cells], upl), np.maximum(col_upper[n + cells], lpl)
    A = sp.csr_array(problem.relations)
    k = np.arange(f)
    # rows of (2e): z+ - U y <= 0, z+ - upl y >= 0, z- + L y <= L, z- + lpl y >= lpl
    link_rows = np.concatenate([k, f + k, 2 * f + k, 3 * f + k, k, f + k, 2 * f + k, 3 * f + k])
    link_cols = np.concatenate([cells, cells, n + cells, n + cells, 2 * n + k, 2 * n + k, 2 * n + k, 2 * n + k])
    link_vals = np.concatenate([np.ones(2 * f), np.ones(2 * f), -up_m, -upl, down_m, lpl])
    links = sp.csr_array((link_vals, (link_rows, link_cols)), shape=(4 * f, 2 * n + f))
    relations = sp.hstack([A, -A, sp.csr_array((problem.n_relations, f))])
    matrix = sp.vstack([relations, links], format="csc")
    matrix.sort_indices()
    rhs = problem.deviation_rhs
    inf = np.inf
    row_lower = np.concatenate([rhs, np.full(f, -inf), np.zeros(f), np.full(f, -inf), lpl])
    row_upper = np.concatenate([rhs, np.zeros(f), np.full(f, inf), down_m, np.full(f, inf)])
    cost = np.concatenate([problem.weights, problem.weights, np.zeros(f)])
    columns = ColumnMatrix.from_csc(matrix)
    model = LinearModel(cost, np.concatenate([col_lower, np.zeros(f)]), np.concatenate([col_upper, np.ones(f)]),
                        columns, row_lower, row_upper, integer_columns=2 * n + k)
    return model, free, m


def solve_milp(problem: CTAProblem, options: SolveOptions = SolveOptions(), cuts: bool = False,
               certify: bool = True, starts: SenseStarts = no_starts, fewest_changes: bool = False,
               radius: int | None = None) -> CTAResult:
    """Exact weighted-L1 CTA (Castro & González 2011, model (2)) with HiGHS.

    Honours the options' budget (branch and cut takes MILP_SHARE of it), gap (relative MIP
    gap), stop (returns the incumbent, if any, with status CANCELLED), start_senses (a MIP
    start) and reports the best bound and gap.  cuts: add the imbalance cuts of
    ``ctadesk.engine.solvers.cuts`` (a higher bound from the root on).  certify: report
    solvers/lower_bound.py's bound where it is higher than HiGHS's (the heuristics that solve
    many small MILPs turn it off).  starts: sense vectors for the big-M's reference table (big_m).
    fewest_changes: the polishing LP looks for the table of its cost that changes fewest cells.
    radius: only the sense vectors that differ from start_senses in at most this many free cells
    (within_radius): a search near a good table, whose bound is not a bound of the problem.
    """
    started = time.perf_counter()
    options = options.begun()
    if not problem.free_senses:
        return _every_sense_fixed(problem, options, certify, fewest_changes)
    n = problem.n_cells
    model, free, m = milp_model(problem, options, starts)
    start = None
    if options.start_senses is not None and free.size:
        start_senses = np.asarray(options.start_senses).reshape(-1)[free]
        start = (2 * n + np.arange(free.size), (start_senses == SENSE_UP).astype(float))
    build_seconds = time.perf_counter() - started
    solved = with_imbalance_cuts(problem, model) if cuts else model
    if radius is not None and start is not None:
        solved = within_radius(solved, *start, radius)
    outcome = solve_model(solved, options.within(options.started_budget.child(fraction=MILP_SHARE)),
                          {"mip_rel_gap": float(options.gap), **cost_tolerances(model.cost)}, start=start)
    info = {"highs_status": outcome.model_status, "binaries": int(free.size), "big_m_from": m.origin,
            "big_m_guessed": bool(m.guessed.any())}
    bound, gap = outcome.bound, outcome.gap
    if radius is not None:      # what HiGHS proves holds near the start only
        bound = gap = None
        if outcome.values is not None:
            outcome.status = Status.FEASIBLE
        elif outcome.status not in (Status.TIME_LIMIT, Status.CANCELLED):
            outcome.status = Status.NOT_FOUND
    values = milp_senses = None
    if outcome.values is not None:
        values = np.clip(problem.values + outcome.values[:n] - outcome.values[n:2 * n],
                         problem.lower, problem.upper)
        milp_senses = problem.effective_senses.copy()
        milp_senses[free] = np.where(outcome.values[2 * n:] > 0.5, SENSE_UP, SENSE_DOWN)
    message = ""
    if outcome.status is Status.INFEASIBLE and m.reference is not None:
        return refuted(problem, m.reference, options, certify)
    if outcome.status is Status.INFEASIBLE:
        message = infeasibility_message(problem, model, free, options)
    elif outcome.status is Status.ERROR:
        message = f"HiGHS failed: {outcome.model_status}"
    result = finish(problem, METHOD, outcome.status, values, started=started, build_seconds=build_seconds,
                    solve_seconds=outcome.seconds, message=message, model_objective=outcome.objective,
                    bound=bound, gap=gap, log=outcome.log, info=info)
    if result.status is Status.NOT_PROTECTED or (certify and result.verified and not options.cancelled()):
        result = polish(problem, options, result, outcome.status, started, milp_senses, fewest_changes)
    result = certified_big_m(problem, free, m, result, options)
    if m.guessed.any() and radius is None and result.verified and result.status is not Status.OPTIMAL \
            and not options.cancelled() and not options.started_budget.over():
        result = _again_with_its_own_m(problem, options, result, cuts, certify, fewest_changes)
    return with_lower_bound(problem, result, options) if certify else result


def _again_with_its_own_m(problem: CTAProblem, options: SolveOptions, result: CTAResult, cuts: bool,
                          certify: bool, fewest_changes: bool) -> CTAResult:
    """The MILP solved again with the big-M a verified table of cost F gives (no cheaper table
    moves cell i by more than F / w_i: big_m's reference LP, here with that table's senses, which
    also starts the search), where the first run had to guess M; the better of the two tables.
    With a guessed M of 1000 times the largest value, HiGHS's integrality tolerance (y = 1e-6
    counts as 0) moved an unprotected cell by 1e-6 M: on the business microdata's linked tables
    (5 free senses, every fixed-sense start infeasible) its "optimal" table missed verification,
    and the LP with its senses (0.4690) could not be called optimal; with M = F / w_i it is."""
    senses = np.asarray(result.senses)
    again = solve_milp(problem, dataclasses.replace(options, start_senses=senses), cuts, certify=False,
                       starts=lambda _problem: iter((senses,)), fewest_changes=fewest_changes)
    if not again.verified or again.info.get("big_m_certified") is False \
            or again.info.get("big_m_guessed", True):
        return result
    return again if again.objective <= result.objective * (1 + 1e-9) else result


def within_radius(model: LinearModel, columns: np.ndarray, start: np.ndarray, radius: int) -> LinearModel:
    """``model`` restricted to the binaries ``columns`` within Hamming distance ``radius`` of
    ``start`` (0/1): sum over start 0 of y + sum over start 1 of (1 - y) <= radius, the local
    branching constraint of Fischetti & Lodi (2003).  Measured on the 10x10x10 Cox table from the
    default's 60-s table (42 035): radius 10 for 20 s found 41 951, radius 20 41 968, radius 40
    nothing better."""
    coefficients = np.where(start > 0.5, -1.0, 1.0)
    row = sp.csr_array((coefficients, (np.zeros(columns.size, np.int64), columns)), shape=(1, model.matrix.n_cols))
    return model.with_rows(row, np.array([-np.inf]), np.array([radius - float(start.sum())]))


def refuted(problem: CTAProblem, reference: CTAResult, options: SolveOptions, certify: bool) -> CTAResult:
    """HiGHS called the MILP infeasible although the fixed-sense table its big-M came from verifies
    (its tolerances on tables of mixed magnitudes): that table, and no claim from the MILP."""
    status = Status.FEASIBLE
    result = reference.replace(method=METHOD, status=status, bound=None, gap=None,
                               message=f"{describe(status)}; HiGHS reported the MILP infeasible, but this "
                                       "fixed-sense table verifies",
                               info={**reference.info, "milp_said": "infeasible"})
    return with_lower_bound(problem, result, options) if certify else result


def _every_sense_fixed(problem: CTAProblem, options: SolveOptions, certify: bool, fewest_changes: bool) -> CTAResult:
    """With every sense given or forced, model (2) is the fixed-sense LP: solved as one, its bound
    the safe bound from the LP's duals (lp.senses_bound), optimal only within options.gap of it."""
    result = solve_lp(problem, options, fewest_changes=fewest_changes)
    bound = result.info.get("senses_bound")
    if not result.verified or bound is None or not np.isfinite(bound):
        return result.replace(method=METHOD, status=Status.FEASIBLE if result.verified else result.status,
                              info={**result.info, "binaries": 0})
    bound = min(bound, result.objective)
    gap = relative_gap(result.objective, bound)
    status = Status.OPTIMAL if gap <= options.gap else Status.FEASIBLE
    result = result.replace(method=METHOD, status=status, bound=bound, gap=gap, message=describe(status),
                            info={**result.info, "binaries": 0})
    return with_lower_bound(problem, result, options) if certify else result


def certified_big_m(problem: CTAProblem, free: np.ndarray, m: BigM, result: CTAResult,
                    options: SolveOptions) -> CTAResult:
    """``result`` without the claims a guessed big-M does not support: a bound or "optimal" when a
    cheaper table could lie beyond a guessed M, "infeasible" when an M was guessed, unless the
    relations and bounds alone admit no table (then no M matters)."""
    if result.status is Status.INFEASIBLE:
        certified = not m.guessed.any() or not relations_admit_a_table(problem, options)
        return result.replace(info={**result.info, "big_m_certified": certified})
    if not result.verified or m.certifies(problem, free, result.objective):
        return result
    status = Status.FEASIBLE if result.status is Status.OPTIMAL else result.status
    return result.replace(status=status, bound=None, gap=None, message=describe(status),
                          info={**result.info, "big_m_certified": False})


def relations_admit_a_table(problem: CTAProblem, options: SolveOptions) -> bool:
    """Whether some table satisfies the relations and bounds (fixed cells included), protection aside
    (True when the options' budget ends before HiGHS knows)."""
    n = problem.n_cells
    lower_z, upper_z = deviation_bounds(problem)
    rhs = problem.deviation_rhs
    model = LinearModel(np.zeros(2 * n), np.zeros(2 * n), np.concatenate([upper_z, -lower_z]),
                        l1_matrix(problem), rhs, rhs)
    quiet = options.begun().within(options.begun().started_budget, on_log=None, on_progress=None)
    return solve_model(model, quiet, {"solver": "simplex"}).status is not Status.INFEASIBLE


def infeasibility_message(problem: CTAProblem, model, free: np.ndarray, options: SolveOptions) -> str:
    """Why no sense vector works: an irreducible conflict of the MILP's LP relaxation
    (HiGHS's IIS) mapped back to relations and cells, or, when the relaxation is
    feasible, the statement that only the combination of senses fails."""
    text = "no table satisfies the relations, bounds and protection levels, whatever the senses"
    relaxed = dataclasses.replace(model, integer_columns=np.zeros(0, np.int64))
    options = options.begun()
    outcome = solve_model(relaxed, options.within(options.started_budget, on_log=None, on_progress=None))
    if outcome.status is not Status.INFEASIBLE:
        return text + ("; each sensitive cell can be protected on its own, but not all of them at once: "
                       "the soft-protection LP shows which cells fall short")
    rows, cols = irreducible_conflict(outcome.highs, options.started_budget)
    n, m = problem.n_cells, problem.n_relations
    relations = rows[rows < m]
    cells = np.concatenate([cols[cols < 2 * n] % n,
                            problem.sensitive[free[cols[cols >= 2 * n] - 2 * n]],
                            problem.sensitive[free[(rows[rows >= m] - m) % max(free.size, 1)]]])
    named = [problem.describe_relation(int(r)) for r in relations[:CONFLICT_NAMES]]
    named += [problem.describe_cell(int(i)) for i in np.unique(cells)[:CONFLICT_NAMES]]
    return text + ("; conflict among " + ", ".join(named) if named else "")


def polish(problem: CTAProblem, options: SolveOptions, result: CTAResult, status: Status,
            started: float, senses: np.ndarray | None = None, fewest_changes: bool = False) -> CTAResult:
    """The fixed-sense LP with the MILP's senses (its binaries; else read off its table): it
    replaces a table that missed verification (HiGHS takes y = 1e-6 as integral, which with a
    large M moves a cell without protecting it), one it beats (HiGHS's MIP stops at its own
    tolerances; the LP after it checks them), or, with ``fewest_changes``, one that costs as
    much but changes more cells (solvers/sparse.py).  The LP's table keeps the MILP's bound,
    and is labelled by its own gap."""
    if senses is None:
        senses = senses_of(problem, result.table())
    polished = solve_lp(problem, dataclasses.replace(options, on_progress=None), senses=senses,
                        fewest_changes=fewest_changes)
    if not polished.verified:
        return result
    cheaper = polished.objective < result.objective * (1 - 1e-9)
    sparser = polished.objective <= result.objective * (1 + FACE_RTOL) and \
        polished.info["cells_changed"] < result.info.get("cells_changed", 0)
    if result.verified and not (cheaper or sparser):
        return result
    timings = dict(result.timings)
    timings["solve"] += polished.timings["solve"]
    timings["total"] = time.perf_counter() - started
    gap = None if result.bound is None else relative_gap(polished.objective, result.bound)
    if gap is None or gap > options.gap:    # the LP's table is not the MILP's: it keeps the bound, not the label
        status = Status.FEASIBLE if status is Status.OPTIMAL else status
    why = "missed verification by a hair" if not result.verified else \
        f"cost {result.objective:.10g}, more than the LP with its senses" if cheaper else \
        f"changed {result.info['cells_changed']} cells, the LP's table of the same cost " \
        f"{polished.info['cells_changed']}"
    return polished.replace(method=METHOD, status=status, bound=result.bound, gap=gap,
                            log=result.log + polished.log, timings=timings,
                            info={**result.info, "polished_by_lp": True},
                            message=f"{describe(status)}; the MILP's table {why}: "
                                    "this is the fixed-sense LP's table with its senses")
