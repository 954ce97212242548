"""Secret widening of on-line levels: one factor per cell and side, the same in every table, and
safe values kept off the shares an outsider divides by."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ctadesk.engine.online import keyed_factors, keyed_shares, off_rule_shares, rule_shares, widened_for_keys
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.publish.widening import DEFAULT_SPREAD, spread_of
from ctadesk.engine.rules.safety import SafetyRules

KEYS = st.lists(st.text(min_size=0, max_size=12), min_size=1, max_size=20, unique=True)


@settings(max_examples=50, deadline=None)
@given(KEYS, st.text(min_size=1, max_size=16), st.randoms(use_true_random=False))
def test_a_cells_factors_depend_on_its_key_and_the_secret_only(keys, secret, rng):
    """Whatever table a cell appears in, with whatever other cells in whatever order, its factors
    are the same (consistency on input), within 1 + the spread."""
    factors = keyed_factors(keys, secret)
    shuffled = list(keys)
    rng.shuffle(shuffled)
    again = keyed_factors(shuffled, secret)
    position = {key: i for i, key in enumerate(shuffled)}
    np.testing.assert_array_equal(again[:, [position[key] for key in keys]], factors)
    low, high = spread_of(DEFAULT_SPREAD)
    assert np.all((factors >= 1 + low) & (factors <= 1 + high))


def test_another_secret_or_label_draws_other_shares():
    keys = [f"Region=R{k}" for k in range(50)]
    shares = keyed_shares(keys, "one", "lower")
    assert np.all((shares >= 0) & (shares < 1))
    assert not np.array_equal(shares, keyed_shares(keys, "two", "lower"))
    assert not np.array_equal(shares, keyed_shares(keys, "one", "upper"))


def test_widening_for_keys_scales_every_sensitive_level_by_its_cells_factors():
    problem = CTAProblem(values=np.array([45.0, 5.0, 50.0]), relations=np.array([[1.0, 1.0, -1.0]]), lower=0.0,
                         sensitive=[0, 1], lower_protection=[4.5, 0.7], upper_protection=[4.5, 0.5])
    widened = widened_for_keys(problem, ["a", "b"], "secret")
    factors = keyed_factors(["a", "b"], "secret")
    np.testing.assert_allclose(widened.lower_protection, problem.lower_protection * factors[0])
    np.testing.assert_allclose(widened.upper_protection, problem.upper_protection * factors[1])


def test_a_safe_value_the_grid_put_at_the_rules_share_moves_one_step_further():
    """The CI run's example: a widened lower level of 4.45 on 45.0 went to 4.5 on the grid of
    0.1, and 40.5 / 0.9 gave 45.0 back; the safe value moves to 40.4 (and 49.5 to 49.6 above)."""
    rules = SafetyRules(min_frequency=3, frequency_safety_range=10, p_percent=(10,))
    problem = CTAProblem(values=np.array([45.0, 5.0, 50.0]), relations=np.array([[1.0, 1.0, -1.0]]), lower=0.0,
                         sensitive=[0, 1], lower_protection=[4.5, 0.7], upper_protection=[4.5, 0.7])
    assert rule_shares(rules) == (0.10,)
    moved = off_rule_shares(problem, rule_shares(rules), 1)
    np.testing.assert_allclose(moved.lower_protection, [4.6, 0.7])
    np.testing.assert_allclose(moved.upper_protection, [4.6, 0.7])
