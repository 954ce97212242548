"""Fixed-sense CTA on tables whose relations form a network: 2-D and 1H2D tables.

With the senses fixed, L1 CTA (paper 000, (2a)-(2c) with y fixed) on a 2-D
table with margins is a minimum-cost circulation: row relations and column
relations are nodes, each cell an arc (inner cell row -> column, row total
source -> row, column total column -> sink, grand total sink -> source), the
deviation z_i its flow, bounds l_z <= z <= u_z (tightened to the safe side by
the sense) its capacities and w_i |z_i| its cost.  A 1H2D table (one
hierarchical dimension) is a network too once the relations of subtotal rows
are dropped: each is the sum of its children's row relations and the column
relations (Castro 2007, the network form of 1H2D tables).

``network_form`` finds such a form for any relation matrix with +-1
coefficients: it drops relations while a cell sits in more than two of them,
signs the rest so each cell enters one and leaves the other, and gives a cell
left in a single relation an arc to a ground node.  Every table is checked
against *all* relations by the verifier, so a dropped relation that was not
redundant shows up as a failed verification, never as a wrong table.

L1: a max flow (scipy's Dinic, on capacities rounded to integers) finds a
feasible support in milliseconds, and a minimum spanning tree of the cells by
weight joins its pieces into one tree, so that every node's dual is a weighted
path and not a penalty (every basis of a network LP is a spanning tree: Ahuja,
Magnanti & Orlin 1993, Network Flows, ch. 11); HiGHS's dual simplex then solves
the LP over those columns, and again, from its basis, each time every other
cell with a negative reduced cost is priced in (sifting), until none prices
out, which proves the optimum over all cells.  On a 1000 x 1000 table this is
~0.3 s for the LP where the IPM over all columns takes ~20 s, with unit weights
and with 1/value weights alike.  Weights that the tree does not foresee (random
per cell) can make the simplex pivot long; past SIFTING_ITERATIONS per relation
the general LP (the IPM over all columns) takes over.
(OR-Tools' min-cost flow was measured too, but its wheel ships its own
libhighs.so.1 and cannot be loaded in one process with highspy.)  L2: the dual
of min sum w z^2, A z = d, l_z <= z <= u_z has one variable per relation; it is
maximised by a semismooth Newton method whose Hessian is the weighted
Laplacian A D A^T of the cells off their bounds, factorised by QDLDL on the
pattern of all cells (hierarchical 1-D and 2-D tables), else by SuperLU or a
dense Cholesky.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import itertools
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable

import highspy
import numpy as np
import qdldl
import scipy.linalg
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph
import scipy.sparse.linalg as spla

from ctadesk.engine.errors import SolverError
from ctadesk.engine.problem import BOUND_RTOL, SENSE_DOWN, SENSE_UP, CTAProblem
from ctadesk.engine.result import CTAResult, Progress, SolveOptions, Status
from ctadesk.engine.solvers.finish import finish
from ctadesk.engine.solvers.highs import HighsRun
from ctadesk.engine.solvers.conic import solve_l2
from ctadesk.engine.solvers.lp import fixed_senses, l1_column_bounds, senses_bound, solve_lp
from ctadesk.engine.solvers.sparse import WeightedL1, optimal_face, sparsest_on_face, with_fewer_changes

METHOD_L1 = "network"
METHOD_L2 = "network-l2"
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
#: Cox-recipe tables of 40x40 to 1000x1000 with unit, 1/value and 1/sqrt(value) weights need at most
#: 11 (500x500 seed 3, unit weights), 300x350 with random weights (log-uniform over 1e-6..1, per
#: cell) 38-43 and with |value| weights 82, and there the IPM over all columns is the faster
#: (500x500: 5.4 s against 28 s of sifting with random weights, 5.5 s against 130 s with |value|)
SIFTING_ITERATIONS = 20
#: above this many relations (large 1H2D tables) the simplex crawls: the IPM over all columns is used
SIMPLEX_ROWS = 10000
#: network forms remembered (network_form)
FORM_CACHE = 4
_FORMS: OrderedDict[bytes, NetworkForm | None] = OrderedDict()
_FORMS_LOCK = threading.Lock()
#: LSQR iterations allowed for the check that dropped relations are implied
IMPLIED_ITERATIONS = 5000
#: the L2 Newton method stops when every relation holds to this relative accuracy; on J. Castro's
#: tables it takes 2-11 iterations, 16 on toysarah (cells from 0.5 to 1e11, a few cells freed per
#: step) and 20 on jjtabel3 (1 054 sensitive cells of 3 025); where it needs more than
#: L2_MAX_ITERATIONS clarabel takes over
L2_TOLERANCE = 1e-10
L2_MAX_ITERATIONS = 50
#: rounds of least_squares_deviations that add the relations its answer broke
BASIS_ROUNDS = 5
#: the line search along a Newton step stops when the dual's slope has fallen to this share of its
#: slope at the start, or after LINE_SEARCH_STEPS evaluations (_line_search)
LINE_SEARCH_RTOL = 1e-6
LINE_SEARCH_STEPS = 30
#: the Newton system is factorised dense when it has at most DENSE_LIMIT relations and at least
#: DENSE_SHARE of its entries are nonzero, else sparse (_factor)
DENSE_LIMIT = 4000
DENSE_SHARE = 0.05
#: Newton systems whose relations meet at most this many others on average (through a shared
#: cell, relation_degree) are factorised by QDLDL on a fixed pattern, others by _factor (_Pattern):
#: hierarchical 1-D and 2-D tables 1.5-16 (J. Castro's 1.5-9.8), 3-D tables from 20x20x20 on 29-121
SPARSE_DEGREE = 20
#: a Newton system whose free cells differ from the last factorised one's in at most this share
#: is solved by conjugate gradients preconditioned with that factorisation, in at most
#: REUSE_ITERATIONS iterations and no longer than a new factorisation takes (_NewtonSystems)
REUSE_SHARE = 0.05
REUSE_ITERATIONS = 100
#: ... and only where they may take more iterations than cells changed, or at least this many:
#: where a factorisation costs a few solves (jjtabel3, toysarah) runs capped at 1-7 iterations
#: failed 31 times out of 33
REUSE_MIN_ITERATIONS = 10


@dataclasses.dataclass(frozen=True)
class NetworkForm:
    """Cells as arcs of a network: node ``tail[i]`` -> ``head[i]``; the last node is the ground.

    kept   indices of the relations that are nodes (the others are implied)
    sign   +1/-1 per kept relation: node balance out - in = sign * (A z - d) row
    """

    kept: np.ndarray
    sign: np.ndarray
    tail: np.ndarray
    head: np.ndarray

    @property
    def n_nodes(self) -> int:
        return self.kept.size + 1

    def supplies(self, deviation_rhs: np.ndarray) -> np.ndarray:
        """Net outflow each node must send for A z = d (the ground balances)."""
        supply = self.sign * deviation_rhs[self.kept]
        return np.append(supply, -supply.sum())


def network_form(problem: CTAProblem) -> NetworkForm | None:
    """The network form of the problem's relations, or None when they are not a network.

    Remembered for the last FORM_CACHE relation matrices (by a digest of their content): the
    automatic choice of method and the network solver ask for the same table's form in turn
    (1000x1000: 0.4-0.6 s each; the digest takes a few milliseconds).
    """
    A = problem.relations
    digest = hashlib.blake2b(np.asarray(A.shape, np.int64).tobytes(), digest_size=20)
    for part in (A.indptr, A.indices, A.data):
        digest.update(np.ascontiguousarray(part).view(np.uint8))
    key = digest.digest()
    with _FORMS_LOCK:
        if key in _FORMS:
            _FORMS.move_to_end(key)
            return _FORMS[key]
    form = _network_form(problem)
    if form is not None:
        for array in (form.kept, form.sign, form.tail, form.head):
            array.flags.writeable = False
    with _FORMS_LOCK:
        _FORMS[key] = form
        while len(_FORMS) > FORM_CACHE:
            _FORMS.popitem(last=False)
    return form


def _network_form(problem: CTAProblem) -> NetworkForm | None:
    A = problem.relations.tocsc()
    if A.nnz and not np.all(np.abs(A.data) == 1.0):
        return None
    m = problem.n_relations
    kept = np.ones(m, bool)
    for _ in range(m):
        crowded = np.diff(A.indptr) > 2
        if not crowded.any():
            break
        # drop the relations holding most cells that lie in more than two kept relations,
        # several at once when they share none of those cells
        rows = A.tocsr()
        crowding = rows[:, np.flatnonzero(crowded)] @ np.ones(int(crowded.sum()))
        batch = np.flatnonzero(crowding == crowding.max())
        hits = np.zeros(A.shape[1])
        np.add.at(hits, rows[batch].indices, 1.0)
        shared = np.asarray((rows[batch] @ sp.diags_array(((hits > 1) & crowded).astype(float))).sum(axis=1)).ravel()
        batch = batch[shared == 0] if np.any(shared == 0) else batch[:1]
        kept[batch] = False
        drop = np.zeros(rows.shape[0])
        drop[batch] = 1.0
        A = sp.csc_array(sp.diags_array(1.0 - drop) @ rows)
        A.eliminate_zeros()
    kept_rows = np.flatnonzero(kept)
    if kept_rows.size < m:
        A = sp.csc_array(A.tocsr()[kept_rows])
    A.sort_indices()
    count = np.diff(A.indptr)
    first = A.indptr[:-1]
    two = np.flatnonzero(count == 2)
    r1, r2 = A.indices[first[two]], A.indices[first[two] + 1]
    same = A.data[first[two]] * A.data[first[two] + 1] < 0   # +1/-1 pair: both relations keep their sign
    k = kept_rows.size
    # sign two-colouring on a doubled graph: node r is (r, +), node r + k is (r, -)
    src = np.concatenate([np.where(same, r1, r1), np.where(same, r1 + k, r1 + k)])
    dst = np.concatenate([np.where(same, r2, r2 + k), np.where(same, r2 + k, r2)])
    graph = sp.coo_array((np.ones(src.size), (src, dst)), shape=(2 * k, 2 * k))
    _, component = csgraph.connected_components(graph, directed=False)
    if np.any(component[:k] == component[k:]):
        return None
    sign = np.where(component[:k] < component[k:], 1.0, -1.0)
    dropped = np.flatnonzero(~kept)
    if dropped.size and not _implied(sp.csr_array(sp.diags_array(sign) @ A), problem.relations, dropped):
        return None
    ground = k
    n = problem.n_cells
    tail = np.full(n, ground, np.int64)
    head = np.full(n, ground, np.int64)
    column = np.repeat(np.arange(n), count)
    signed = sign[A.indices] * A.data
    tail[column[signed > 0]] = A.indices[signed > 0]
    head[column[signed < 0]] = A.indices[signed < 0]
    return NetworkForm(kept_rows, sign, tail, head)


def _implied(incidence: sp.csr_array, relations: sp.csr_array, dropped: np.ndarray) -> bool:
    """Is a random combination of the dropped relations a combination of the kept ones?

    Least squares over the kept rows (LSQR); a residual above round-off means the
    dropped relations add information.
    """
    combination = np.random.default_rng(0).uniform(1.0, 2.0, dropped.size) @ relations[dropped]
    potentials = spla.lsqr(incidence.T, combination, atol=1e-14, btol=1e-14, iter_lim=IMPLIED_ITERATIONS)[0]
    residual = np.abs(incidence.T @ potentials - combination).max(initial=0.0)
    return bool(residual <= 1e-6 * max(1.0, float(np.abs(combination).max(initial=0.0))))


def sense_bounds(problem: CTAProblem, senses: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Deviation bounds l_z <= z <= u_z with every sensitive cell on its sense's safe side."""
    lower = problem.lower - problem.values
    upper = problem.upper - problem.values
    cells = problem.sensitive
    up = senses == SENSE_UP
    down = senses == SENSE_DOWN
    lower[cells[up]] = np.maximum(lower[cells[up]], problem.upper_protection[up])
    upper[cells[down]] = np.minimum(upper[cells[down]], -problem.lower_protection[down])
    # a safe value a hair beyond its bound (capacity = protection level, rounded) sits on the bound
    crossed = (lower > upper) & (lower - upper <= BOUND_RTOL * np.maximum(1.0, np.abs(problem.values)))
    lower[crossed] = upper[crossed] = np.where(lower[crossed] > 0, upper[crossed], lower[crossed])
    return lower, upper


def _max_flow_seed(form: NetworkForm, base: np.ndarray, forward: np.ndarray, backward: np.ndarray,
                   supply: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Cells whose forward / backward arcs carry a feasible flow of the integer-rounded network.

    A max flow from the nodes with surplus to those with deficit (scipy's Dinic)
    on capacities scaled into int32: a cheap feasible support that seeds the LP.
    """
    n_nodes = form.n_nodes
    net = supply.copy()
    np.subtract.at(net, form.tail, base)
    np.add.at(net, form.head, base)
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
    optimum (the same table: 1 round, 2 001 iterations, 0.2 s).  Kruskal's tree depends only on
    the order of the weights, so their ranks (positive: csgraph takes no zero weights) stand in
    for them.
    """
    movable = np.flatnonzero(((forward > 0) | (backward > 0)) & (form.tail != form.head))
    low = np.minimum(form.tail[movable], form.head[movable]).astype(np.int64)
    high = np.maximum(form.tail[movable], form.head[movable]).astype(np.int64)
    order = np.argsort(weights[movable], kind="stable")
    _, first = np.unique((low * form.n_nodes + high)[order], return_index=True)   # cheapest of parallel arcs
    pick = order[first]
    graph = sp.csr_array(((first + 1).astype(float), (low[pick], high[pick])), shape=(form.n_nodes, form.n_nodes))
    tree = csgraph.minimum_spanning_tree(graph)
    cells = movable[order[tree.data.astype(np.int64) - 1]]
    return cells[forward[cells] > 0], cells[backward[cells] > 0]


def _seed(form: NetworkForm, weights: np.ndarray, forward: np.ndarray, backward: np.ndarray,
          flow: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The sifting LP's first columns: a flow's support (forward, backward cells) and the cheapest
    tree joining it (_cheapest_tree)."""
    tree_forward, tree_backward = _cheapest_tree(form, weights, forward, backward)
    return np.union1d(flow[0], tree_forward), np.union1d(flow[1], tree_backward)


def sifting_deviations(problem: CTAProblem, lower: np.ndarray, upper: np.ndarray, options: SolveOptions,
                       seed: tuple[np.ndarray, np.ndarray] | None = None, weights: np.ndarray | None = None
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
    """
    weights = problem.weights if weights is None else weights
    A = problem.relations.tocsc()
    At = problem.relations.T.tocsr()
    m, n = A.shape
    base = np.clip(0.0, lower, upper)
    forward, backward = upper - base, base - lower
    rhs = problem.deviation_rhs - A @ base
    penalty = PENALTY * max(float(weights.max(initial=1.0)), 1.0)
    # every round by the dual simplex (0.13 s on the 21 k seed columns of a 1000 x 1000 table, primal
    # 1.0 s), the rounds after the first from the last basis: the primal simplex from there was as
    # fast with unit weights, but on 1000 x 1000 with 1/value weights and the max flow alone as the
    # seed it took 49 s where the dual took 1 s, and on 500 x 500 with random weights 60 s against 28 s
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


def solve_network_l1(problem: CTAProblem, options: SolveOptions = SolveOptions(),
                     senses: np.ndarray | None = None, form: NetworkForm | None = None,
                     fewest_changes: bool = False) -> CTAResult:
    """Fixed-sense L1 CTA of a 2-D or 1H2D table (module docstring); same model as ``solve_lp``.

    A max flow on the network gives a feasible support, the sifting LP proves the
    optimum over all cells.  Relations that are not a network fall back to ``solve_lp``.
    fewest_changes: among the optimal tables, the one changing fewest cells (solvers/sparse.py).
    """
    started = time.perf_counter()
    options = options.begun()
    senses, origin = fixed_senses(problem, senses)
    form = form if form is not None else network_form(problem)
    if form is None:
        return _fallback_lp(problem, options, senses, "relations are not a network", fewest_changes)
    if form.kept.size > SIMPLEX_ROWS:
        return _fallback_lp(problem, options, senses, f"{form.kept.size} relations are too many for sifting",
                            fewest_changes)
    lower, upper = sense_bounds(problem, senses)
    base = np.clip(0.0, lower, upper)
    forward, backward = upper - base, base - lower
    seed = _seed(form, problem.weights, forward, backward,
                 _max_flow_seed(form, base, forward, backward, form.supplies(problem.deviation_rhs)))
    build_seconds = time.perf_counter() - started
    began = time.perf_counter()
    z, status, note, row_dual = sifting_deviations(problem, lower, upper, options, seed)
    solve_seconds = time.perf_counter() - began
    _log(options, note)
    info = {"senses_from": origin, "network_nodes": form.n_nodes,
            "dropped_relations": problem.n_relations - form.kept.size}
    if z is None and status is Status.ERROR and not options.cancelled():
        return _fallback_lp(problem, options, senses, f"the sifting LP failed ({note})", fewest_changes)
    if z is None:
        if status is Status.INFEASIBLE:
            note = "no table with the senses chosen satisfies the relations, bounds and protection levels; " + note
        return finish(problem, METHOD_L1, status, None, started=started, build_seconds=build_seconds,
                      solve_seconds=solve_seconds, senses=senses, message=note, log=note, info=info)
    values = np.clip(problem.values + z, problem.lower, problem.upper)
    objective = float(problem.weights @ np.abs(z))
    _report(options, started, objective)
    priced = problem.relations.T @ row_dual
    raise_cost, lower_cost = problem.weights - priced, problem.weights + priced
    info["senses_bound"] = _senses_bound(problem, senses, raise_cost, lower_cost, row_dual)
    result = finish(problem, METHOD_L1, Status.OPTIMAL, values, started=started, build_seconds=build_seconds,
                    solve_seconds=solve_seconds, senses=senses, model_objective=objective, log=note, info=info)
    if not result.verified and info["dropped_relations"]:
        return _fallback_lp(problem, options, senses, "a dropped relation was not implied by the others",
                            fewest_changes)
    if fewest_changes and result.verified and not options.budget.over():
        face_lower, face_upper = optimal_face(problem, lower, upper, raise_cost, lower_cost)
        result = with_fewer_changes(problem, result, sparsest_on_face(
            problem, z, face_lower, face_upper, _sifting_from(problem, form, z), options))
    return result


def _sifting_from(problem: CTAProblem, form: NetworkForm, z: np.ndarray) -> WeightedL1:
    """The reweighted rounds of solvers/sparse.py by sifting, seeded with the support of ``z`` and
    the cheapest tree by the round's costs."""
    def weighted_l1(costs: np.ndarray, low: np.ndarray, high: np.ndarray, within: SolveOptions) -> np.ndarray | None:
        base = np.clip(0.0, low, high)
        seed = _seed(form, costs, high - base, base - low, (np.flatnonzero(z > base), np.flatnonzero(z < base)))
        found, _, _, _ = sifting_deviations(problem, low, high, within, seed, weights=costs)
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
    _log(options, f"{why}: solving the general LP")
    result = solve_lp(problem, options, senses, fewest_changes=fewest_changes)
    return result.replace(method=METHOD_L1, info={**result.info, "network": f"{why}; solved as the general LP"})


def least_squares_deviations(problem: CTAProblem, lower: np.ndarray, upper: np.ndarray,
                             options: SolveOptions) -> tuple[np.ndarray | None, str]:
    """argmin sum w z^2 s.t. A z = d, lower <= z <= upper, by semismooth Newton on the dual.

    The dual variable pi (one per relation) gives z(pi) = clip(A^T pi / (2 w), lower, upper);
    the dual g(pi) = pi.d + sum(w z^2 - (A^T pi) z) is concave with gradient d - A z(pi).
    The Newton system has one unknown per relation, and a table's relations are mostly
    redundant (a total given as the sum of its parts along each dimension it totals): the
    method works on defining_relations' subset, then checks every relation; relations the answer
    breaks (non-nested breakdowns of one total) join the subset and the method goes on from its
    multipliers, at most BASIS_ROUNDS times.  Returns None when the weights have zeros, the
    iteration does not converge or the options' budget ends first.
    """
    weights = problem.weights
    if np.any(weights <= 0):
        return None, "the L2 dual needs positive weights"
    A = problem.relations.tocsr()
    d = problem.deviation_rhs
    row_scale = abs(A) @ np.maximum(np.abs(problem.values), 1.0)
    kept = defining_relations(A)
    pi = np.zeros(A.shape[0])
    notes = []
    for _ in range(BASIS_ROUNDS):
        rows = np.flatnonzero(kept)
        z, pi[rows], note = _dual_newton(A[rows], d[rows], row_scale[rows], weights, lower, upper, pi[rows], options)
        notes.append(f"{rows.size} of {A.shape[0]} relations: {note}")
        if z is None:
            return None, "; ".join(notes)
        broken = ~kept & (np.abs(d - A @ z) > L2_TOLERANCE * row_scale)
        if not broken.any():
            return z, "; ".join(notes)
        kept |= broken
    return None, "; ".join(notes) + f"; relations still broken after {BASIS_ROUNDS} rounds"


def defining_relations(relations: sp.csr_array) -> np.ndarray:
    """A mask of relations that likely imply all the others: for each cell that is the total of
    some relation (its only coefficient -1), the first relation totalling it; every relation
    without a single total.  In a table whose breakdowns nest this spans the relations (each
    total reduces to its inner cells one way); where they do not, least_squares_deviations adds
    the relations its answer breaks."""
    A = sp.csr_array(relations)
    negative = A.data < 0
    row = np.repeat(np.arange(A.shape[0]), np.diff(A.indptr))[negative]     # the row and cell of each -1
    cell = A.indices[negative]
    single = np.bincount(row, minlength=A.shape[0]) == 1
    total_of = np.full(A.shape[0], -1)
    total_of[row[single[row]]] = cell[single[row]]
    candidates = np.flatnonzero(single)
    _, first = np.unique(total_of[candidates], return_index=True)
    kept = ~single
    kept[candidates[first]] = True
    return kept


def relation_degree(relations: sp.csr_array, cells: np.ndarray | None = None) -> float:
    """How many other relations a relation meets through shared cells (of ``cells``, default all),
    on average, counted with repeats: the density of the L2 Newton system's pattern (_Pattern)."""
    A = sp.csr_array(relations)
    per_cell = np.bincount(A.indices, minlength=A.shape[1])
    per_cell = per_cell if cells is None else per_cell[cells]
    return float(per_cell @ (per_cell - 1)) / max(A.shape[0], 1)


def _dual_newton(A: sp.csr_array, d: np.ndarray, row_scale: np.ndarray, weights: np.ndarray, lower: np.ndarray,
                 upper: np.ndarray, pi: np.ndarray, options: SolveOptions
                 ) -> tuple[np.ndarray | None, np.ndarray, str]:
    """The dual Newton iteration of least_squares_deviations on relations A z = d from ``pi``:
    (z or None, the last multipliers, a note)."""
    At = A.T.tocsr()
    half_inverse = 0.5 / weights

    def point(p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """z(p) and its residual d - A z(p), the dual's gradient."""
        z = np.clip((At @ p) * half_inverse, lower, upper)
        return z, d - A @ z

    z, residual = point(pi)
    systems = _NewtonSystems(A, At, half_inverse, lower < upper)
    for iteration in range(L2_MAX_ITERATIONS):
        worst = float(np.max(np.abs(residual) / row_scale, initial=0.0))
        if worst <= L2_TOLERANCE:
            return z, pi, f"L2 dual Newton: {iteration} iterations, relative residual {worst:.1e}"
        if options.budget.over():
            return None, pi, "cancelled" if options.cancelled() else "time limit reached"
        free = (z > lower) & (z < upper)
        diagonal, step = systems.step(free, residual)
        empty = (diagonal <= 0) & (residual != 0)
        if empty.any():
            # rows without a free cell are decoupled from the rest of the system: their jump past a
            # breakpoint gets a line search of its own, so that a jump in other units does not cut
            # the Newton step short (jjtabel3: 40 steps, 8 of them shorter than 1e-5, then 20)
            jump = np.zeros_like(step)
            jump[empty] = _breakpoint_steps(A[np.flatnonzero(empty)], (At @ pi) * half_inverse, lower, upper,
                                            half_inverse, residual[empty], step[empty])
            step[empty] = 0.0
            length, z, residual = _line_search(lambda t: point(pi + t * jump), jump, float(residual @ jump))
            pi = pi + length * jump
        slope = float(residual @ step)
        if slope > 0.0:
            length, z, residual = _line_search(lambda t: point(pi + t * step), step, slope)
            pi = pi + length * step
    return None, pi, f"L2 dual Newton did not converge in {L2_MAX_ITERATIONS} iterations"


def _breakpoint_steps(rows: sp.csr_array, u: np.ndarray, lower: np.ndarray, upper: np.ndarray,
                      half_inverse: np.ndarray, residual: np.ndarray, default: np.ndarray) -> np.ndarray:
    """Steps for the multipliers of relations none of whose cells is free: the dual is linear along
    them (slope ``residual``) up to the first cell that a move in the residual's direction frees,
    so the step goes just past that breakpoint.  The Newton system has no curvature there, and its
    shifted solution (``default``, kept where no cell can be freed or one is on its kink) is a step
    in arbitrary units: J. Castro's table6 in table units kept a residual of 7.6e-7 on one
    relation for 50 steps."""
    direction = np.sign(residual)
    row_of = np.repeat(np.arange(rows.shape[0]), np.diff(rows.indptr))
    cells = rows.indices
    at, low, high = u[cells], lower[cells], upper[cells]
    move = rows.data * direction[row_of] * half_inverse[cells]       # du_j per unit step of the multiplier
    rising = (move > 0) & (at <= low) & (low < high)
    falling = (move < 0) & (at >= high) & (low < high)
    distance = np.full(cells.size, np.inf)
    distance[rising] = (low[rising] - at[rising]) / move[rising]
    distance[falling] = (high[falling] - at[falling]) / move[falling]
    nearest = np.full(rows.shape[0], np.inf)
    np.minimum.at(nearest, row_of, distance)
    beyond = np.isfinite(nearest) & (nearest > 0)     # at 0 a cell sits on its kink: the Newton step frees it
    return np.where(beyond, direction * nearest * (1 + 1e-6), default)


def _line_search(point_at: Callable[[float], tuple[np.ndarray, np.ndarray]], step: np.ndarray,
                 slope: float) -> tuple[float, np.ndarray, np.ndarray]:
    """The dual's maximum along pi + t step, t > 0: (t, z and residual there, as ``point_at(t)``
    gives them).

    The dual is concave and piecewise quadratic, so its slope along the step, (d - A z) . step,
    falls piecewise linearly from ``slope`` > 0.  Where it is still clearly positive at the full
    step (a direction along which the dual is flat, cells at their bounds) the step doubles until
    it is not; the full (or doubled) step is taken where the slope there is >= 0, else the
    slope's zero is found by the Illinois method (a few products, no factorisation).  Slopes, not
    dual values: with cells of 1e11 and weights of 1e-11 (J. Castro's toysarah) the dual's value
    is a difference of numbers near 1e20 whose rounding stalled a backtracking search on function
    values."""
    low, low_slope, high = 0.0, slope, 1.0
    z, residual = point_at(high)
    high_slope = float(residual @ step)
    for _ in range(LINE_SEARCH_STEPS):
        if high_slope <= LINE_SEARCH_RTOL * slope:
            break
        low, low_slope, high = high, high_slope, 2.0 * high
        z, residual = point_at(high)
        high_slope = float(residual @ step)
    if high_slope >= 0.0:
        return high, z, residual
    side = 0
    for _ in range(LINE_SEARCH_STEPS):
        t = high - high_slope * (high - low) / (high_slope - low_slope)
        z, residual = point_at(t)
        value = float(residual @ step)
        if abs(value) <= LINE_SEARCH_RTOL * slope:
            break
        if value > 0.0:
            low, low_slope = t, value
            high_slope *= 0.5 if side == 1 else 1.0
            side = 1
        else:
            high, high_slope = t, value
            low_slope *= 0.5 if side == -1 else 1.0
            side = -1
    return t, z, residual


def _factor(hessian: sp.csr_array) -> Callable[[np.ndarray], np.ndarray]:
    """A solver of (H + delta I) s = g; H is a weighted graph Laplacian, singular on redundancies.

    A dense Cholesky where H is small and dense (2-D tables: every free cell links its row to
    its column), else a sparse LU with a minimum-degree ordering of H + H^T, no pivoting
    (symmetric positive definite after the shift): on J. Castro's hierarchical tables it is
    6-60x faster than the dense Cholesky (hier133a 3549 relations 0.16 s against 0.89 s; nine5d
    17 295 relations 0.9 s against 52 s).  Conjugate gradients if the factorisation fails.
    """
    m = hessian.shape[0]
    diagonal = hessian.diagonal()
    shift = _shift(diagonal)
    if m <= DENSE_LIMIT and hessian.nnz >= DENSE_SHARE * m * m:
        dense = hessian.toarray()
        dense[np.diag_indices(m)] += shift
        try:
            factor = scipy.linalg.cho_factor(dense, check_finite=False)
            return lambda g: scipy.linalg.cho_solve(factor, g, check_finite=False)
        except np.linalg.LinAlgError:
            return lambda g: scipy.linalg.lstsq(dense, g, check_finite=False)[0]
    shifted = sp.csc_array(hessian + sp.diags_array(shift))
    try:
        return spla.splu(shifted, permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.0,
                         options={"SymmetricMode": True}).solve
    except RuntimeError:
        preconditioner = sp.diags_array(1.0 / np.where(diagonal > 0, diagonal, 1.0))
        return lambda g: spla.cg(shifted, g, rtol=1e-12, maxiter=500, M=preconditioner)[0]


def _shift(diagonal: np.ndarray) -> np.ndarray:
    """The diagonal added to a Newton system whose diagonal is ``diagonal``: 1e-10 of its largest
    entry, and 1 on a row without a free cell."""
    return 1e-10 * max(float(diagonal.max(initial=0.0)), 1e-300) + (diagonal <= 0) * 1.0


class _Pattern:
    """The sparsity pattern of A D A^T with every movable cell free, for QDLDL's LDL^T: a free set
    only zeroes entries of D, so the pattern, and QDLDL's ordering (approximate minimum degree)
    and symbolic factorisation of it, serve every iteration; an iteration is one sparse product
    for the entries (``spread`` maps D to them) and a numeric factorisation.  Where relations
    meet few others (hierarchical 1-D and 2-D tables) that is faster than scipy's SuperLU, which
    orders and analyses each system anew: jjtabel3 (1 425 relations) 0.3 ms against 1.4 ms,
    nine5d (9 318) 16 ms against 47 ms, 1H2D tables of 25 221 and 67 411 relations 28 ms against
    137 ms and 0.55 s against 84 s; in big 3-D tables QDLDL, which has no supernodes, is the
    slower (30x30x30: 1.1 s against 0.7 s; 20x20x20 about even)."""

    def __init__(self, spread: sp.csr_array, indices: np.ndarray, indptr: np.ndarray, diagonal: np.ndarray) -> None:
        self.spread = spread            # pattern entries x cells: A_ik A_jk / (2 w_k) at (entry (i, j), cell k)
        self.indices = indices          # the upper triangle's CSC structure
        self.indptr = indptr
        self.diagonal = diagonal        # the positions of the diagonal entries
        self.solver: qdldl.Solver | None = None

    @classmethod
    def of(cls, A: sp.csr_array, half_inverse: np.ndarray, movable: np.ndarray) -> _Pattern | None:
        """The pattern of A's Newton systems, None where a relation meets more than SPARSE_DEGREE
        others on average (_factor then)."""
        m = A.shape[0]
        cells = np.flatnonzero(movable)
        if relation_degree(A, cells) > SPARSE_DEGREE:
            return None
        columns = sp.csc_array(A[:, cells])
        columns.sort_indices()
        column_of = np.repeat(np.arange(cells.size), np.diff(columns.indptr))
        partners = columns.indptr[column_of + 1] - np.arange(columns.nnz)     # entries from here to the column's end
        first = np.repeat(np.arange(columns.nnz), partners)
        second = first + np.arange(first.size) - np.repeat(np.cumsum(partners) - partners, partners)
        row, col = columns.indices[first], columns.indices[second]          # row <= col: indices sorted
        keys = np.concatenate([col.astype(np.int64) * m + row, np.arange(m, dtype=np.int64) * (m + 1)])
        unique, where = np.unique(keys, return_inverse=True)
        cell = cells[column_of[first]]
        spread = sp.csr_array((columns.data[first] * columns.data[second] * half_inverse[cell],
                               (where[:first.size], cell)), shape=(unique.size, A.shape[1]))
        indptr = np.concatenate([[0], np.cumsum(np.bincount(unique // m, minlength=m))])
        return cls(spread, (unique % m).astype(np.int32), indptr.astype(np.int32), where[first.size:])

    def entries(self, free: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(the shifted system's upper-triangle entries for ``free``, its unshifted diagonal, the shift)."""
        data = self.spread @ free.astype(float)
        diagonal = data[self.diagonal].copy()
        shift = _shift(diagonal)
        data[self.diagonal] += shift
        return data, diagonal, shift

    def factor(self, data: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
        """A solver of the system with these entries; it replaces the previous one's factors."""
        m = self.indptr.size - 1
        system = sp.csc_matrix((data, self.indices, self.indptr), shape=(m, m))
        if self.solver is None:
            self.solver = qdldl.Solver(system, upper=True)
        else:
            self.solver.update(system, upper=True)
        return self.solver.solve


class _NewtonSystems:
    """The Newton systems of successive iterations, whose free cells change little near the end:
    a system whose free cells differ from the last factorised one's in at most REUSE_SHARE of
    them is solved by conjugate gradients preconditioned with that factorisation (exact on the
    unchanged part, so a few iterations), else factorised anew (_Pattern's LDL^T, or _factor
    where the relations meet many others).  Conjugate gradients get at most as many iterations as fit in
    the last factorisation's time, an iteration timed as one solve with the factorisation until
    a run has been timed: where factorising is cheap an iteration (a solve, two products and
    scipy's bookkeeping) costs several solves, and on jjtabel3 runs of 35 iterations took
    longer than the factorisations they were to save."""

    def __init__(self, A: sp.csr_array, At: sp.csr_array, half_inverse: np.ndarray, movable: np.ndarray) -> None:
        self.A = A
        self.At = At
        self.half_inverse = half_inverse
        self.pattern = _Pattern.of(A, half_inverse, movable)
        self.solve: Callable[[np.ndarray], np.ndarray] | None = None
        self.free: np.ndarray | None = None
        self.factor_seconds = 0.0
        self.solve_seconds = math.inf
        self.iteration_seconds: float | None = None     # a timed conjugate-gradient iteration

    @property
    def iterations(self) -> int:
        iteration = self.iteration_seconds if self.iteration_seconds is not None else self.solve_seconds
        return int(min(REUSE_ITERATIONS, self.factor_seconds / iteration))

    def step(self, free: np.ndarray, gradient: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(the system's diagonal, its shifted solution for ``gradient``)."""
        m = self.A.shape[0]
        if self.pattern is not None:
            data, diagonal, shift = self.pattern.entries(free)
            scale = self.half_inverse * free
            shifted = spla.LinearOperator((m, m), matvec=lambda x: self.A @ (scale * (self.At @ x)) + shift * x)
            factorise = functools.partial(self._pattern_factor, data, free)
        else:
            hessian = self._hessian(free)
            diagonal = hessian.diagonal()
            shifted = hessian + sp.diags_array(_shift(diagonal))
            factorise = functools.partial(_factor, hessian)
        changed = np.count_nonzero(free != self.free)
        if self.iterations > min(changed, REUSE_MIN_ITERATIONS) and changed <= REUSE_SHARE * np.count_nonzero(free):
            count = itertools.count(1)
            began = time.perf_counter()
            step, info = spla.cg(shifted, gradient, rtol=1e-8, maxiter=self.iterations,
                                 M=spla.LinearOperator((m, m), matvec=self.solve), callback=lambda _: next(count))
            self.iteration_seconds = (time.perf_counter() - began) / next(count)
            if info == 0 and np.all(np.isfinite(step)):
                return diagonal, step
        began = time.perf_counter()
        self.solve, self.free = factorise(), free
        factorised = time.perf_counter()
        step = self.solve(gradient)
        self.factor_seconds = factorised - began
        self.solve_seconds = max(time.perf_counter() - factorised, 1e-9)
        return diagonal, step

    def _hessian(self, free: np.ndarray) -> sp.csr_array:
        A_free = self.A[:, np.flatnonzero(free)]
        return sp.csr_array((A_free * self.half_inverse[free]) @ A_free.T)

    def _pattern_factor(self, data: np.ndarray, free: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
        """_Pattern's factorisation; _factor's where QDLDL meets a pivot too small for its LDL^T
        without pivoting (it raises), the pattern starting afresh at the next factorisation."""
        try:
            return self.pattern.factor(data)
        except RuntimeError:
            self.pattern.solver = None
            return _factor(self._hessian(free))


def solve_network_l2(problem: CTAProblem, options: SolveOptions = SolveOptions(),
                     senses: np.ndarray | None = None) -> CTAResult:
    """Fixed-sense L2 CTA (Petrenko 2017, paper 003, the QP (5.11)) by Newton on its dual.

    Any relation matrix works; it is fast when the relations are few compared with
    the cells (2-D and 1H2D tables).  model_objective is sum w (x - a)^2.
    """
    started = time.perf_counter()
    options = options.begun()
    senses, origin = fixed_senses(problem, senses)
    lower, upper = sense_bounds(problem, senses)
    if np.any(lower > upper):
        raise SolverError("a sensitive cell's safe value lies outside its bounds")
    build_seconds = time.perf_counter() - started
    began = time.perf_counter()
    z, note = least_squares_deviations(problem, lower, upper, options)
    solve_seconds = time.perf_counter() - began
    _log(options, note)
    info = {"senses_from": origin}
    if z is None:
        if options.budget.over():
            status = Status.CANCELLED if options.cancelled() else Status.TIME_LIMIT
            return finish(problem, METHOD_L2, status, None, started=started, build_seconds=build_seconds,
                          solve_seconds=solve_seconds, senses=senses, message=note, log=note, info=info)
        return _fallback_qp(problem, options, senses, note)
    values = np.clip(problem.values + z, problem.lower, problem.upper)
    _report(options, started, float(problem.weights @ np.abs(z)))
    result = finish(problem, METHOD_L2, Status.OPTIMAL, values, started=started, build_seconds=build_seconds,
                    solve_seconds=solve_seconds, senses=senses,
                    model_objective=float(problem.weights @ (z * z)), log=note, info=info)
    return result if result.verified or options.cancelled() else _fallback_qp(problem, options, senses, note)


def _fallback_qp(problem: CTAProblem, options: SolveOptions, senses: np.ndarray, why: str) -> CTAResult:
    """The same QP by clarabel (conic.solve_l2) where the dual Newton method gave no verified table."""
    _log(options, f"{why}: solving the QP with clarabel")
    result = solve_l2(problem, options, senses)
    return result.replace(method=METHOD_L2, info={**result.info, "network": f"{why}; solved by clarabel"})


def _log(options: SolveOptions, line: str) -> None:
    if options.on_log is not None:
        options.on_log(line)


def _report(options: SolveOptions, started: float, objective: float) -> None:
    if options.on_progress is not None:
        options.on_progress(Progress(time.perf_counter() - started, objective=objective,
                                     message="optimum for the senses used"))
