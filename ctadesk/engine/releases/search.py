"""The search for an optimal release: max DU(R) subject to DR(R) >= alpha (Karr, Dobra & Sanil (undated),
"Optimization formulation"), over all releases or over decomposable ones only
("Alternative 1", where the paper uses simulated annealing).

Exact search is best-first from the full table down the lattice of releases: a release's
children are the releases one step smaller (all releases: one frontier sub-table withdrawn;
decomposable releases: one edge or one isolated attribute of the model's graph withdrawn, which
reaches every decomposable release, as any chordal graph is reached from a larger one by
deleting edges one at a time through chordal graphs).  Utility never grows and DR never shrinks
down the lattice, so the first release popped that meets alpha is optimal; the ones of the same
utility popped after it are reported with it.  When the lattice is too large for the evaluation
budget, the decomposable search continues by simulated annealing over decomposable releases.
"""

from __future__ import annotations

import dataclasses
import heapq
import itertools
import math

import numpy as np

from ctadesk.engine.releases.decomposable import edges_of, graph_release, is_decomposable
from ctadesk.engine.releases.release import Release
from ctadesk.engine.releases.risk import DEFAULT_THRESHOLD, BoundsMethod, Utility, meets, subtables_released
from ctadesk.engine.releases.table import CountTable
from ctadesk.engine.settings import MAX_EVALUATIONS

#: MAX_EVALUATIONS (ctadesk.engine.settings): releases whose risk an exact search may evaluate
#: before it gives up (or anneals)


@dataclasses.dataclass(frozen=True)
class SearchResult:
    """releases     the best releases found (all of the optimal utility when ``exact``)
    utility      their utility
    exact        True when the search proved them optimal
    evaluations  how many releases had their risk evaluated"""

    releases: tuple[Release, ...]
    utility: float
    exact: bool
    evaluations: int


def _decomposable_children(release: Release) -> list[Release]:
    """Decomposable releases one edge or one isolated attribute smaller (nothing below the grand total)."""
    if release.frontier == {frozenset()}:
        return [Release(release.n_axes, frozenset())]
    steps = [*edges_of(release), *(top for top in release.frontier if len(top) == 1)]
    children = (release.withdrawing(step) for step in steps)
    return [child for child in children if is_decomposable(child)]


def _best_first(table: CountTable, alpha: float, threshold: int, utility: Utility, method: BoundsMethod,
                decomposable: bool, max_evaluations: int) -> SearchResult:
    cells = table.at_risk(threshold)
    top = Release.everything(table.n_axes)
    tie = itertools.count()
    heap = [(-utility(table, top), next(tie), top)]
    seen = {top.frontier}
    found: list[Release] = []
    best = -math.inf
    evaluations = 0
    while heap and -heap[0][0] >= best:
        if evaluations >= max_evaluations:
            return SearchResult(tuple(found), best, False, evaluations)
        value, _, release = heapq.heappop(heap)
        evaluations += 1
        if meets(table, release, cells, alpha, method):
            found.append(release)
            best = -value
            continue
        children = _decomposable_children(release) if decomposable else list(release.below())
        for child in children:
            if child.frontier not in seen:
                seen.add(child.frontier)
                heapq.heappush(heap, (-utility(table, child), next(tie), child))
    return SearchResult(tuple(found), best, True, evaluations)


def optimal_release(table: CountTable, alpha: float, threshold: int = DEFAULT_THRESHOLD,
                    utility: Utility = subtables_released, method: BoundsMethod = "lp",
                    max_evaluations: int = MAX_EVALUATIONS) -> SearchResult:
    """The releases of largest utility with DR(R) >= alpha among all releases (best-first; LP
    bounds by default, ``method`` 'integer' for integer bounds).  Not exact when the budget ran
    out first (then holds what was found, possibly nothing)."""
    return _best_first(table, alpha, threshold, utility, method, False, max_evaluations)


def _anneal(table: CountTable, alpha: float, threshold: int, utility: Utility, iterations: int,
            seed: int | None, start_temperature: float) -> SearchResult:
    """Simulated annealing over decomposable releases meeting alpha: a move adds or withdraws
    one edge or one attribute of the model's graph; moves to releases that are not decomposable
    or do not meet alpha are refused, the others taken with the Metropolis rule on utility."""
    rng = np.random.default_rng(seed)
    cells = table.at_risk(threshold)
    n = table.n_axes
    ones = Release.of(n, [{a} for a in range(n)])
    current = next((r for r in (ones, Release.of(n, [()])) if meets(table, r, cells, alpha)),
                   Release(n, frozenset()))
    current_value = utility(table, current)
    best, best_value = current, current_value
    evaluations = 0
    for step in range(iterations):
        temperature = start_temperature * (0.001 ** (step / max(iterations - 1, 1)))
        u, v = (int(x) for x in rng.choice(n, size=2, replace=True))
        vertices, edges = set(current.axes()), set(edges_of(current))
        if u == v:
            vertices ^= {u}
            edges = {e for e in edges if u not in e} if u not in vertices else edges
        else:
            vertices |= {u, v}
            edges ^= {frozenset((u, v))}
        candidate = graph_release(n, vertices, edges)
        if candidate.frontier == current.frontier or not is_decomposable(candidate):
            continue
        value = utility(table, candidate)
        if value < current_value and rng.random() >= math.exp((value - current_value) / temperature):
            continue
        evaluations += 1
        if not meets(table, candidate, cells, alpha):
            continue
        current, current_value = candidate, value
        if value > best_value:
            best, best_value = candidate, value
    return SearchResult((best,), best_value, False, evaluations)


def decomposable_release(table: CountTable, alpha: float, threshold: int = DEFAULT_THRESHOLD,
                         utility: Utility = subtables_released, max_evaluations: int = MAX_EVALUATIONS,
                         iterations: int = 20000, seed: int | None = None,
                         start_temperature: float = 2.0) -> SearchResult:
    """The decomposable releases of largest utility with DR(R) >= alpha (Fréchet bounds):
    exact best-first while it stays within ``max_evaluations``, else simulated annealing for
    ``iterations`` moves (Karr, Dobra & Sanil (undated), "Alternative 1")."""
    exact = _best_first(table, alpha, threshold, utility, "frechet", True, max_evaluations)
    if exact.exact:
        return exact
    annealed = _anneal(table, alpha, threshold, utility, iterations, seed, start_temperature)
    evaluations = exact.evaluations + annealed.evaluations
    if exact.releases and exact.utility >= annealed.utility:
        return SearchResult(exact.releases, exact.utility, False, evaluations)
    return SearchResult(annealed.releases, annealed.utility, False, evaluations)
