"""The algorithm is chosen from the model, the table's structure, its size and the time (issue 12)."""

import numpy as np
import pytest

from ctadesk.engine.errors import MethodError
from ctadesk.engine.generate import cox_table
from ctadesk.engine.methods import METHODS, choose_method, solve
from ctadesk.engine.model import Distance, Senses
from ctadesk.engine.result import SolveOptions, Status
from ctadesk.engine.senses.ordering import ordering_senses

from ..solvers.conftest import thesis_problem


def test_fixed_sense_l1_of_a_2d_table_is_a_network_problem():
    _, problem = cox_table((30, 40), seed=1)
    name, reason = choose_method(problem, Distance.L1, Senses.FIXED)
    assert name == "network" and "network" in reason


def test_fixed_sense_l1_of_a_3d_table_is_the_interior_point_lp():
    _, problem = cox_table((4, 5, 6), seed=1)
    name, reason = choose_method(problem, Distance.L1, Senses.FIXED)
    assert name == "lp" and "not a network" in reason


def test_fixed_sense_l2_of_a_big_table_takes_the_dual_newton_method_unless_a_weight_is_zero():
    _, problem = cox_table((30, 40), seed=1)
    assert choose_method(problem, Distance.L2, Senses.FIXED)[0] == "network-l2"
    weights = problem.weights.copy()
    weights[0] = 0.0
    name, reason = choose_method(problem.replace(weights=weights), Distance.L2, Senses.FIXED)
    assert name == "l2" and "weights are 0" in reason
    name, reason = choose_method(cox_table((8, 9), seed=1)[1], Distance.L2, Senses.FIXED)
    assert name == "l2" and "small table" in reason


def test_optimal_senses_take_the_milp_when_small_and_the_portfolio_when_big():
    _, small = cox_table((6, 6), seed=1)
    _, big = cox_table((25, 25), seed=1)
    assert choose_method(small, Distance.L1, Senses.OPTIMAL, 60)[0] == "milp"
    assert choose_method(big, Distance.L1, Senses.OPTIMAL, 60)[0] == "learning-milp"
    assert choose_method(big, Distance.L1, Senses.OPTIMAL, 1)[0] == "milp"


def test_optimal_senses_the_problem_fixes_are_the_fixed_sense_model_and_still_proven_optimal():
    _, problem = cox_table((12, 15), seed=2)
    problem = problem.replace(senses=ordering_senses(problem))
    name, reason = choose_method(problem, Distance.L1, Senses.OPTIMAL)
    assert name == "network" and "fixes every sense" in reason
    result = solve(problem, name)
    assert result.status is Status.OPTIMAL and result.gap <= 1e-4
    assert result.objective == pytest.approx(solve(problem, "milp").objective, rel=1e-9)


@pytest.mark.parametrize("distance,senses", [(Distance.L2, Senses.OPTIMAL), (Distance.HUBER, Senses.SOFT),
                                             (Distance.L2, Senses.HEURISTIC)])
def test_a_model_no_method_solves_is_refused_naming_it(distance, senses):
    with pytest.raises(MethodError, match=distance.value if senses is not Senses.SOFT else "soft"):
        choose_method(thesis_problem(senses=None), distance, senses)


@pytest.mark.parametrize("distance", list(Distance))
@pytest.mark.parametrize("senses", list(Senses))
def test_every_choice_is_a_method_solving_that_model(distance, senses):
    problem = thesis_problem(senses=None)
    try:
        name, reason = choose_method(problem, distance, senses, 30)
    except MethodError:
        return
    model = METHODS[name].model
    assert reason
    assert model.distance is distance or {model.distance, distance} <= {Distance.L1, Distance.SOC}
    assert model.senses is senses or (senses is Senses.OPTIMAL and not np.any(problem.effective_senses == 0))
    assert solve(problem, name, SolveOptions(time_limit=30)).verified
