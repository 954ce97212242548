"""Verdicts on attacker intervals, one way of failing at a time (a = 100, levels 10 both ways)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctadesk.engine.audit.verdicts import judge

A, LEVEL, TOL = np.array([100.0]), np.array([10.0]), 1e-6


def verdicts(lower, upper, published=np.nan, percentage_known=False):
    return judge(A, np.array([published]), np.array([float(lower)]), np.array([float(upper)]), LEVEL, LEVEL,
                 percentage_known, TOL)


def test_an_interval_reaching_both_safe_values_is_safe():
    v = verdicts(90, 110, published=110)
    assert not (v.exact | v.lower_short | v.upper_short | v.published_inside | v.singled_out).any()


@pytest.mark.parametrize("lower, upper, short", [(91, 200, "lower_short"), (0, 109, "upper_short")])
def test_an_end_closer_than_the_level_is_short(lower, upper, short):
    v = verdicts(lower, upper)
    assert getattr(v, short).tolist() == [True]
    assert not v.exact.any()


def test_a_point_interval_is_exact_disclosure():
    assert verdicts(100, 100 + TOL / 2).exact.tolist() == [True]


@pytest.mark.parametrize("published, inside", [(95, True), (110, False), (89, False), (np.nan, False)])
def test_a_published_value_strictly_inside_the_protection_interval_is_flagged(published, inside):
    assert verdicts(0, 200, published=published).published_inside.tolist() == [inside]


def test_with_the_percentage_known_one_candidate_in_the_interval_singles_out_the_original():
    # published 110 = 100 + 10 %: candidates 110 / 1.1 = 100 and 110 / 0.9 = 122.2
    alone = verdicts(50, 120, published=110, percentage_known=True)
    assert alone.singled_out.tolist() == [True]
    assert (alone.lower[0], alone.upper[0]) == (50, pytest.approx(100))
    both = verdicts(50, 130, published=110, percentage_known=True)
    assert both.singled_out.tolist() == [False]
    assert (both.lower[0], both.upper[0]) == (50, 130)


def test_a_release_off_the_exact_level_is_not_singled_out():
    # widened by a secret share: published 112, candidates 101.8 and 124.4, neither is 100
    v = verdicts(50, 120, published=112, percentage_known=True)
    assert v.singled_out.tolist() == [False]
    assert v.upper[0] == pytest.approx(112 / 1.1)


def test_a_release_rounded_to_its_precision_still_singles_out_the_original():
    # a = 100.33 moved up by its 10 % level is 110.363, published to one decimal (rounded away
    # from a, as engine/publish/precision.py does) as 110.4: 110.4 / 1.1 = 100.364 misses a by more than
    # a float tolerance, but 110.4 stands for [110.35, 110.45], i.e. an original in
    # [100.318, 100.409], which holds a
    a, level, published = np.array([100.33]), np.array([10.033]), np.array([110.4])

    def singled(half_step):
        return judge(a, published, np.array([50.0]), np.array([120.0]), level, level, True, TOL,
                     half_step).singled_out.tolist()

    assert singled(0.0) == [False]
    assert singled(0.05) == [True]


def test_a_release_moved_past_the_level_by_more_than_its_rounding_is_not_singled_out():
    # 110.6 stands for [110.55, 110.65]: an original in [100.5, 100.59], which misses 100.33
    v = judge(np.array([100.33]), np.array([110.6]), np.array([50.0]), np.array([120.0]), np.array([10.033]),
              np.array([10.033]), True, TOL, 0.05)
    assert v.singled_out.tolist() == [False]
    assert v.upper[0] == pytest.approx(110.65 / 1.1)


def singled_out_by_definition(a, x, lower, upper, share_up, share_down, half_step, tolerance):
    """The original is singled out when exactly one direction has an original v in [lower, upper]
    that, moved by exactly its share, rounds to x (|v f - x| <= half_step for f = 1 +- share:
    v within half_step / f of x / f), and a is one of them."""
    def near(v, factor):
        return abs(v - x / factor) <= (half_step + tolerance) / factor + tolerance

    def meets(factor):
        centre = x / factor
        return max(lower - centre, centre - upper, 0.0) <= (half_step + tolerance) / factor + tolerance

    up, down = 1 + share_up, 1 - share_down
    up_meets, down_meets = meets(up), share_down < 1 and meets(down)
    return up_meets != down_meets and near(a, up if up_meets else down)


@settings(max_examples=200, deadline=None)
@given(a=st.floats(1.0, 1e4), share=st.floats(0.05, 0.5), decimals=st.integers(0, 3),
       widening=st.floats(0.0, 0.2), up=st.booleans(), low=st.floats(0.0, 1.0), high=st.floats(1.0, 3.0))
def test_singled_out_matches_its_definition_on_rounded_releases(a, share, decimals, widening, up, low, high):
    half_step = 0.5 * 10.0 ** -decimals
    moved = a * (1 + share + widening) if up else a * (1 - share - widening)
    x = round(moved, decimals)
    lower, upper = a * low, a * high
    level = np.array([share * a])
    if not (x > 0 and (x >= a + level[0] - TOL or x <= a - level[0] + TOL)):
        return   # the verdict applies to values published outside their protection interval
    got = judge(np.array([a]), np.array([x]), np.array([lower]), np.array([upper]), level, level, True, TOL,
                half_step).singled_out[0]
    assert got == singled_out_by_definition(a, x, lower, upper, share, share, half_step, TOL)
