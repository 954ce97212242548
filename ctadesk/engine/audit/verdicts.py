"""Verdicts on each audited cell: is the attacker's interval wide enough on both sides?

A sensitive cell is protected when the attacker cannot get closer to its value a than its
protection levels: the attacker's interval [lower, upper] must reach a - lpl and a + upl
(Petrenko 2017, §3.1: a feasibility interval that does not cover the protection interval means
inferential disclosure; one that is a single point, exact disclosure).  Two more ways to fail:
the published value itself lies inside (a - lpl, a + upl) (Castro & González 2011, model (1): a released
value must lie outside it), and, when the rule's percentage is public, the release is exactly
a +- level and only one of the two originals that would give it, x / (1 + upl/a) (moved up)
and x / (1 - lpl/a) (moved down), lies in the interval: the original is singled out.

With the percentage public the attacker also knows that a protected value moved by at least
its level, so the original lies in [lower, x/(1+upl/a)] or in [x/(1-lpl/a), upper]; the ends
of what is left of the interval are the ones judged.

A published value is known only to its precision: x rounded to d decimals stands for any value
within h = 0.5 10^-d of it (``half_step``; 0 for values published in full), so each candidate
is a range, x/(1+upl/a) +- h/(1+upl/a) and x/(1-lpl/a) +- h/(1-lpl/a), and the original is
singled out when it lies in the one range that meets the interval: the release is a +- level
up to its rounding, and the attacker knows a to within h.
"""

from __future__ import annotations

import dataclasses

import numpy as np


@dataclasses.dataclass(frozen=True, eq=False)
class Verdicts:
    """Per audited cell: the interval judged and each way it fails."""

    lower: np.ndarray
    upper: np.ndarray
    exact: np.ndarray
    lower_short: np.ndarray
    upper_short: np.ndarray
    published_inside: np.ndarray
    singled_out: np.ndarray


def judge(original: np.ndarray, published: np.ndarray, lower: np.ndarray, upper: np.ndarray,
          lower_protection: np.ndarray, upper_protection: np.ndarray, percentage_known: bool,
          tolerance: float, half_step: float = 0.0) -> Verdicts:
    """The verdicts on cells with original values a, published x (NaN: suppressed), attacker
    intervals [lower, upper] and protection levels; ``tolerance`` in the table's units;
    ``half_step`` how far a published value may be from the value it rounds (module doc)."""
    a, x = original, published
    low_safe, high_safe = a - lower_protection, a + upper_protection
    with np.errstate(invalid="ignore"):
        inside = (x > low_safe + tolerance) & (x < high_safe - tolerance)
    singled = np.zeros(a.size, bool)
    if percentage_known:
        lower, upper, singled = _percentage_known(a, x, lower, upper, lower_protection, upper_protection,
                                                  inside, tolerance, half_step)
    return Verdicts(lower, upper, upper - lower <= tolerance, lower > low_safe + tolerance,
                    upper < high_safe - tolerance, inside, singled)


def _percentage_known(a: np.ndarray, x: np.ndarray, lower: np.ndarray, upper: np.ndarray, lpl: np.ndarray,
                      upl: np.ndarray, inside: np.ndarray, tolerance: float, half_step: float
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The interval left once the attacker knows each level as a share of the value, and
    whether the original is singled out.  Applies to cells with a > 0 published as x > 0 outside
    their protection interval (the knowledge holds only for them)."""
    applies = (a > 0) & (x > 0) & ~inside
    with np.errstate(divide="ignore", invalid="ignore"):
        up_factor = np.where(applies, 1 / (1 + upl / a), np.nan)
        down_factor = np.where(applies & (lpl < a), 1 / (1 - lpl / a), np.nan)
        up_low, up_high = (x - half_step) * up_factor, (x + half_step) * up_factor
        down_low, down_high = (x - half_step) * down_factor, (x + half_step) * down_factor
        up_possible = lower <= up_high + tolerance
        down_possible = down_low <= upper + tolerance
        new_lower = np.where(applies & ~up_possible & down_possible, np.maximum(lower, down_low), lower)
        new_upper = np.where(applies & ~down_possible & up_possible, np.minimum(upper, up_high), upper)
        up_in = up_possible & (up_low <= upper + tolerance)
        down_in = down_possible & (down_high >= lower - tolerance)
        candidate_low = np.where(up_in, up_low, down_low)
        candidate_high = np.where(up_in, up_high, down_high)
        singled = (applies & (up_in != down_in) & (a >= candidate_low - tolerance)
                   & (a <= candidate_high + tolerance))
    return new_lower, new_upper, singled
