"""The weak-duality bounds of the L2 and pseudo-Huber models (solvers/dual_bounds.py) against exact
checkers (rational, 80-digit decimal), and their use: an "optimal" clarabel table certified
without a second solve."""

from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import ctadesk.engine.solvers.conic as conic
from ctadesk.engine.methods import solve
from ctadesk.engine.result import SolveOptions, Status
from ctadesk.engine.solvers.dual_bounds import huber_dual_bound, l2_dual_bound


def exact_dual(weights, A, rhs, lower, upper, pi) -> Fraction:
    """g(pi) = min over the box of sum w z^2 + pi.(rhs - A z), in exact rational arithmetic."""
    w = [Fraction(x) for x in weights]
    p = [Fraction(x) for x in pi]
    dense = A.toarray()
    m, n = dense.shape
    total = sum(p[i] * Fraction(rhs[i]) for i in range(m))
    for j in range(n):
        v = sum(Fraction(dense[i, j]) * p[i] for i in range(m))
        z = v / (2 * w[j])
        if np.isfinite(lower[j]):
            z = max(z, Fraction(lower[j]))
        if np.isfinite(upper[j]):
            z = min(z, Fraction(upper[j]))
        total += w[j] * z * z - v * z
    return total


@st.composite
def dual_points(draw):
    """A random L2 model with a known feasible point z0, and multipliers pi of any magnitude."""
    n = draw(st.integers(2, 25))
    m = draw(st.integers(1, 8))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    cell_scale = 10.0 ** draw(st.integers(-3, 11))
    weight_scale = 10.0 ** draw(st.integers(-11, 2))
    pi_scale = 10.0 ** draw(st.integers(-12, 12))
    A = sp.csr_array(rng.integers(-1, 2, size=(m, n)).astype(float))
    weights = weight_scale * 10.0 ** rng.uniform(-3, 3, n)
    z0 = cell_scale * rng.normal(size=n)
    room = cell_scale * rng.uniform(0, 2, size=n)
    lower = np.where(rng.random(n) < 0.3, -np.inf, z0 - room * rng.random(n))
    upper = np.where(rng.random(n) < 0.3, np.inf, z0 + room * rng.random(n))
    rhs = A @ z0
    if draw(st.booleans()):
        pi = pi_scale * rng.normal(size=m)
    else:  # near the optimum's multipliers: the multipliers of the unbounded problem
        H = (A * (0.5 / weights)) @ A.T
        pi = np.linalg.lstsq(H.toarray(), rhs, rcond=None)[0] * (1 + 1e-9 * rng.normal(size=m))
    return weights, A, rhs, lower, upper, pi, z0


@settings(max_examples=300, deadline=None)
@given(dual_points())
def test_the_bound_never_exceeds_the_exact_dual_nor_a_feasible_point(case):
    weights, A, rhs, lower, upper, pi, z0 = case
    bound = l2_dual_bound(weights, A, rhs, lower, upper, pi)
    if bound == -np.inf:
        return
    exact = exact_dual(weights, A, rhs, lower, upper, pi)
    assert Fraction(bound) <= exact
    # weak duality: below sum w z0^2 whenever z0 is feasible (rhs = A z0 rounded: checked exactly)
    feasible = all(Fraction(r) == sum(Fraction(a) * Fraction(z) for a, z in zip(row, z0))
                   for r, row in zip(rhs, A.toarray()))
    if feasible:
        assert Fraction(bound) <= sum(Fraction(w) * Fraction(z) ** 2 for w, z in zip(weights, z0))


def test_at_the_optimum_the_bound_meets_the_objective():
    """One relation z1 + z2 = 3, w = (1, 2): optimum z = (2, 1), objective 6, pi = 4."""
    A = sp.csr_array(np.array([[1.0, 1.0]]))
    bound = l2_dual_bound(np.array([1.0, 2.0]), A, np.array([3.0]), np.full(2, -np.inf), np.full(2, np.inf),
                          np.array([4.0]))
    assert 6 - 1e-12 <= bound <= 6
    assert l2_dual_bound(np.array([1.0, 2.0]), A, np.array([3.0]), np.full(2, -np.inf), np.full(2, np.inf),
                         np.array([1.0])) < 5


def test_infinite_multipliers_or_a_weight_of_zero_prove_nothing():
    A = sp.csr_array(np.array([[1.0, 1.0]]))
    assert l2_dual_bound(np.ones(2), A, np.ones(1), np.zeros(2), np.ones(2), np.array([np.inf])) == -np.inf
    with np.errstate(all="raise"):
        assert l2_dual_bound(np.array([1.0, 0.0]), A, np.ones(1), np.zeros(2), np.ones(2), np.array([1.0])) == -np.inf


def test_clarabel_optimum_is_certified_without_the_lp(thesis, monkeypatch):
    monkeypatch.setattr(conic, "solve_lp", lambda *args, **kwargs: pytest.fail("the LP check ran"))
    lines = []
    result = solve(thesis, "l2", SolveOptions(on_log=lines.append))
    assert result.status is Status.OPTIMAL and result.verified
    assert any("multipliers bound the optimum" in line for line in lines)


def test_without_a_certificate_the_lp_checks_the_optimum(thesis, monkeypatch):
    monkeypatch.setattr(conic, "l2_dual_bound", lambda *args: -np.inf)
    calls = []
    solve_lp = conic.solve_lp
    monkeypatch.setattr(conic, "solve_lp", lambda *args, **kwargs: calls.append(1) or solve_lp(*args, **kwargs))
    result = solve(thesis, "l2")
    assert result.status is Status.OPTIMAL and calls


def test_the_lp_fallback_reports_the_sum_of_squares_of_its_table(thesis, monkeypatch):
    """When clarabel gives no table the L1 LP's table is returned; its model objective is still
    the L2 model's own distance, in the user's units."""
    monkeypatch.setattr(conic, "_cone_solve",
                        lambda *args: (None, None, Status.ERROR, {"clarabel_status": "NumericalError",
                                                                  "iterations": 0, "build_seconds": 0.0}, ""))
    result = solve(thesis, "l2")
    assert result.status is Status.FEASIBLE and result.info["fallback"] == "lp"
    z = result.values - thesis.values
    assert result.model_objective == pytest.approx(float(thesis.weights @ (z * z)), rel=1e-12)


def exact_huber_dual(weights, A, rhs, lower, upper, pi, delta) -> Decimal:
    """g(pi) of the pseudo-Huber model in 80-digit decimal arithmetic (floats convert exactly)."""
    with localcontext() as context:
        context.prec = 80
        D = Decimal
        dense = A.toarray()
        m, n = dense.shape
        d = D(delta)
        total = sum((D(pi[i]) * D(rhs[i]) for i in range(m)), D(0))
        for j in range(n):
            w = D(weights[j])
            v = sum((D(dense[i, j]) * D(pi[i]) for i in range(m)), D(0))
            s = v / w
            if abs(s) < 1:
                z = d * s / (1 - s * s).sqrt()
                if np.isfinite(lower[j]):
                    z = max(z, D(lower[j]))
                if np.isfinite(upper[j]):
                    z = min(z, D(upper[j]))
            else:
                bound = upper[j] if s > 0 else lower[j]
                z = D(bound)
            total += w * ((z * z + d * d).sqrt() - d) - v * z
        return total


@settings(max_examples=200, deadline=None)
@given(dual_points(), st.sampled_from([1e-6, 1e-3, 1.0, 1e3, 1e9]))
def test_the_huber_bound_never_exceeds_the_exact_dual(case, delta):
    weights, A, rhs, lower, upper, pi, _ = case
    bound = huber_dual_bound(weights, A, rhs, lower, upper, pi, delta)
    if bound == -np.inf:
        return
    assert Decimal(bound) <= exact_huber_dual(weights, A, rhs, lower, upper, pi, delta)


def test_huber_clarabel_optimum_is_certified_without_the_lp(thesis, monkeypatch):
    monkeypatch.setattr(conic, "solve_lp", lambda *args, **kwargs: pytest.fail("the LP check ran"))
    lines = []
    result = solve(thesis, "huber", SolveOptions(on_log=lines.append, parameters={"delta": 0.5}))
    assert result.status is Status.OPTIMAL and result.verified
    assert any("multipliers bound the optimum" in line for line in lines)
