import numpy as np
import pytest

from ctadesk.engine.methods import solve
from ctadesk.engine.result import SolveOptions, Status
from ctadesk.engine.senses import ordering_senses
from ctadesk.engine.solvers.lp import l1_column_bounds, l1_matrix, solve_lp
from ctadesk.engine.table.generate import cox_table

from .conftest import locked_problem


def test_thesis_example_l1_optimum_is_20(thesis):
    result = solve(thesis, "lp")
    assert result.status is Status.OPTIMAL and result.verified
    assert result.objective == pytest.approx(20, abs=1e-6)
    assert result.values[0] >= 13 - 1e-9 and result.values[13] >= 18 - 1e-9
    assert list(result.senses) == [1, 1]


@pytest.mark.parametrize("shape", [(6, 7), (4, 5, 3)])
@pytest.mark.parametrize("seed", [0, 1])
def test_ordering_senses_give_a_verified_table_on_cox_tables(shape, seed):
    _, problem = cox_table(shape, seed)
    result = solve(problem, "lp")
    assert result.protected, result.message
    assert result.info["senses_from"] == "ordering heuristic"
    np.testing.assert_array_equal(result.senses, ordering_senses(problem))


def test_given_senses_are_honoured():
    _, problem = cox_table((6, 7), 3)
    senses = -ordering_senses(problem)
    result = solve_lp(problem, senses=senses)
    assert result.protected
    moved = result.values[problem.sensitive] - problem.values[problem.sensitive]
    assert np.all(np.sign(moved) == senses)


def test_column_bounds_follow_thesis_5_12(thesis):
    lower, upper = l1_column_bounds(thesis, np.array([1, -1]))
    n = thesis.n_cells
    assert (lower[0], upper[n]) == (3, 0)            # (1,1) up: z+ >= upl, z- = 0
    assert (upper[13], lower[n + 13]) == (0, 0)      # (3,4) down with lpl 0: z+ = 0
    assert upper[1] == np.inf and upper[n + 1] == 15  # a free cell may fall to 0
    assert l1_matrix(thesis).n_cols == 2 * n


def test_infeasible_senses_give_infeasible_status_and_no_table():
    result = solve_lp(locked_problem(), senses=np.array([1, 1]))
    assert result.status is Status.INFEASIBLE and result.values is None
    assert not result.protected
    assert "no table" in result.message and "R=1" in result.message


def test_a_stop_set_before_the_solve_cancels_it():
    import threading
    stop = threading.Event()
    stop.set()
    _, problem = cox_table((30, 30), 0)
    result = solve_lp(problem, SolveOptions(stop=stop), senses=ordering_senses(problem))
    assert result.status in (Status.CANCELLED, Status.OPTIMAL)
    assert result.status is Status.CANCELLED or result.verified


def test_log_lines_reach_the_callback_and_the_result(thesis):
    lines = []
    result = solve_lp(thesis, SolveOptions(on_log=lines.append))
    assert any("HiGHS" in line for line in lines)
    assert "Model status" in result.log
    assert set(result.timings) == {"build", "solve", "verify", "total"}


@pytest.mark.parametrize("shape, seed", [((6, 8), 0), ((5, 4, 3), 1), ((12, 10), 2)])
def test_the_dual_simplex_reaches_the_interior_point_methods_optimum(shape, seed):
    _, problem = cox_table(shape, seed=seed)
    fixed = problem.with_senses(ordering_senses(problem))
    ipm = solve(fixed, "lp", SolveOptions())
    simplex = solve(fixed, "lp", SolveOptions(parameters={"simplex": True}))
    assert ipm.status is simplex.status
    if ipm.verified:
        assert simplex.verified and simplex.objective == pytest.approx(ipm.objective, rel=1e-9)
        assert "IPX" in ipm.log and "IPX" not in simplex.log and "dual simplex" in simplex.log


def test_an_infeasible_lp_is_proven_by_its_dual_ray_where_no_conflict_is_named(monkeypatch):
    """HiGHS's IIS aside (as if it found none in time), the dual ray checked here still proves it."""
    import ctadesk.engine.solvers.lp as lp

    monkeypatch.setattr(lp, "irreducible_conflict", lambda highs, budget: (np.zeros(0, np.int64),) * 2)
    monkeypatch.setattr(lp, "IPM_SETTINGS", {"solver": "simplex", "presolve": "off"})
    result = solve_lp(locked_problem(), senses=np.array([1, 1]))
    assert result.status is Status.INFEASIBLE and result.values is None


def test_an_infeasible_verdict_nothing_confirms_is_not_passed_on(monkeypatch):
    """A solver's 'infeasible' with no conflict named and no ray that proves it (HiGHS's presolve
    and interior point method said so of a feasible 1 M-cell 3-D table) is 'not found', not
    'infeasible': here on a table that has a protected table for its senses."""
    import ctadesk.engine.solvers.lp as lp
    from ctadesk.engine.solvers.highs import HighsOutcome

    _, problem = cox_table((6, 7), 3)
    senses = ordering_senses(problem)
    assert solve_lp(problem, senses=senses).protected

    def said_infeasible(model, options, settings):
        return HighsOutcome(Status.INFEASIBLE, "Infeasible", None, float("nan"), None, None, "", 0.0, None)

    monkeypatch.setattr(lp, "solve_model", said_infeasible)
    monkeypatch.setattr(lp, "irreducible_conflict", lambda highs, budget: (np.zeros(0, np.int64),) * 2)
    result = solve_lp(problem, senses=senses)
    assert result.status is Status.NOT_FOUND and not result.protected
    assert "confirms" in result.message


@pytest.mark.parametrize("feasible", [True, False])
def test_the_dual_ray_proves_an_infeasible_lp_and_nothing_of_a_feasible_one(feasible):
    from ctadesk.engine.solvers.highs import LinearModel, proves_infeasible, solve_model

    if feasible:
        _, problem = cox_table((6, 7), 3)
        senses = ordering_senses(problem)
    else:
        problem, senses = locked_problem(), np.array([1, 1])
    lower, upper = l1_column_bounds(problem, senses)
    model = LinearModel(np.ones(lower.size), lower, upper, l1_matrix(problem), problem.deviation_rhs,
                        problem.deviation_rhs)
    outcome = solve_model(model, SolveOptions(), {"solver": "simplex", "presolve": "off"})
    assert outcome.status is (Status.OPTIMAL if feasible else Status.INFEASIBLE)
    assert proves_infeasible(outcome.highs, model) is (not feasible)
