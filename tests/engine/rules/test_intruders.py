"""The p% and (p,q) rules with n intruders (tau-argus's P(p, n)): the n largest contributors after
the first pool what they know, so a cell is unsafe when X - x_1 - ... - x_(n+1) < (p/100) x_1."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctadesk.engine.errors import ProblemError
from ctadesk.engine.rules.safety import ROUNDING_RTOL, Rule, SafetyRules, apply_rules
from ctadesk.engine.table.statistics import CellStatistics


def one_cell(contributions: list[int], k: int) -> CellStatistics:
    x = np.sort(np.asarray(contributions, float))[::-1]
    top = np.full((1, k), np.nan)
    top[0, :min(k, x.size)] = x[:k]
    return CellStatistics(values=[x.sum()], freq=[x.size], top=top)


def test_two_intruders_flag_a_cell_one_intruder_leaves_safe():
    stats = one_cell([50, 20, 20, 10], k=3)           # 25% of x1 = 12.5: X - x1 - x2 = 30, X - x1 - x2 - x3 = 10
    assert apply_rules(stats, SafetyRules(p_percent=(25,))).flags[0] == 0
    result = apply_rules(stats, SafetyRules(p_percent=(25,), intruders=2))
    assert result.flags[0] == int(Rule.P_PERCENT)
    assert result.upper_protection[0] == pytest.approx(0.25 * 50 - 10)


@given(st.lists(st.integers(1, 1000), min_size=1, max_size=8), st.floats(1, 60), st.integers(1, 4),
       st.sampled_from([None, 80.0]))
def test_flags_and_levels_follow_the_rule_with_n_intruders(contributions, p, n, q):
    x = np.sort(np.asarray(contributions, float))[::-1]
    stats = one_cell(contributions, k=n + 1)
    rules = SafetyRules(intruders=n, **({"pq": ((min(p, 79.0), q),)} if q else {"p_percent": (p,)}))
    ratio = min(p, 79.0) / q if q else p / 100
    level = ratio * x[0] - (x.sum() - x[:n + 1].sum())
    result = apply_rules(stats, rules)
    unsafe = level > ROUNDING_RTOL * x.sum()
    assert bool(result.flags[0]) == unsafe
    assert result.upper_protection[0] == pytest.approx(level if unsafe else 0.0)


def test_more_intruders_need_more_contributions_read():
    assert SafetyRules(p_percent=(10,), intruders=3).contributions_needed() == 4
    assert SafetyRules(holding_pq=((10, 50),), holding_intruders=2).contributions_needed(holding=True) == 3


@pytest.mark.parametrize("n", [0, 1.5])
def test_intruders_must_be_a_whole_number_of_at_least_one(n):
    with pytest.raises(ProblemError, match="intruders"):
        SafetyRules(p_percent=(10,), intruders=n)
