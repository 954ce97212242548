"""Published numbers: protected tables at a published precision (engine/publish/precision.py)."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctadesk.engine.errors import SolverError
from ctadesk.engine.methods import solve
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.publish.precision import ON_GRID, at_precision, grid_safe, published_decimals
from ctadesk.engine.result import SolveOptions, Status
from ctadesk.engine.table.generate import cox_table
from tests.crosscheck.instances import build, specs


def on_grid_and_protected(problem: CTAProblem, values: np.ndarray, decimals: int) -> None:
    """Independent of the verifier: every value a multiple of 10^-d, every relation exact in
    integer units, every sensitive cell at or beyond a safe value on the grid."""
    scaled = values * 10 ** decimals
    k = np.round(scaled).astype(np.int64)
    assert np.all(np.abs(scaled - k) <= 1e-9 * np.maximum(1.0, np.abs(scaled)))   # the double nearest k / 10^d
    A = problem.relations.tocoo()
    sums = np.zeros(problem.n_relations, np.int64)
    np.add.at(sums, A.row, np.round(A.data).astype(np.int64) * k[A.col])
    assert np.array_equal(sums, np.round(problem.rhs * 10 ** decimals).astype(np.int64))
    moved = values[problem.sensitive] - problem.values[problem.sensitive]
    tolerance = 1e-9 * np.maximum(1.0, np.abs(problem.values[problem.sensitive]))
    assert np.all((moved >= problem.upper_protection - tolerance) | (-moved >= problem.lower_protection - tolerance))
    assert np.all(values >= problem.lower - 1e-9) and np.all(values <= problem.upper + 1e-9)


def test_published_decimals():
    assert published_decimals(np.array([3.0, 120.0, 0.0])) == 0
    assert published_decimals(np.array([1.5, 2.25])) == 2
    assert published_decimals(np.array([8636.4, 129.6])) == 1


@pytest.mark.parametrize("shape", [(8, 9), (4, 5, 3)])
def test_a_count_table_is_released_in_whole_numbers(shape):
    _, problem = cox_table(shape, seed=5)
    problem = problem.replace(values=np.round(problem.values), lower=np.floor(problem.lower),
                              upper=np.ceil(problem.upper))
    for method in ("lp", "milp", "l2"):
        result = solve(problem, method, SolveOptions(time_limit=20))
        published = at_precision(problem, result, 0)
        assert published.verified, (method, published.message)
        on_grid_and_protected(problem, published.values, 0)
        assert published.info["cells_changed"] == np.count_nonzero(published.values != problem.values)


def test_a_table_with_decimals_is_released_at_one_decimal_and_at_whole_numbers():
    _, problem = cox_table((6, 7), seed=2)
    # (bounds at exactly the safe values 1.37 a +- level would leave no whole number beyond them)
    fractional = problem.replace(values=problem.values * 1.37, lower=0.0, upper=np.inf,
                                 lower_protection=problem.lower_protection * 1.37,
                                 upper_protection=problem.upper_protection * 1.37)
    result = solve(fractional, "lp")
    rounded_cellwise = np.round(result.values)
    assert not np.allclose(fractional.relations @ rounded_cellwise, fractional.rhs)   # the naive way breaks totals
    for decimals in (0, 1):
        published = at_precision(fractional, result, decimals)
        assert published.verified, published.message
        on_grid_and_protected(fractional, published.values, decimals)


def test_the_published_result_keeps_the_methods_seconds_and_adds_its_own():
    _, problem = cox_table((6, 7), seed=2)
    fractional = problem.replace(values=problem.values * 1.37, lower=0.0, upper=np.inf,
                                 lower_protection=problem.lower_protection * 1.37,
                                 upper_protection=problem.upper_protection * 1.37)
    result = solve(fractional, "lp")
    published = at_precision(fractional, result, 0)
    assert published.verified, published.message
    for part in ("build", "solve", "verify"):
        assert published.timings[part] == result.timings[part]
    assert published.timings["publish"] > 0
    assert published.timings["total"] == pytest.approx(result.timings["total"] + published.timings["publish"])


def test_non_integral_coefficients_cannot_add_up_at_a_precision():
    problem = CTAProblem(values=[1.0, 2.0, 1.5], relations=[[0.5, 0.5, -1.0]], sensitive=[0],
                         lower_protection=[0.5], upper_protection=[0.5])
    result = solve(problem, "lp")
    assert result.protected
    with pytest.raises(SolverError, match="not a whole number"):
        at_precision(problem, result, 0)


def test_a_table_only_a_unprotected_one_fits_is_not_found():
    # totals 3 = 1 + 2 with the first cell needing a move of 0.4: on the whole-number grid its safe
    # values are 0 or 2, and with the other cell fixed the total would have to move by a whole unit
    # that its bounds forbid
    problem = CTAProblem(values=[1.0, 2.0, 3.0], relations=[[1.0, 1.0, -1.0]], sensitive=[0],
                         lower_protection=[0.4], upper_protection=[0.4], fixed=[False, True, False],
                         lower=[0, 2, 2.5], upper=[5, 2, 3.5])
    result = solve(problem, "milp")
    assert result.protected
    published = at_precision(problem, result, 0)
    assert published.status is Status.NOT_FOUND and published.values is None


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_optimal_only_where_the_bound_proves_the_published_table(seed):
    """A published table keeps 'optimal' exactly when the method's bound proves it within the gap."""
    _, problem = cox_table((5, 6), seed=seed)
    problem = problem.replace(values=np.round(problem.values), lower=np.floor(problem.lower),
                              upper=np.ceil(problem.upper),
                              lower_protection=np.round(problem.lower_protection),
                              upper_protection=np.round(problem.upper_protection))
    options = SolveOptions(gap=1e-6)
    exact = solve(problem, "milp", options)
    assert exact.status is Status.OPTIMAL
    published = at_precision(problem, exact, 0, options)
    gap = (published.objective - exact.bound) / max(abs(published.objective), 1e-9)
    assert (published.status is Status.OPTIMAL) == (gap <= 1e-6)
    assert published.gap == pytest.approx(max(gap, 0.0), abs=1e-12)
    looser = at_precision(problem, exact.replace(bound=exact.bound * 0.5), 0, options)
    assert looser.status is Status.FEASIBLE


def test_a_turnover_table_of_hundreds_of_millions_is_put_at_two_decimals():
    """Issue 29: the business microdata's weighted turnover (cells to 3e8, 2 decimals) found no
    table at 2 decimals ("Infeasible"): the integer program in grid units had k up to 3e10, past
    HiGHS's tolerances.  In steps from the rounded table it is found."""
    _, problem = cox_table((6, 7), seed=3)
    inner = np.round(problem.values * 3e6 + np.arange(problem.n_cells) * 0.37, 2)
    structure, _ = cox_table((6, 7), seed=3)
    values = np.round(structure.aggregate(inner.reshape(structure.shape)), 2)
    table = problem.replace(values=values, lower=np.zeros_like(values), upper=np.full_like(values, np.inf),
                            lower_protection=values[problem.sensitive] * 0.1,
                            upper_protection=values[problem.sensitive] * 0.13 + 0.005)
    assert values.max() > 1e8
    result = solve(table, "milp", SolveOptions(time_limit=20))
    published = at_precision(table, result, 2)
    assert published.verified, published.message
    on_grid_and_protected(table, published.values, 2)


def test_an_l2_table_is_published_as_a_controlled_rounding_of_itself():
    from ctadesk.engine.model import Distance

    _, problem = cox_table((9, 8), seed=4)
    problem = grid_safe(problem.replace(values=np.round(problem.values), lower=np.floor(problem.lower),
                                        upper=np.ceil(problem.upper)), 0)
    result = solve(problem, "l2", SolveOptions(time_limit=20))
    as_l1 = at_precision(problem, result, 0)
    as_l2 = at_precision(problem, result, 0, distance=Distance.L2)
    on_grid_and_protected(problem, as_l2.values, 0)
    assert np.max(np.abs(as_l2.values - result.values)) < 1.0
    assert as_l2.model_objective == pytest.approx(float(problem.weights @ (as_l2.values - problem.values) ** 2))
    # the L1 rounding found again from the original is another table, farther from the L2 optimum
    assert np.sum((as_l1.values - result.values) ** 2) > np.sum((as_l2.values - result.values) ** 2)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec=specs(), decimals=st.integers(0, 2))
def test_levels_on_the_grid_are_never_smaller_and_leave_a_valid_table(spec, decimals):
    """grid_safe moves levels out and bounds in to the grid, and never makes a table invalid (a
    cell with no grid value beyond either safe value keeps its own: the Cox table of
    test_job_quality_terms had a safe value of 375.4 beside a bound of 375.6)."""
    instance = build(spec)
    if instance.problem is None:
        return
    problem = instance.problem
    snapped = grid_safe(problem, decimals)
    assert np.all(snapped.lower_protection >= problem.lower_protection)
    assert np.all(snapped.upper_protection >= problem.upper_protection)
    step = 10.0 ** -decimals
    # a bound within ON_GRID steps of a grid value counts as on it (seed 58087: a lower bound of
    # 6.9e-7 published at 0 decimals is 0)
    slack = ON_GRID * step
    assert np.all(snapped.lower >= problem.lower - slack) and np.all(snapped.upper <= problem.upper + slack)
    moved = snapped.upper_protection > problem.upper_protection
    safe_up = (problem.values[problem.sensitive] + snapped.upper_protection)[moved] / step
    assert np.allclose(safe_up, np.round(safe_up), atol=1e-6)


def test_the_grid_of_a_step_is_named_and_shown_with_its_decimals():
    from ctadesk.engine.publish.precision import grid_name, step_decimals

    assert [step_decimals(s) for s in (1.0, 0.1, 1e-6, 10.0, 0.5)] == [0, 1, 6, 0, 1]
    assert grid_name(0.01) == "at 2 decimals" and grid_name(1.0) == "at 0 decimals"
    assert grid_name(10.0) == "rounded to multiples of 10"
