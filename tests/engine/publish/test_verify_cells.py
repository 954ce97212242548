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


@st.composite
def protected_tables(draw) -> tuple[CTAProblem, np.ndarray, np.ndarray | None]:
    """A table with relations, sensitive cells and values near their safe values and sums: some
    short of their protection by amounts around the tolerance, some on the side their sense
    forbids, some relations off; senses reported by the method, or none (the problem's own)."""
    n = draw(st.integers(1, 25))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    a = np.round(rng.uniform(0, 500, n), 1) * draw(st.sampled_from([1e-3, 1.0, 1e6]))
    m = draw(st.integers(0, 6))
    relations = sp.csr_array(rng.choice([0.0, 0.0, 1.0, -1.0], (m, n)))
    rhs = relations @ a
    sensitive = np.flatnonzero(rng.random(n) < 0.5)
    lpl, upl = (rng.uniform(0, 0.3, sensitive.size) * a[sensitive] for _ in range(2))
    given = rng.choice([-1, 0, 1], sensitive.size)
    problem = CTAProblem(a, relations, rhs=rhs, sensitive=sensitive, lower_protection=lpl, upper_protection=upl,
                         senses=given)
    scale = np.maximum(np.abs(a), table_unit(problem)) * RTOL
    x = a + rng.choice([0.0, 0.5, 2.0, 1e3], n) * rng.choice([-1.0, 1.0], n) * scale
    side = rng.choice([-1.0, 1.0], sensitive.size)
    safe = np.where(side > 0, a[sensitive] + upl, a[sensitive] - lpl)
    x[sensitive] = safe + rng.choice([0.0, 0.5, 2.0, 1e3, -0.5, -2.0], sensitive.size) * side * scale[sensitive]
    reported = rng.choice([-1, 1], sensitive.size).astype(np.int8) if draw(st.booleans()) else None
    return problem, x, reported


@settings(max_examples=300, deadline=None)
@given(case=protected_tables())
def test_relations_protection_and_senses_are_checked_as_written_cell_by_cell(case):
    """The relation, protection and sense checks of verify against the rules written relation by
    relation and cell by cell (Castro & González 2011, model (1))."""
    problem, x, reported = case
    unit = table_unit(problem)
    dense = problem.relations.toarray()
    relations, worst_relation = [], 0.0
    for r in range(problem.n_relations):
        residual = dense[r] @ x - problem.rhs[r]
        terms = [abs(dense[r, j] * problem.values[j]) for j in range(problem.n_cells) if dense[r, j]]
        scale = max(max(terms, default=0.0), abs(problem.rhs[r]), unit)
        if abs(residual) > RTOL * scale:
            relations.append(r)
        worst_relation = max(worst_relation, abs(residual) / scale)
    required = problem.effective_senses if reported is None else reported
    unprotected, wrong, least = [], [], math.inf
    for k, i in enumerate(problem.sensitive):
        tol = RTOL * max(abs(problem.values[i]), unit)
        up = x[i] - problem.values[i] - problem.upper_protection[k]
        down = problem.values[i] - x[i] - problem.lower_protection[k]
        if max(up, down) < -tol:
            unprotected.append(int(i))
        elif (required[k] == 1 and up < -tol) or (required[k] == -1 and down < -tol):
            wrong.append(int(i))
        least = min(least, max(up, down) / max(abs(problem.values[i]), unit))
    found = verify(problem, x, reported)
    for kind, expected in (("relation", relations), ("protection", unprotected), ("sense", wrong)):
        assert found.counts[kind] == len(expected), kind
        assert sorted(v.index for v in found.violations if v.kind == kind) == expected, kind
    assert found.ok is not (relations or unprotected or wrong or found.counts["bound"] or found.counts["fixed"])
    assert math.isclose(found.max_relation_error, worst_relation, rel_tol=1e-9, abs_tol=1e-300)
    assert found.min_protection_margin == least or math.isclose(found.min_protection_margin, least, rel_tol=1e-9)
