"""Disclosure risk and data utility of a release (Karr, Dobra & Sanil (undated), "OTR components").

DR(R) = min{UB(C, R) - LB(C, R) : C at risk}, a cell being at risk when 0 < #{C} <= threshold
(the paper uses 2 in "Ordered marginals: the details", 3 in "OTR components"; 2 by default).
The larger DR(R), the safer R: the optimal release maximises DU(R) subject to DR(R) >= alpha
("Optimization formulation").  DU(R) = #{R} (the number of sub-tables released) is the paper's
example; the number of cells released and user weights of sub-tables are the other utilities.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from typing import Literal

import numpy as np

from ctadesk.engine.errors import ProblemError
from ctadesk.engine.releases.decomposable import perfect_sequence
from ctadesk.engine.releases.frechet import frechet_bounds
from ctadesk.engine.releases.linear_bounds import BoundsModel, CellBounds
from ctadesk.engine.releases.moves import proven_widths
from ctadesk.engine.releases.release import Release
from ctadesk.engine.releases.table import CountTable, Subtable
from ctadesk.engine.settings import DEFAULT_THRESHOLD

#: DEFAULT_THRESHOLD (ctadesk.engine.settings), the default at-risk threshold: 0 < count <= 2 (Karr,
#: Dobra & Sanil (undated), "Ordered marginals: the details")

#: how bounds are computed: the closed form where decomposable else LP ("auto"), or one of them
BoundsMethod = Literal["auto", "lp", "integer", "frechet"]

#: a data utility: larger is better, never smaller for a larger release
Utility = Callable[[CountTable, Release], float]


def subtables_released(table: CountTable, release: Release) -> float:
    """DU(R) = #{R}, the number of sub-tables released, the grand total included (Karr, Dobra & Sanil (undated))."""
    return float(len(release))


def cells_released(table: CountTable, release: Release) -> float:
    """The number of marginal cells released, over every released sub-table."""
    return float(sum(math.prod(table.shape[a] for a in subtable) for subtable in release.subtables()))


def weighted(weights: Mapping[Subtable, float], default: float = 1.0) -> Utility:
    """A utility summing the user's non-negative weight of every released sub-table (``default``
    for those not listed)."""
    if any(w < 0 for w in weights.values()) or default < 0:
        raise ProblemError("sub-table weights must be non-negative (a larger release may not be worth less)")
    frozen = {frozenset(s): float(w) for s, w in weights.items()}

    def utility(table: CountTable, release: Release) -> float:
        return sum(frozen.get(s, default) for s in release.subtables())

    return utility


UTILITIES: dict[str, Utility] = {"subtables": subtables_released, "cells": cells_released}


@dataclasses.dataclass(frozen=True, eq=False)
class RiskReport:
    """risk    DR(R): the smallest bound width over the at-risk cells (inf when none is at risk)
    bounds  the bounds of every at-risk cell
    method  how they were computed ('frechet', 'lp' or 'integer')"""

    risk: float
    bounds: CellBounds
    method: str


def bounds_for(table: CountTable, release: Release, cells: np.ndarray,
               method: BoundsMethod = "auto") -> tuple[CellBounds, str]:
    """The bounds of ``cells`` under ``release`` and the method used ('auto': Fréchet when the
    release is decomposable, else LP)."""
    if method == "auto":
        method = "frechet" if perfect_sequence(release.frontier) is not None else "lp"
    if method == "frechet":
        return frechet_bounds(table, release, cells), method
    if method not in ("lp", "integer"):
        raise ProblemError(f"unknown bounds method '{method}' (auto, lp, integer, frechet)")
    return BoundsModel(table, release, integer=method == "integer").bounds(cells), method


def disclosure_risk(table: CountTable, release: Release, threshold: int = DEFAULT_THRESHOLD,
                    method: BoundsMethod = "auto") -> RiskReport:
    """DR(R) of Karr, Dobra & Sanil (undated) with the bounds of every at-risk cell."""
    cells = table.at_risk(threshold)
    bounds, used = bounds_for(table, release, cells, method)
    risk = float(bounds.width.min()) if cells.size else math.inf
    return RiskReport(risk, bounds, used)


def meets(table: CountTable, release: Release, cells: np.ndarray, alpha: float,
          method: BoundsMethod = "auto") -> bool:
    """DR(R) >= alpha over ``cells``; LP and MILP are run only for the cells no move of counts
    proves alpha wide (moves.py), and stop at the first cell narrower than alpha."""
    if cells.size == 0:
        return True
    decomposable = perfect_sequence(release.frontier) is not None
    if method == "frechet" or (method == "auto" and decomposable):
        return bool(frechet_bounds(table, release, cells).width.min() >= alpha)
    unproven = cells[proven_widths(table, release, cells, alpha) < alpha]
    if unproven.size == 0:
        return True
    return BoundsModel(table, release, integer=method == "integer").first_narrower(unproven, alpha) is None
