"""Closed-form bounds of a decomposable release (Fréchet bounds).

Karr, Dobra & Sanil (undated), ("Alternative 1: decomposable models": "bounds computable explicitly"); the formulas
are Dobra & Fienberg's (2000) for a decomposable model with cliques C_1..C_k and separators
S_2..S_k of a perfect sequence: for every cell x,

    UB(x) = min_j n_{C_j}(x),        LB(x) = max(0, sum_j n_{C_j}(x) - sum_j n_{S_j}(x)),

where n_S(x) is the released count of the marginal cell of S that x lies in (the grand total
for an empty separator).  Both are sharp, over integer and real tables alike.  An attribute
that no released sub-table holds leaves its categories free: a cell of a table where such an
attribute has two or more categories has lower bound 0.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from ctadesk.engine.errors import ProblemError
from ctadesk.engine.releases.decomposable import perfect_sequence
from ctadesk.engine.releases.linear_bounds import CellBounds
from ctadesk.engine.releases.release import Release
from ctadesk.engine.releases.table import CountTable, Subtable


def _spread(table: CountTable, subtable: Subtable) -> np.ndarray:
    """The marginal over ``subtable`` as a flat array over the full table's cells."""
    return np.broadcast_to(table.counts.sum(axis=tuple(a for a in range(table.n_axes) if a not in subtable),
                                            keepdims=True), table.shape).reshape(-1)


def frechet_bounds(table: CountTable, release: Release, cells: Iterable[int] | None = None) -> CellBounds:
    """The sharp bounds of ``cells`` (all when None) given the decomposable ``release``;
    ProblemError when the release is not decomposable."""
    chosen = np.arange(table.counts.size) if cells is None else np.asarray(list(cells), np.int64)
    if not release.frontier:
        return CellBounds(chosen, np.zeros(chosen.size), np.full(chosen.size, np.inf))
    sequence = perfect_sequence(release.frontier)
    if sequence is None:
        raise ProblemError("the release is not decomposable: its sub-tables are not the cliques of a chordal model")
    clique_counts = np.stack([_spread(table, c)[chosen] for c in sequence.cliques]).astype(float)
    separator_sum = sum((_spread(table, s)[chosen] for s in sequence.separators), np.zeros(chosen.size))
    upper = clique_counts.min(axis=0)
    free = any(table.shape[a] > 1 for a in range(table.n_axes) if a not in release.axes())
    lower = np.zeros(chosen.size) if free else np.maximum(0.0, clique_counts.sum(axis=0) - separator_sum)
    return CellBounds(chosen, lower, upper)
