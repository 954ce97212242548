"""Safety rules as tau-argus applies them: on the shadow variable, and the protection level
of a cell several rules flag (libtauargus CTable::SetProtectionLevelCell), hand-computed."""

import dataclasses

import numpy as np
import pytest

from ctadesk.engine.errors import ProblemError
from ctadesk.engine.rules.safety import Rule, SafetyRules, apply_rules
from ctadesk.engine.table.statistics import CellStatistics


def shadow_cell(value, shadow, top, freq=3):
    """One cell: response total `value`, shadow total `shadow` whose largest contributions are `top`."""
    return CellStatistics(values=[value], freq=[freq], top=[top], shadow=[shadow])


# response X = 110, shadow S = 100 with top contributions 60, 30 (remainder on the shadow 10)
def test_p_percent_reads_the_shadow_not_the_response():
    # on the response the remainder would be 110 - 90 = 20 >= 12: safe; on the shadow 10 < 12
    result = apply_rules(shadow_cell(110.0, 100.0, [60, 30]), SafetyRules(p_percent=[20]))
    assert result.flags[0] == Rule.P_PERCENT
    # level on the shadow 12 - 10 = 2, in the response's terms 2 * 110 / 100
    assert result.upper_protection[0] == pytest.approx(2.2)


def test_dominance_reads_the_shadow_and_its_level_is_rescaled_to_the_response():
    # 60 > 55 % of S = 100 (but not of X = 110); level (100 / 55) * 60 - 100 on S
    result = apply_rules(shadow_cell(110.0, 100.0, [60, 30]), SafetyRules(dominance=[(1, 55)]))
    assert result.flags[0] == Rule.DOMINANCE
    assert result.upper_protection[0] == pytest.approx((100 / 55 * 60 - 100) * 110 / 100)


def test_pq_reads_the_shadow():
    # (p,q) = (10, 40): remainder 10 < 0.25 * 60 = 15 on S; level 5 on S, 5 * 55 / 100 for X = 55
    result = apply_rules(shadow_cell(55.0, 100.0, [60, 30]), SafetyRules(pq=[(10, 40)]))
    assert result.flags[0] == Rule.PQ
    assert result.upper_protection[0] == pytest.approx(5 * 55 / 100)


def test_a_shadow_larger_than_the_response_can_make_a_cell_safe():
    # X = 95 alone would fail p% 20 (remainder 5 < 12); on S = 120 the remainder is 30
    assert apply_rules(shadow_cell(95.0, 120.0, [60, 30]), SafetyRules(p_percent=[20])).flags[0] == 0


def test_a_shadow_total_not_above_zero_is_never_flagged_by_concentration_rules():
    rules = SafetyRules(dominance=[(1, 50)], p_percent=[10])
    assert apply_rules(shadow_cell(100.0, 0.0, [60, 30]), rules).flags[0] == 0


def test_holding_rules_read_the_shadow_too():
    stats = CellStatistics(values=[110.0], freq=[3], top=[[60, 30]], holding_freq=[2],
                           holding_top=[[90, 10]], shadow=[100.0])
    result = apply_rules(stats, SafetyRules(holding_dominance=[(1, 85)]))
    assert result.flags[0] == Rule.HOLDING_DOMINANCE  # 90 > 85 % of S = 100, not of X = 110 (93.5)
    assert result.upper_protection[0] == pytest.approx((100 / 85 * 90 - 100) * 110 / 100)


def test_a_shadow_and_sampling_weights_are_refused_together():
    with pytest.raises(ProblemError, match="shadow variable and sampling weights"):
        CellStatistics(values=[1.0], freq=[1], top=[[1.0]], weighted_values=[2.0], top_weights=[[2.0]],
                       shadow=[1.0])


# contributions 25 alone: frequency 30 % of 25 = 7.5, dominance (1,90) 100/90 * 25 - 25, p% 10: 2.5
ONE = CellStatistics(values=[25.0], freq=[1], top=[[25.0, np.nan]])
EVERY_RULE = {"min_frequency": 3, "frequency_safety_range": 30, "dominance": [(1, 90)], "p_percent": [10]}


def test_a_cell_several_rules_flag_gets_the_concentration_level_as_tau_argus():
    result = apply_rules(ONE, SafetyRules(**EVERY_RULE))
    assert result.flags[0] == Rule.FREQUENCY | Rule.DOMINANCE | Rule.P_PERCENT
    assert result.upper_protection[0] == pytest.approx(100 / 90 * 25 - 25)  # the larger of dominance and p%
    assert result.lower_protection[0] == pytest.approx(100 / 90 * 25 - 25)


def test_the_largest_level_of_all_rules_is_an_option():
    result = apply_rules(ONE, SafetyRules(**EVERY_RULE, level_combination="largest"))
    assert result.upper_protection[0] == pytest.approx(0.30 * 25)


def test_the_frequency_safety_range_counts_where_no_concentration_rule_flags():
    # 10 and 10: 10 is not > 90 % of 20, so only the frequency rule flags the cell (30 % of 20)
    stats = CellStatistics(values=[20.0], freq=[2], top=[[10.0, 10.0]])
    result = apply_rules(stats, SafetyRules(min_frequency=3, frequency_safety_range=30, dominance=[(1, 90)]))
    assert result.flags[0] == Rule.FREQUENCY
    assert result.upper_protection[0] == pytest.approx(6.0)


def test_the_request_rule_comes_before_the_frequency_rule():
    stats = CellStatistics(values=[100.0], freq=[2], top=[[70.0, 30.0]], request_top=[[70.0, np.nan]])
    rules = SafetyRules(min_frequency=3, frequency_safety_range=30, request_percent=(50, 50),
                        request_safety_range=10)
    result = apply_rules(stats, rules)
    assert result.flags[0] == Rule.FREQUENCY | Rule.REQUEST
    assert result.upper_protection[0] == pytest.approx(10.0)
    largest = dataclasses.replace(rules, level_combination="largest")
    assert apply_rules(stats, largest).upper_protection[0] == pytest.approx(30.0)


def test_a_zero_cell_flagged_by_frequency_gets_the_zero_range_above_and_nothing_below():
    # |X| = 0: the frequency range is 0, so the zero rule sets the level, as tau-argus does for X = 0
    stats = CellStatistics(values=[0.0], freq=[1], top=[[0.0, np.nan]])
    result = apply_rules(stats, SafetyRules(min_frequency=3, frequency_safety_range=30, zero_unsafe=True,
                                            zero_safety_range=4))
    assert result.flags[0] == Rule.FREQUENCY | Rule.ZERO
    assert result.upper_protection[0] == 4.0 and result.lower_protection[0] == 0.0


def test_a_manual_cell_keeps_the_level_of_a_rule_that_flags_it():
    result = apply_rules(ONE, SafetyRules(p_percent=[10], manual_safety_range=50), manual=[0])
    assert result.flags[0] == Rule.P_PERCENT | Rule.MANUAL
    assert result.upper_protection[0] == pytest.approx(2.5)


def test_an_unknown_level_combination_is_refused():
    with pytest.raises(ProblemError, match="unknown level combination 'smallest'"):
        SafetyRules(level_combination="smallest")
