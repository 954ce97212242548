"""relative_gap: the gap every result reports."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctadesk.engine.errors import SolverError
from ctadesk.engine.result import GAP_ROUNDING, CTAResult, Status, relative_gap

objectives = st.floats(min_value=1e-6, max_value=1e12)


@given(objectives, st.floats(min_value=0.0, max_value=0.5 * GAP_ROUNDING))
def test_a_bound_within_rounding_of_the_objective_is_a_gap_of_zero(objective, share):
    assert relative_gap(objective, objective * (1 - share)) == 0.0


@given(objectives, st.floats(min_value=1e-10, max_value=0.9))
def test_a_real_gap_is_the_share_of_the_objective(objective, share):
    bound = objective * (1 - share)
    assert math.isclose(relative_gap(objective, bound), (objective - bound) / objective, rel_tol=1e-9)


def test_no_table_is_an_infinite_gap_and_a_bound_above_is_none():
    assert relative_gap(math.inf, 1.0) == math.inf
    assert relative_gap(10.0, 11.0) == 0.0
    assert relative_gap(364.144, 364.144 - 1.7e-13) == 0.0     # the two sums of one optimum


def test_table_gives_the_values_of_a_result_that_has_them():
    values = np.array([1.0, 2.0])
    assert CTAResult("lp", Status.OPTIMAL, values=values).table() is values


def test_table_names_how_a_solve_without_a_table_ended():
    with pytest.raises(SolverError, match=r"milp returned no table \(infeasible: no protected table\)"):
        CTAResult("milp", Status.INFEASIBLE, message="no protected table").table()
