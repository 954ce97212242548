"""Decomposable releases: the test, and the cliques and separators of one.

Karr, Dobra & Sanil (undated), ("Alternative 1: decomposable models") restricts releases to those whose frontier is
the set of cliques of a decomposable graphical model, where bounds have a closed form.  A
release is decomposable when its frontier, read as a hypergraph, is acyclic (conformal with a
chordal 2-section graph).  The test is Tarjan & Yannakakis' (1984) maximum cardinality search
over the hyperedges: take next the frontier sub-table with most attributes already seen; the
hypergraph is acyclic iff each one's intersection with those before it (its separator) lies in
a single earlier one (the running intersection property).  The order found is then a perfect
sequence of cliques, and its separators are the ones of the Fréchet bounds (frechet.py).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from ctadesk.engine.releases.release import Release
from ctadesk.engine.releases.table import Subtable


@dataclasses.dataclass(frozen=True)
class PerfectSequence:
    """cliques     the frontier in a perfect order
    separators  separators[j] = cliques[j] & (cliques[0] | ... | cliques[j-1]), for j >= 1
                (may be empty: the grand total separates unconnected parts)"""

    cliques: tuple[Subtable, ...]
    separators: tuple[Subtable, ...]


def perfect_sequence(frontier: Iterable[Iterable[int]]) -> PerfectSequence | None:
    """A perfect sequence of the (maximal) sub-tables ``frontier``, or None when they are not
    decomposable (maximum cardinality search, then the running intersection check)."""
    remaining = sorted({frozenset(s) for s in frontier}, key=lambda s: (-len(s), sorted(s)))
    seen: frozenset[int] = frozenset()
    cliques: list[Subtable] = []
    separators: list[Subtable] = []
    while remaining:
        chosen = max(remaining, key=lambda s: len(s & seen))      # first of the ties: deterministic
        remaining.remove(chosen)
        separator = chosen & seen
        if cliques and not any(separator <= earlier for earlier in cliques):
            return None
        if cliques:
            separators.append(separator)
        cliques.append(chosen)
        seen |= chosen
    return PerfectSequence(tuple(cliques), tuple(separators))


def is_decomposable(release: Release) -> bool:
    """True when ``release``'s frontier is the clique set of a decomposable (chordal) model."""
    return perfect_sequence(release.frontier) is not None


def maximal_cliques(vertices: Iterable[int], edges: Iterable[Iterable[int]]) -> frozenset[Subtable]:
    """The maximal cliques of the graph (Bron–Kerbosch with pivoting); isolated vertices are
    cliques of their own."""
    neighbours: dict[int, set[int]] = {v: set() for v in vertices}
    for u, v in (tuple(e) for e in edges):
        neighbours[u].add(v)
        neighbours[v].add(u)
    found: list[Subtable] = []

    def extend(clique: set[int], candidates: set[int], excluded: set[int]) -> None:
        if not candidates and not excluded:
            found.append(frozenset(clique))
            return
        pivot = max(candidates | excluded, key=lambda v: len(neighbours[v] & candidates))
        for v in sorted(candidates - neighbours[pivot]):
            extend(clique | {v}, candidates & neighbours[v], excluded & neighbours[v])
            candidates = candidates - {v}
            excluded = excluded | {v}

    extend(set(), set(neighbours), set())
    return frozenset(found)


def edges_of(release: Release) -> frozenset[frozenset[int]]:
    """The edges of the release's graph: pairs of attributes released together."""
    return frozenset(frozenset((u, v)) for top in release.frontier for u in top for v in top if u < v)


def graph_release(n_axes: int, vertices: Iterable[int], edges: Iterable[Iterable[int]]) -> Release:
    """The release of a graphical model: the maximal cliques of the graph (the grand total
    alone when it has no vertex)."""
    cliques = maximal_cliques(vertices, edges)
    return Release(n_axes, cliques or frozenset({frozenset()}))
