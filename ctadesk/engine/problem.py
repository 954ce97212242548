"""The one immutable CTA problem description every solver takes.

Castro & González 2011, problem (1): cells a with relations
A x = b, attacker-known bounds l <= x <= u, weights w, sensitive cells S with
lower/upper protection levels; a released sensitive value must satisfy
x_i <= a_i - lpl_i or x_i >= a_i + upl_i.  Validation lives here and only here.
"""

from __future__ import annotations

import dataclasses
import math
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
#: what a problem works out from its senses and fits at the first call (effective_senses,
#: free_senses), dropped by replace and divided with the fields they copy
_DERIVED = ("_effective_senses", "_free_senses")


def _safe_value_fits(a: np.ndarray, lower: np.ndarray, upper: np.ndarray, lower_protection: np.ndarray,
                     upper_protection: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per sensitive cell of value a: does a + upl fit under upper, does a - lpl fit over lower
    (within BOUND_RTOL of max(1, |a|))."""
    scale = BOUND_RTOL * np.maximum(1.0, np.abs(a))
    with np.errstate(over="ignore"):    # a sum beyond the largest float is inf: past any finite bound
        return a + upper_protection <= upper + scale, a - lower_protection >= lower - scale


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
    _fits: tuple[np.ndarray, np.ndarray] = dataclasses.field(init=False, repr=False)

    def __init__(self, values: ArrayLike, relations: sp.sparray | sp.spmatrix | ArrayLike,
                 rhs: ArrayLike | None = None, lower: ArrayLike | None = None, upper: ArrayLike | None = None,
                 weights: ArrayLike | None = None, sensitive: ArrayLike | None = None,
                 lower_protection: ArrayLike | None = None, upper_protection: ArrayLike | None = None,
                 fixed: ArrayLike | None = None, senses: ArrayLike | None = None,
                 cell_label: Callable[[int], str] | None = None,
                 relation_label: Callable[[int], str] | None = None) -> None:
        object.__setattr__(self, "cell_label", cell_label)
        object.__setattr__(self, "relation_label", relation_label)
        self._settle({"values": values, "relations": relations, "rhs": rhs, "lower": lower, "upper": upper,
                      "weights": weights, "sensitive": sensitive, "lower_protection": lower_protection,
                      "upper_protection": upper_protection, "fixed": fixed, "senses": senses}, None)

    def _settle(self, given: dict[str, Any], base: CTAProblem | None) -> None:
        """Validate and set the array fields in ``given``, read-only: every field when ``base`` is
        None, else those that change from ``base`` (a validated problem whose other fields this one
        shares).  A check runs when any field it reads is in ``given``: the others passed on ``base``
        and read the same arrays, so the first check that fails is the one the whole validation
        would fail first, with the same message."""
        touched = set(given)
        set_ = lambda name, value: object.__setattr__(self, name, value)  # noqa: E731
        field = lambda name: given[name] if name in given else getattr(base, name)  # noqa: E731

        a = np.array(given["values"], dtype=float, copy=True).reshape(-1) if "values" in given else self.values
        n = a.size
        if "values" in given:
            self._check_finite("value", a)
        if base is not None and n != base.n_cells:
            touched |= {f.name for f in dataclasses.fields(self) if f.init}

        if "relations" in touched:
            matrix = self._matrix(field("relations"), n)
            touched.add("rhs")
        else:
            matrix = self.relations
        b = self._rhs(field("rhs"), matrix) if "rhs" in touched else self.rhs

        low = self._bound("lower", field("lower"), n, -np.inf) if "lower" in touched else self.lower
        up = self._bound("upper", field("upper"), n, np.inf) if "upper" in touched else self.upper
        if touched & {"values", "lower", "upper"}:
            outside = np.flatnonzero((low > a) | (up < a))
            if outside.size:
                i = int(outside[0])
                raise ProblemError(
                    f"{self.describe_cell(i)}: bounds [{low[i]:g}, {up[i]:g}] exclude its value {a[i]:g}"
                )

        w = _vector("weights", field("weights"), n, 1.0) if "weights" in touched else self.weights
        if "weights" in touched:
            bad = np.flatnonzero(~np.isfinite(w) | (w < 0))
            if bad.size:
                raise ProblemError(
                    f"{self.describe_cell(int(bad[0]))}: weight {w[bad[0]]:g} must be finite and >= 0")

        held = self._fixed(field("fixed"), n) if "fixed" in touched else self.fixed
        if touched & {"values", "lower", "upper", "fixed"} and held.any():
            low = low if "lower" in touched else low.copy()
            up = up if "upper" in touched else up.copy()
            low[held] = a[held]
            up[held] = a[held]

        order: np.ndarray | slice
        if "sensitive" in touched:
            cells, order = self._sensitive(field("sensitive"), n)
            touched |= {"lower_protection", "upper_protection", "senses"}
        else:
            cells, order = self.sensitive, slice(None)
        s = cells.size
        levels = []
        for name, words in (("lower_protection", "lower protection level"),
                            ("upper_protection", "upper protection level")):
            if name not in touched:
                levels.append(getattr(self, name))
                continue
            level = _vector(name, field(name), s, 0.0)[order]
            bad = np.flatnonzero(~np.isfinite(level) | (level < 0))
            if bad.size:
                raise ProblemError(
                    f"{self.describe_cell(int(cells[bad[0]]))}: {words} {level[bad[0]]:g} must be finite and >= 0")
            levels.append(level)
        lpl, upl = levels
        if "senses" in touched:
            chosen = _vector("senses", field("senses"), s, SENSE_FREE, dtype=np.int8)[order]
            if np.any(~np.isin(chosen, (SENSE_DOWN, SENSE_FREE, SENSE_UP))):
                raise ProblemError("senses must be +1 (up), -1 (down) or 0 (free)")
        else:
            chosen = self.senses

        if touched & {"fixed", "sensitive", "lower_protection", "upper_protection"}:
            protected_but_fixed = cells[held[cells] & ((lpl > 0) | (upl > 0))]
            if protected_but_fixed.size:
                raise ProblemError(
                    f"{self.describe_cell(int(protected_but_fixed[0]))} is sensitive but may not change")
        if touched & {"values", "lower", "upper", "fixed", "sensitive", "lower_protection", "upper_protection"}:
            fits = _safe_value_fits(a[cells], low[cells], up[cells], lpl, upl)
            up_ok, down_ok = fits
            neither = np.flatnonzero(~up_ok & ~down_ok)
            if neither.size:
                k = int(neither[0])
                i = int(cells[k])
                raise ProblemError(
                    f"{self.describe_cell(i)}: both safe values {a[i] - lpl[k]:g} and {a[i] + upl[k]:g} "
                    f"lie outside its bounds [{low[i]:g}, {up[i]:g}]"
                )
            touched.add("senses")
        else:
            fits = self._fits
            up_ok, down_ok = fits
        if "senses" in touched:
            conflict = np.flatnonzero(((chosen == SENSE_UP) & ~up_ok) | ((chosen == SENSE_DOWN) & ~down_ok))
            if conflict.size:
                k = int(conflict[0])
                word = "up" if chosen[k] == SENSE_UP else "down"
                raise ProblemError(
                    f"{self.describe_cell(int(cells[k]))}: the given sense '{word}' puts it outside its bounds")

        set_("relations", matrix)
        for name, array in (("values", a), ("rhs", b), ("lower", low), ("upper", up), ("weights", w),
                            ("fixed", held), ("sensitive", cells), ("lower_protection", lpl),
                            ("upper_protection", upl), ("senses", chosen)):
            set_(name, _frozen(array))
        set_("_fits", tuple(_frozen(ok) for ok in fits))

    def _matrix(self, relations: sp.sparray | sp.spmatrix | ArrayLike, n: int) -> sp.csr_array:
        """The relations as a CSR array of n columns, duplicates summed, zeros dropped, all finite."""
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
        return matrix

    def _rhs(self, rhs: ArrayLike | None, matrix: sp.csr_array) -> np.ndarray:
        """b: one finite entry per relation, zero on a relation of no cells."""
        b = _vector("rhs", rhs, matrix.shape[0], 0.0)
        if not np.all(np.isfinite(b)):
            row = int(np.flatnonzero(~np.isfinite(b))[0])
            raise ProblemError(f"{self.describe_relation(row)}: right-hand side is NaN or infinite")
        bad = np.flatnonzero((np.diff(matrix.indptr) == 0) & (b != 0))
        if bad.size:
            raise ProblemError(
                f"{self.describe_relation(int(bad[0]))} has no cells but a right-hand side of {b[bad[0]]:g}")
        return b

    def _bound(self, name: str, bound: ArrayLike | None, n: int, default: float) -> np.ndarray:
        """A lower or upper bound per cell, +-NO_BOUND and beyond made infinite, none NaN."""
        array = _vector(name, bound, n, default)
        array[(array <= -NO_BOUND) if default < 0 else (array >= NO_BOUND)] = default
        nan = np.flatnonzero(np.isnan(array))
        if nan.size:
            raise ProblemError(f"{self.describe_cell(int(nan[0]))}: {name} bound is NaN")
        return array

    @staticmethod
    def _fixed(fixed: ArrayLike | None, n: int) -> np.ndarray:
        held = np.zeros(n, bool) if fixed is None else np.array(fixed, dtype=bool, copy=True).reshape(-1)
        if held.shape != (n,):
            raise ProblemError(f"fixed has {held.size} entries, expected {n}")
        return held

    def _sensitive(self, sensitive: ArrayLike | None, n: int) -> tuple[np.ndarray, np.ndarray]:
        """The sensitive cells ascending, each once and in the table, and the order that sorts them."""
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
        return cells, order

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
        """Per sensitive cell: does a + upl fit under u, does a - lpl fit over l (read-only,
        worked out once when the problem was validated)."""
        return self._fits

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
        """Given senses, completed by the senses the bounds force: a new array at every call, of
        one worked out at the first (a function of the read-only senses and safe-value fits alone,
        asked by five stages of a solve; ``replace`` drops it with the fields it copies)."""
        return self._kept_effective_senses().copy()

    @property
    def free_senses(self) -> int:
        """How many sensitive cells have neither a given sense nor one their bounds force (SENSE_FREE
        in effective_senses), counted once: four stages of a solve ask whether any is free."""
        count = self.__dict__.get("_free_senses")
        if count is None:
            count = self.__dict__["_free_senses"] = int(np.count_nonzero(self._kept_effective_senses() == SENSE_FREE))
        return count

    def _kept_effective_senses(self) -> np.ndarray:
        """effective_senses itself, read-only, worked out at the first call."""
        kept = self.__dict__.get("_effective_senses")
        if kept is None:
            kept = _frozen(np.where(self.senses != SENSE_FREE, self.senses, self.forced_senses).astype(np.int8))
            self.__dict__["_effective_senses"] = kept
        return kept

    @property
    def deviation_rhs(self) -> np.ndarray:
        """b - A a: the right-hand side for deviations z = x - a."""
        return self.rhs - self.relations @ self.values

    def replace(self, **changes: Any) -> CTAProblem:
        """A new problem with some fields changed, as valid as one constructed with them: the
        fields given are validated and so is every check across fields that reads one of them
        (``_settle``); the unchanged fields' own checks passed on this problem, and their
        read-only arrays are shared rather than copied and checked again."""
        unknown = changes.keys() - {f.name for f in dataclasses.fields(self) if f.init}
        if unknown:
            raise TypeError(f"CTAProblem has no field {sorted(unknown)[0]!r}")
        changed = object.__new__(type(self))
        changed.__dict__.update(self.__dict__)
        for derived in _DERIVED:                # of this problem's senses and fits
            changed.__dict__.pop(derived, None)
        for name in ("cell_label", "relation_label"):
            if name in changes:
                object.__setattr__(changed, name, changes.pop(name))
        changed._settle(changes, self)
        return changed

    def divided(self, unit: float, weight: float) -> CTAProblem:
        """``replace`` with the values, right-hand sides, bounds and protection levels divided by
        ``unit`` and the weights by ``weight``, both powers of two (table units,
        engine/table/units.py), validated by the checks whose outcome such a division can change.

        Dividing by a power of two only moves exponents, and rounds monotonically where it
        underflows, so of the checks this problem passed these pass again: a relation of no cells
        has a right-hand side of 0, 0 still; a value within its bounds stays within them; a fixed
        sensitive cell's protection levels are 0, 0 still; nothing becomes NaN.  Those that can
        change are made again: where a divisor is below 1 a quotient may overflow (made infinite)
        and a bound may reach NO_BOUND (made none, a fixed cell's then its value again, as
        ``_settle`` does), and the safe values' fits use the floor max(1, |a|), which does not
        scale: dividing by a unit of 1 or more, a fit that held holds (both sides of its comparison
        are divided by the unit, exactly or, where a quotient is subnormal, within far less than
        the tolerance 1e-9 max(1, |a| / unit) has grown by, and that tolerance is at least the
        original's divided by the unit), so where every safe value fits both ways they are not
        worked out again.  Where any of these could fail, and where ``unit`` or ``weight`` is no
        power of two, this is ``replace`` itself, which fails with its own message.
        tests/engine/test_problem_divided.py compares both on random problems."""
        quotients = {"values": self.values / unit, "rhs": self.rhs / unit, "lower": self.lower / unit,
                     "upper": self.upper / unit, "lower_protection": self.lower_protection / unit,
                     "upper_protection": self.upper_protection / unit, "weights": self.weights / weight}
        # a divisor of 1 or more moves no magnitude up: its quotients are finite and its bounds stay
        # short of NO_BOUND (a fixed cell's bounds then stay its value); the checks of a smaller one
        # are made (a first solve of a small table pays about a microsecond a numpy call)
        at_risk = [name for name, divisor in (("values", unit), ("rhs", unit), ("lower_protection", unit),
                                              ("upper_protection", unit), ("weights", weight)) if divisor < 1.0]
        if not (math.frexp(unit)[0] == 0.5 and math.frexp(weight)[0] == 0.5 and all(
                np.isfinite(quotients[name]).all() for name in at_risk)):
            return self.replace(**quotients)
        a, lpl, upl = quotients["values"], quotients["lower_protection"], quotients["upper_protection"]
        low, up = quotients["lower"], quotients["upper"]
        if unit < 1.0:
            low, up = low.copy(), up.copy()
            low[low <= -NO_BOUND] = -np.inf
            up[up >= NO_BOUND] = np.inf
            held = self.fixed
            if held.any():
                low[held] = a[held]
                up[held] = a[held]
        if unit >= 1.0 and self._fits[0].all() and self._fits[1].all():
            fits = self._fits       # every safe value fits both ways, and still does (docstring)
        else:
            cells, senses = self.sensitive, self.senses
            fits = _safe_value_fits(a[cells], low[cells], up[cells], lpl, upl)
            up_ok, down_ok = fits
            if not (up_ok.all() and down_ok.all()) and np.any(
                    (~up_ok & ~down_ok) | ((senses == SENSE_UP) & ~up_ok) | ((senses == SENSE_DOWN) & ~down_ok)):
                return self.replace(**quotients)
        changed = object.__new__(type(self))
        state = changed.__dict__                # a frozen dataclass's fields, set as object.__setattr__ would
        state.update(self.__dict__)
        for derived in _DERIVED:
            state.pop(derived, None)
        for array in (*quotients.values(), low, up, *fits):
            array.flags.writeable = False
        state.update(quotients, lower=low, upper=up, _fits=tuple(fits))
        return changed

    def with_senses(self, senses: np.ndarray) -> CTAProblem:
        """The same problem with every sensitive cell's sense fixed."""
        return self.replace(senses=np.asarray(senses, dtype=np.int8))
