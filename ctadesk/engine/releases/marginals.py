"""The linear constraints a release puts on the full table, without redundant rows.

These equations define the tables consistent with a release R over which Karr, Dobra & Sanil (undated) takes
UB(C, R) and LB(C, R) ("OTR components", DR).  The released marginals overlap (two frontier
tables share the marginals below both), so their cells are linearly dependent.  A basis of
the same equations: for every released sub-table S (the whole down-closure), the cells of the
marginal over S whose categories are all but the last of each axis.  A marginal cell with a last
category is its parent marginal's cell less the sibling cells (n_S(i, last) = n_{S-a}(i) -
sum_{j<last} n_S(i, j)), so these rows span every released count; and, read as indicator
functions of sub-cubes, rows of distinct S are independent (Möbius inversion).  There are
sum_S prod_{a in S} (d_a - 1) of them, the number of free parameters of the hierarchical model.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

import numpy as np
import scipy.sparse as sp

from ctadesk.engine.releases.release import Release
from ctadesk.engine.releases.table import CountTable, Subtable


@dataclasses.dataclass(frozen=True, eq=False)
class MarginalConstraints:
    """matrix  (rows, cells) 0/1 CSR matrix: row r sums the full-table cells below marginal cell r
    rhs     the released counts, one per row
    """

    matrix: sp.csr_matrix
    rhs: np.ndarray


def _basis_rows(table: CountTable, subtable: Subtable) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The basis rows of one sub-table: (row of each entry, cell of each entry, rhs per row)."""
    axes = sorted(subtable)
    shape = table.shape
    reduced = tuple(shape[a] - 1 for a in axes)
    counts = table.marginal(axes)[tuple(slice(0, d) for d in reduced)].reshape(-1).astype(float)
    if not axes:
        return np.zeros(table.counts.size, np.int64), np.arange(table.counts.size), counts
    grid = np.indices(shape).reshape(len(shape), -1)[axes]
    cells = np.flatnonzero(np.all(grid < np.array(reduced)[:, None], axis=0))
    return np.asarray(np.ravel_multi_index(grid[:, cells], reduced)), cells, counts


def basis_constraints(table: CountTable, subtables: Iterable[Subtable]) -> MarginalConstraints:
    """The basis rows of ``subtables`` (each sub-table's own rows only, not those below it)."""
    rows, cols, rhs, offset = [], [], [], 0
    for subtable in sorted(subtables, key=lambda s: (len(s), sorted(s))):
        row, col, counts = _basis_rows(table, subtable)
        rows.append(row + offset)
        cols.append(col)
        rhs.append(counts)
        offset += counts.size
    if not rows:
        return MarginalConstraints(sp.csr_matrix((0, table.counts.size)), np.zeros(0))
    row, col = np.concatenate(rows), np.concatenate(cols)
    matrix = sp.csr_matrix((np.ones(row.size), (row, col)), shape=(offset, table.counts.size))
    return MarginalConstraints(matrix, np.concatenate(rhs))


def marginal_constraints(table: CountTable, release: Release) -> MarginalConstraints:
    """The equations of ``release`` over ``table``'s cells: basis rows of every released sub-table."""
    return basis_constraints(table, release.subtables())
