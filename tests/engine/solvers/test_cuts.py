"""Imbalance cuts are valid for every protected table and lift the MILP's LP bound."""

import dataclasses

import numpy as np
import pytest

from ctadesk.engine.methods import solve as dispatch
from ctadesk.engine.result import SolveOptions
from ctadesk.engine.solvers.cuts import imbalance_bounds, imbalance_cuts, with_imbalance_cuts
from ctadesk.engine.solvers.highs import solve_model
from ctadesk.engine.solvers.milp import milp_model, solve_milp
from ctadesk.engine.table.generate import cox_table

from .conftest import thesis_problem


def relaxation(model) -> float:
    return solve_model(dataclasses.replace(model, integer_columns=np.zeros(0, np.int64)), SolveOptions(), {}).objective


def test_a_lone_sensitive_cell_makes_its_row_and_column_move_by_its_protection_level():
    # cell (1,1) = 10 free with protection 3 both ways is the only sensitive cell of row 1 and column 1
    problem = thesis_problem(sensitive=[0], lower_protection=[3], upper_protection=[3], senses=None)
    model, _, _ = milp_model(problem, SolveOptions())
    bound = imbalance_bounds(problem, model.col_lower, model.col_upper)
    own = np.flatnonzero(problem.relations.toarray()[:, 0])
    assert own.size == 2
    np.testing.assert_allclose(bound[own], 3)
    assert np.all(np.delete(bound, own) == 0)


@pytest.mark.parametrize("shape, seed", [((6, 7), 0), ((4, 4, 3), 2)])
def test_the_optimal_table_satisfies_every_cut(shape, seed):
    _, problem = cox_table(shape, seed)
    model, _, _ = milp_model(problem, SolveOptions())
    rows, bound = imbalance_cuts(problem, model)
    optimum = solve_milp(problem)
    deviation = optimum.values - problem.values
    binaries = np.zeros(model.matrix.n_cols - 2 * problem.n_cells)
    z = np.concatenate([np.maximum(deviation, 0), np.maximum(-deviation, 0), binaries])
    assert bound.size > 0
    assert np.all(rows @ z >= bound - 1e-6 * np.maximum(1, bound))


def test_cuts_lift_the_lp_bound_of_a_3d_table_but_not_above_the_optimum():
    _, problem = cox_table((4, 4, 3), 2)
    model, _, _ = milp_model(problem, SolveOptions())
    plain, cut = relaxation(model), relaxation(with_imbalance_cuts(problem, model))
    optimum = solve_milp(problem).objective
    assert cut > 1.05 * plain
    assert cut <= optimum + 1e-6


def test_the_milp_with_cuts_finds_the_same_optimum():
    _, problem = cox_table((4, 4, 3), 2)
    plain, cut = solve_milp(problem), dispatch(problem, "milp-cuts")
    assert cut.verified and cut.method == "milp-cuts"
    assert cut.objective == pytest.approx(plain.objective, rel=1e-4)
