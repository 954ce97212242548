"""Optimal tabular releases (Karr, Dobra & Sanil (undated)): which marginal sub-tables of a
K-way count table may be published together without bounding a small cell too tightly.

    table = CountTable(counts, names)
    report = disclosure_risk(table, release, threshold=2)          # DR(R) and the at-risk bounds
    result = decomposable_release(table, alpha=3)                  # max DU(R) s.t. DR(R) >= alpha
"""

from ctadesk.engine.releases.decomposable import PerfectSequence, is_decomposable, perfect_sequence
from ctadesk.engine.releases.frechet import frechet_bounds
from ctadesk.engine.releases.linear_bounds import BoundsModel, CellBounds, lp_bounds
from ctadesk.engine.releases.ordered import (
    OrderedResult,
    critical_width,
    critical_widths,
    most_parsimonious,
    ordered_marginals,
)
from ctadesk.engine.releases.release import Release, lattice, maximal
from ctadesk.engine.releases.risk import (
    DEFAULT_THRESHOLD,
    UTILITIES,
    RiskReport,
    cells_released,
    disclosure_risk,
    subtables_released,
    weighted,
)
from ctadesk.engine.releases.search import SearchResult, decomposable_release, optimal_release
from ctadesk.engine.releases.table import CountTable, Subtable

__all__ = [
    "DEFAULT_THRESHOLD", "UTILITIES", "BoundsModel", "CellBounds", "CountTable", "OrderedResult", "PerfectSequence",
    "Release", "RiskReport", "SearchResult", "Subtable", "cells_released", "critical_width", "critical_widths",
    "decomposable_release", "disclosure_risk", "frechet_bounds", "is_decomposable", "lattice", "lp_bounds",
    "maximal", "most_parsimonious", "optimal_release", "ordered_marginals", "perfect_sequence",
    "subtables_released", "weighted",
]
