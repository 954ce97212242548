"""Secret widening of the on-line service's protection levels, the same for a cell in every table.

The desktop widens each run's levels by factors drawn from a seed (ctadesk.engine.widening); a
table server publishes many tables that share cells, and a cell must have one level wherever it
appears (consistency on input, paper 000 §4), so its factors come from the store's secret and the
cell's key: 1 + U(spread) per side, U the first 8 bytes of HMAC-SHA256(secret, side | key) as a
fraction of 2^64.  Without it a cell with one contributor of 14.1 was published at exactly
1.1 x 14.1 = 15.51, and dividing any value by 1.1 or 0.9 recovered 2 632 of 4 979 sensitive
cells (issue 30).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence

import numpy as np

from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.widening import DEFAULT_SPREAD, spread_of, widened_by

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


def widened_for_keys(problem: CTAProblem, sensitive_keys: Sequence[str], secret: str) -> CTAProblem:
    """``problem`` with the levels of its sensitive cells (keys ``sensitive_keys``, in the order
    of problem.sensitive) widened by keyed_factors."""
    return widened_by(problem, keyed_factors(sensitive_keys, secret))


__all__ = ["keyed_factors", "keyed_shares", "widened_for_keys"]
