"""The protection part of the bound alone (solvers/protection_bound.py) is never above a protected
table's cost, and it is the bound a method that is not exact reports on a large table."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctadesk.engine.methods import solve
from ctadesk.engine.result import SolveOptions
from ctadesk.engine.solvers import claims
from ctadesk.engine.solvers.lower_bound import lower_bound
from ctadesk.engine.solvers.protection_bound import protection_bound
from ctadesk.engine.table.generate import cox_table


@settings(max_examples=15, deadline=None)
@given(rows=st.integers(3, 8), columns=st.integers(3, 8), seed=st.integers(0, 10_000),
       weighted=st.booleans())
def test_never_above_a_protected_tables_cost(rows, columns, seed, weighted):
    _, problem = cox_table((rows, columns), seed)
    if weighted:
        problem = problem.replace(weights=np.random.default_rng(seed).uniform(0.1, 3.0, problem.n_cells))
    result = solve(problem, "lp", SolveOptions(time_limit=30))
    bound = protection_bound(problem)
    assert bound.value == bound.protection > 0
    assert bound.value <= lower_bound(problem).value * (1 + 1e-12)
    if result.protected:
        assert bound.value <= result.objective * (1 + 1e-9)


def test_a_large_tables_fixed_sense_method_reports_it(monkeypatch):
    _, problem = cox_table((6, 7), seed=2)
    monkeypatch.setattr(claims, "FULL_BOUND_CELLS", 10)
    quick, whole = protection_bound(problem).value, lower_bound(problem).value
    assert quick < whole
    assert solve(problem, "network", SolveOptions(time_limit=30)).bound == pytest.approx(quick, rel=1e-9)
    assert solve(problem, "milp", SolveOptions(time_limit=30)).bound >= whole * (1 - 1e-9)
