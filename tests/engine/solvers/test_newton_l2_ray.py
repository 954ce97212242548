"""The L2 dual Newton method on senses no table satisfies: its dual rises without end along a
direction, which it now sees after one line search (newton_l2._rises_without_end) instead of
doubling its steps for 50 iterations into overflow (RuntimeWarnings printed by the CLI)."""

from __future__ import annotations

import warnings

from hypothesis import given, settings
from hypothesis import strategies as st

from ctadesk.engine.methods import solve
from ctadesk.engine.result import Status
from ctadesk.engine.senses.ordering import ordering_senses
from ctadesk.engine.table.generate import cox_table

RAY_NOTE = "rises without end"


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**16), shape=st.lists(st.integers(2, 7), min_size=2, max_size=2),
       capacity=st.floats(0.04, 0.2))
def test_senses_no_table_satisfies_end_without_overflow_and_the_lp_agrees(seed, shape, capacity):
    _, problem = cox_table(tuple(shape), seed=seed, capacity=capacity)
    problem = problem.with_senses(ordering_senses(problem))
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        result = solve(problem, "network-l2")
    lp = solve(problem, "lp")
    assert (result.status is Status.INFEASIBLE) == (lp.status is Status.INFEASIBLE)
    if RAY_NOTE in str(result.info.get("network", "")):        # a ray only where no table exists
        assert lp.status is Status.INFEASIBLE and not result.verified


def test_the_two_tables_that_overflowed_end_at_the_ray():
    for seed, shape, capacity in [(231, (3, 7), 0.0625), (56451, (3, 2), 0.0546875)]:
        _, problem = cox_table(shape, seed=seed, capacity=capacity)
        problem = problem.with_senses(ordering_senses(problem))
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            result = solve(problem, "network-l2")
        assert result.status is Status.INFEASIBLE and "conflict among" in result.message
        assert RAY_NOTE in result.info["network"]
