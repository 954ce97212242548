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


def _vector(name: str, value: Any, length: int, default: float, dtype=float) -> np.ndarray:
    if value is None:
        return np.full(length, default, dtype=dtype)
    array = np.array(value, dtype=dtype, copy=True).reshape(-1)
    if array.size == 1 and length != 1:
        array = np.full(length, array[0], dtype=dtype)
    if array.shape != (length,):
        raise ProblemError(f"{name} has {array.size} entries, expected {length}")
    return array


@dataclasses.dataclass(frozen=True, eq=False)
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
    """

    values: np.ndarray
    relations: sp.csr_array
    rhs: np.ndarray | None = None
    lower: np.ndarray | None = None
    upper: np.ndarray | None = None
    weights: np.ndarray | None = None
    sensitive: np.ndarray | None = None
    lower_protection: np.ndarray | None = None
    upper_protection: np.ndarray | None = None
    fixed: np.ndarray | None = None
    senses: np.ndarray | None = None
    cell_label: Callable[[int], str] | None = None
    relation_label: Callable[[int], str] | None = None

    def __post_init__(self) -> None:
        set_ = lambda name, value: object.__setattr__(self, name, value)  # noqa: E731
        values = np.array(self.values, dtype=float, copy=True).reshape(-1)
        n = values.size
        set_("values", values)
        self._check_finite("value", values)

        relations = self.relations
        if not sp.issparse(relations):
            relations = np.atleast_2d(np.asarray(relations, dtype=float))
            if relations.size == 0:
                relations = relations.reshape(0, n)
        relations = sp.csr_array(relations, dtype=float)
        if relations.shape[1] != n:
            raise ProblemError(
                f"the relations refer to {relations.shape[1]} cells but the table has {n}"
            )
        relations.sum_duplicates()
        relations.eliminate_zeros()
        if not np.all(np.isfinite(relations.data)):
            row = int(np.repeat(np.arange(relations.shape[0]), np.diff(relations.indptr))[
                ~np.isfinite(relations.data)][0])
            raise ProblemError(f"{self.describe_relation(row)} has a coefficient that is NaN or infinite")
        set_("relations", relations)
        m = relations.shape[0]

        rhs = _vector("rhs", self.rhs, m, 0.0)
        if not np.all(np.isfinite(rhs)):
            raise ProblemError(f"{self.describe_relation(int(np.flatnonzero(~np.isfinite(rhs))[0]))}: right-hand side is NaN or infinite")
        empty_rows = np.diff(relations.indptr) == 0
        bad = np.flatnonzero(empty_rows & (rhs != 0))
        if bad.size:
            raise ProblemError(f"{self.describe_relation(int(bad[0]))} has no cells but a right-hand side of {rhs[bad[0]]:g}")
        set_("rhs", rhs)

        lower = _vector("lower", self.lower, n, -np.inf)
        upper = _vector("upper", self.upper, n, np.inf)
        lower[lower <= -NO_BOUND] = -np.inf
        upper[upper >= NO_BOUND] = np.inf
        for name, bound in (("lower bound", lower), ("upper bound", upper)):
            nan = np.flatnonzero(np.isnan(bound))
            if nan.size:
                raise ProblemError(f"{self.describe_cell(int(nan[0]))}: {name} is NaN")
        outside = np.flatnonzero((lower > values) | (upper < values))
        if outside.size:
            i = int(outside[0])
            raise ProblemError(
                f"{self.describe_cell(i)}: bounds [{lower[i]:g}, {upper[i]:g}] exclude its value {values[i]:g}"
            )

        weights = _vector("weights", self.weights, n, 1.0)
        bad = np.flatnonzero(~np.isfinite(weights) | (weights < 0))
        if bad.size:
            raise ProblemError(f"{self.describe_cell(int(bad[0]))}: weight {weights[bad[0]]:g} must be finite and >= 0")

        fixed = np.zeros(n, bool) if self.fixed is None else np.array(self.fixed, dtype=bool, copy=True).reshape(-1)
        if fixed.shape != (n,):
            raise ProblemError(f"fixed has {fixed.size} entries, expected {n}")
        lower[fixed] = values[fixed]
        upper[fixed] = values[fixed]

        sensitive = np.zeros(0, np.int64) if self.sensitive is None else np.array(self.sensitive, dtype=np.int64, copy=True).reshape(-1)
        out_of_range = sensitive[(sensitive < 0) | (sensitive >= n)]
        if out_of_range.size:
            raise ProblemError(f"sensitive cell {int(out_of_range[0])} does not exist (the table has cells 0..{n - 1})")
        order = np.argsort(sensitive, kind="stable")
        sensitive = sensitive[order]
        duplicated = sensitive[1:][sensitive[1:] == sensitive[:-1]]
        if duplicated.size:
            raise ProblemError(f"{self.describe_cell(int(duplicated[0]))} is listed as sensitive twice")
        s = sensitive.size
        lpl = _vector("lower_protection", self.lower_protection, s, 0.0)[order]
        upl = _vector("upper_protection", self.upper_protection, s, 0.0)[order]
        for name, level in (("lower protection level", lpl), ("upper protection level", upl)):
            bad = np.flatnonzero(~np.isfinite(level) | (level < 0))
            if bad.size:
                raise ProblemError(f"{self.describe_cell(int(sensitive[bad[0]]))}: {name} {level[bad[0]]:g} must be finite and >= 0")
        senses = _vector("senses", self.senses, s, SENSE_FREE, dtype=np.int8)[order]
        if np.any(~np.isin(senses, (SENSE_DOWN, SENSE_FREE, SENSE_UP))):
            raise ProblemError("senses must be +1 (up), -1 (down) or 0 (free)")

        for name, value in (("lower", lower), ("upper", upper), ("weights", weights), ("fixed", fixed),
                            ("sensitive", sensitive), ("lower_protection", lpl),
                            ("upper_protection", upl), ("senses", senses)):
            set_(name, value)

        protected_but_fixed = sensitive[fixed[sensitive] & ((lpl > 0) | (upl > 0))]
        if protected_but_fixed.size:
            raise ProblemError(f"{self.describe_cell(int(protected_but_fixed[0]))} is sensitive but may not change")
        up_ok, down_ok = self.safe_value_fits()
        neither = np.flatnonzero(~up_ok & ~down_ok)
        if neither.size:
            k = int(neither[0])
            i = int(sensitive[k])
            raise ProblemError(
                f"{self.describe_cell(i)}: both safe values {values[i] - lpl[k]:g} and {values[i] + upl[k]:g} "
                f"lie outside its bounds [{lower[i]:g}, {upper[i]:g}]"
            )
        conflict = np.flatnonzero(((senses == SENSE_UP) & ~up_ok) | ((senses == SENSE_DOWN) & ~down_ok))
        if conflict.size:
            k = int(conflict[0])
            word = "up" if senses[k] == SENSE_UP else "down"
            raise ProblemError(f"{self.describe_cell(int(sensitive[k]))}: the given sense '{word}' puts it outside its bounds")
        for name in ("values", "rhs", "lower", "upper", "weights", "fixed", "sensitive",
                     "lower_protection", "upper_protection", "senses"):
            _frozen(getattr(self, name))

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
