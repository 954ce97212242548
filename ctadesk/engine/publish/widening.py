"""Secret widening of protection levels, so a released value does not give its original away.

An optimal CTA table usually puts a sensitive cell exactly at its safe value,
original ± protection level.  When the level is a known share of the original
(a p % rule: 162 published as 162 × 0.8 = 129.6), whoever knows the share
recovers the original as one of two numbers.  `widen` multiplies each level by
a secret random factor 1 + U(spread) drawn independently per cell and side,
so the released value only brackets the original.  The seed is the secret: it
belongs in the project and the internal workbook, never in a release.

    widened = widen(problem, seed)
    result = solve(widened, "milp")
    report = WideningReport.of(problem, widened, seed).with_objectives(required_result, result)
"""

from __future__ import annotations

import dataclasses
import secrets

import numpy as np

from ctadesk.engine.errors import ProblemError
from ctadesk.engine.problem import CTAProblem

#: default range of the extra share added to each protection level: at least 5 %, so no level
#: where the bounds leave room is released at its required share (a factor of 1 + U(0, ...)
#: put some cells within a rounding of original +- level, which an attacker knowing the rule's
#: percentage reads back), and at most 25 %
DEFAULT_SPREAD = (0.05, 0.25)
#: room within this share of a required level is no room (bounds set at exactly value ± level)
_SAME = 1e-9


def new_seed() -> int:
    """A fresh secret seed (63 random bits from the operating system)."""
    return secrets.randbits(63)


def widen(problem: CTAProblem, seed: int, spread: tuple[float, float] = DEFAULT_SPREAD) -> CTAProblem:
    """`problem` with every sensitive cell's lower and upper protection level multiplied by an
    independent factor 1 + U(spread[0], spread[1]), drawn deterministically from `seed`
    (widened_by)."""
    low, high = spread_of(spread)
    rng = np.random.default_rng(seed)
    return widened_by(problem, 1.0 + rng.uniform(low, high, size=(2, problem.n_sensitive)))


def spread_of(spread: tuple[float, float]) -> tuple[float, float]:
    """The spread as two floats; ProblemError unless 0 <= low <= high < inf."""
    low, high = (float(s) for s in spread)
    if not 0 <= low <= high or not np.isfinite(high):
        raise ProblemError(f"widening spread {spread} must be two finite shares 0 <= low <= high")
    return low, high


def widened_by(problem: CTAProblem, factors: np.ndarray) -> CTAProblem:
    """`problem` with each sensitive cell's lower and upper protection level multiplied by
    factors[0] and factors[1] (2 x s, each >= 1).

    A widened level is clipped so that the safe value still fits the cell's bounds wherever
    the required level did (never below the required level); a side whose safe value did
    not fit is widened as it is, since it stays impossible either way.  Levels of 0 stay 0.
    """
    up_ok, down_ok = problem.safe_value_fits()
    cells = problem.sensitive
    down_room = problem.values[cells] - problem.lower[cells]
    up_room = problem.upper[cells] - problem.values[cells]
    lower = _clipped(problem.lower_protection * factors[0], problem.lower_protection, down_room, down_ok)
    upper = _clipped(problem.upper_protection * factors[1], problem.upper_protection, up_room, up_ok)
    return problem.replace(lower_protection=lower, upper_protection=upper)


def _clipped(widened: np.ndarray, required: np.ndarray, room: np.ndarray, fits: np.ndarray) -> np.ndarray:
    """Widened levels, cut back to the room where the required level fitted (never below it;
    exactly the required level where the bounds leave no room beyond it, rounding aside)."""
    limit = np.where(room > required * (1 + _SAME), room, required)
    return np.where(fits, np.minimum(widened, limit), widened)


@dataclasses.dataclass(frozen=True)
class WideningReport:
    """What widening did and what it cost (for the project and the internal workbook only).

    seed, spread      the secret that reproduces the factors
    required          sum of the required protection levels (lower + upper)
    widened           sum of the widened levels
    extra_objective   weighted change of the widened table minus that of a table protected
                      at the required levels (None when only the widened problem was solved)
    unwidened         levels > 0 left at their required value: the cell's bound sits at its
                      safe value, so it could not be widened
    """

    seed: int
    spread: tuple[float, float]
    required: float
    widened: float
    extra_objective: float | None = None
    unwidened: int = 0

    @classmethod
    def of(cls, required: CTAProblem, widened: CTAProblem, seed: int,
           spread: tuple[float, float] = DEFAULT_SPREAD) -> WideningReport:
        """The report of `widened = widen(required, seed, spread)`."""
        def total(problem: CTAProblem) -> float:
            return float(problem.lower_protection.sum() + problem.upper_protection.sum())

        same = sum(int(np.count_nonzero((before > 0) & (after <= before * (1 + _SAME))))
                   for before, after in ((required.lower_protection, widened.lower_protection),
                                         (required.upper_protection, widened.upper_protection)))
        return cls(int(seed), (float(spread[0]), float(spread[1])), total(required), total(widened), unwidened=same)

    def with_objectives(self, required_objective: float, widened_objective: float) -> WideningReport:
        """The report with the extra cost: objectives of the required and the widened solve."""
        return dataclasses.replace(self, extra_objective=float(widened_objective) - float(required_objective))

    @property
    def extra_share(self) -> float:
        """How much wider the levels are in all, as a share of the required levels (0.1 = 10 %)."""
        return self.widened / self.required - 1.0 if self.required > 0 else 0.0

    def settings(self) -> tuple[tuple[str, object], ...]:
        """(name, value) rows for the internal workbook's Method sheet (they hold the seed)."""
        rows: list[tuple[str, object]] = [
            ("widening seed (secret)", str(self.seed)),
            ("widening factor range", f"1 + U({self.spread[0]:g}, {self.spread[1]:g})"),
            ("protection levels required (sum)", self.required),
            ("protection levels used (sum)", self.widened),
            ("protection levels widened by (%)", round(100 * self.extra_share, 3)),
        ]
        if self.extra_objective is not None:
            rows.append(("extra weighted change from widening", self.extra_objective))
        if self.unwidened:
            rows.append(("protection levels not widened (bound at the safe value)", self.unwidened))
        return tuple(rows)

    def summary(self) -> str:
        """One line for a terminal, without the seed."""
        text = (f"protection levels widened by a secret factor: {100 * self.extra_share:.1f} % wider in all "
                f"({self.required:g} -> {self.widened:g})")
        if self.extra_objective is not None:
            text += f", costing {self.extra_objective:g} more weighted change"
        if self.unwidened:
            text += (f"; {self.unwidened:,} level(s) not widened: the cell's bound is its safe value, so a "
                     "release there is original ± the rule's share (widen those bounds to hide it)")
        return text
