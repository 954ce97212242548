"""Random test tables: the Cox recipe (paper 004 §3) and the thesis's random tables."""

from __future__ import annotations

import numpy as np

from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.structure import TableStructure


def cox_table(shape: tuple[int, ...], seed: int = 0, zero_share: float = 0.10,
              sensitive_share: float = 0.30, protection: float = 0.20,
              capacity: float = 0.20, max_value: int = 1000) -> tuple[TableStructure, CTAProblem]:
    """A Cox-recipe table with margins (paper 004 §3).

    Inner values uniform on 1..max_value, zero_share of them set to 0;
    sensitive_share of the inner cells (chosen among the non-zero ones) are
    sensitive with protection levels protection * value both ways; every cell
    may move by at most capacity * value (so zero cells stay zero).
    """
    rng = np.random.default_rng(seed)
    structure = TableStructure.flat(*shape)
    inner_mask = structure.inner_mask()
    inner = np.flatnonzero(inner_mask)
    raw = np.zeros(structure.n_cells)
    raw[inner] = rng.integers(1, max_value + 1, inner.size)
    zeros = rng.choice(inner, size=int(round(zero_share * inner.size)), replace=False)
    raw[zeros] = 0.0
    values = structure.aggregate(raw)
    candidates = inner[values[inner] > 0]
    n_sensitive = min(candidates.size, int(round(sensitive_share * inner.size)))
    sensitive = np.sort(rng.choice(candidates, size=n_sensitive, replace=False))
    levels = protection * values[sensitive]
    problem = CTAProblem(
        values=values,
        relations=structure.relations(),
        lower=values * (1 - capacity),
        upper=values * (1 + capacity),
        sensitive=sensitive,
        lower_protection=levels,
        upper_protection=levels,
        cell_label=structure.cell_label,
        relation_label=structure.relation_label,
    )
    return structure, problem
