"""A feasible start for the senses, SAT-style (Castro & González 2011, §3).

From each relation, interval arithmetic finds sense choices the relation
cannot balance: one cell's sense (a unit clause) or a pair's (a binary clause
"not both").  The clauses form a 2-SAT problem, solved exactly through the
strongly connected components of its implication graph; cells named in no
clause keep the ordering heuristic's sense.  Avoiding these combinations is
necessary, not sufficient, for feasibility; the clauses can also serve as cuts.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import scipy.sparse as sp

from ctadesk.engine.problem import SENSE_DOWN, SENSE_FREE, SENSE_UP, CTAProblem
from ctadesk.engine.result import CTAResult, SolveOptions
from ctadesk.engine.senses.ordering import ordering_senses
from ctadesk.engine.solvers.network import sense_bounds
from ctadesk.engine.solvers.propagation import propagated_deviation_bounds

#: relations with more free sensitive cells than this are searched for unit clauses only
PAIR_LIMIT = 60
TOLERANCE = 1e-9


def infeasible_combinations(problem: CTAProblem) -> tuple[np.ndarray, np.ndarray]:
    """Clauses as literal pairs (a, b) meaning "not (a and b)"; a literal is 2k (cell k up) or
    2k + 1 (down); a == b is a unit clause "not a"."""
    free = np.flatnonzero(problem.effective_senses == SENSE_FREE)
    position = np.full(problem.n_cells, -1)
    position[problem.sensitive[free]] = free
    fixed_lower, fixed_upper = sense_bounds(problem, problem.effective_senses)
    implied_lower, implied_upper = propagated_deviation_bounds(problem)
    lower, upper = np.maximum(fixed_lower, implied_lower), np.minimum(fixed_upper, implied_upper)
    state_lower = np.stack([np.maximum(problem.upper_protection, lower[problem.sensitive]),
                            lower[problem.sensitive]], axis=1)                         # up, down
    state_upper = np.stack([upper[problem.sensitive],
                            np.minimum(-problem.lower_protection, upper[problem.sensitive])], axis=1)
    A = problem.relations.tocsr()
    d = problem.deviation_rhs
    clauses: list[tuple[int, int]] = []
    for r in range(problem.n_relations):
        cols = A.indices[A.indptr[r]:A.indptr[r + 1]]
        coef = A.data[A.indptr[r]:A.indptr[r + 1]]
        low = np.where(coef > 0, coef * lower[cols], coef * upper[cols])
        high = np.where(coef > 0, coef * upper[cols], coef * lower[cols])
        if not (np.isfinite(low).all() and np.isfinite(high).all()):
            continue
        total_low, total_high = low.sum(), high.sum()
        tol = TOLERANCE * max(1.0, np.abs(high).sum())
        inner = np.flatnonzero(position[cols] >= 0)
        if not inner.size:
            continue
        k = position[cols[inner]]
        c = coef[inner][:, None]
        s_low = np.where(c > 0, c * state_lower[k], c * state_upper[k])        # (q, 2)
        s_high = np.where(c > 0, c * state_upper[k], c * state_lower[k])
        rest_low = total_low - low[inner][:, None]
        rest_high = total_high - high[inner][:, None]
        bad = (rest_low + s_low > d[r] + tol) | (rest_high + s_high < d[r] - tol)
        for q, state in zip(*np.nonzero(bad)):
            literal = 2 * int(k[q]) + int(state)
            clauses.append((literal, literal))
        if inner.size > PAIR_LIMIT:
            continue
        qa, qb = np.triu_indices(inner.size, 1)
        for sa in (0, 1):
            for sb in (0, 1):
                pair_low = total_low - low[inner][qa] - low[inner][qb] + s_low[qa, sa] + s_low[qb, sb]
                pair_high = total_high - high[inner][qa] - high[inner][qb] + s_high[qa, sa] + s_high[qb, sb]
                hit = np.flatnonzero((pair_low > d[r] + tol) | (pair_high < d[r] - tol))
                clauses.extend((2 * int(k[qa[h]]) + sa, 2 * int(k[qb[h]]) + sb) for h in hit)
    if not clauses:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    pairs = np.unique(np.array(clauses, np.int64), axis=0)
    return pairs[:, 0], pairs[:, 1]


def sat_senses(problem: CTAProblem) -> np.ndarray | None:
    """Senses avoiding every detected infeasible combination; None when none exist (2-SAT unsatisfiable).
    scipy.sparse.csgraph is loaded here, on a first 2-SAT start: it brings scipy.linalg, which a
    solve that never needs the start (every small MILP) would load for nothing."""
    import scipy.sparse.csgraph as csgraph

    senses = ordering_senses(problem)
    a, b = infeasible_combinations(problem)
    if not a.size:
        return senses
    s = problem.n_sensitive
    # "not (a and b)" = (not a or not b): edges a -> not b and b -> not a (not x = x ^ 1)
    graph = sp.csr_array((np.ones(2 * a.size), (np.concatenate([a, b]), np.concatenate([b ^ 1, a ^ 1]))),
                         shape=(2 * s, 2 * s))
    _, component = csgraph.connected_components(graph, directed=True, connection="strong")
    if np.any(component[0::2] == component[1::2]):
        return None
    order = _topological_rank(graph, component)
    involved = np.unique(np.concatenate([a, b]) // 2)
    up_later = order[component[2 * involved]] > order[component[2 * involved + 1]]
    senses[involved] = np.where(up_later, SENSE_UP, SENSE_DOWN)
    return senses


def starting_senses(problem: CTAProblem) -> Iterator[np.ndarray]:
    """Sense vectors worth a first fixed-sense solve, best guess first: the ordering heuristic's,
    then (computed only when asked for) the 2-SAT start's.  The MILP takes its big-M from the
    first that gives a table (solvers/milp.big_m)."""
    yield ordering_senses(problem)
    senses = sat_senses(problem)
    if senses is not None:
        yield senses


def _topological_rank(graph: sp.csr_array, component: np.ndarray) -> np.ndarray:
    """Rank of each strong component in a topological order of the condensed graph (Kahn, by levels)."""
    count = int(component.max()) + 1
    coo = graph.tocoo()
    keep = component[coo.row] != component[coo.col]
    condensed = sp.csr_array((np.ones(int(keep.sum())), (component[coo.row[keep]], component[coo.col[keep]])),
                             shape=(count, count))
    condensed.sum_duplicates()
    indegree = np.diff(condensed.tocsc().indptr).astype(np.int64)
    rank = np.full(count, -1)
    current = np.flatnonzero(indegree == 0)
    level = 0
    while current.size:
        rank[current] = level + np.arange(current.size)
        level += current.size
        targets = condensed[current].indices if current.size else np.zeros(0, np.int64)
        np.subtract.at(indegree, targets, 1)
        nxt = np.unique(targets[indegree[targets] == 0])
        current = nxt[rank[nxt] < 0]
    return rank


def solve_sat_lp(problem: CTAProblem, options: SolveOptions = SolveOptions()) -> CTAResult:
    """Fixed-sense L1 CTA with the SAT senses; the soft LP when those senses still admit no table."""
    from ctadesk.engine.senses.common import SenseEvaluator
    from ctadesk.engine.solvers.soft import solve_soft_lp

    senses = sat_senses(problem)
    if senses is None:
        senses = ordering_senses(problem)
    evaluator = SenseEvaluator(problem, options, "sat-lp")
    evaluator(senses)
    if evaluator.best is None:
        return solve_soft_lp(problem, options, senses)
    return evaluator.result()
