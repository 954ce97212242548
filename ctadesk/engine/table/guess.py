"""The layout of a table given only by its relations (a JJ file carries none): the flat 2-D or
3-D table with margins whose relations they are, else a list of cells."""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp

from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.table.structure import Dimension, TableStructure


def _row_signatures(relations: sp.csr_array, probes: np.ndarray) -> np.ndarray:
    """Two random projections per row, sorted: equal for equal sets of rows."""
    return _sorted_signatures(np.asarray(relations @ probes))


def _flat_signatures(shape: tuple[int, ...], probes: np.ndarray) -> np.ndarray:
    """_row_signatures of the flat table of ``shape`` (totals last), from the probes alone: a
    relation of dimension d adds the cells before the total along d and takes away the total,
    so its projection is the same sum of the probes, without the table's matrix being built."""
    table = probes.reshape(*shape, probes.shape[1])
    rows = [(np.moveaxis(table, d, 0)[:-1].sum(axis=0) - np.moveaxis(table, d, 0)[-1]).reshape(-1, probes.shape[1])
            for d in range(len(shape))]
    return _sorted_signatures(np.concatenate(rows))


def _sorted_signatures(signatures: np.ndarray) -> np.ndarray:
    """Projections of rows, each signed so its first is positive, rounded and sorted."""
    signatures = np.round(signatures * np.sign(signatures[:, :1] + (signatures[:, :1] == 0)), 6)
    return signatures[np.lexsort(signatures.T[::-1])]


def _factorisations(n: int, parts: int) -> list[tuple[int, ...]]:
    """Ordered ways of writing n as a product of parts factors, each at least 2."""
    if parts == 1:
        return [(n,)] if n >= 2 else []
    small = [d for d in range(2, math.isqrt(n) + 1) if n % d == 0]
    divisors = sorted(set(small) | {n // d for d in small})
    return [(first, *rest) for first in divisors for rest in _factorisations(n // first, parts - 1)]


def guess_structure(problem: CTAProblem) -> TableStructure:
    """The flat 2-D or 3-D table (totals last) whose relations are problem's, if one is;
    otherwise a list of cells, one per row.

    JJ files carry no layout; this recognises the common case of a table with
    margins so it can be shown as a grid.  Rows are compared up to order and sign
    by two random projections each, on probes uniform in [0, 1) (drawn three times as fast as
    normal ones; any continuous distribution tells distinct rows apart).
    """
    n = problem.n_cells
    probes = np.random.default_rng(0).random((n, 2))
    target = _row_signatures(problem.relations, probes) if problem.n_relations else None
    if target is not None:
        for parts in (2, 3):
            for shape in _factorisations(n, parts):
                if sum(n // size for size in shape) != problem.n_relations:
                    continue
                if problem.relations.nnz != len(shape) * n:
                    continue
                if np.allclose(_flat_signatures(shape, probes), target, rtol=1e-9, atol=1e-6):
                    return TableStructure.flat(*(size - 1 for size in shape))
    codes = [problem.cell_label(i) if problem.cell_label else str(i) for i in range(n)] if n <= 200_000 \
        else [str(i) for i in range(n)]
    if len(set(codes)) != n:
        codes = [str(i) for i in range(n)]
    return TableStructure((Dimension("Cell", tuple(codes), np.full(n, -1)),))
