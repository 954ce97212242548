"""Hypothesis strategies for count tables and decomposable releases, and a brute-force
enumeration of the integer tables a release allows (the tests' independent checker)."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import strategies as st

from ctadesk.engine.releases import CountTable, Release
from ctadesk.engine.releases.marginals import marginal_constraints


@st.composite
def count_tables(draw, max_axes: int = 4, max_categories: int = 3, max_count: int = 4) -> CountTable:
    """Small tables of small counts (so that many cells are at risk)."""
    n_axes = draw(st.integers(2, max_axes))
    shape = tuple(draw(st.lists(st.integers(2, max_categories), min_size=n_axes, max_size=n_axes)))
    cells = int(np.prod(shape))
    counts = draw(st.lists(st.integers(0, max_count), min_size=cells, max_size=cells))
    return CountTable(np.array(counts).reshape(shape), [f"V{a}" for a in range(n_axes)])


@st.composite
def decomposable_releases(draw, n_axes: int) -> Release:
    """A decomposable release: attributes joined one by one to a random clique of those before
    (a perfect elimination order read backwards, so the graph is chordal), some left out."""
    present = [a for a in draw(st.permutations(range(n_axes))) if draw(st.booleans()) or a == 0]
    cliques: list[frozenset[int]] = []
    for position, axis in enumerate(present):
        earlier = cliques and draw(st.sampled_from(cliques))
        keep = frozenset(v for v in (earlier or ()) if draw(st.booleans())) if position else frozenset()
        cliques.append(keep | {axis})
    return Release.of(n_axes, cliques)


def enumerate_tables(table: CountTable, release: Release) -> np.ndarray:
    """Every non-negative integer table (flat) with the released marginals of ``table``."""
    constraints = marginal_constraints(table, release)
    n_cells, total = table.counts.size, table.total
    bars = np.array(list(itertools.combinations(range(total + n_cells - 1), n_cells - 1)))   # stars and bars
    edges = np.hstack([np.full((bars.shape[0], 1), -1), bars, np.full((bars.shape[0], 1), total + n_cells - 1)])
    candidates = np.diff(edges, axis=1) - 1
    consistent = np.all(constraints.rhs == (constraints.matrix @ candidates.T).T, axis=1)
    return candidates[consistent]
