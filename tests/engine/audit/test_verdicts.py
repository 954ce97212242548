"""Verdicts on attacker intervals, one way of failing at a time (a = 100, levels 10 both ways)."""

import numpy as np
import pytest

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
