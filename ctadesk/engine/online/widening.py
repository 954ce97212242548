"""Secret widening of on-line CTA's protection levels, the same for a cell in every table.

The desktop widens each run's levels by factors drawn from a seed (ctadesk.engine.publish.widening);
a table server publishes many tables that share cells, and a cell must have one level wherever it
appears (consistency on input, Castro & González 2011 §4), so its factors come from a secret (the
sense store's) and the cell's key: 1 + U(spread) per side, U the first 8 bytes of
HMAC-SHA256(secret, side | key) as a fraction of 2^64.  Without it a cell with one contributor of
14.1 was published at exactly 1.1 x 14.1 = 15.51, and dividing any value by 1.1 or 0.9 recovered
2 632 of 4 979 sensitive cells (issue 30).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence

import numpy as np

from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.publish.widening import DEFAULT_SPREAD, spread_of, widened_by
from ctadesk.engine.rules.safety import SafetyRules

#: the sides a factor is drawn for, in the order of widened_by's factors
SIDES = ("lower", "upper")


def keyed_shares(keys: Sequence[str], secret: str, label: str) -> np.ndarray:
    """A secret share in [0, 1) per cell (len(keys)): the first 8 bytes of
    HMAC-SHA256(secret, label | key) as a fraction of 2^64 -- the same for a cell in every table,
    unpredictable without the secret, independent across labels."""
    key = secret.encode()
    return np.array([int.from_bytes(hmac.new(key, f"{label}|{cell}".encode(), hashlib.sha256).digest()[:8], "big")
                     / 2.0 ** 64 for cell in keys], dtype=float)


def keyed_factors(keys: Sequence[str], secret: str, spread: tuple[float, float] = DEFAULT_SPREAD) -> np.ndarray:
    """Factors (2 x len(keys)): 1 + U(spread) for each side of each cell, U the keyed share of the
    side (module docstring)."""
    low, high = spread_of(spread)
    shares = np.stack([keyed_shares(keys, secret, side) for side in SIDES]).reshape(2, len(keys))
    return 1.0 + low + (high - low) * shares


def rule_shares(rules: SafetyRules) -> tuple[float, ...]:
    """The shares of a cell's value an outsider who knows ``rules`` divides by: every p % and
    (p, q) rule's p and every safety range given as a percentage of the value."""
    percents = [*rules.p_percent, *rules.holding_p_percent, *(p for p, _ in rules.pq),
                *(p for p, _ in rules.holding_pq), rules.frequency_safety_range,
                rules.holding_frequency_safety_range, rules.request_safety_range, rules.manual_safety_range]
    return tuple(sorted({float(p) / 100.0 for p in percents if p > 0}))


def off_rule_shares(problem: CTAProblem, shares: Sequence[float], decimals: int) -> CTAProblem:
    """``problem`` (levels on the grid of 10^-decimals) with each safe value that the grid put at
    exactly a (1 + p) or a (1 - p), p one of the rules' ``shares``, one grid step further out
    where the bounds leave room: a cell published there gives its value back to anyone who divides
    by 1 + p (a widened level of 4.45 on 45.0 became 4.5 on the grid of 0.1: 40.5 = 0.9 x 45)."""
    step = 10.0 ** -decimals
    cells = problem.sensitive
    a = problem.values[cells]
    upper, lower = problem.upper_protection.copy(), problem.lower_protection.copy()
    close = step * 1e-3
    for share in shares:
        up_hit = ((upper > 0) & (np.abs(a + upper - a * (1 + share)) < close)
                  & (a + upper + step <= problem.upper[cells]))
        down_hit = ((lower > 0) & (np.abs(a - lower - a * (1 - share)) < close)
                    & (a - lower - step >= problem.lower[cells]))
        upper[up_hit] += step
        lower[down_hit] += step
    return problem.replace(lower_protection=lower, upper_protection=upper)


def widened_for_keys(problem: CTAProblem, sensitive_keys: Sequence[str], secret: str) -> CTAProblem:
    """``problem`` with the levels of its sensitive cells (keys ``sensitive_keys``, in the order
    of problem.sensitive) widened by keyed_factors."""
    return widened_by(problem, keyed_factors(sensitive_keys, secret))


__all__ = ["keyed_factors", "keyed_shares", "off_rule_shares", "rule_shares", "widened_for_keys"]
