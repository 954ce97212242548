import threading

import numpy as np
import pytest

from ctadesk.engine.methods import METHODS, solve
from ctadesk.engine.result import SolveOptions, Status
from ctadesk.engine.senses import ordering_senses
from ctadesk.engine.solvers.conic import solve_l2
from ctadesk.engine.table.generate import cox_table

from .conftest import locked_problem

#: Petrenko (2017) Figure 6.1 (c): the unique L2 optimum, inner cells
THESIS_L2 = np.array([[13, 15.03, 11.03, 5.94],
                      [7.66, 11.14, 13.14, 13.06],
                      [7.34, 10.83, 9.83, 18]])


def test_thesis_example_l2_is_table_c(thesis):
    result = solve(thesis, "l2")
    assert result.status is Status.OPTIMAL and result.verified
    np.testing.assert_allclose(result.values.reshape(4, 5)[:3, :4], THESIS_L2, atol=0.005)
    assert result.objective == pytest.approx(20.69, abs=0.005)


@pytest.mark.parametrize("method", ["soc", "huber"])
def test_thesis_example_cone_models_reach_the_l1_optimum_20(thesis, method):
    result = solve(thesis, method)
    assert result.verified
    assert result.objective == pytest.approx(20, abs=1e-3)


def test_huber_model_objective_is_below_the_l1_objective(thesis):
    result = solve(thesis, "huber", SolveOptions(parameters={"delta": 0.01}))
    assert result.model_objective < result.objective < 20 + 1e-3


@pytest.mark.parametrize("method", ["l2", "soc", "huber"])
@pytest.mark.parametrize("shape", [(6, 7), (4, 5, 3)])
def test_cone_methods_are_verified_on_cox_tables(method, shape):
    _, problem = cox_table(shape, 1)
    result = solve(problem, method)
    assert result.protected, result.message
    np.testing.assert_array_equal(result.senses, ordering_senses(problem))


def test_soc_reaches_the_fixed_sense_lp_optimum():
    _, problem = cox_table((8, 9), 4)
    assert solve(problem, "soc").objective == pytest.approx(solve(problem, "lp").objective, rel=1e-6)


def test_l2_is_the_closest_table_in_squares():
    _, problem = cox_table((8, 9), 4)
    l2, lp = solve(problem, "l2"), solve(problem, "lp")
    squares = lambda r: float(np.sum((r.values - problem.values) ** 2))  # noqa: E731
    assert squares(l2) <= squares(lp) + 1e-6 and lp.objective <= l2.objective + 1e-6


def test_infeasible_senses_name_the_conflict():
    result = solve_l2(locked_problem(), senses=np.array([1, 1]))
    assert result.status is Status.INFEASIBLE and result.values is None
    assert "no table" in result.message


def test_stop_set_cancels_the_cone_solve():
    stop = threading.Event()
    stop.set()
    _, problem = cox_table((20, 20), 0)
    result = solve(problem, "soc", SolveOptions(stop=stop))
    assert result.status is Status.CANCELLED and result.values is None


def test_every_method_is_registered():
    assert {"milp", "lp", "l2", "soc", "huber"} <= set(METHODS)
