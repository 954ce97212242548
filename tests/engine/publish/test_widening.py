"""Secret widening of protection levels (issue 11): a released value must not sit at exactly
original ± a known share of it, from which the original is one of two numbers."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctadesk.engine.errors import ProblemError
from ctadesk.engine.methods import solve
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.publish.widening import DEFAULT_SPREAD, WideningReport, widen
from ctadesk.engine.result import SolveOptions
from ctadesk.engine.table.structure import TableStructure

SHARE = 0.2  # a p% rule of 20 %: 162 may be released as 162 x 0.8 = 129.6


def table(upper_room: float = np.inf) -> CTAProblem:
    """3 x 3 inner cells with margins; three sensitive cells protected at 20 % of their value.
    upper_room: how far above its value each sensitive cell may go (the attacker's upper bound)."""
    structure = TableStructure.flat(3, 3)
    inner = np.array([[4817.0, 25613.0, 70422.0, 0], [162.0, 31337.0, 58290.0, 0],
                      [19754.0, 8861.0, 44708.0, 0], [0, 0, 0, 0]])
    values = structure.aggregate(inner)
    sensitive = np.array([0, 4, 5])  # 4817, 162, 31337
    upper = np.full(values.size, np.inf)
    upper[sensitive] = values[sensitive] + upper_room
    level = SHARE * values[sensitive]
    return CTAProblem(values, structure.relations(), lower=0.0, upper=upper, sensitive=sensitive,
                      lower_protection=level, upper_protection=level)


def test_widening_is_deterministic_from_the_seed_and_secret_without_it():
    problem = table()
    first, again, other = widen(problem, 11), widen(problem, 11), widen(problem, 12)
    np.testing.assert_array_equal(first.lower_protection, again.lower_protection)
    np.testing.assert_array_equal(first.upper_protection, again.upper_protection)
    assert not np.array_equal(first.upper_protection, other.upper_protection)
    assert problem.upper_protection.tolist() == pytest.approx((SHARE * problem.values[problem.sensitive]).tolist())


def test_each_level_gets_its_own_factor_within_the_spread():
    problem = table()
    widened = widen(problem, 3)
    for required, used in ((problem.lower_protection, widened.lower_protection),
                           (problem.upper_protection, widened.upper_protection)):
        factors = used / required
        assert np.all(factors >= 1 + DEFAULT_SPREAD[0]) and np.all(factors <= 1 + DEFAULT_SPREAD[1])
        assert len(set(factors.round(12))) == problem.n_sensitive
    assert not np.allclose(widened.lower_protection / problem.lower_protection,
                           widened.upper_protection / problem.upper_protection)


def test_a_widened_level_is_clipped_to_the_bounds_where_the_required_one_fitted():
    problem = table(upper_room=SHARE * 162.0)  # 162 may go up by exactly its level, 4817 and 31337 too little
    up_ok, _ = problem.safe_value_fits()
    widened = widen(problem, 5, spread=(0.5, 0.5))
    assert up_ok.tolist() == [False, True, False]
    room = problem.upper[problem.sensitive] - problem.values[problem.sensitive]
    assert widened.upper_protection[1] == pytest.approx(room[1])  # cut back to the bound: still fits
    np.testing.assert_allclose(widened.upper_protection[[0, 2]], 1.5 * problem.upper_protection[[0, 2]])
    np.testing.assert_allclose(widened.lower_protection, 1.5 * problem.lower_protection)  # no lower bound near
    assert widened.safe_value_fits()[0].tolist() == up_ok.tolist()


def test_a_released_value_no_longer_sits_at_original_plus_or_minus_the_known_share():
    problem = table()
    plain = solve(problem, "milp", SolveOptions(time_limit=30))
    widened = widen(problem, 2024)
    result = solve(widened, "milp", SolveOptions(time_limit=30))
    assert plain.protected and result.protected
    a = problem.values[problem.sensitive]
    at_known_share = lambda values: np.isclose(np.abs(values[problem.sensitive] - a), SHARE * a)  # noqa: E731
    assert at_known_share(plain.values).any()  # the leak: e.g. 162 published as 129.6
    assert not at_known_share(result.values).any()
    change = np.abs(result.values[problem.sensitive] - a)
    assert np.all(change >= SHARE * a - 1e-6)  # the required protection still holds


def test_the_report_gives_the_extra_cost_and_keeps_the_seed_out_of_its_summary():
    problem = table()
    widened = widen(problem, 987654321)
    required = solve(problem, "milp", SolveOptions(time_limit=30))
    result = solve(widened, "milp", SolveOptions(time_limit=30))
    report = WideningReport.of(problem, widened, 987654321).with_objectives(required.objective, result.objective)
    assert report.widened > report.required == pytest.approx(2 * SHARE * problem.values[problem.sensitive].sum())
    assert report.extra_objective == pytest.approx(result.objective - required.objective)
    assert report.extra_objective >= -1e-6 * required.objective
    settings = dict(report.settings())
    assert settings["widening seed (secret)"] == "987654321"
    assert "extra weighted change from widening" in settings
    assert "987654321" not in report.summary() and "more weighted change" in report.summary()


@pytest.mark.parametrize("spread", [(-0.1, 0.2), (0.3, 0.1), (0.0, np.inf)])
def test_a_spread_that_is_not_two_shares_is_refused(spread):
    with pytest.raises(ProblemError, match="spread"):
        widen(table(), 1, spread=spread)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), room=st.floats(0.3, 10.0))
def test_no_level_with_room_is_widened_by_less_than_the_spreads_minimum(seed, room):
    """Where the bounds leave room, every level grows by at least DEFAULT_SPREAD[0] (never 0 %)."""
    problem = table(upper_room=room * 10_000)
    widened = widen(problem, seed)
    up_ok, _ = problem.safe_value_fits()
    room_up = problem.upper[problem.sensitive] - problem.values[problem.sensitive]
    wide_enough = room_up >= (1 + DEFAULT_SPREAD[0]) * problem.upper_protection
    factors = widened.upper_protection / problem.upper_protection
    assert np.all(factors[up_ok & wide_enough] >= 1 + DEFAULT_SPREAD[0] - 1e-12)
    assert np.all(widened.lower_protection / problem.lower_protection >= 1 + DEFAULT_SPREAD[0] - 1e-12)
    assert DEFAULT_SPREAD[0] > 0


def test_levels_a_bound_holds_at_the_safe_value_are_counted_and_said():
    problem = table()
    upper = problem.upper.copy()
    upper[problem.sensitive] = problem.values[problem.sensitive] + problem.upper_protection  # no room to widen
    tight = problem.replace(upper=upper)
    report = WideningReport.of(tight, widen(tight, 9), 9)
    assert report.unwidened == problem.n_sensitive      # every upper level stays at its bound, the lower ones grow
    assert "3 level(s) not widened" in report.summary()
    assert WideningReport.of(problem, widen(problem, 9), 9).unwidened == 0
