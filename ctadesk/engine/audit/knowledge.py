"""What the attacker is assumed to know, turned into a range for every original cell value.

The audit of a release (Petrenko 2017, §3.1, "feasibility intervals"; Castro & González 2011,
§2: the bounds l, u "considered to be known by any attacker") asks which original
tables a are consistent with everything an attacker knows.  Everything but the relations
A a = b is a range per cell, so the attacker's knowledge is a box lower <= a <= upper:

* a-priori bounds: the problem's bounds l, u (Castro & González 2011, model (1); fixed cells are known
  exactly), only the sign of a table whose values are all non-negative, or each value to within
  a share of itself, the range the safety rule assumes public (Cox 2005a, §2: any respondent
  estimates any other's contribution to within q percent; the p% rule is the (p, q) rule with
  q = 100 %), fixed cells known exactly and signs kept;
* a suppressed release: the published (non-missing) cells are the originals;
* a CTA release with the capacity known: a non-sensitive cell moved by at most its capacity,
  absolute |x - a| <= c or relative |x - a| <= c |a| (Cox 2005a, §2, the capacities
  e_i); cells the solve kept fixed did not move.  Sensitive cells keep the a-priori bounds.

The true table must lie in the box: a release that breaks an assumption (a cell moved more than
the capacity, a published value of a suppressed release that is not the original) is refused,
naming the cell, since an audit under a false assumption proves nothing.
"""

from __future__ import annotations

import dataclasses
import enum

import numpy as np

from ctadesk.engine.errors import ProblemError
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.publish.precision import MAX_DECIMALS, published_decimals


class CapacityKind(str, enum.Enum):
    """How a cell's capacity is measured (Cox 2005a, §2)."""

    ABSOLUTE = "abs"     # |x - a| <= c
    RELATIVE = "rel"     # |x - a| <= c |a|, 0 <= c < 1


class APriori(str, enum.Enum):
    """Which bounds on the original values are public before the release."""

    PROBLEM = "problem"  # the problem's bounds l, u (Castro & González 2011, model (1)); fixed cells exact
    SIGN = "sign"        # only that a table whose values are all >= 0 has no negative cell
    RANGE = "range"      # each value to within AttackerKnowledge.a_priori_range of itself (the rule's q)


@dataclasses.dataclass(frozen=True)
class Capacity:
    """The most a non-sensitive cell may have moved: value c (one number, or one per cell)."""

    kind: CapacityKind
    value: float | np.ndarray

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", CapacityKind(self.kind))
        value = np.asarray(self.value, dtype=float)
        if not np.all(np.isfinite(value)) or np.any(value < 0):
            raise ProblemError("a capacity must be finite and >= 0")
        if self.kind is CapacityKind.RELATIVE and np.any(value >= 1):
            raise ProblemError("a relative capacity must be below 1 (a cell moved by 100 % or more can have "
                               "either sign, which is no interval)")

    def original_range(self, published: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The originals a consistent with published x: [x - c, x + c] (absolute), or for
        relative c < 1, |x - a| <= c |a| gives a of the sign of x in [x/(1+c), x/(1-c)]."""
        c = np.broadcast_to(np.asarray(self.value, dtype=float), published.shape)
        if self.kind is CapacityKind.ABSOLUTE:
            return published - c, published + c
        near, far = published / (1 + c), published / (1 - c)
        return np.minimum(near, far), np.maximum(near, far)


@dataclasses.dataclass(frozen=True, eq=False)
class Release:
    """A published table: a value per cell, and the cells left out (suppressed) as a mask."""

    published: np.ndarray
    missing: np.ndarray

    def __post_init__(self) -> None:
        published = np.array(self.published, dtype=float, copy=True).reshape(-1)
        missing = np.array(self.missing, dtype=bool, copy=True).reshape(-1)
        if missing.shape != published.shape:
            raise ProblemError(f"the release has {published.size} values but {missing.size} missing flags")
        bad = np.flatnonzero(~missing & ~np.isfinite(published))
        if bad.size:
            raise ProblemError(f"cell {int(bad[0])}: published value is NaN or infinite")
        published[missing] = np.nan
        for array in (published, missing):
            array.flags.writeable = False
        object.__setattr__(self, "published", published)
        object.__setattr__(self, "missing", missing)

    @classmethod
    def adjusted(cls, values: np.ndarray) -> Release:
        """A CTA release: every cell published."""
        values = np.asarray(values, dtype=float)
        return cls(values, np.zeros(values.shape, bool))

    @property
    def suppressed(self) -> bool:
        return bool(self.missing.any())

    def half_step(self) -> float:
        """How far a published value may lie from the value it was rounded from: 0.5 10^-d when
        every published value has at most d <= MAX_DECIMALS decimals (ctadesk.engine.publish.precision;
        0.5 for whole numbers), 0 when they are published in full (on no such grid)."""
        values = self.published[~self.missing]
        decimals = published_decimals(values, MAX_DECIMALS + 1)
        return 0.0 if decimals > MAX_DECIMALS else 0.5 * 10.0 ** -decimals


@dataclasses.dataclass(frozen=True)
class AttackerKnowledge:
    """The attacker's assumptions (issue 13).

    a_priori          public bounds before the release (APriori)
    published_exact   the published cells are the originals (a suppressed release)
    capacity          non-sensitive cells moved by at most this (a CTA release), or None
    percentage_known  the rule's percentage is public: each sensitive cell's protection levels
                      as a share of its value (used by the verdicts, see verdicts.py)
    a_priori_range    with APriori.RANGE, the share of its value each original is known to
                      within (1.0: +-100 %)
    """

    a_priori: APriori = APriori.PROBLEM
    published_exact: bool = False
    capacity: Capacity | None = None
    percentage_known: bool = False
    a_priori_range: float = 1.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "a_priori", APriori(self.a_priori))
        if not (np.isfinite(self.a_priori_range) and self.a_priori_range >= 0):
            raise ProblemError(f"the a-priori range {self.a_priori_range} must be a finite share >= 0")

    @classmethod
    def for_release(cls, release: Release, **changes) -> AttackerKnowledge:
        """The usual assumptions for a release: a suppressed release publishes originals."""
        return cls(published_exact=release.suppressed, **changes)


def a_priori_bounds(problem: CTAProblem, a_priori: APriori, share: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """The bounds on the originals that are public before the release (``share``: the range of
    APriori.RANGE)."""
    if a_priori is APriori.PROBLEM:
        return problem.lower.copy(), problem.upper.copy()
    nonnegative = bool(np.all(problem.values >= 0))
    lower = np.zeros(problem.n_cells) if nonnegative else np.full(problem.n_cells, -np.inf)
    if a_priori is APriori.SIGN:
        return lower, np.full(problem.n_cells, np.inf)
    a = problem.values
    known = problem.lower == problem.upper
    low, high = a - share * np.abs(a), a + share * np.abs(a)
    return (np.where(known, a, np.maximum(low, lower) if nonnegative else low),
            np.where(known, a, high))


def attacker_box(problem: CTAProblem, release: Release, knowledge: AttackerKnowledge,
                 tolerance: float) -> tuple[np.ndarray, np.ndarray]:
    """lower <= a <= upper for every cell: what the attacker knows beyond the relations.

    ``tolerance`` (table units) is how far a published value may sit outside its assumed range
    and still be taken as rounding; the box is then widened to hold the original.
    """
    if release.published.size != problem.n_cells:
        raise ProblemError(f"the release has {release.published.size} cells, the table {problem.n_cells}")
    lower, upper = a_priori_bounds(problem, knowledge.a_priori, knowledge.a_priori_range)
    published = ~release.missing
    x = release.published
    if knowledge.published_exact:
        _check_inside(problem, published, x, x, tolerance, "was published as {x:.10g}, not its value {a:.10g}",
                      release)
        lower[published] = x[published]
        upper[published] = x[published]
    elif knowledge.capacity is not None:
        sensitive = np.zeros(problem.n_cells, bool)
        sensitive[problem.sensitive] = True
        moved = published & ~sensitive & ~problem.fixed
        low, high = knowledge.capacity.original_range(np.where(published, x, 0.0))
        _check_inside(problem, moved, low, high, tolerance,
                      "moved from {a:.10g} to {x:.10g}, more than the capacity the attacker is assumed to know",
                      release)
        lower[moved] = np.maximum(lower[moved], low[moved])
        upper[moved] = np.minimum(upper[moved], high[moved])
        kept = published & problem.fixed
        _check_inside(problem, kept, x, x, tolerance, "must not change but was published as {x:.10g}, "
                      "not {a:.10g}", release)
        lower[kept] = upper[kept] = x[kept]
    a = problem.values
    return np.minimum(lower, a), np.maximum(upper, a)


def _check_inside(problem: CTAProblem, cells: np.ndarray, low: np.ndarray, high: np.ndarray, tolerance: float,
                  message: str, release: Release) -> None:
    """ProblemError naming the first of ``cells`` whose original lies outside [low, high]."""
    a = problem.values
    with np.errstate(invalid="ignore"):
        outside = cells & ((a < low - tolerance) | (a > high + tolerance))
    if outside.any():
        i = int(np.flatnonzero(outside)[0])
        raise ProblemError(f"{problem.describe_cell(i)} "
                           + message.format(a=a[i], x=release.published[i]))
