"""The Hybrid grouping heuristic and Hybrid-with-swaps (Cox 2005b, §3).

Free sensitive cells are sorted by value, largest first, and dealt into M
groups in turn; one binary per group decides the sense of all its cells, and
the MILP (2) with those ties is solved exactly.  The run is repeated with
M, M-1, ... groups while time allows and the best table kept.  With swaps,
cells are exchanged between groups while that lowers the total group score,
the number of pairs of cells in one group that share a relation (a total).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.result import CTAResult, SolveOptions
from ctadesk.engine.senses.common import SenseEvaluator, free_positions, grouped_milp
from ctadesk.engine.settings import GROUPS

#: Hybrid runs with M, M-1, ... down to this many groups
FEWEST_GROUPS = 9
SWAP_ROUNDS = 20
#: more free cells than this are not swapped (the score matrix is dense)
SWAP_LIMIT = 5000


def hybrid_groups(problem: CTAProblem, groups: int) -> np.ndarray:
    """Group label (s,) per sensitive cell: free cells by value rank modulo M (given ones: -1)."""
    labels = np.full(problem.n_sensitive, -1)
    free = free_positions(problem)
    order = free[np.lexsort((problem.sensitive[free], -problem.values[problem.sensitive[free]]))]
    labels[order] = np.arange(order.size) % groups
    return labels


def shared_relations(problem: CTAProblem) -> sp.csr_array:
    """(s x s) number of relations two sensitive cells share, zero diagonal."""
    incidence = sp.csc_array(abs(problem.relations))[:, problem.sensitive]
    incidence.data[:] = 1.0
    shared = sp.csr_array(incidence.T @ incidence)
    shared.setdiag(0)
    shared.eliminate_zeros()
    return shared


def swap_groups(problem: CTAProblem, labels: np.ndarray, rounds: int = SWAP_ROUNDS) -> np.ndarray:
    """Exchange pairs of cells between groups while the total group score drops (Cox 2005b, §3)."""
    labels = labels.copy()
    free = np.flatnonzero(labels >= 0)
    if free.size < 2:
        return labels
    groups = int(labels.max()) + 1
    if free.size > SWAP_LIMIT:
        return labels
    shared = shared_relations(problem)[free][:, free].toarray()
    own = labels[free]
    for _ in range(rounds):
        conflicts = shared @ np.eye(groups)[own]                 # (f x M): neighbours of each cell per group
        here = conflicts[np.arange(free.size), own]
        improved = False
        for cell in np.argsort(-here):
            gains = here[cell] - conflicts[cell]                 # moving cell to each group
            target = int(np.argmax(gains))
            if gains[target] <= 0:
                continue
            partners = np.flatnonzero(own == target)
            if not partners.size:
                continue
            partner_gain = conflicts[partners, target] - conflicts[partners, own[cell]] - 2 * shared[partners, cell]
            best = int(np.argmax(partner_gain))
            if gains[target] + partner_gain[best] <= 0:
                continue
            other = partners[best]
            own[cell], own[other] = own[other], own[cell]
            conflicts = shared @ np.eye(groups)[own]
            here = conflicts[np.arange(free.size), own]
            improved = True
        if not improved:
            break
    labels[free] = own
    return labels


def group_score(problem: CTAProblem, labels: np.ndarray) -> int:
    """Pairs of cells in one group that share a relation, summed over the groups."""
    free = np.flatnonzero(labels >= 0)
    shared = shared_relations(problem)[free][:, free].tocoo()
    return int((labels[free][shared.row] == labels[free][shared.col]).sum() // 2)


def solve_hybrid(problem: CTAProblem, options: SolveOptions = SolveOptions(), groups: int = GROUPS,
                 swaps: bool = False) -> CTAResult:
    """The best Hybrid table over M = groups, groups-1, ..., FEWEST_GROUPS (while time allows)."""
    method = "hybrid-swaps" if swaps else "hybrid"
    evaluator = SenseEvaluator(problem, options, method)
    runs = 0
    for count in range(groups, min(groups, FEWEST_GROUPS) - 1, -1):
        if evaluator.budget.over():
            break
        labels = hybrid_groups(problem, count)
        if swaps:
            labels = swap_groups(problem, labels)
        outcome = grouped_milp(problem, labels, evaluator.part(fraction=1.0 / max(1, count - FEWEST_GROUPS + 1)))
        runs += 1
        if outcome.senses is not None:
            evaluator(outcome.senses)
    return evaluator.result(info={"hybrid_runs": runs})


def solve_hybrid_swaps(problem: CTAProblem, options: SolveOptions = SolveOptions(),
                       groups: int = GROUPS) -> CTAResult:
    """Hybrid-with-swaps (Cox 2005b, §3)."""
    return solve_hybrid(problem, options, groups, swaps=True)
