"""The verifier's checks of the cells (bounds, fixed cells) against the same rules written cell by
cell (engine/publish/verify.py: tolerances from the original table, never from the values)."""

import math

import numpy as np
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.publish.verify import RTOL, verify
from ctadesk.engine.table.units import table_unit


@st.composite
def tables(draw) -> tuple[CTAProblem, np.ndarray]:
    """A table with bounds (some none), fixed cells, and values near it: some outside the bounds,
    some fixed cells moved, by amounts around the tolerance."""
    n = draw(st.integers(1, 25))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    a = np.round(rng.uniform(-50, 500, n), 1) * draw(st.sampled_from([1e-3, 1.0, 1e6]))
    lower = np.where(rng.random(n) < 0.3, -np.inf, a - rng.uniform(0, 20, n) * np.abs(a).max(initial=1) / 100)
    upper = np.where(rng.random(n) < 0.3, np.inf, a + rng.uniform(0, 20, n) * np.abs(a).max(initial=1) / 100)
    fixed = rng.random(n) < 0.3
    problem = CTAProblem(a, sp.csr_array((0, n)), lower=lower, upper=upper, fixed=fixed)
    scale = np.maximum(np.abs(a), table_unit(problem)) * RTOL
    x = a + rng.choice([0.0, 0.5, 2.0, 1e3], n) * rng.choice([-1.0, 1.0], n) * scale
    x = np.where(rng.random(n) < 0.2, np.where(rng.random(n) < 0.5, lower, upper), x)   # on a bound (or none)
    x = np.where(np.isfinite(x), x, a) + np.where(rng.random(n) < 0.2, rng.uniform(-30, 30, n), 0.0)
    return problem, x


@settings(max_examples=300, deadline=None)
@given(case=tables())
def test_bounds_and_fixed_cells_are_checked_as_written_cell_by_cell(case):
    problem, x = case
    unit = table_unit(problem)
    bounds, fixed, worst = [], [], 0.0
    for i in range(problem.n_cells):
        scale = max(abs(problem.values[i]), unit)
        excess = max(problem.lower[i] - x[i], x[i] - problem.upper[i])
        if excess > RTOL * scale and not problem.fixed[i]:
            bounds.append(i)
        if problem.fixed[i] and abs(x[i] - problem.values[i]) > RTOL * scale:
            fixed.append(i)
        worst = max(worst, excess / scale)
    found = verify(problem, x)
    assert found.counts["bound"] == len(bounds) and found.counts["fixed"] == len(fixed)
    assert sorted(v.index for v in found.violations if v.kind == "bound") == bounds
    assert sorted(v.index for v in found.violations if v.kind == "fixed") == fixed
    assert math.isclose(found.max_bound_error, worst, rel_tol=1e-12, abs_tol=0.0)
