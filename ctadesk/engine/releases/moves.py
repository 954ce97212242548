"""Widths proven without an LP: moves of counts that keep every released marginal.

For a sub-table S that a release R withholds (R is closed downward, so no released sub-table
holds S), pick for each attribute a of S a second category j_a beside the cell's own x_a.  The
move m that adds 1 to the cells agreeing with x outside S whose categories on S differ from x
in an even number of attributes (x itself among them), and takes 1 from those differing in an
odd number, sums to 0 over every marginal of a sub-table T not holding S: summing over an
attribute of S outside T cancels it (these are the basic moves of Diaconis & Sturmfels 1998,
which connect the tables with the same margins).  So n + t m is a table of whole counts
consistent with R for every whole t from -(smallest count where m = +1) to (smallest count
where m = -1), and the cell x ranges at least over that much:

    width(x) >= min_{m = +1} n + min_{m = -1} n,

for the LP bounds and the integer bounds alike (Karr, Dobra & Sanil (undated), "OTR components", UB - LB).  The
sub-tables S tried are the smallest R withholds (each of its sub-marginals released), the
categories j_a the most frequent ones besides x_a.  A cell proven at least alpha wide needs no
LP (ordered.py, risk.meets); the others are left to the LP, so the bounds stay exact.
"""

from __future__ import annotations

import itertools

import numpy as np

from ctadesk.engine.releases.release import Release
from ctadesk.engine.releases.table import CountTable

#: second categories tried per attribute of a move (the most frequent besides the cell's own)
ALTERNATIVES = 2
#: cells of one move times the category choices tried, per sub-table, at most this many
MOVE_BUDGET = 4096


def withheld_minimal(release: Release, n_axes: int) -> list[tuple[int, ...]]:
    """The sub-tables ``release`` withholds whose own sub-marginals it all releases, smallest
    first (bit masks over all 2^K sub-tables)."""
    masks = np.arange(1 << n_axes)
    released = np.zeros(masks.size, bool)
    for top in release.frontier:
        outside = sum(1 << a for a in range(n_axes) if a not in top)
        released |= (masks & outside) == 0
    minimal = ~released
    for a in range(n_axes):
        holds = (masks >> a) & 1 == 1
        minimal &= ~holds | released[masks ^ (1 << a)]
    found = [tuple(a for a in range(n_axes) if (m >> a) & 1) for m in np.flatnonzero(minimal)]
    return sorted(found, key=lambda s: (len(s), s))


def proven_widths(table: CountTable, release: Release, cells: np.ndarray, alpha: float) -> np.ndarray:
    """For each cell of ``cells`` (flat indices), a width its bounds under ``release`` have at
    least (module doc); moves are tried until the cell is proven ``alpha`` wide."""
    cells = np.asarray(cells, np.int64)
    widths = np.zeros(cells.size)
    if cells.size == 0:
        return widths
    counts = table.counts.reshape(-1)
    position = np.array(np.unravel_index(cells, table.shape)).T
    seconds = _second_categories(table)
    for subtable in withheld_minimal(release, table.n_axes):
        open_cells = np.flatnonzero(widths < alpha)
        if not open_cells.size:
            break
        widths[open_cells] = np.maximum(widths[open_cells],
                                        _subtable_widths(table, counts, position[open_cells], subtable, seconds))
    return widths


def _second_categories(table: CountTable) -> list[np.ndarray]:
    """Per attribute, for each category the others from the most to the least frequent."""
    seconds = []
    for a, size in enumerate(table.shape):
        order = np.argsort(-table.marginal([a]), kind="stable")
        seconds.append(np.array([[k for k in order if k != own] for own in range(size)], np.int64).reshape(size, -1))
    return seconds


def _subtable_widths(table: CountTable, counts: np.ndarray, position: np.ndarray, subtable: tuple[int, ...],
                     seconds: list[np.ndarray]) -> np.ndarray:
    """The widest move on ``subtable`` for each cell at ``position`` (cells x axes), trying as
    second categories the most frequent ones (``seconds``), fewer where the choices would pass
    MOVE_BUDGET."""
    axes = list(subtable)
    if not axes:
        return np.full(position.shape[0], np.inf)       # nothing released: a cell may grow freely
    if any(table.shape[a] < 2 for a in axes):
        return np.zeros(position.shape[0])              # an attribute of one category cannot move
    corners = np.array(list(itertools.product((0, 1), repeat=len(axes))), np.int64)
    plus = corners.sum(axis=1) % 2 == 0
    tried = ALTERNATIVES
    while tried > 1 and corners.shape[0] * tried ** len(axes) > MOVE_BUDGET:
        tried -= 1
    options = [seconds[a][position[:, a], :tried] for a in axes]
    best = np.zeros(position.shape[0])
    for choice in itertools.product(*(range(option.shape[1]) for option in options)):
        second = np.stack([option[:, k] for option, k in zip(options, choice)], axis=1)
        support = np.repeat(position[:, None, :], corners.shape[0], axis=1)
        support[:, :, axes] = np.where(corners[None] == 1, second[:, None, :], position[:, None, axes])
        values = counts[np.ravel_multi_index(tuple(np.moveaxis(support, 2, 0)), table.shape)]
        best = np.maximum(best, values[:, plus].min(axis=1) + values[:, ~plus].min(axis=1))
    return best
