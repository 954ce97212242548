"""Cells by their definition, the same in every table (Castro & González 2011, §4, consistency on output).

A cell is the set of records whose codes it names: ``Region=N1|Size=2`` is the same cell in
Region x Size, in Region x Size x Sector (at Sector's total) and in Size x Region.  Its key names
the spanning variables in name order and only those the cell is not at the total of, so one
cell has one key whichever table it appears in; ``|``, ``=`` and ``\\`` in names and codes are
escaped with ``\\``.  The grand total has the empty key.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping

import numpy as np

from ctadesk.engine.table.structure import Dimension, TableStructure

SEPARATOR = "|"
ASSIGN = "="
ESCAPE = "\\"


def _escaped(text: str) -> str:
    return "".join(ESCAPE + c if c in (SEPARATOR, ASSIGN, ESCAPE) else c for c in text)


def total_code(dimension: Dimension) -> int | None:
    """The position of the variable's total: its only root, when that root has sub-codes
    (None for a variable without a total, whose every code is a category of its own)."""
    roots = np.flatnonzero(dimension.parents < 0)
    if roots.size == 1 and not dimension.is_leaf[roots[0]]:
        return int(roots[0])
    return None


def cell_key(codes: Mapping[str, str]) -> str:
    """The key of the cell at ``codes`` (variable -> code, totals left out by the caller)."""
    return SEPARATOR.join(f"{_escaped(name)}{ASSIGN}{_escaped(code)}" for name, code in sorted(codes.items()))


def cell_keys(structure: TableStructure) -> list[str]:
    """The key of every cell of ``structure``, in its (C) cell order."""
    parts = []
    for dimension in structure.dimensions:
        total = total_code(dimension)
        parts.append(["" if k == total else f"{_escaped(dimension.name)}{ASSIGN}{_escaped(code)}"
                      for k, code in enumerate(dimension.codes)])
    by_name = sorted(range(len(parts)), key=lambda d: structure.dimensions[d].name)
    return [SEPARATOR.join(filter(None, (combination[d] for d in by_name)))
            for combination in itertools.product(*parts)]
