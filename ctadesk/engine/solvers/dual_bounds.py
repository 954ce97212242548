"""Lower bounds on the fixed-sense L2 model (5.8) and pseudo-Huber model (5.17) of Petrenko 2017 from any
dual point, by weak duality.

For min sum w z^2 subject to A z = d and l <= z <= u (w > 0), every multiplier vector pi of the
relations gives

    g(pi) = min over l <= z <= u of  sum w z^2 + pi . (d - A z)
          = L(z(pi), pi),   z(pi) = clip(A^T pi / (2 w), l, u),

a lower bound on the optimum (the minimum is separable per cell, and z(pi) attains it).  With
the duals an interior point method reports, g certifies that its table is optimal without a
second solve; with poor duals it proves little and says so.

The bound is evaluated in floating point, so it is lowered by a bound on its rounding error
(Higham's gamma_k for each dot product, plus the error of evaluating L at a z(pi) computed from a
rounded A^T pi): the result is a lower bound on the exact g(pi), hence on the optimum.  Where
pi . d and sum w z^2 are huge and cancel (J. Castro's toysarah: cells of 1e11, weights of 1e-11)
that allowance swamps the bound, and the caller learns that nothing was certified.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

_EPS = float(np.finfo(float).eps)


def _gamma(k: int) -> float:
    """Higham's gamma_k = k u / (1 - k u): the relative error bound of a k-term dot product."""
    ku = k * _EPS
    return ku / (1.0 - ku)


def _column_error(A: sp.csr_array, pi: np.ndarray) -> np.ndarray:
    """A bound on the rounding error of each entry of A^T pi (a dot product over the column's
    entries, then a division by the weight)."""
    k_column = int(np.diff(A.tocsc().indptr).max(initial=0))
    return _gamma(k_column + 2) * (abs(A).T @ np.abs(pi))


def l2_dual_bound(weights: np.ndarray, relations: sp.sparray, rhs: np.ndarray, lower: np.ndarray,
                  upper: np.ndarray, pi: np.ndarray) -> float:
    """A number not above min sum w z^2 s.t. relations z = rhs, lower <= z <= upper (bounds may be
    infinite): g(pi) of the module docstring less its rounding allowance; -inf where a weight is
    not positive (the bound is not worked out for cells that cost nothing), pi is not finite or
    z(pi) is not (a cell with an infinite bound its multiplier pushes it towards: g(pi) is -inf)."""
    A = sp.csr_array(relations)
    pi = np.asarray(pi, dtype=float)
    if not np.all(np.isfinite(pi)) or not np.all(weights > 0):
        return -np.inf
    v = A.T @ pi
    z = np.clip(v / (2.0 * weights), lower, upper)
    if not np.all(np.isfinite(z)):
        return -np.inf
    residual = rhs - A @ z
    squares = weights * z * z
    value = float(squares.sum()) + float(pi @ residual)
    abs_pi = np.abs(pi)
    row_terms = abs(A) @ np.abs(z) + np.abs(rhs)
    k_row = int(np.diff(A.indptr).max(initial=0)) + 1
    n, m = weights.size, pi.size
    allowance = (_gamma(n + 3) * float(squares.sum())
                 + _gamma(m) * float(abs_pi @ np.abs(residual))
                 + _gamma(k_row) * float(abs_pi @ row_terms)
                 + float(np.sum(_column_error(A, pi) ** 2 / (4.0 * weights))))
    return value - 1.01 * allowance


def huber_dual_bound(weights: np.ndarray, relations: sp.sparray, rhs: np.ndarray, lower: np.ndarray,
                     upper: np.ndarray, pi: np.ndarray, delta: float) -> float:
    """The same weak-duality bound for the pseudo-Huber model (5.17), min sum w (sqrt(z^2 +
    delta^2) - delta): g(pi) = pi . d + sum over cells of min over the box of h(z) = phi(z) - v z,
    v = A^T pi.  With s = v / w, the unconstrained minimiser is delta s / sqrt(1 - s^2) for
    |s| < 1, at value -w delta s^2 / (1 + sqrt(1 - s^2)); for |s| >= 1 h falls without end
    towards the bound on the side of v.  The rounding allowance covers each term's evaluation and,
    through the concavity of g in v (a supergradient is -z*(v)), a rounded A^T pi: its error times
    the largest |z*| over the rounding interval.  -inf where a weight is not positive, pi is not
    finite or a minimiser is unbounded."""
    A = sp.csr_array(relations)
    pi = np.asarray(pi, dtype=float)
    if not np.all(np.isfinite(pi)) or not np.all(weights > 0) or delta <= 0:
        return -np.inf
    v = A.T @ pi
    error = _column_error(A, pi)
    z, free = _huber_minimiser(v, weights, lower, upper, delta)
    widest = np.maximum(np.abs(_huber_minimiser(v - error, weights, lower, upper, delta)[0]),
                        np.abs(_huber_minimiser(v + error, weights, lower, upper, delta)[0]))
    if not (np.all(np.isfinite(z)) and np.all(np.isfinite(widest))):
        return -np.inf
    s = np.where(free, v / weights, 0.0)
    root = np.sqrt(np.maximum(1.0 - s * s, 0.0))
    inside = -weights * delta * s * s / (1.0 + root)
    bent = z * z / (np.sqrt(z * z + delta * delta) + delta)       # sqrt(z^2 + delta^2) - delta without cancellation
    at_bound = weights * bent - v * z
    terms = np.where(free, inside, at_bound)
    magnitude = np.where(free, np.abs(inside), weights * bent + np.abs(v * z))
    value = float(terms.sum()) + float(pi @ rhs)
    n, m = weights.size, pi.size
    allowance = (_gamma(n + 8) * float(magnitude.sum()) + _gamma(m + 1) * float(np.abs(pi) @ np.abs(rhs))
                 + 1.01 * float(error @ widest))
    return value - 1.01 * allowance


def _huber_minimiser(v: np.ndarray, weights: np.ndarray, lower: np.ndarray, upper: np.ndarray,
                     delta: float) -> tuple[np.ndarray, np.ndarray]:
    """argmin over [lower, upper] of w (sqrt(z^2 + delta^2) - delta) - v z per cell (+-inf where it
    is unbounded), and whether it is the unconstrained minimiser (inside the box)."""
    s = v / weights
    with np.errstate(divide="ignore", invalid="ignore"):
        unconstrained = np.where(np.abs(s) < 1.0, delta * s / np.sqrt(np.maximum(1.0 - s * s, 0.0)),
                                 np.sign(s) * np.inf)
    z = np.clip(unconstrained, lower, upper)
    return z, (np.abs(s) < 1.0) & (unconstrained >= lower) & (unconstrained <= upper)


__all__ = ["huber_dual_bound", "l2_dual_bound"]
