"""The attacker's box: a-priori bounds, capacities and published cells."""

import numpy as np
import pytest

from ctadesk.engine.audit import APriori, AttackerKnowledge, Capacity, Release
from ctadesk.engine.audit.knowledge import attacker_box
from ctadesk.engine.errors import ProblemError

from .tables import THESIS, THESIS_L1, thesis_problem


def test_relative_capacity_gives_the_originals_that_move_to_the_published_value():
    low, high = Capacity("rel", 0.2).original_range(np.array([12.0, -12.0, 0.0]))
    assert low == pytest.approx([10, -15, 0]) and high == pytest.approx([15, -10, 0])


def test_absolute_capacity_is_a_band_around_the_published_value():
    low, high = Capacity("abs", 2).original_range(np.array([5.0]))
    assert (low[0], high[0]) == (3, 7)


@pytest.mark.parametrize("kind, value", [("rel", 1.0), ("abs", -1.0), ("rel", np.nan)])
def test_capacities_without_an_interval_are_refused(kind, value):
    with pytest.raises(ProblemError):
        Capacity(kind, value)


def test_sign_only_knowledge_bounds_a_non_negative_table_below_by_zero():
    problem = thesis_problem()
    low, high = attacker_box(problem, Release.adjusted(THESIS_L1.reshape(-1)),
                             AttackerKnowledge(a_priori=APriori.SIGN), 1e-9)
    assert np.all(low == 0) and np.all(np.isinf(high))


def test_problem_bounds_make_fixed_cells_known():
    problem = thesis_problem()
    low, high = attacker_box(problem, Release.adjusted(THESIS_L1.reshape(-1)), AttackerKnowledge(), 1e-9)
    assert low[19] == high[19] == 136 and low[0] == 0 and np.isinf(high[0])


def test_sensitive_cells_keep_their_a_priori_bounds_under_a_capacity():
    low, high = attacker_box(thesis_problem(), Release.adjusted(THESIS_L1.reshape(-1)),
                             AttackerKnowledge(capacity=Capacity("abs", 5)), 1e-9)
    assert (low[0], high[0]) == (0, np.inf)
    assert (low[1], high[1]) == (10, 20)


def test_a_suppressed_release_must_publish_the_originals():
    published = THESIS.reshape(-1).copy()
    published[1] = 16
    release = Release(published, np.arange(20) == 0)
    with pytest.raises(ProblemError, match=r"cell 1 \(R=1, C=2\) was published as 16, not its value 15"):
        attacker_box(thesis_problem(), release, AttackerKnowledge.for_release(release), 1e-9)


def test_a_release_of_another_size_is_refused():
    with pytest.raises(ProblemError, match="the release has 3 cells, the table 20"):
        attacker_box(thesis_problem(), Release.adjusted(np.ones(3)), AttackerKnowledge(), 1e-9)


def test_the_box_is_widened_to_hold_an_original_rounded_out_of_it():
    release = Release.adjusted(THESIS_L1.reshape(-1) * (1 + 1e-15))
    low, high = attacker_box(thesis_problem(), release, AttackerKnowledge(capacity=Capacity("abs", 5)), 1e-9)
    assert np.all(low <= THESIS.reshape(-1)) and np.all(high >= THESIS.reshape(-1))


@pytest.mark.parametrize("published, half_step", [
    ([12.0, 7.0, 19.0], 0.5),            # whole numbers: known to +-0.5
    ([12.5, 7.25, 19.0], 0.005),         # two decimals
    ([12.0, np.nan, 19.1], 0.05),        # a suppressed cell says nothing about the precision
    ([12.0, 1 / 3, 19.0], 0.0),          # published in full
])
def test_a_release_is_known_to_half_a_step_of_its_last_decimal(published, half_step):
    published = np.array(published)
    assert Release(published, np.isnan(published)).half_step() == pytest.approx(half_step)


def test_the_rules_range_knows_each_value_to_within_its_share_fixed_cells_exactly():
    problem = thesis_problem()
    a = problem.values
    low, high = attacker_box(problem, Release.adjusted(THESIS_L1.reshape(-1)),
                             AttackerKnowledge(a_priori=APriori.RANGE, a_priori_range=0.5), 1e-9)
    free = problem.lower != problem.upper
    np.testing.assert_allclose(low[free], np.maximum(0.5 * a[free], 0))
    np.testing.assert_allclose(high[free], 1.5 * a[free])
    assert low[19] == high[19] == 136


def test_a_negative_range_is_refused():
    with pytest.raises(ProblemError, match="range"):
        AttackerKnowledge(a_priori=APriori.RANGE, a_priori_range=-0.1)
