"""Cell weights w of the CTA objective (Cox 2005b, eq. (1): c_i = 1 or 1/x_i)."""

from __future__ import annotations

import numpy as np


def unit_weights(values: np.ndarray) -> np.ndarray:
    """w_i = 1: minimise the total absolute adjustment."""
    return np.ones(np.asarray(values).size)


def inverse_weights(values: np.ndarray, floor: float = 1.0) -> np.ndarray:
    """w_i = 1 / max(|a_i|, floor): minimise the total relative adjustment.

    Zero and tiny cells get weight 1/floor rather than an infinite one.
    """
    return 1.0 / np.maximum(np.abs(np.asarray(values, dtype=float)), floor)
