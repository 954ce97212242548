"""What a registered method may claim (solvers/claims.py): table units, bounds, status (issue 10)."""

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctadesk.engine.methods import METHODS, solve
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.publish.verify import verify
from ctadesk.engine.result import CTAResult, SolveOptions, Status
from ctadesk.engine.senses.ordering import ordering_senses
from ctadesk.engine.solvers.claims import honest
from ctadesk.engine.solvers.lower_bound import lower_bound
from ctadesk.engine.table.generate import cox_table
from ctadesk.engine.table.structure import TableStructure
from ctadesk.engine.table.units import in_units, table_unit
from ctadesk.io.jj import read_jj

SAMPLES = Path(__file__).resolve().parents[3] / "sample_data"
SHARED = Path(__file__).resolve().parents[4] / "shared" / "instances" / "castro-l2"
FIXED_SENSE = ("lp", "l2", "soc", "huber", "network", "network-l2")


def small_table() -> CTAProblem:
    structure = TableStructure.flat(2, 2)
    values = structure.aggregate(np.array([[10.0, 20, 0], [30, 40, 0], [0, 0, 0]]))
    return CTAProblem(values=values, relations=structure.relations(), lower=0, sensitive=[0],
                      lower_protection=[3], upper_protection=[5])


def test_no_bound_marker_is_no_bound():
    problem = small_table().replace(lower=-1e20, upper=1e20)
    assert np.all(problem.lower == -np.inf) and np.all(problem.upper == np.inf)
    assert np.all(small_table().replace(upper=2e20).upper == np.inf)


def test_table_unit_is_a_power_of_two_and_restating_is_exact():
    _, problem = cox_table((6, 7), seed=3)
    for factor in (1e-3, 1.0, 3.7e6, 1e9):
        scaled = problem.replace(values=problem.values * factor, lower=problem.lower * factor,
                                 upper=problem.upper * factor, lower_protection=problem.lower_protection * factor,
                                 upper_protection=problem.upper_protection * factor)
        unit = table_unit(scaled)
        assert np.log2(unit) == round(np.log2(unit))
        restated = in_units(scaled, unit)
        assert np.array_equal(restated.values * unit, scaled.values)
        assert 0.5 <= np.median(np.abs(restated.values[restated.values != 0])) <= 2.0


def test_verifier_tolerance_does_not_grow_with_the_answer():
    problem = small_table().replace(lower=-np.inf)
    x = problem.values + np.array([5, -5, 0, -5, 5, 0, 0, 0, 0], float)
    assert verify(problem, x).ok
    huge = x + 3e19 * np.array([1, -1, 0, -1, 1, 0, 0, 0, 0])
    huge[0] += 65536.0      # off by 65 536 next to values of 3e19: the old relative tolerance let it pass
    found = verify(problem, huge)
    assert not found.ok and found.counts["relation"] >= 2


@pytest.mark.parametrize("factor", [1e-3, 1e7])
@pytest.mark.parametrize("method", ["milp", "lp", "l2", "soc", "huber", "network"])
def test_every_magnitude_gives_the_same_table(method, factor):
    _, problem = cox_table((5, 6), seed=4)
    big = problem.replace(values=problem.values * factor, lower=problem.lower * factor,
                          upper=problem.upper * factor, lower_protection=problem.lower_protection * factor,
                          upper_protection=problem.upper_protection * factor)
    plain = solve(problem, method, SolveOptions(time_limit=20))
    scaled = solve(big, method, SolveOptions(time_limit=20))
    assert plain.protected and scaled.protected and scaled.status is plain.status
    assert scaled.objective == pytest.approx(plain.objective * factor, rel=1e-6)


@pytest.mark.parametrize("bound", [1e20, np.inf, 1e9])
def test_milp_takes_the_no_bound_marker_and_huge_bounds(bound):
    _, problem = cox_table((5, 5), seed=8)
    reference = solve(problem.replace(lower=-np.inf, upper=np.inf), "milp", SolveOptions(time_limit=30))
    result = solve(problem.replace(lower=-bound, upper=bound), "milp", SolveOptions(time_limit=30))
    assert reference.status is Status.OPTIMAL and result.status is Status.OPTIMAL
    assert result.objective == pytest.approx(reference.objective, rel=1e-6)


@pytest.mark.parametrize("method", ["lp", "l2", "soc", "huber", "network", "network-l2", "milp"])
def test_thesis_table_with_huge_bounds_and_upper_senses(method):
    problem = read_jj(SAMPLES / "thesis_3x4.jj").problem
    problem = problem.replace(lower=-1e9, upper=1e9, senses=np.ones(problem.n_sensitive))
    result = solve(problem, method, SolveOptions(time_limit=20))
    assert result.protected
    if method in ("lp", "soc", "network", "milp"):
        assert result.objective == pytest.approx(20.0, rel=1e-6)
    if method in ("lp", "milp"):       # proven by the LP's safe dual bound
        assert result.status is Status.OPTIMAL and result.bound == pytest.approx(20.0, rel=1e-6)


@pytest.mark.parametrize("method", FIXED_SENSE)
def test_fixed_sense_methods_never_offer_their_objective_as_a_bound(method):
    _, problem = cox_table((10, 10), seed=1)
    optimum = solve(problem, "milp", SolveOptions(time_limit=60))
    result = solve(problem, method, SolveOptions(time_limit=60))
    assert result.protected
    assert result.bound is not None and result.bound <= optimum.objective * (1 + 1e-9)
    assert result.bound == pytest.approx(lower_bound(problem).value, rel=1e-12)
    if result.objective > optimum.objective * (1 + 1e-4):
        assert result.status is Status.FEASIBLE


def test_an_optimal_label_outside_the_gap_is_withdrawn():
    problem = small_table()
    table = problem.values + np.array([5, -5, 0, -5, 5, 0, 0, 0, 0], float)
    claimed = CTAResult("milp", Status.OPTIMAL, values=table, senses=np.array([1], np.int8), objective=20.0,
                        bound=18.0, gap=0.1, verification=verify(problem, table))
    assert honest(problem, METHODS["milp"].model, claimed, SolveOptions(gap=1e-4)).status is Status.FEASIBLE
    below = claimed.replace(bound=19.999)
    assert honest(problem, METHODS["milp"].model, below, SolveOptions(gap=1e-4)).status is Status.OPTIMAL


def test_a_bound_above_a_verified_table_is_dropped():
    problem = small_table()
    table = problem.values + np.array([5, -5, 0, -5, 5, 0, 0, 0, 0], float)
    claimed = CTAResult("milp", Status.OPTIMAL, values=table, senses=np.array([1], np.int8), objective=20.0,
                        bound=42.72, gap=0.0, verification=verify(problem, table))
    result = honest(problem, METHODS["milp"].model, claimed, SolveOptions())
    assert result.bound is not None and result.bound <= 20.0
    assert result.status is not Status.OPTIMAL or result.bound == pytest.approx(20.0)
    assert "dropped" in result.message


def test_infeasible_only_when_proven():
    structure = TableStructure.flat(2, 2)
    values = structure.aggregate(np.array([[10.0, 20, 0], [30, 40, 0], [0, 0, 0]]))
    # cell 0 must move by 5, but every other cell of its row and column is fixed: no table at all
    fixed = np.zeros(values.size, bool)
    fixed[[1, 2, 3, 6]] = True
    problem = CTAProblem(values=values, relations=structure.relations(), sensitive=[0],
                         lower_protection=[5], upper_protection=[5], fixed=fixed)
    for method in ("milp", "lp", "l2", "hybrid"):
        result = solve(problem, method, SolveOptions(time_limit=10))
        assert result.status in (Status.INFEASIBLE, Status.NOT_FOUND), method
        assert result.values is None
    assert solve(problem, "milp").status is Status.INFEASIBLE


def test_inconsistent_relations_are_proven_infeasible_for_every_method():
    _, problem = cox_table((4, 5), seed=1)
    rng = np.random.default_rng(1)
    shifted = problem.replace(lower=-np.inf, upper=np.inf,
                              rhs=problem.relations @ problem.values + rng.normal(0, 20, problem.n_relations))
    for method in ("milp", "lp", "l2"):
        result = solve(shifted, method)
        assert result.status is Status.INFEASIBLE, method
        assert "relation" in result.message


def test_nonzero_right_hand_sides_keep_the_bound_below_the_optimum():
    for seed in range(6):
        rng = np.random.default_rng(seed)
        _, problem = cox_table((4, 5) if seed % 2 else (3, 3, 3), seed=seed)
        moved = problem.values + rng.normal(0, 20, problem.n_cells) * (rng.random(problem.n_cells) < 0.3)
        shifted = problem.replace(lower=-np.inf, rhs=problem.relations @ moved)
        result = solve(shifted, "milp", SolveOptions(time_limit=30))
        assert result.status is Status.OPTIMAL
        assert lower_bound(shifted).value <= result.objective * (1 + 1e-9)


@pytest.mark.skipif(not (SHARED / "toysarah.jj").exists(), reason="shared instances not present")
def test_cells_of_1e11_beside_cells_of_1():
    problem = read_jj(SHARED / "toysarah.jj").problem
    exact = solve(problem, "milp", SolveOptions(time_limit=30))
    assert exact.protected
    for method in ("lp", "l2", "soc", "network"):
        result = solve(problem, method, SolveOptions(time_limit=30))
        assert result.protected, (method, result.message)
        assert result.objective >= exact.objective * (1 - 1e-6), method


def test_a_cell_the_relations_force_one_way_keeps_its_other_sense_at_zero_big_m():
    # a published total 1.0 below the sum of its parts forces cell 1 down by at least 1: its up-M
    # came out negative, which made the MILP infeasible although the table exists
    problem = CTAProblem(values=[5.0, 3.0, 4.0], relations=[[-1.0, 1.0, 1.0]], rhs=[1.0], lower=0.0,
                         upper=[5.0, np.inf, np.inf], sensitive=[1], lower_protection=[2.0], upper_protection=[2.0],
                         fixed=[False, False, True])
    result = solve(problem, "milp")
    assert result.status is Status.OPTIMAL and result.objective == pytest.approx(3.0)


@pytest.mark.parametrize("method", ["learning", "learning-milp"])
def test_the_distances_in_a_results_info_are_in_table_units(method):
    """A heuristic's start and a portfolio's two tables are distances of the user's table, like the
    objective (they were left in the solve's internal units: 37.9 beside a table of 19 404.8)."""
    _, problem = cox_table((12, 12), seed=5)
    assert table_unit(problem) != 1.0
    result = solve(problem, method, SolveOptions(time_limit=3))
    assert result.verified
    slack = 1e-9 * result.objective
    if method == "learning":
        assert result.info["start_objective"] >= result.objective - slack      # never worse than its start
    else:
        tables = [result.info["milp_objective"], result.info["heuristic_objective"]]
        assert min(t for t in tables if np.isfinite(t)) == pytest.approx(result.objective, rel=1e-9)
    assert result.info.get("solver_bound") is None or result.info["solver_bound"] <= result.objective + slack


def test_the_solver_log_says_its_units_where_they_are_not_the_tables():
    _, problem = cox_table((12, 12), seed=5)
    lines = []
    result = solve(problem, "milp", SolveOptions(time_limit=5, on_log=lines.append))
    scale = table_unit(problem)
    note = f"the objective values in its log are the table's distances divided by {scale:g}"
    assert note in lines[0] and note in result.log.splitlines()[0]
    unit = problem.replace(values=problem.values / scale, lower=problem.lower / scale, upper=problem.upper / scale,
                           upper_protection=problem.upper_protection / scale,
                           lower_protection=problem.lower_protection / scale)
    assert table_unit(unit) == 1.0
    lines = []
    solve(unit, "milp", SolveOptions(time_limit=5, on_log=lines.append))
    assert not any("divided by" in line for line in lines)


def _magnified(problem: CTAProblem, factor: float) -> CTAProblem:
    return problem.replace(values=problem.values * factor, rhs=problem.rhs * factor, lower=problem.lower * factor,
                           upper=problem.upper * factor, lower_protection=problem.lower_protection * factor,
                           upper_protection=problem.upper_protection * factor)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([1e-9, 3e-3, 1.0, 7e5, 2e11]), st.floats(0.0, 3e-9),
       st.floats(0.0, 1.0))
def test_a_verification_in_table_units_is_the_verification_in_the_users(seed, factor, noise, moved):
    """claims._verified_in_units reuses the verification made in table units: every check comes out
    the same in the user's units, passing or failing, on tables near the verifier's tolerances
    (relations off by up to 3e-9 of their scale, cells moved into their protection intervals)."""
    from ctadesk.engine.solvers.conic import solve_l2

    _, base = cox_table((4, 5), seed=seed % 1000)
    problem = _magnified(base.with_senses(ordering_senses(base)), factor)
    unit = table_unit(problem)
    scaled = in_units(problem, unit)
    result = solve_l2(scaled)
    assert result.values is not None
    rng = np.random.default_rng(seed)
    table = result.values * (1 + noise * rng.uniform(-1, 1, problem.n_cells))
    table[problem.sensitive] -= moved * (table[problem.sensitive] - scaled.values[problem.sensitive])
    there = verify(scaled, table, result.senses)
    here = verify(problem, table * unit, result.senses)
    assert (there.ok, there.counts) == (here.ok, here.counts)
    assert (there.max_relation_error, there.max_bound_error, there.min_protection_margin) == (
        here.max_relation_error, here.max_bound_error, here.min_protection_margin)


@pytest.mark.parametrize("cells", [60, 400])
def test_a_table_verified_in_table_units_is_not_verified_again_and_keeps_its_figures(cells, monkeypatch):
    from ctadesk.engine.solvers import claims
    from ctadesk.engine.table.generate import office_shapes, office_table

    _, dimensions = office_shapes(1, 5, cells, 2 * cells)[0]
    problem = office_table(dimensions, seed=5)
    checks = []
    monkeypatch.setattr(claims, "verify", lambda *args: checks.append(args) or verify(*args))
    result = solve(problem, "network-l2")
    assert result.verified and not checks
    again = verify(problem, result.values, result.senses)
    assert again.ok and again == result.verification


def test_a_table_that_fails_in_table_units_is_verified_again_in_the_users():
    from ctadesk.engine.solvers.claims import to_table_units
    from ctadesk.engine.solvers.finish import finish

    problem = _magnified(small_table(), 1000.0)
    unit = table_unit(problem)
    scaled = in_units(problem, unit)
    table = scaled.values.copy()                            # the sensitive cell left inside its interval
    table.flags.writeable = False
    result = finish(scaled, "test", Status.FEASIBLE, table, started=0.0, build_seconds=0.0, solve_seconds=0.0)
    assert not result.verified
    found = to_table_units(problem, result, unit, 1, 1.0, scaled)
    assert found.status is Status.NOT_PROTECTED and found.verification == verify(problem, table * unit, result.senses)
    assert "3000" in found.message or "5000" in found.message       # the interval in the user's units


@pytest.mark.parametrize("method", ["network-l2", "lp"])
def test_a_problem_is_restated_once_and_solved_again_alike(method):
    """claims.restated keeps one restated problem per problem: the same units and arrays as
    in_units', and a second solve (which finds the kept bound and restated problem) claims what
    the first did."""
    from ctadesk.engine.solvers.claims import restated
    from ctadesk.engine.table.units import weight_unit

    _, problem = cox_table((5, 6), seed=4)
    problem = problem.with_senses(ordering_senses(problem))
    unit, weight, scaled = restated(problem)
    assert (unit, weight) == (table_unit(problem), weight_unit(problem))
    assert restated(problem)[2] is scaled
    fresh = in_units(problem, unit, weight)
    for name in ("values", "rhs", "lower", "upper", "weights", "lower_protection", "upper_protection"):
        assert np.array_equal(getattr(scaled, name), getattr(fresh, name)), name
    first, second = solve(problem, method), solve(problem, method)
    assert first.status is second.status and first.message == second.message
    assert np.array_equal(first.values, second.values)
    assert (first.objective, first.bound, first.gap) == (second.objective, second.bound, second.gap)


@pytest.mark.parametrize("odd", [5e-324, 1e-310, -1e-310, np.inf, -np.inf, np.nan, 0.0, 2.5e-308, 1.7e308])
def test_a_kept_verification_serves_only_tables_of_normal_numbers(odd):
    """claims._verified_in_units takes the verification made in table units only where every value
    of the user's table is 0 or a finite normal number (a subnormal one rounds differently from its
    quotient; an infinite or NaN one is checked again): the premise, value by value."""
    from ctadesk.engine.solvers.claims import _verified_in_units
    from ctadesk.engine.solvers.finish import finish

    problem = _magnified(small_table(), 1000.0)
    unit = table_unit(problem)
    scaled = in_units(problem, unit)
    table = solve(scaled, "lp").values.copy()
    table.flags.writeable = False
    result = finish(scaled, "test", Status.FEASIBLE, table, started=0.0, build_seconds=0.0, solve_seconds=0.0)
    assert result.verified
    values = table * unit
    assert _verified_in_units(problem, scaled, result, values, unit) is result.verification
    values[0] = odd
    normal = bool(odd == 0.0 or (np.isfinite(odd) and abs(odd) >= np.finfo(float).tiny))
    assert (_verified_in_units(problem, scaled, result, values, unit) is result.verification) is normal


@pytest.mark.parametrize("method", ["lp", "milp", "l2", "network-l2", "soc", "huber"])
def test_a_table_of_values_near_the_largest_float_is_solved_in_its_units(method):
    """Values near 1.7e308: the table unit is 2**1023 (the median's sum and the nearest power of two
    overflowed) and an L2 model's unit squared is inf, not an OverflowError from float's **; every
    model protects the table and says so."""
    problem = CTAProblem(values=[0.8e308, 0.8e308, 1.6e308, 1.7e308], relations=np.array([[1.0, 1.0, -1.0, 0.0]]),
                         rhs=[0.0], sensitive=[0], lower_protection=[1e307], upper_protection=[1e307])
    result = solve(problem, method)
    assert result.verified and result.protected, result.message
    assert result.info["table_unit"] == 2.0 ** 1023
