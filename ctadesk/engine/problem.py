"""The one immutable CTA problem description every solver takes.

Castro & González 2011, problem (1): cells a with relations
A x = b, attacker-known bounds l <= x <= u, weights w, sensitive cells S with
lower/upper protection levels; a released sensitive value must satisfy
x_i <= a_i - lpl_i or x_i >= a_i + upl_i.  Validation lives here and only here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, DTypeLike

from ctadesk.engine.errors import ProblemError

SENSE_UP = 1
SENSE_DOWN = -1
SENSE_FREE = 0

#: relative tolerance used when deciding whether a safe value fits inside the bounds
BOUND_RTOL = 1e-9
#: a bound this large in magnitude means "no bound" (tau-argus writes +-1e20 for it)
NO_BOUND = 1e20


def _frozen(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


def _vector(name: str, value: ArrayLike | None, length: int, default: float, dtype: DTypeLike = float) -> np.ndarray:
    if value is None:
        return np.full(length, default, dtype=dtype)
    array = np.array(value, dtype=dtype, copy=True).reshape(-1)
    if array.size == 1 and length != 1:
        array = np.full(length, array[0], dtype=dtype)
    if array.shape != (length,):
        raise ProblemError(f"{name} has {array.size} entries, expected {length}")
    return array


@dataclasses.dataclass(frozen=True, eq=False, init=False)
class CTAProblem:
    """A controlled tabular adjustment instance (Castro & González 2011, model (1)).

    values            original cell values a (n,)
    relations         sparse A (m x n); duplicate entries are summed
    rhs               b (m,), zero for an additive table
    lower, upper      bounds on published values (-inf/+inf or |bound| >= NO_BOUND: none)
    weights           w >= 0 of each cell's absolute change
    sensitive         indices of the sensitive cells (s,), ascending
    lower_protection  lpl (s,) and upper_protection upl (s,), both >= 0
    fixed             boolean mask (n,) of cells that must not change
    senses            given senses (s,): +1 up, -1 down, 0 free
    cell_label        optional function naming cell i for messages
    relation_label    optional function naming relation r for messages

    The constructor takes any array-like, or None for a default (no bounds, unit weights, no
    sensitive or fixed cell, free senses, zero right-hand sides and protection levels); every
    field of the constructed problem is then a validated, read-only array of its full length.
    """

    values: np.ndarray
    relations: sp.csr_array
    rhs: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    weights: np.ndarray
    sensitive: np.ndarray
    lower_protection: np.ndarray
    upper_protection: np.ndarray
    fixed: np.ndarray
    senses: np.ndarray
    cell_label: Callable[[int], str] | None
    relation_label: Callable[[int], str] | None

    def __init__(self, values: ArrayLike, relations: sp.sparray | sp.spmatrix | ArrayLike,
                 rhs: ArrayLike | None = None, lower: ArrayLike | None = None, upper: ArrayLike | None = None,
                 weights: ArrayLike | None = None, sensitive: ArrayLike | None = None,
                 lower_protection: ArrayLike | None = None, upper_protection: ArrayLike | None = None,
                 fixed: ArrayLike | None = None, senses: ArrayLike | None = None,
                 cell_label: Callable[[int], str] | None = None,
                 relation_label: Callable[[int], str] | None = None) -> None:
        set_ = lambda name, value: object.__setattr__(self, name, value)  # noqa: E731
        set_("cell_label", cell_label)
        set_("relation_label", relation_label)
        a = np.array(values, dtype=float, copy=True).reshape(-1)
        n = a.size
        self._check_finite("value", a)

        if sp.issparse(relations):
            matrix = sp.csr_array(relations, dtype=float)
        else:
            dense = np.atleast_2d(np.asarray(relations, dtype=float))
            matrix = sp.csr_array(dense.reshape(0, n) if dense.size == 0 else dense, dtype=float)
        if matrix.shape[1] != n:
            raise ProblemError(
                f"the relations refer to {matrix.shape[1]} cells but the table has {n}"
            )
        matrix.sum_duplicates()
        matrix.eliminate_zeros()
        if not np.all(np.isfinite(matrix.data)):
            row = int(np.repeat(np.arange(matrix.shape[0]), np.diff(matrix.indptr))[
                ~np.isfinite(matrix.data)][0])
            raise ProblemError(f"{self.describe_relation(row)} has a coefficient that is NaN or infinite")
        m = matrix.shape[0]

        b = _vector("rhs", rhs, m, 0.0)
        if not np.all(np.isfinite(b)):
            row = int(np.flatnonzero(~np.isfinite(b))[0])
            raise ProblemError(f"{self.describe_relation(row)}: right-hand side is NaN or infinite")
        empty_rows = np.diff(matrix.indptr) == 0
        bad = np.flatnonzero(empty_rows & (b != 0))
        if bad.size:
            raise ProblemError(
                f"{self.describe_relation(int(bad[0]))} has no cells but a right-hand side of {b[bad[0]]:g}")

        low = _vector("lower", lower, n, -np.inf)
        up = _vector("upper", upper, n, np.inf)
        low[low <= -NO_BOUND] = -np.inf
        up[up >= NO_BOUND] = np.inf
        for name, bound in (("lower bound", low), ("upper bound", up)):
            nan = np.flatnonzero(np.isnan(bound))
            if nan.size:
                raise ProblemError(f"{self.describe_cell(int(nan[0]))}: {name} is NaN")
        outside = np.flatnonzero((low > a) | (up < a))
        if outside.size:
            i = int(outside[0])
            raise ProblemError(
                f"{self.describe_cell(i)}: bounds [{low[i]:g}, {up[i]:g}] exclude its value {a[i]:g}"
            )

        w = _vector("weights", weights, n, 1.0)
        bad = np.flatnonzero(~np.isfinite(w) | (w < 0))
        if bad.size:
            raise ProblemError(f"{self.describe_cell(int(bad[0]))}: weight {w[bad[0]]:g} must be finite and >= 0")

        held = np.zeros(n, bool) if fixed is None else np.array(fixed, dtype=bool, copy=True).reshape(-1)
        if held.shape != (n,):
            raise ProblemError(f"fixed has {held.size} entries, expected {n}")
        low[held] = a[held]
        up[held] = a[held]

        cells = (np.zeros(0, np.int64) if sensitive is None
                 else np.array(sensitive, dtype=np.int64, copy=True).reshape(-1))
        out_of_range = cells[(cells < 0) | (cells >= n)]
        if out_of_range.size:
            raise ProblemError(f"sensitive cell {int(out_of_range[0])} does not exist (the table has cells 0..{n - 1})")
        order = np.argsort(cells, kind="stable")
        cells = cells[order]
        duplicated = cells[1:][cells[1:] == cells[:-1]]
        if duplicated.size:
            raise ProblemError(f"{self.describe_cell(int(duplicated[0]))} is listed as sensitive twice")
        s = cells.size
        lpl = _vector("lower_protection", lower_protection, s, 0.0)[order]
        upl = _vector("upper_protection", upper_protection, s, 0.0)[order]
        for name, level in (("lower protection level", lpl), ("upper protection level", upl)):
            bad = np.flatnonzero(~np.isfinite(level) | (level < 0))
            if bad.size:
                raise ProblemError(
                    f"{self.describe_cell(int(cells[bad[0]]))}: {name} {level[bad[0]]:g} must be finite and >= 0")
        given = _vector("senses", senses, s, SENSE_FREE, dtype=np.int8)[order]
        if np.any(~np.isin(given, (SENSE_DOWN, SENSE_FREE, SENSE_UP))):
            raise ProblemError("senses must be +1 (up), -1 (down) or 0 (free)")

        set_("relations", matrix)
        for name, array in (("values", a), ("rhs", b), ("lower", low), ("upper", up), ("weights", w),
                            ("fixed", held), ("sensitive", cells), ("lower_protection", lpl),
                            ("upper_protection", upl), ("senses", given)):
            set_(name, array)

        protected_but_fixed = cells[held[cells] & ((lpl > 0) | (upl > 0))]
        if protected_but_fixed.size:
            raise ProblemError(f"{self.describe_cell(int(protected_but_fixed[0]))} is sensitive but may not change")
        up_ok, down_ok = self.safe_value_fits()
        neither = np.flatnonzero(~up_ok & ~down_ok)
        if neither.size:
            k = int(neither[0])
            i = int(cells[k])
            raise ProblemError(
                f"{self.describe_cell(i)}: both safe values {a[i] - lpl[k]:g} and {a[i] + upl[k]:g} "
                f"lie outside its bounds [{low[i]:g}, {up[i]:g}]"
            )
        conflict = np.flatnonzero(((given == SENSE_UP) & ~up_ok) | ((given == SENSE_DOWN) & ~down_ok))
        if conflict.size:
            k = int(conflict[0])
            word = "up" if given[k] == SENSE_UP else "down"
            raise ProblemError(
                f"{self.describe_cell(int(cells[k]))}: the given sense '{word}' puts it outside its bounds")
        for array in (a, b, low, up, w, held, cells, lpl, upl, given):
            _frozen(array)

    # ----------------------------------------------------------------- naming
    def describe_cell(self, i: int) -> str:
        """A human name for cell i, e.g. "cell 17 (Region=Nr, Size=4)"."""
        if self.cell_label is not None:
            return f"cell {i} ({self.cell_label(i)})"
        return f"cell {i}"

    def describe_relation(self, r: int) -> str:
        """A human name for relation r."""
        if self.relation_label is not None:
            return f"relation {r} ({self.relation_label(r)})"
        return f"relation {r}"

    @staticmethod
    def _check_finite(what: str, array: np.ndarray) -> None:
        bad = np.flatnonzero(~np.isfinite(array))
        if bad.size:
            raise ProblemError(f"cell {int(bad[0])}: {what} is NaN or infinite")

    # ------------------------------------------------------------- properties
    @property
    def n_cells(self) -> int:
        return int(self.values.size)

    @property
    def n_relations(self) -> int:
        return int(self.relations.shape[0])

    @property
    def n_sensitive(self) -> int:
        return int(self.sensitive.size)

    def safe_value_fits(self) -> tuple[np.ndarray, np.ndarray]:
        """Per sensitive cell: does a + upl fit under u, does a - lpl fit over l."""
        a = self.values[self.sensitive]
        scale = BOUND_RTOL * np.maximum(1.0, np.abs(a))
        up_ok = a + self.upper_protection <= self.upper[self.sensitive] + scale
        down_ok = a - self.lower_protection >= self.lower[self.sensitive] - scale
        return up_ok, down_ok

    @property
    def forced_senses(self) -> np.ndarray:
        """+1/-1 where the bounds leave only one safe value, else 0."""
        up_ok, down_ok = self.safe_value_fits()
        forced = np.zeros(self.n_sensitive, np.int8)
        forced[up_ok & ~down_ok] = SENSE_UP
        forced[down_ok & ~up_ok] = SENSE_DOWN
        return forced

    @property
    def effective_senses(self) -> np.ndarray:
        """Given senses, completed by the senses the bounds force."""
        return np.where(self.senses != SENSE_FREE, self.senses, self.forced_senses).astype(np.int8)

    @property
    def deviation_rhs(self) -> np.ndarray:
        """b - A a: the right-hand side for deviations z = x - a."""
        return self.rhs - self.relations @ self.values

    def replace(self, **changes: Any) -> CTAProblem:
        """A new, re-validated problem with some fields changed."""
        return dataclasses.replace(self, **changes)

    def with_senses(self, senses: np.ndarray) -> CTAProblem:
        """The same problem with every sensitive cell's sense fixed."""
        return self.replace(senses=np.asarray(senses, dtype=np.int8))
