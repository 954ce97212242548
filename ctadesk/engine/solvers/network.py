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

L1: OR-Tools' min-cost-flow (cost scaling, C++), on data scaled to integers:
capacities are rounded inwards (safe side) with a power-of-two scale chosen so
no node's capacity sum can overflow, so the optimum is exact for unit (or
equal) weights up to 2**-scale per cell.  L2: the dual of min sum w z^2,
A z = d, l_z <= z <= u_z has one variable per relation; it is maximised by a
semismooth Newton method whose Hessian is the weighted Laplacian A D A^T of
the cells off their bounds (a few thousand rows on a 1000 x 1000 table).
"""

from __future__ import annotations

import dataclasses
import math
import time

import numpy as np
import scipy.linalg
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph
import scipy.sparse.linalg as spla

from ctadesk.engine.errors import SolverError
from ctadesk.engine.problem import SENSE_DOWN, SENSE_UP, CTAProblem
from ctadesk.engine.result import CTAResult, Progress, SolveOptions, Status
from ctadesk.engine.solvers._finish import finish
from ctadesk.engine.solvers.lp import fixed_senses

METHOD_L1 = "network"
METHOD_L2 = "network-l2"
#: largest power-of-two scale of the integer flows (2**-40 ~ 1e-12 per cell)
MAX_SCALE_BITS = 40
#: headroom below int64 for any sum of capacities or of cost x flow
INT_LIMIT = 2.0 ** 61
#: integer range of the costs when the weights are not all equal
COST_RESOLUTION = 2 ** 20
#: the L2 Newton method stops when every relation holds to this relative accuracy
L2_TOLERANCE = 1e-10
L2_MAX_ITERATIONS = 200
#: at most this many relations: dense Cholesky of the Newton system, else conjugate gradients
DENSE_LIMIT = 4000


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
    """The network form of the problem's relations, or None when they are not a network."""
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
        shared = np.asarray((rows[batch] @ sp.diags_array((hits > 1) & crowded)).sum(axis=1)).ravel()
        batch = batch[shared == 0] if np.any(shared == 0) else batch[:1]
        kept[batch] = False
        drop = np.zeros(rows.shape[0])
        drop[batch] = 1.0
        A = sp.csc_array(sp.diags_array(1.0 - drop) @ rows)
        A.eliminate_zeros()
    kept_rows = np.flatnonzero(kept)
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
    ground = k
    n = problem.n_cells
    tail = np.full(n, ground, np.int64)
    head = np.full(n, ground, np.int64)
    column = np.repeat(np.arange(n), count)
    signed = sign[A.indices] * A.data
    tail[column[signed > 0]] = A.indices[signed > 0]
    head[column[signed < 0]] = A.indices[signed < 0]
    return NetworkForm(kept_rows, sign, tail, head)


def sense_bounds(problem: CTAProblem, senses: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Deviation bounds l_z <= z <= u_z with every sensitive cell on its sense's safe side."""
    lower = problem.lower - problem.values
    upper = problem.upper - problem.values
    cells = problem.sensitive
    up = senses == SENSE_UP
    down = senses == SENSE_DOWN
    lower[cells[up]] = np.maximum(lower[cells[up]], problem.upper_protection[up])
    upper[cells[down]] = np.minimum(upper[cells[down]], -problem.lower_protection[down])
    return lower, upper


def _scale_bits(limits: np.ndarray, supply: np.ndarray, form: NetworkForm, max_cost: float) -> int:
    """The largest flow scale 2**bits under which no node sum nor the total cost can overflow."""
    node_sum = np.abs(supply).copy()
    np.add.at(node_sum, form.tail, limits)
    np.add.at(node_sum, form.head, limits)
    largest = max(float(node_sum.max()), float(limits.sum()) * max_cost, 1.0)
    return int(min(MAX_SCALE_BITS, math.floor(math.log2(INT_LIMIT / largest))))


def min_cost_flow_deviations(problem: CTAProblem, form: NetworkForm, lower: np.ndarray,
                             upper: np.ndarray) -> tuple[np.ndarray | None, str]:
    """Deviations z of the cheapest flow within [lower, upper], or None and a reason."""
    from ortools.graph.python import min_cost_flow

    weights = problem.weights
    positive = weights[weights > 0]
    equal = positive.size == 0 or np.all(positive == positive[0])
    costs = (weights > 0).astype(np.int64) if equal else \
        np.rint(weights / positive.max() * COST_RESOLUTION).astype(np.int64)
    base = np.clip(0.0, lower, upper)              # the cheapest value of each cell on its own
    finite = np.isfinite(lower) & np.isfinite(upper)
    deviation_rhs = problem.deviation_rhs
    supply = form.supplies(deviation_rhs)
    spread = np.where(finite, upper - lower, 0.0)
    reach = float(np.abs(supply).sum() + spread.sum() + np.abs(base).sum())
    limits = np.where(finite, spread, reach)
    bits = _scale_bits(limits, supply, form, float(costs.max(initial=1)))
    if bits < 10:
        return None, f"the table's magnitudes leave only 2**{bits} flow resolution"
    scale = 2.0 ** bits
    base_int = np.rint(base * scale)
    low_int = np.ceil(lower * scale)
    high_int = np.floor(upper * scale)
    narrow = low_int > high_int                    # an interval thinner than one flow unit
    low_int[narrow] = high_int[narrow] = np.rint(0.5 * (lower[narrow] + upper[narrow]) * scale)
    low_int = np.where(np.isfinite(lower), low_int, base_int - reach * scale)
    high_int = np.where(np.isfinite(upper), high_int, base_int + reach * scale)
    base_int = np.clip(base_int, low_int, high_int)
    forward = (high_int - base_int).astype(np.int64)
    backward = (base_int - low_int).astype(np.int64)

    node_supply = np.rint(supply * scale)
    np.subtract.at(node_supply, form.tail, base_int)
    np.add.at(node_supply, form.head, base_int)
    node_supply[-1] -= node_supply.sum()           # rounding of a non-zero right-hand side
    loops = form.tail == form.head                 # cells in no relation keep their base value
    fwd = np.flatnonzero((forward > 0) & ~loops)
    bwd = np.flatnonzero((backward > 0) & ~loops)
    flow = min_cost_flow.SimpleMinCostFlow()
    flow.add_arcs_with_capacity_and_unit_cost(
        np.concatenate([form.tail[fwd], form.head[bwd]]), np.concatenate([form.head[fwd], form.tail[bwd]]),
        np.concatenate([forward[fwd], backward[bwd]]), np.concatenate([costs[fwd], costs[bwd]]))
    flow.set_nodes_supplies(np.arange(form.n_nodes), node_supply.astype(np.int64))
    status = flow.solve()
    if status == flow.INFEASIBLE:
        return None, "infeasible"
    if status != flow.OPTIMAL:
        return None, f"min-cost flow ended with status {status}"
    arcs = flow.flows(np.arange(fwd.size + bwd.size)).astype(np.float64)
    z_int = base_int.copy()
    z_int[fwd] += arcs[:fwd.size]
    z_int[bwd] -= arcs[fwd.size:]
    return z_int / scale, f"min-cost flow, {fwd.size + bwd.size} arcs, flow unit 2**-{bits}"


def solve_network_l1(problem: CTAProblem, options: SolveOptions = SolveOptions(),
                     senses: np.ndarray | None = None, form: NetworkForm | None = None) -> CTAResult:
    """Fixed-sense L1 CTA of a 2-D or 1H2D table as a min-cost flow (module docstring).

    Same model and answer as ``solve_lp``; when the relations are not a network
    this falls back to ``solve_lp``.  The flow solver cannot be interrupted: on a
    million-cell table it runs about a second.
    """
    started = time.perf_counter()
    senses, origin = fixed_senses(problem, senses)
    form = form if form is not None else network_form(problem)
    if form is None:
        from ctadesk.engine.solvers.lp import solve_lp

        fallback = solve_lp(problem, options, senses)
        return fallback.replace(info={**fallback.info, "network": "relations are not a network; solved as LP"})
    lower, upper = sense_bounds(problem, senses)
    build_seconds = time.perf_counter() - started
    began = time.perf_counter()
    z, note = min_cost_flow_deviations(problem, form, lower, upper)
    solve_seconds = time.perf_counter() - began
    _log(options, note)
    info = {"senses_from": origin, "network_nodes": form.n_nodes, "dropped_relations":
            problem.n_relations - form.kept.size}
    if z is None:
        status = Status.INFEASIBLE if note == "infeasible" else Status.ERROR
        message = "no table with the senses chosen satisfies the relations, bounds and protection levels" \
            if status is Status.INFEASIBLE else note
        return finish(problem, METHOD_L1, status, None, started=started, build_seconds=build_seconds,
                      solve_seconds=solve_seconds, senses=senses, message=message, log=note, info=info)
    values = np.clip(problem.values + z, problem.lower, problem.upper)
    objective = float(problem.weights @ np.abs(z))
    _report(options, started, objective)
    return finish(problem, METHOD_L1, Status.OPTIMAL, values, started=started, build_seconds=build_seconds,
                  solve_seconds=solve_seconds, senses=senses, model_objective=objective, bound=objective,
                  gap=0.0, log=note, info=info)


def least_squares_deviations(problem: CTAProblem, lower: np.ndarray, upper: np.ndarray,
                             options: SolveOptions) -> tuple[np.ndarray | None, str]:
    """argmin sum w z^2 s.t. A z = d, lower <= z <= upper, by semismooth Newton on the dual.

    The dual variable pi (one per relation) gives z(pi) = clip(A^T pi / (2 w), lower, upper);
    the dual g(pi) = pi.d + sum(w z^2 - (A^T pi) z) is concave with gradient d - A z(pi).
    Returns None when the weights have zeros or the iteration does not converge.
    """
    weights = problem.weights
    if np.any(weights <= 0):
        return None, "the L2 dual needs positive weights"
    A = problem.relations.tocsr()
    At = A.T.tocsr()
    d = problem.deviation_rhs
    row_scale = abs(A) @ np.maximum(np.abs(problem.values), 1.0)
    half_inverse = 0.5 / weights
    pi = np.zeros(A.shape[0])

    def primal(p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        t = At @ p
        return np.clip(t * half_inverse, lower, upper), t

    def dual(p: np.ndarray, z: np.ndarray, t: np.ndarray) -> float:
        return float(p @ d + weights @ (z * z) - t @ z)

    z, t = primal(pi)
    value = dual(pi, z, t)
    for iteration in range(L2_MAX_ITERATIONS):
        residual = d - A @ z
        worst = float(np.max(np.abs(residual) / row_scale, initial=0.0))
        if worst <= L2_TOLERANCE:
            return z, f"L2 dual Newton: {iteration} iterations, relative residual {worst:.1e}"
        if options.cancelled():
            return None, "cancelled"
        free = (z > lower) & (z < upper)
        A_free = A[:, np.flatnonzero(free)]
        hessian = (A_free * half_inverse[free]) @ A_free.T
        step = _newton_step(sp.csr_array(hessian), residual)
        length = 1.0
        while length > 1e-12:
            trial = pi + length * step
            z_new, t_new = primal(trial)
            new_value = dual(trial, z_new, t_new)
            if new_value >= value + 1e-4 * length * float(residual @ step):
                break
            length *= 0.5
        pi, z, t, value = trial, z_new, t_new, new_value
    return None, f"L2 dual Newton did not converge in {L2_MAX_ITERATIONS} iterations"


def _newton_step(hessian: sp.csr_array, gradient: np.ndarray) -> np.ndarray:
    """Solve (H + delta I) s = gradient; H is a weighted graph Laplacian, singular on redundancies."""
    m = hessian.shape[0]
    diagonal = hessian.diagonal()
    delta = 1e-10 * max(float(diagonal.max(initial=0.0)), 1e-300)
    regular = np.where(diagonal > 0, diagonal, 1.0)
    if m <= DENSE_LIMIT:
        dense = hessian.toarray()
        dense[np.diag_indices(m)] += delta + (diagonal <= 0) * 1.0
        try:
            return scipy.linalg.cho_solve(scipy.linalg.cho_factor(dense, check_finite=False), gradient,
                                          check_finite=False)
        except np.linalg.LinAlgError:
            return scipy.linalg.lstsq(dense, gradient, check_finite=False)[0]
    shifted = hessian + sp.diags_array(delta + (diagonal <= 0) * 1.0)
    preconditioner = sp.diags_array(1.0 / regular)
    step, _ = spla.cg(shifted, gradient, rtol=1e-12, maxiter=500, M=preconditioner)
    return step


def solve_network_l2(problem: CTAProblem, options: SolveOptions = SolveOptions(),
                     senses: np.ndarray | None = None) -> CTAResult:
    """Fixed-sense L2 CTA (Petrenko 2017, paper 003, the QP (5.11)) by Newton on its dual.

    Any relation matrix works; it is fast when the relations are few compared with
    the cells (2-D and 1H2D tables).  model_objective is sum w (x - a)^2.
    """
    started = time.perf_counter()
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
        status = Status.CANCELLED if note == "cancelled" else Status.ERROR
        return finish(problem, METHOD_L2, status, None, started=started, build_seconds=build_seconds,
                      solve_seconds=solve_seconds, senses=senses, message=note, log=note, info=info)
    values = np.clip(problem.values + z, problem.lower, problem.upper)
    _report(options, started, float(problem.weights @ np.abs(z)))
    return finish(problem, METHOD_L2, Status.OPTIMAL, values, started=started, build_seconds=build_seconds,
                  solve_seconds=solve_seconds, senses=senses,
                  model_objective=float(problem.weights @ (z * z)), log=note, info=info)


def _log(options: SolveOptions, line: str) -> None:
    if options.on_log is not None:
        options.on_log(line)


def _report(options: SolveOptions, started: float, objective: float) -> None:
    if options.on_progress is not None:
        options.on_progress(Progress(time.perf_counter() - started, objective=objective, bound=objective,
                                     gap=0.0, message="fixed-sense optimum"))
