"""The algorithm is chosen from the model, the table's structure, its size and the time (issue 12)."""

from unittest import mock

import numpy as np
import pytest

from ctadesk.engine.errors import MethodError
from ctadesk.engine.methods import METHODS, choose_method, solve
from ctadesk.engine.methods.choose import NEWTON_RELATIONS
from ctadesk.engine.model import Distance, Senses
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.quality.weights import inverse_weights
from ctadesk.engine.result import SolveOptions, Status
from ctadesk.engine.senses.ordering import ordering_senses
from ctadesk.engine.solvers.network import SIMPLEX_ROWS, defining_relations
from ctadesk.engine.table.generate import cox_table
from ctadesk.engine.table.structure import Dimension, TableStructure

from ..solvers.conftest import thesis_problem


def test_fixed_sense_l1_of_a_2d_table_is_a_network_problem():
    _, problem = cox_table((30, 40), seed=1)
    name, reason, parameters = choose_method(problem, Distance.L1, Senses.FIXED)
    assert name == "network" and "network" in reason and not parameters


@pytest.mark.parametrize("weights", ["inverse", "value", "random"])
def test_fixed_sense_l1_of_a_weighted_2d_table_is_a_network_problem_solved_to_the_lp_optimum(weights):
    """Weights do not change the choice: the network solver is fast with 1/value weights and hands
    weights that make its simplex pivot long to the IPM itself."""
    _, problem = cox_table((30, 40), seed=2)
    problem = problem.replace(weights={"inverse": inverse_weights(problem.values),
                                       "value": np.maximum(np.abs(problem.values), 1.0),
                                       "random": 10.0 ** np.random.default_rng(2).uniform(-6, 0, problem.n_cells)
                                       }[weights])
    assert choose_method(problem, Distance.L1, Senses.FIXED).method == "network"
    problem = problem.with_senses(ordering_senses(problem))
    network, lp = solve(problem, "network"), solve(problem, "lp")
    assert network.verified and network.objective == pytest.approx(lp.objective, rel=1e-6)


def test_fixed_sense_l1_of_a_3d_table_is_the_interior_point_lp():
    _, problem = cox_table((10, 11, 12), seed=1)
    assert problem.sensitive.size >= 0.2 * problem.n_cells       # a Cox-recipe table: many cells move
    name, reason, parameters = choose_method(problem, Distance.L1, Senses.FIXED)
    assert name == "lp" and "not a network" in reason and "interior point" in reason and not parameters


def few_sensitive(problem, share):
    """``problem`` with only its first ``share`` of cells sensitive (an office table's proportion)."""
    keep = int(share * problem.n_cells)
    return problem.replace(sensitive=problem.sensitive[:keep], lower_protection=problem.lower_protection[:keep],
                           upper_protection=problem.upper_protection[:keep], senses=None)


def test_fixed_sense_l1_of_a_3d_table_with_few_sensitive_cells_is_the_dual_simplex():
    _, problem = cox_table((6, 7, 8), seed=1)
    problem = few_sensitive(problem, 0.1)
    name, reason, parameters = choose_method(problem, Distance.L1, Senses.FIXED)
    assert name == "lp" and parameters == {"simplex": True} and "dual simplex" in reason and "10%" in reason
    senses = ordering_senses(problem)
    chosen = solve(problem.with_senses(senses), name, SolveOptions(parameters=parameters))
    ipm = solve(problem.with_senses(senses), "lp")
    assert chosen.status is Status.OPTIMAL and chosen.verified
    assert chosen.objective == pytest.approx(ipm.objective, rel=1e-9)
    big = few_sensitive(cox_table((25, 25, 20), seed=1)[1], 0.1)
    assert not choose_method(big, Distance.L1, Senses.FIXED).parameters


@pytest.mark.parametrize("shape", [(30, 40), (8, 9), (2, 2)])
def test_fixed_sense_l2_of_a_table_large_or_small_takes_the_dual_newton_method_unless_a_weight_is_zero(shape):
    _, problem = cox_table(shape, seed=1)
    assert choose_method(problem, Distance.L2, Senses.FIXED)[0] == "network-l2"
    weights = problem.weights.copy()
    weights[0] = 0.0
    name, reason, _ = choose_method(problem.replace(weights=weights), Distance.L2, Senses.FIXED)
    assert name == "l2" and "weights are 0" in reason


def test_optimal_senses_take_the_milp_when_small_and_the_portfolio_when_big():
    _, small = cox_table((6, 6), seed=1)
    _, big = cox_table((25, 25), seed=1)
    assert choose_method(small, Distance.L1, Senses.OPTIMAL, 60)[0] == "milp"
    assert choose_method(big, Distance.L1, Senses.OPTIMAL, 60)[0] == "learning-milp"
    assert choose_method(big, Distance.L1, Senses.OPTIMAL, 1)[0] == "milp"


def test_optimal_senses_the_problem_fixes_are_the_fixed_sense_model_and_still_proven_optimal():
    _, problem = cox_table((12, 15), seed=2)
    problem = problem.replace(senses=ordering_senses(problem))
    name, reason, _ = choose_method(problem, Distance.L1, Senses.OPTIMAL)
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
        name, reason, parameters = choose_method(problem, distance, senses, 30)
    except MethodError:
        return
    model = METHODS[name].model
    assert reason and METHODS[name].validated(parameters) is not None
    assert model.distance is distance or {model.distance, distance} <= {Distance.L1, Distance.SOC}
    assert model.senses is senses or (senses is Senses.OPTIMAL and not np.any(problem.effective_senses == 0))
    assert solve(problem, name, SolveOptions(time_limit=30, parameters=parameters)).verified


def big_1h2d() -> CTAProblem:
    """A 1H2D table of 207 k cells and over NEWTON_RELATIONS (and SIMPLEX_ROWS) relations."""
    levels = [level for _ in range(60) for level in [1] + [2] * 4 + [3] * 12]
    structure = TableStructure((Dimension.from_levels("H", levels, [f"h{i}" for i in range(len(levels))]),
                                Dimension.flat("C", [str(j) for j in range(200)])))
    values = structure.aggregate(np.ones(structure.shape))
    sensitive = np.flatnonzero(structure.inner_mask())[:50]
    return CTAProblem(values, structure.relations(), lower=0.0, upper=2 * values, sensitive=sensitive,
                      lower_protection=0.5 * values[sensitive], upper_protection=0.5 * values[sensitive])


def test_fixed_sense_l1_of_a_1h2d_table_of_many_relations_is_a_network_problem():
    """The network solver at any size (LEMON's flow, then sifting); it was the IPM over
    SIMPLEX_ROWS relations, minutes on a million-cell 1H2D table."""
    problem = big_1h2d()
    assert problem.n_relations > SIMPLEX_ROWS
    name, reason, _ = choose_method(problem, Distance.L1, Senses.FIXED)
    assert name == "network" and "LEMON" in reason


def test_fixed_sense_l2_of_many_relations_takes_the_newton_method_with_cholmod_and_clarabel_with_qdldl_alone():
    """Over NEWTON_RELATIONS defining relations: a 1H2D table (each relation meets 16 others on
    average) goes to the Newton method whatever the factoriser; a 3-D table (each relation meets
    121) goes to it where CHOLMOD factorises its systems, to clarabel with QDLDL alone."""
    from ctadesk.engine.solvers import newton_l2

    hierarchical = big_1h2d()
    _, cube = cox_table((60, 60, 60), seed=1)
    assert np.count_nonzero(defining_relations(hierarchical.relations)) > NEWTON_RELATIONS
    assert np.count_nonzero(defining_relations(cube.relations)) > NEWTON_RELATIONS
    for factoriser in ("cholmod", "qdldl"):
        with mock.patch.object(newton_l2, "FACTORISER", factoriser):
            assert choose_method(hierarchical, Distance.L2, Senses.FIXED)[0] == "network-l2"
            name, reason, _ = choose_method(cube, Distance.L2, Senses.FIXED)
        if factoriser == "cholmod":
            assert name == "network-l2"
        else:
            assert name == "l2" and "too many for QDLDL alone" in reason
