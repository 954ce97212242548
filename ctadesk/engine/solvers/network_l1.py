"""Fixed-sense L1 CTA of a table whose relations form a network (solvers/network.py): a
minimum-cost flow, solved by LEMON's network simplex in integers and proven optimal by sifting.

LEMON's network simplex (solvers/min_cost_flow.py) solves the flow with capacities, supplies and
costs scaled to integers and gives its spanning-tree basis (every basis of a network LP is a
spanning tree: Ahuja, Magnanti & Orlin 1993, Network Flows, ch. 11); HiGHS's dual simplex
starts from that basis on the LP over its columns in real arithmetic, needing no or a few pivots,
and prices every other cell with the LP's duals: a cell with a negative reduced cost is added
and the LP solved again from its basis (sifting), until none prices out, which proves the
optimum over all cells.  This holds for every weighting measured (unit, 1/value, |value|,
random: benchmarks/weights.py) and for 1H2D tables of tens of thousands of relations (Castro &
González 2011, Table 1: real ones have 0.3-1.2 M cells, 11 000-46 000 relations), where the
simplex from scratch crawls.

LEMON holds the interpreter's lock and cannot be interrupted, so a large flow is solved in a
child process that the budget can stop (solvers/lemon.py).  Where LEMON fails, the older start
serves tables up to SIMPLEX_ROWS relations: a max flow (scipy's Dinic, on capacities rounded to
integers) finds a feasible support, a minimum spanning tree of the cells by weight joins its
pieces into one tree, so that every node's dual is a weighted path and not a penalty, and
sifting goes on from there; weights that the tree does not foresee (random per cell) make the
simplex pivot long, and past SIFTING_ITERATIONS per relation the general LP (the IPM over all
columns) takes over, as it does above SIMPLEX_ROWS.  (OR-Tools' min-cost flow was tried too, but
its wheel ships its own libhighs.so.1 and cannot be loaded in one process with highspy.)
"""

from __future__ import annotations

import time

import highspy
import numpy as np
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph

from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.result import CTAResult, SolveOptions, Status
from ctadesk.engine.solvers.finish import finish
from ctadesk.engine.solvers.highs import HighsRun
from ctadesk.engine.solvers.lp import fixed_senses, l1_column_bounds, senses_bound, solve_lp
from ctadesk.engine.solvers.min_cost_flow import BASIC, LOWER, FlowStart, flow_start, net_supply, spanning_forest
from ctadesk.engine.solvers.network import (
    SIMPLEX_ROWS,
    NetworkForm,
    log_line,
    network_form,
    report_optimum,
    sense_bounds,
)
from ctadesk.engine.solvers.sparse import WeightedL1, optimal_face, sparsest_on_face, with_fewer_changes

METHOD_L1 = "network"
#: integer range of the capacities of the max-flow seed (int32 with headroom for node sums)
SEED_INT_RANGE = 2.0 ** 26
#: cost of a unit of imbalance on an artificial column, times the largest weight
PENALTY = 1e6
#: a column prices in when its reduced cost is below -this x max(w, 1)
PRICING_TOLERANCE = 1e-9
#: columns added per pricing round (at least 10 per relation)
SIFTING_BATCH = 20000
SIFTING_MAX_ROUNDS = 500
#: simplex iterations allowed per relation over all pricing rounds before the general LP takes over:
#: above what Cox-recipe tables with unit, 1/value and 1/sqrt(value) weights need, below what
#: random and |value| weights take, where the IPM over all columns is the faster --
#: benchmarks/weights.py prints each case's iterations (or the fallback) and its seconds, and with
#: --method lp the IPM's beside them
SIFTING_ITERATIONS = 20


def _max_flow_seed(form: NetworkForm, base: np.ndarray, forward: np.ndarray, backward: np.ndarray,
                   supply: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Cells whose forward / backward arcs carry a feasible flow of the integer-rounded network.

    A max flow from the nodes with surplus to those with deficit (scipy's Dinic)
    on capacities scaled into int32: a cheap feasible support that seeds the LP.
    """
    n_nodes = form.n_nodes
    net = net_supply(form, base, supply)
    finite_caps = np.concatenate([forward[np.isfinite(forward)], backward[np.isfinite(backward)]])
    largest = max(float(finite_caps.max(initial=0.0)), float(np.abs(net).max(initial=0.0)), 1e-300)
    scale = SEED_INT_RANGE / largest
    source, sink = n_nodes, n_nodes + 1
    forward_int = np.floor(np.minimum(forward * scale, SEED_INT_RANGE))
    backward_int = np.floor(np.minimum(backward * scale, SEED_INT_RANGE))
    net_int = np.rint(net * scale)
    nodes = np.arange(n_nodes)
    tails = np.concatenate([form.tail, form.head, np.full(n_nodes, source), nodes])
    heads = np.concatenate([form.head, form.tail, nodes, np.full(n_nodes, sink)])
    caps = np.concatenate([forward_int, backward_int, np.maximum(net_int, 0), np.maximum(-net_int, 0)])
    keep = (caps > 0) & (tails != heads)
    graph = sp.csr_array((caps[keep].astype(np.int32), (tails[keep], heads[keep])),
                         shape=(n_nodes + 2, n_nodes + 2))
    flow = csgraph.maximum_flow(graph, source, sink, method="dinic").flow.tocsr()
    along = np.asarray(flow[form.tail, form.head]).ravel()
    return np.flatnonzero((along > 0) & (forward > 0)), np.flatnonzero((along < 0) & (backward > 0))


def _cheapest_tree(form: NetworkForm, weights: np.ndarray, forward: np.ndarray, backward: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Cells of a minimum spanning forest of the network by weight, (those that can rise, those
    that can fall): the cheapest arc between each pair of nodes, of the cells that can move.

    A basis of the network LP is a spanning tree (Ahuja, Magnanti & Orlin 1993, ch. 11).  The
    max flow's support is a forest; the LP over it alone completes its basis with artificial
    columns, whose penalty then sets the duals of whole pieces of the network, and the first
    pricing round prices in columns by the penalty, not by the weights (1000 x 1000 with 1/value
    weights: 4 rounds, 63 000 simplex iterations, 49 s).  Joined by the cheapest cells, each
    node's dual is the cost of a path of cheap cells and the seed's LP is often already the
    optimum (the same table: 1 round, 2 001 iterations, 0.2 s).
    """
    movable = np.flatnonzero(((forward > 0) | (backward > 0)) & (form.tail != form.head))
    cells = movable[spanning_forest(form.n_nodes, form.tail[movable], form.head[movable], weights[movable])]
    return cells[forward[cells] > 0], cells[backward[cells] > 0]


def _seed(form: NetworkForm, weights: np.ndarray, forward: np.ndarray, backward: np.ndarray,
          flow: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The sifting LP's first columns: a flow's support (forward, backward cells) and the cheapest
    tree joining it (_cheapest_tree)."""
    tree_forward, tree_backward = _cheapest_tree(form, weights, forward, backward)
    return np.union1d(flow[0], tree_forward), np.union1d(flow[1], tree_backward)


def sifting_deviations(problem: CTAProblem, lower: np.ndarray, upper: np.ndarray, options: SolveOptions,
                       seed: tuple[np.ndarray, np.ndarray] | None = None, weights: np.ndarray | None = None,
                       start: FlowStart | None = None, form: NetworkForm | None = None
                       ) -> tuple[np.ndarray | None, Status, str, np.ndarray | None]:
    """argmin sum w |z| s.t. A z = d, lower <= z <= upper, by column generation (sifting); w: the
    problem's weights unless ``weights`` are given.

    z = base + z+ - z- with base the cheapest value of each cell alone.  HiGHS's
    simplex solves the LP over a working set of columns (plus penalised
    artificial columns on every relation); columns with negative reduced cost
    w -+ A_i^T y are priced in over all cells in one vectorised step and added,
    and the dual simplex resumes from its basis.  It stops when no column prices out:
    the LP optimum over all cells, certified by the duals.  Returns (z, status, a note for the
    log, the final row duals y, whose reduced costs w -+ A^T y price every cell); status ERROR
    after SIFTING_ITERATIONS simplex iterations per relation without the optimum.
    ``start`` (with the ``form`` it was found on): the first columns and their basis from the
    integer min-cost flow (solvers/min_cost_flow.py), in place of ``seed``.
    """
    weights = problem.weights if weights is None else weights
    A = problem.relations.tocsc()
    At = problem.relations.T.tocsr()
    m, n = A.shape
    base = np.clip(0.0, lower, upper)
    forward, backward = upper - base, base - lower
    rhs = problem.deviation_rhs - A @ base
    penalty = PENALTY * max(float(weights.max(initial=1.0)), 1.0)
    # every round by the dual simplex, the rounds after the first from the last basis: the primal
    # simplex from there was as fast with unit weights, but many times slower with 1/value weights
    # and the max flow alone as the seed, and with random weights (benchmarks/weights.py)
    run = HighsRun(options, {"solver": "simplex", "simplex_strategy": 1}, quiet=True)
    h = run.highs
    h.addRows(m, rhs, rhs, 0, np.zeros(1, np.int32), np.zeros(0, np.int32), np.zeros(0))
    rows = np.arange(m, dtype=np.int32)
    h.addCols(2 * m, np.full(2 * m, penalty), np.zeros(2 * m), np.full(2 * m, highspy.kHighsInf), 2 * m,
              np.arange(2 * m, dtype=np.int32), np.concatenate([rows, rows]),
              np.concatenate([np.ones(m), -np.ones(m)]))
    in_forward = np.zeros(n, bool)
    in_backward = np.zeros(n, bool)
    column_cells: list[np.ndarray] = []       # cell of each column after the artificials, in order
    column_signs: list[np.ndarray] = []
    if start is not None:
        seed = start.forward, start.backward
    add_forward, add_backward = seed if seed is not None else (np.zeros(0, np.int64), np.zeros(0, np.int64))
    tolerance = PRICING_TOLERANCE * np.maximum(weights, 1.0)
    batch = max(SIFTING_BATCH, 10 * m)
    iterations, allowed = 0, int(SIFTING_ITERATIONS * max(m, 1))
    for round_ in range(SIFTING_MAX_ROUNDS):
        in_forward[add_forward] = True
        in_backward[add_backward] = True
        column_cells += [add_forward, add_backward]
        column_signs += [np.ones(add_forward.size), -np.ones(add_backward.size)]
        block = sp.csc_array(sp.hstack([A[:, add_forward], -A[:, add_backward]], format="csc"))
        k = block.shape[1]
        if k:
            h.addCols(k, np.concatenate([weights[add_forward], weights[add_backward]]), np.zeros(k),
                      np.concatenate([forward[add_forward], backward[add_backward]]), block.nnz,
                      block.indptr[:-1].astype(np.int32), block.indices.astype(np.int32), block.data)
        if round_ == 0 and start is not None and form is not None:
            _set_basis(h, m, form, start)
        if run.budget.over():
            status = Status.CANCELLED if run.budget.cancelled() else Status.TIME_LIMIT
            return None, status, status.value.replace("_", " "), None
        h.setOptionValue("simplex_iteration_limit", allowed - iterations)
        run.run()
        iterations += int(h.getInfo().simplex_iteration_count)
        if h.getModelStatus() == highspy.HighsModelStatus.kIterationLimit:
            return None, Status.ERROR, f"no optimum after {iterations} simplex iterations ({round_ + 1} pricing " \
                                       f"rounds, {h.getNumCol() - 2 * m} of {2 * n} columns)", None
        status = run.status()
        if status in (Status.CANCELLED, Status.TIME_LIMIT):
            return None, status, status.value.replace("_", " "), None
        if status is not Status.OPTIMAL:
            return None, Status.ERROR, f"HiGHS ended with {h.modelStatusToString(h.getModelStatus())}", None
        row_dual = np.asarray(h.getSolution().row_dual)
        reduced = At @ row_dual
        price_forward = weights - reduced
        price_backward = weights + reduced
        add_forward = np.flatnonzero((price_forward < -tolerance) & (forward > 0) & ~in_forward)
        add_backward = np.flatnonzero((price_backward < -tolerance) & (backward > 0) & ~in_backward)
        if add_forward.size + add_backward.size == 0:
            break
        prices = np.concatenate([price_forward[add_forward], price_backward[add_backward]])
        best = np.argsort(prices, kind="stable")[:batch]
        add_forward, add_backward = add_forward[best[best < add_forward.size]], \
            add_backward[best[best >= add_forward.size] - add_forward.size]
    else:
        return None, Status.ERROR, f"no optimum after {SIFTING_MAX_ROUNDS} pricing rounds", None
    x = np.asarray(h.getSolution().col_value)
    artificial = float(x[:2 * m].sum())
    if artificial > 1e-7 * max(1.0, float(np.abs(rhs).max(initial=0.0))):
        # (the amount is in the solver's scaled units, so the message names no number)
        return None, Status.INFEASIBLE, "the relations cannot balance within the cells' bounds and these senses", None
    z = base.copy()
    np.add.at(z, np.concatenate(column_cells), np.concatenate(column_signs) * x[2 * m:])
    note = (f"sifting LP: {round_ + 1} pricing rounds, {h.getNumCol() - 2 * m} of {2 * n} columns, "
            f"{iterations} simplex iterations")
    return np.clip(z, lower, upper), Status.OPTIMAL, note, row_dual


#: HighsBasisStatus by its value: a basis's statuses taken from it at once (a million of them
#: in 0.03 s, where constructing each took 0.46 s)
_STATUSES = np.array([highspy.HighsBasisStatus(value) for value in range(int(highspy.HighsBasisStatus.kNonbasic) + 1)],
                     dtype=object)


def _set_basis(h: highspy.Highs, m: int, form: NetworkForm, start: FlowStart) -> None:
    """The flow's spanning-tree basis for the sifting LP: its columns as ``start`` says, the
    artificial columns nonbasic, the rows of the kept relations nonbasic but ``start.basic_rows``,
    and the dropped ones' (implied, so dependent) basic."""
    rows = np.full(m, BASIC, np.int8)
    rows[form.kept] = LOWER
    rows[start.basic_rows] = BASIC
    basis = highspy.HighsBasis()
    basis.col_status = _STATUSES[np.concatenate([np.full(2 * m, LOWER, np.int8), start.status])].tolist()
    basis.row_status = _STATUSES[rows].tolist()
    basis.valid = True
    h.setBasis(basis)


def solve_network_l1(problem: CTAProblem, options: SolveOptions = SolveOptions(),
                     senses: np.ndarray | None = None, form: NetworkForm | None = None,
                     fewest_changes: bool = False) -> CTAResult:
    """Fixed-sense L1 CTA of a 2-D or 1H2D table (module docstring); same model as ``solve_lp``.

    LEMON's integer min-cost flow gives the starting basis (else, up to SIMPLEX_ROWS relations, a
    max flow the first columns), the sifting LP proves the optimum over all cells.  Relations
    that are not a network, or a sifting LP that fails, fall back to ``solve_lp``.
    fewest_changes: among the optimal tables, the one changing fewest cells (solvers/sparse.py).
    """
    started = time.perf_counter()
    options = options.begun()
    senses, origin = fixed_senses(problem, senses)
    form = form if form is not None else network_form(problem)
    if form is None:
        return _fallback_lp(problem, options, senses, "relations are not a network", fewest_changes)
    lower, upper = sense_bounds(problem, senses)
    base = np.clip(0.0, lower, upper)
    forward, backward = upper - base, base - lower
    supply = form.supplies(problem.deviation_rhs)
    start = flow_start(form, problem.weights, forward, backward, net_supply(form, base, supply),
                       options.started_budget)
    stopped = start is None and options.started_budget.over()
    if start is None and not stopped:
        log_line(options, "the min-cost flow failed")
        if form.kept.size > SIMPLEX_ROWS:
            return _fallback_lp(problem, options, senses, f"{form.kept.size} relations are too many for sifting "
                                "and the min-cost flow failed", fewest_changes)
    seed = None if start is not None or stopped else \
        _seed(form, problem.weights, forward, backward, _max_flow_seed(form, base, forward, backward, supply))
    build_seconds = time.perf_counter() - started
    began = time.perf_counter()
    z, status, note, row_dual = sifting_deviations(problem, lower, upper, options, seed, start=start, form=form)
    solve_seconds = time.perf_counter() - began
    if start is not None:
        note = f"{start.note}; {note}"
    log_line(options, note)
    info = {"senses_from": origin, "network_nodes": form.n_nodes,
            "dropped_relations": problem.n_relations - form.kept.size}
    if z is None and status is Status.ERROR and not options.cancelled():
        return _fallback_lp(problem, options, senses, f"the sifting LP failed ({note})", fewest_changes)
    if z is None or row_dual is None:  # both or neither
        if status is Status.INFEASIBLE:
            note = "no table with the senses chosen satisfies the relations, bounds and protection levels; " + note
        return finish(problem, METHOD_L1, status, None, started=started, build_seconds=build_seconds,
                      solve_seconds=solve_seconds, senses=senses, message=note, log=note, info=info)
    values = np.clip(problem.values + z, problem.lower, problem.upper)
    objective = float(problem.weights @ np.abs(z))
    report_optimum(options, started, objective)
    priced = problem.relations.T @ row_dual
    raise_cost, lower_cost = problem.weights - priced, problem.weights + priced
    info["senses_bound"] = _senses_bound(problem, senses, raise_cost, lower_cost, row_dual)
    result = finish(problem, METHOD_L1, Status.OPTIMAL, values, started=started, build_seconds=build_seconds,
                    solve_seconds=solve_seconds, senses=senses, model_objective=objective, log=note, info=info)
    if not result.verified and info["dropped_relations"]:
        return _fallback_lp(problem, options, senses, "a dropped relation was not implied by the others",
                            fewest_changes)
    if fewest_changes and result.verified and not options.started_budget.over():
        face_lower, face_upper = optimal_face(problem, lower, upper, raise_cost, lower_cost)
        result = with_fewer_changes(problem, result, sparsest_on_face(
            problem, z, face_lower, face_upper, _sifting_from(problem, form, z), options))
    return result


def _sifting_from(problem: CTAProblem, form: NetworkForm, z: np.ndarray) -> WeightedL1:
    """The reweighted rounds of solvers/sparse.py by sifting, started from LEMON's min-cost flow by
    the round's costs, or (where it fails) seeded with the support of ``z`` and
    the cheapest tree by those costs."""
    supply = form.supplies(problem.deviation_rhs)

    def weighted_l1(costs: np.ndarray, low: np.ndarray, high: np.ndarray, within: SolveOptions) -> np.ndarray | None:
        base = np.clip(0.0, low, high)
        start = flow_start(form, costs, high - base, base - low, net_supply(form, base, supply),
                           within.started_budget)
        seed = None if start is not None else \
            _seed(form, costs, high - base, base - low, (np.flatnonzero(z > base), np.flatnonzero(z < base)))
        found, _, _, _ = sifting_deviations(problem, low, high, within, seed, weights=costs, start=start, form=form)
        return found
    return weighted_l1


def _senses_bound(problem: CTAProblem, senses: np.ndarray, raise_cost: np.ndarray, lower_cost: np.ndarray,
                  row_dual: np.ndarray) -> float:
    """A safe lower bound on every table with these senses from the sifting LP's duals y and the
    reduced costs w -+ A^T y (lp.senses_bound over the columns [z+, z-] of model (5.10))."""
    col_lower, col_upper = l1_column_bounds(problem, senses)
    return senses_bound(problem, col_lower, col_upper, np.concatenate([raise_cost, lower_cost]), row_dual)


def _fallback_lp(problem: CTAProblem, options: SolveOptions, senses: np.ndarray, why: str,
                 fewest_changes: bool) -> CTAResult:
    log_line(options, f"{why}: solving the general LP")
    result = solve_lp(problem, options, senses, fewest_changes=fewest_changes)
    return result.replace(method=METHOD_L1, info={**result.info, "network": f"{why}; solved as the general LP"})
