"""How much an adjusted table still says what the original said, and how to keep it so.

Cox (2005), *Quality-preserving controlled tabular adjustment* (Cox 2005a):

* the report (§5, Tables 1-2) gives, per group of cells, the percent change of the
  mean, the variance, Corr(a, x) against its ideal 1 and the slope of the
  regression of adjusted x on original a against its ideal 1, with the plain
  figures a statistician reads next (cells changed, absolute and relative change
  and their distribution);
* ``preserve`` appends the linear constraints of §3 as extra relations:
  the mean, sum_{i in S} y_i = 0 (model (2)), and the variance/correlation/slope
  constraint L(y) = sum_{i in S} (a_i - mean(a)) y_i = 0 (the paper minimises
  |L(y)| by (3); ctadesk asks for L(y) = 0 exactly).  With y = x - a:
  Var(x)/Var(a) = 1 + 2 L(y)/(t Var(a)) + Var(y)/Var(a) and slope = 1 + L(y)/(t Var(a)),
  so L(y) = 0 makes the slope exactly 1 and leaves the variance changed only by
  Var(y)/Var(a), which is second order in the adjustments;
* for two variables a, b on one table structure (§4, Table 1) ``bivariate_report`` gives, per
  group, the percent change of Cov(a, b), of the correlation of a with b and of the slope and
  intercept of the regression of b on a, with each variable's own figures beside them.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping

import numpy as np
import scipy.sparse as sp

from ctadesk.engine.errors import ProblemError
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.solvers.finish import weighted_sum

#: a cell counts as changed when |x - a| exceeds this times max(1, |a|)
CHANGE_RTOL = 1e-9
#: quantiles (in %) of the relative change of changed cells shown in the report
QUANTILES = (50, 90, 99)

CellSelection = np.ndarray | list[int] | tuple[int, ...]


def inner_cells(problem: CTAProblem) -> np.ndarray:
    """Indices of the cells that are no total: in every relation a total is the one
    cell whose coefficient has the other sign (Cox 2005a, §1: one -1 per row of T)."""
    A = problem.relations
    entries = np.diff(A.indptr)
    negative = A.data < 0
    negatives_before = np.concatenate([[0], np.cumsum(negative)])
    n_negative = negatives_before[A.indptr[1:]] - negatives_before[A.indptr[:-1]]
    n_positive = entries - n_negative
    total_entry = np.where(negative, np.repeat(n_negative == 1, entries),
                           np.repeat((n_positive == 1) & (n_negative > 1), entries))
    is_total = np.zeros(problem.n_cells, bool)
    is_total[A.indices[total_entry]] = True
    return np.flatnonzero(~is_total)


def cell_indices(cells: CellSelection, n: int, name: str) -> np.ndarray:
    """The cell indices (ascending, unique) of a boolean mask or an index list over n cells;
    ProblemError naming ``name`` for a wrong mask or a cell that does not exist."""
    cells = np.asarray(cells)
    if cells.dtype == bool:
        if cells.shape != (n,):
            raise ProblemError(f"{name}: a mask of {cells.size} entries for a table of {n} cells")
        return np.flatnonzero(cells)
    cells = cells.astype(np.int64).reshape(-1)
    if np.any(cells[1:] <= cells[:-1]):  # numpy's unique hashes even a sorted list: 0.4 s for a million
        cells = np.unique(cells)
    if cells.size and (cells[0] < 0 or cells[-1] >= n):
        raise ProblemError(f"{name}: cell {int(cells[0] if cells[0] < 0 else cells[-1])} does not exist "
                           f"(the table has cells 0..{n - 1})")
    return cells


def _percent(new: float, old: float) -> float:
    return 100.0 * (new - old) / abs(old) if old != 0 and math.isfinite(old) else math.nan


@dataclasses.dataclass(frozen=True)
class GroupQuality:
    """Quality figures of one group of t cells (Cox 2005a, §3 and Tables 1-2; population moments)."""

    name: str
    cells: int
    zero_cells: int               # cells with original value 0
    mean_original: float
    mean_adjusted: float
    variance_original: float
    variance_adjusted: float
    correlation: float            # Corr(a, x); 1 is perfect
    slope: float                  # b1 of x = b1 a + b0; 1 is perfect
    intercept: float              # b0; 0 is perfect
    cells_changed: int
    zero_cells_moved: int
    total_absolute_change: float  # sum |x - a|, the L1 distance
    l2_distance: float            # sqrt(sum (x - a)^2)
    weighted_distance: float      # sum w |x - a|, w the cell weights (the CTA objective, Castro & González 2011, (2a))
    largest_absolute_change: float  # max |x - a|, like the distances above (a move within CHANGE_RTOL too)
    largest_absolute_change_cell: int  # -1 when nothing changed (by CHANGE_RTOL)
    total_relative_change: float  # sum |x - a| / |a| over cells with a != 0, in %
    largest_relative_change: float  # in %, over cells with a != 0
    largest_relative_change_cell: int  # -1 when nothing changed
    relative_change_quantiles: tuple[float, ...]  # QUANTILES of |x - a|/|a| (%) over changed cells with a != 0

    @property
    def mean_change(self) -> float:
        """Percent change of the mean."""
        return _percent(self.mean_adjusted, self.mean_original)

    @property
    def variance_change(self) -> float:
        """Percent change of the variance (Table 1, 'Variance change')."""
        return _percent(self.variance_adjusted, self.variance_original)

    @property
    def correlation_change(self) -> float:
        """Percent change of the correlation from Corr(a, a) = 1."""
        return 100.0 * (self.correlation - 1.0)

    @property
    def slope_change(self) -> float:
        """Percent change of the regression slope from 1 (Table 1, 'Regress. coeff. change')."""
        return 100.0 * (self.slope - 1.0)

    @property
    def mean_absolute_change(self) -> float:
        return self.total_absolute_change / self.cells if self.cells else math.nan

    @property
    def mean_relative_change(self) -> float:
        """Mean of |x - a| / |a| in % over the group's cells with a != 0."""
        nonzero = self.cells - self.zero_cells
        return self.total_relative_change / nonzero if nonzero else math.nan


@dataclasses.dataclass(frozen=True)
class CellChanges:
    """Per cell of a table, the parts of the figures of GroupQuality, worked out once for every
    group: the original a, adjusted x and weight w, the change x - a, its size |x - a|, whether it
    counts as a change (CHANGE_RTOL), whether a != 0, and the relative change 100 |x - a| / |a|
    (0 where a = 0)."""

    original: np.ndarray
    adjusted: np.ndarray
    weights: np.ndarray
    change: np.ndarray
    size: np.ndarray
    changed: np.ndarray
    nonzero: np.ndarray
    relative: np.ndarray

    @classmethod
    def of(cls, original: np.ndarray, adjusted: np.ndarray, weights: np.ndarray | None = None) -> CellChanges:
        """The changes from ``original`` to ``adjusted``; ``weights`` default to 1."""
        change = adjusted - original
        size = np.abs(change)
        magnitude = np.abs(original)
        nonzero = original != 0
        relative = np.divide(100.0 * size, magnitude, out=np.zeros(original.size), where=nonzero)
        return cls(original=original, adjusted=adjusted,
                   weights=np.ones(original.size) if weights is None else np.asarray(weights, dtype=float),
                   change=change, size=size, changed=size > CHANGE_RTOL * np.maximum(1.0, magnitude),
                   nonzero=nonzero, relative=relative)


def group_quality(name: str, changes: CellChanges, cells: np.ndarray) -> GroupQuality:
    """The figures of GroupQuality for the given cell indices of the table of ``changes``.

    Sums go through weighted_sum, not numpy's dot: a dot product of more than 10 000 entries
    leaves a second OpenBLAS thread spinning (docs/solvers.md), which doubled the report's CPU
    time on a million cells."""
    a = changes.original[cells]
    x = changes.adjusted[cells]
    change, size, relative = changes.change[cells], changes.size[cells], changes.relative[cells]
    changed, nonzero = changes.changed[cells], changes.nonzero[cells]
    t = a.size
    moved = changed & nonzero
    if t:
        mean_a, mean_x = float(np.add.reduce(a)) / t, float(np.add.reduce(x)) / t
        da, dx = a - mean_a, x - mean_x
        var_a, var_x = weighted_sum(da, da) / t, weighted_sum(dx, dx) / t
        cov = weighted_sum(da, dx) / t
    else:
        mean_a = mean_x = var_a = var_x = cov = math.nan
    slope = cov / var_a if var_a > 0 else math.nan
    correlation = cov / math.sqrt(var_a * var_x) if var_a > 0 and var_x > 0 else math.nan
    n_changed, n_moved = int(np.count_nonzero(changed)), int(np.count_nonzero(moved))
    largest = int(np.argmax(relative)) if n_moved else -1
    largest_absolute = int(np.argmax(size)) if n_changed else -1
    quantiles = tuple(float(q) for q in np.percentile(relative[moved], QUANTILES)) if n_moved \
        else tuple(0.0 for _ in QUANTILES)
    return GroupQuality(
        name=name, cells=t, zero_cells=t - int(np.count_nonzero(nonzero)), mean_original=mean_a,
        mean_adjusted=mean_x, variance_original=var_a, variance_adjusted=var_x, correlation=correlation, slope=slope,
        intercept=mean_x - slope * mean_a if math.isfinite(slope) else math.nan,
        cells_changed=n_changed, zero_cells_moved=n_changed - n_moved,
        total_absolute_change=float(np.add.reduce(size)), l2_distance=math.sqrt(weighted_sum(change, change)),
        weighted_distance=weighted_sum(changes.weights[cells], size),
        largest_absolute_change=float(size.max()) if t else 0.0,
        largest_absolute_change_cell=int(cells[largest_absolute]) if largest_absolute >= 0 else -1,
        total_relative_change=float(np.add.reduce(relative)),
        largest_relative_change=float(relative[largest]) if largest >= 0 else 0.0,
        largest_relative_change_cell=int(cells[largest]) if largest >= 0 else -1,
        relative_change_quantiles=quantiles)


#: (label, attribute of GroupQuality) in the order the report shows them
MEASURES: tuple[tuple[str, str], ...] = (
    ("cells", "cells"),
    ("mean change (%)", "mean_change"),
    ("variance change (%)", "variance_change"),
    ("correlation Corr(original, adjusted)", "correlation"),
    ("correlation change (%)", "correlation_change"),
    ("regression slope of adjusted on original", "slope"),
    ("regression slope change (%)", "slope_change"),
    ("regression intercept", "intercept"),
    ("cells changed", "cells_changed"),
    ("zero cells that moved", "zero_cells_moved"),
    ("total absolute change", "total_absolute_change"),
    ("L2 distance sqrt(sum (x - a)^2)", "l2_distance"),
    ("weighted distance sum w |x - a|", "weighted_distance"),
    ("mean absolute change", "mean_absolute_change"),
    ("largest absolute change", "largest_absolute_change"),
    ("mean relative change (%)", "mean_relative_change"),
    *((f"relative change of changed cells, {q}th percentile (%)" if q != 50
       else "relative change of changed cells, median (%)", f"quantile_{q}") for q in QUANTILES),
    ("largest relative change (%)", "largest_relative_change"),
)


@dataclasses.dataclass(frozen=True)
class QualityReport:
    """Quality figures per group of cells (Cox 2005a, §5, Tables 1-2: percent changes)."""

    groups: tuple[GroupQuality, ...]

    def __getitem__(self, name: str) -> GroupQuality:
        for group in self.groups:
            if group.name == name:
                return group
        raise KeyError(name)

    @property
    def names(self) -> list[str]:
        return [group.name for group in self.groups]

    @staticmethod
    def _value(group: GroupQuality, attribute: str) -> float | int:
        if attribute.startswith("quantile_"):
            return group.relative_change_quantiles[QUANTILES.index(int(attribute.split("_")[1]))]
        return getattr(group, attribute)

    def rows(self) -> list[tuple[str | float | int, ...]]:
        """('measure', group names...) then one row per measure (MEASURES), numbers as they are."""
        return [("measure", *self.names),
                *((label, *(self._value(g, attribute) for g in self.groups)) for label, attribute in MEASURES)]

    def as_dict(self) -> dict[str, dict[str, float | int]]:
        """{group: {measure label: value}} with NaN as None (JSON-ready)."""
        def plain(value):
            value = value.item() if isinstance(value, np.generic) else value
            return None if isinstance(value, float) and not math.isfinite(value) else value

        return {g.name: {label: plain(self._value(g, attribute)) for label, attribute in MEASURES}
                for g in self.groups}


def default_groups(problem: CTAProblem) -> dict[str, np.ndarray]:
    """Inner cells, totals (if any), sensitive and not sensitive cells."""
    inner = inner_cells(problem)
    is_sensitive = np.zeros(problem.n_cells, bool)
    is_sensitive[problem.sensitive] = True
    groups = {"inner cells": inner}
    if inner.size < problem.n_cells:
        is_inner = np.zeros(problem.n_cells, bool)
        is_inner[inner] = True
        groups["totals"] = np.flatnonzero(~is_inner)
    groups["sensitive"] = problem.sensitive
    groups["not sensitive"] = np.flatnonzero(~is_sensitive)
    return groups


def quality_report(problem: CTAProblem, values: np.ndarray,
                   groups: Mapping[str, CellSelection] | None = None) -> QualityReport:
    """Compare adjusted values x with the problem's original values a over each group of cells
    (default: default_groups).  A group is a boolean mask or an array of cell indices."""
    adjusted = np.asarray(values, dtype=float).reshape(-1)
    if adjusted.shape != (problem.n_cells,):
        raise ProblemError(f"{adjusted.size} adjusted values for a table of {problem.n_cells} cells")
    groups = default_groups(problem) if groups is None else groups
    changes = CellChanges.of(problem.values, adjusted, problem.weights)
    return QualityReport(tuple(group_quality(name, changes, cell_indices(cells, problem.n_cells, name))
                               for name, cells in groups.items()))


def preserve(problem: CTAProblem, *, mean: bool = True, variance: bool = False,
             cells: CellSelection | None = None) -> CTAProblem:
    """problem with quality-preserving relations appended (Cox 2005a, §3), over cells S
    (default: the inner cells, so the mean is the grand mean of the table):

    mean      sum_{i in S} x_i = sum_{i in S} a_i, i.e. sum y_i = 0 (model (2))
    variance  sum_{i in S} (a_i - mean_S(a)) x_i = sum_{i in S} (a_i - mean_S(a)) a_i, i.e. L(y) = 0
              (the |L(y)| of (3) at zero), which keeps the slope of x on a at 1 and the
              variance and Corr(a, x) to second order in the adjustments

    They are ordinary relations A x = b, so every method (MILP, heuristics, LP, L2, SOC,
    pseudo-Huber) honours them and the verifier checks them; the relations are scaled so
    their largest coefficient is 1.  A problem with no room left may become infeasible.
    """
    n = problem.n_cells
    chosen = inner_cells(problem) if cells is None else cell_indices(cells, n, "preserved cells")
    if chosen.size == 0:
        raise ProblemError("there are no cells whose mean or variance could be preserved")
    a = problem.values[chosen]
    rows: list[np.ndarray] = []
    names: list[str] = []
    if mean:
        rows.append(np.ones(chosen.size))
        names.append(f"mean of {chosen.size} cells preserved (Cox 2005, model (2))")
    if variance:
        centred = a - a.mean()
        scale = float(np.abs(centred).max())
        if scale == 0:
            raise ProblemError("the preserved cells all have the same value: their variance is 0")
        rows.append(centred / scale)
        names.append(f"variance of {chosen.size} cells preserved, L(y) = 0 (Cox 2005, §3)")
    if not rows:
        return problem
    coefficients = np.concatenate(rows)
    extra = sp.csr_array((coefficients, (np.repeat(np.arange(len(rows)), chosen.size), np.tile(chosen, len(rows)))),
                         shape=(len(rows), n))
    m = problem.n_relations
    base_label = problem.relation_label

    def relation_label(r: int) -> str:
        if r >= m:
            return names[r - m]
        return base_label(r) if base_label is not None else "table relation"

    return problem.replace(relations=sp.csr_array(sp.vstack([problem.relations, extra], format="csr")),
                           rhs=np.concatenate([problem.rhs, [row @ a for row in rows]]),
                           relation_label=relation_label)


# ------------------------------------------------------------------------------ two variables
def _moments(a: np.ndarray, b: np.ndarray) -> tuple[float, float, float, float, float]:
    """(mean a, mean b, Var(a), Var(b), Cov(a, b)), population moments (Cox 2005a, §3-4)."""
    if a.size == 0:
        return (math.nan,) * 5
    mean_a, mean_b = float(np.add.reduce(a)) / a.size, float(np.add.reduce(b)) / a.size
    da, db = a - mean_a, b - mean_b
    return (mean_a, mean_b, weighted_sum(da, da) / a.size, weighted_sum(db, db) / a.size,
            weighted_sum(da, db) / a.size)


def _regression(mean_a: float, mean_b: float, var_a: float, var_b: float,
                cov: float) -> tuple[float, float, float]:
    """(Corr(a, b), slope, intercept of b = slope a + intercept) from moments; NaN where undefined."""
    correlation = cov / math.sqrt(var_a * var_b) if var_a > 0 and var_b > 0 else math.nan
    slope = cov / var_a if var_a > 0 else math.nan
    return correlation, slope, mean_b - slope * mean_a if math.isfinite(slope) else math.nan


@dataclasses.dataclass(frozen=True)
class PairQuality:
    """Figures of two variables a, b (one table structure) over one group of cells, original and
    adjusted (Cox 2005a, §4 and Table 1; population moments): Cov(a, b), Corr(a, b), and the
    regression b = slope a + intercept of the second variable on the first, with each variable's
    own GroupQuality."""

    name: str
    first: GroupQuality
    second: GroupQuality
    covariance_original: float
    covariance_adjusted: float
    correlation_original: float
    correlation_adjusted: float
    slope_original: float
    slope_adjusted: float
    intercept_original: float
    intercept_adjusted: float

    @property
    def covariance_change(self) -> float:
        """Percent change of Cov(a, b) (Table 1, 'Covariance change')."""
        return _percent(self.covariance_adjusted, self.covariance_original)

    @property
    def correlation_change(self) -> float:
        """Percent change of Corr(a, b) (Table 1, 'Correlation change')."""
        return _percent(self.correlation_adjusted, self.correlation_original)

    @property
    def slope_change(self) -> float:
        """Percent change of the slope of b on a (Table 1, 'Regress. coeff. change')."""
        return _percent(self.slope_adjusted, self.slope_original)

    @property
    def intercept_change(self) -> float:
        """Percent change of the intercept of b on a."""
        return _percent(self.intercept_adjusted, self.intercept_original)


def pair_quality(name: str, first: CTAProblem, second: CTAProblem, first_values: np.ndarray,
                 second_values: np.ndarray, cells: np.ndarray) -> PairQuality:
    """PairQuality of adjusted tables x_a, x_b of ``first`` (a) and ``second`` (b) over cell indices."""
    return _pair_quality(name, CellChanges.of(first.values, first_values, first.weights),
                         CellChanges.of(second.values, second_values, second.weights), cells)


def _pair_quality(name: str, first: CellChanges, second: CellChanges, cells: np.ndarray) -> PairQuality:
    original = _moments(first.original[cells], second.original[cells])
    adjusted = _moments(first.adjusted[cells], second.adjusted[cells])
    corr_a, slope_a, intercept_a = _regression(*original)
    corr_x, slope_x, intercept_x = _regression(*adjusted)
    return PairQuality(
        name=name, first=group_quality(name, first, cells), second=group_quality(name, second, cells),
        covariance_original=original[4], covariance_adjusted=adjusted[4],
        correlation_original=corr_a, correlation_adjusted=corr_x, slope_original=slope_a, slope_adjusted=slope_x,
        intercept_original=intercept_a, intercept_adjusted=intercept_x)


#: (label, attribute of PairQuality) in the order the bivariate report shows them
PAIR_MEASURES: tuple[tuple[str, str], ...] = (
    ("covariance, original", "covariance_original"),
    ("covariance change (%)", "covariance_change"),
    ("correlation of the two variables, original", "correlation_original"),
    ("correlation of the two variables, adjusted", "correlation_adjusted"),
    ("correlation change (%)", "correlation_change"),
    ("regression slope of second on first, original", "slope_original"),
    ("regression slope change (%)", "slope_change"),
    ("regression intercept of second on first, original", "intercept_original"),
    ("regression intercept change (%)", "intercept_change"),
)


@dataclasses.dataclass(frozen=True)
class BivariateReport:
    """PairQuality per group of cells, the two variables called ``names`` (Cox 2005a, Table 1)."""

    names: tuple[str, str]
    groups: tuple[PairQuality, ...]

    def __getitem__(self, name: str) -> PairQuality:
        for group in self.groups:
            if group.name == name:
                return group
        raise KeyError(name)

    def _labelled(self, group: PairQuality) -> list[tuple[str, float | int]]:
        pair = [(label, getattr(group, attribute)) for label, attribute in PAIR_MEASURES]
        own = [(f"{variable}: {label}", QualityReport._value(quality, attribute))
               for variable, quality in zip(self.names, (group.first, group.second)) for label, attribute in MEASURES]
        return pair + own

    def rows(self) -> list[tuple[str | float | int, ...]]:
        """('measure', group names...) then one row per measure: PAIR_MEASURES, then MEASURES of
        each variable prefixed with its name."""
        columns = [self._labelled(group) for group in self.groups]
        labels = [label for label, _ in columns[0]] if columns else []
        return [("measure", *(g.name for g in self.groups)),
                *((label, *(column[r][1] for column in columns)) for r, label in enumerate(labels))]

    def as_dict(self) -> dict[str, dict[str, float | int | None]]:
        """{group: {measure label: value}} with NaN as None (JSON-ready)."""
        def plain(value):
            value = value.item() if isinstance(value, np.generic) else value
            return None if isinstance(value, float) and not math.isfinite(value) else value

        return {group.name: {label: plain(value) for label, value in self._labelled(group)} for group in self.groups}


def bivariate_report(first: CTAProblem, second: CTAProblem, first_values: np.ndarray, second_values: np.ndarray,
                     groups: Mapping[str, CellSelection] | None = None,
                     names: tuple[str, str] = ("first", "second")) -> BivariateReport:
    """Compare adjusted tables x_a, x_b with the originals a = first.values, b = second.values
    (one table structure) over each group (default: default_groups with the cells sensitive in
    either variable as 'sensitive')."""
    n = first.n_cells
    if second.n_cells != n:
        raise ProblemError(f"the second variable has {second.n_cells} cells, the first {n}")
    changes = []
    for name, problem, values in zip(names, (first, second), (first_values, second_values)):
        x = np.asarray(values, dtype=float).reshape(-1)
        if x.shape != (n,):
            raise ProblemError(f"{name}: {x.size} adjusted values for a table of {n} cells")
        changes.append(CellChanges.of(problem.values, x, problem.weights))
    if groups is None:
        either = np.union1d(first.sensitive, second.sensitive)
        groups = default_groups(CTAProblem(values=first.values, relations=first.relations, sensitive=either))
    return BivariateReport(names, tuple(
        _pair_quality(name, changes[0], changes[1], cell_indices(cells, n, name))
        for name, cells in groups.items()))
