"""Hierarchy levels of a requested table: ``Region:1`` spans Region down to its level-1 codes only
(tau-argus numbering: level 1 is just below the total), ``Region`` the whole hierarchy.

A cell of a table cut at a level is the cell of the same codes in the full hierarchy: the same
records, so the same status under the rules (consistency on input, Castro & González 2011, §4) and the same key
(ctadesk.app.online.cells), so the same stored sense (consistency on output).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ctadesk.app.online.cells import total_code
from ctadesk.app.online.errors import OnlineError
from ctadesk.engine.table.structure import Dimension

#: "Region:1": a variable and the deepest level of its hierarchy a table shows
LEVEL_MARK = ":"
#: the deepest level a request may name (far below any hierarchy's depth; bounds the digits read)
MAX_LEVEL = 99


def requested_level(item: str, names: Sequence[str]) -> tuple[str, int | None]:
    """The variable ``item`` names and the level it asks for (None: every level); a name of
    ``names`` that itself holds LEVEL_MARK is taken whole.  The level is read from ASCII digits
    only (not '²' or an Arabic-Indic one, which Python's int() and isdigit() take) and up to MAX_LEVEL."""
    if item in names or LEVEL_MARK not in item:
        return item, None
    name, _, level = item.rpartition(LEVEL_MARK)
    level = level.strip()
    if not (level.isascii() and level.isdigit() and len(level) <= len(str(MAX_LEVEL))
            and 1 <= int(level) <= MAX_LEVEL):
        raise OnlineError(f"'{item}': the level after '{LEVEL_MARK}' must be a whole number from 1 to {MAX_LEVEL} "
                          f"in digits 0-9 (e.g. '{name}{LEVEL_MARK}1')")
    return name.strip(), int(level)


def levels(dimension: Dimension) -> int:
    """How many levels the variable has below its total (a variable without a total: its top
    codes are level 1)."""
    return int(dimension.depth.max(initial=0)) + (0 if total_code(dimension) is not None else 1)


def cut(dimension: Dimension, codes: np.ndarray, level: int) -> tuple[Dimension, np.ndarray]:
    """``dimension`` down to ``level`` and the records' ``codes`` (positions of leaves) moved up
    to their ancestor at that level (or to the leaf itself where the branch ends higher)."""
    deepest = levels(dimension)
    if level > deepest:
        has = "level 1 only" if deepest == 1 else f"levels 1 to {deepest}"
        raise OnlineError(f"'{dimension.name}{LEVEL_MARK}{level}': {dimension.name} has {has}")
    keep_depth = level if total_code(dimension) is not None else level - 1
    depth = dimension.depth
    kept = np.flatnonzero(depth <= keep_depth)
    position = np.full(dimension.size, -1, np.int64)
    position[kept] = np.arange(kept.size)
    parents = dimension.parents[kept]
    cut_dimension = Dimension(dimension.name, tuple(dimension.codes[k] for k in kept),
                              np.where(parents >= 0, position[np.maximum(parents, 0)], -1))
    ancestor = np.asarray(codes, np.int64)
    for _ in range(int(depth.max(initial=0)) - keep_depth):
        deep = depth[ancestor] > keep_depth
        ancestor = np.where(deep, dimension.parents[ancestor], ancestor)
    return cut_dimension, position[ancestor]
