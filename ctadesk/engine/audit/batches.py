"""Batches of cells that share no relation (an independent set, by Luby's randomised rounds).

Two cells of one relation pull against each other when both are pushed to an end (the other
cells of a relation must sit at their bounds for a cell to reach its propagated bound), so a
batch optimised together (lp.BatchLP) holds at most one cell of each relation.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp


def independent_batch(matrix: sp.csc_array, columns: np.ndarray, rng: np.random.Generator,
                      pool: int | None = None) -> np.ndarray:
    """A maximal subset of ``columns`` of which no two share a row of ``matrix`` (CSC); with
    ``pool``, maximal among that many of them drawn at random (each round of Luby's method costs
    a pass over the columns it is given: on the 1000 x 1000 Cox table a batch among all 300 000
    sensitive cells took 0.1 s, a batch has at most one cell per row, and a pool of some twenty
    cells per row still gives batches of nearly one cell per row and column)."""
    used = np.zeros(matrix.shape[0], bool)
    chosen: list[np.ndarray] = []
    remaining = np.asarray(columns)
    if pool is not None and remaining.size > pool:
        remaining = np.sort(rng.choice(remaining, pool, replace=False))
    while remaining.size:
        starts, stops = matrix.indptr[remaining], matrix.indptr[remaining + 1]
        owner = np.repeat(np.arange(remaining.size), stops - starts)
        rows = matrix.indices[_ranges(starts, stops)]
        blocked = np.zeros(remaining.size, bool)
        np.logical_or.at(blocked, owner, used[rows])
        remaining, keep = remaining[~blocked], ~blocked[owner]
        owner, rows = np.cumsum(~blocked)[owner[keep]] - 1, rows[keep]
        priority = rng.permutation(remaining.size).astype(float)
        best = np.full(matrix.shape[0], np.inf)
        np.minimum.at(best, rows, priority[owner])
        lost = np.zeros(remaining.size, bool)
        np.logical_or.at(lost, owner, best[rows] < priority[owner])
        chosen.append(remaining[~lost])
        used[rows[~lost[owner]]] = True
        remaining = remaining[lost]
    return np.concatenate(chosen) if chosen else np.zeros(0, np.int64)


def _ranges(starts: np.ndarray, stops: np.ndarray) -> np.ndarray:
    """The concatenation of range(start, stop) for each pair, vectorised."""
    lengths = stops - starts
    offsets = np.repeat(starts - np.concatenate([[0], np.cumsum(lengths)[:-1]]), lengths)
    return np.arange(lengths.sum()) + offsets
