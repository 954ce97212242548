"""DR, DU, MPR, CW, ordered marginals and the searches on hand-made tables."""

import numpy as np
import pytest

from ctadesk.engine.errors import ProblemError
from ctadesk.engine.releases import (
    CountTable,
    Release,
    cells_released,
    critical_width,
    critical_widths,
    decomposable_release,
    disclosure_risk,
    is_decomposable,
    most_parsimonious,
    optimal_release,
    ordered_marginals,
    subtables_released,
    weighted,
)

A, B, C, D = 0, 1, 2, 3
#: rows 4 and 6, columns 5 and 5, total 10; at risk (<= 2): (0,0)=1 and (1,1)=2
TWO_BY_TWO = CountTable(np.array([[1, 3], [4, 2]]), ["A", "B"])


def test_dr_is_the_narrowest_at_risk_bound():
    # independence bounds: (0,0) in [max(0, 4+5-10), min(4,5)] = [0, 4]; (1,1) in [1, 5]
    report = disclosure_risk(TWO_BY_TWO, Release.of(2, [{A}, {B}]))
    assert report.risk == 4 and report.method == "frechet"
    assert report.bounds.lower.tolist() == [0, 1] and report.bounds.upper.tolist() == [4, 5]


def test_a_higher_threshold_puts_more_cells_at_risk():
    assert TWO_BY_TWO.at_risk(2).tolist() == [0, 3] and TWO_BY_TWO.at_risk(3).tolist() == [0, 1, 3]


def test_dr_of_the_full_table_is_zero_and_of_nothing_infinite():
    assert disclosure_risk(TWO_BY_TWO, Release.everything(2)).risk == 0
    assert disclosure_risk(TWO_BY_TWO, Release(2, frozenset())).risk == np.inf


def test_utilities_count_sub_tables_cells_or_weights():
    release = Release.of(2, [{A}, {B}])
    assert subtables_released(TWO_BY_TWO, release) == 3                # [], [A], [B]
    assert cells_released(TWO_BY_TWO, release) == 1 + 2 + 2
    assert weighted({frozenset({A}): 5.0}, default=0.0)(TWO_BY_TWO, release) == 5.0
    with pytest.raises(ProblemError):
        weighted({frozenset({A}): -1.0})


def test_mpr_is_the_sub_table_and_the_one_way_tables_outside_it():
    release = most_parsimonious(4, frozenset({A, B}))
    assert release.frontier == {frozenset({A, B}), frozenset({C}), frozenset({D})} and is_decomposable(release)


def test_critical_width_is_dr_of_the_mpr():
    widths = critical_widths(TWO_BY_TWO)
    assert widths == {frozenset(): 4, frozenset({A}): 4, frozenset({B}): 4, frozenset({A, B}): 0}
    assert critical_width(CountTable(np.array([5, 5]), ["A"]), frozenset({A})) == np.inf  # nothing at risk


def test_ordered_marginals_add_the_least_risky_first_and_stop_at_alpha():
    result = ordered_marginals(TWO_BY_TWO, alpha=3)
    assert result.release == Release.of(2, [{A}, {B}]) and result.refused == (frozenset({A, B}),)
    # at alpha 5 the grand total passes (bounds [0, 10]) but [A] alone bounds (0,0) by its row, 4
    stopped = ordered_marginals(TWO_BY_TWO, alpha=5)
    assert stopped.release == Release.of(2, [()]) and stopped.refused == (frozenset({A}),)


def test_ordered_marginals_may_keep_going_past_a_refused_sub_table():
    # [B] alone bounds both at-risk cells by their columns: [0, 5], width 5
    result = ordered_marginals(TWO_BY_TWO, alpha=5, keep_going=True)
    assert result.release == Release.of(2, [{B}]) and result.refused == (frozenset({A}), frozenset({A, B}))


#: a 2 x 2 x 2 table whose only at-risk cell is pinned by [AB] and [C] together
THREE_WAY = CountTable(np.array([[[1, 0], [6, 7]], [[5, 6], [8, 9]]]), ["A", "B", "C"])


def test_optimal_release_is_the_largest_meeting_alpha():
    result = optimal_release(THREE_WAY, alpha=1)
    assert result.exact and result.utility == max(len(r) for r in result.releases)
    for release in result.releases:
        assert disclosure_risk(THREE_WAY, release).risk >= 1
        assert all(disclosure_risk(THREE_WAY, smaller).risk >= 1 for smaller in release.below())
    assert disclosure_risk(THREE_WAY, Release.everything(3)).risk == 0


def test_optimal_and_decomposable_searches_agree_on_two_axes():
    assert optimal_release(TWO_BY_TWO, alpha=3).releases == (Release.of(2, [{A}, {B}]),)
    found = decomposable_release(TWO_BY_TWO, alpha=3)
    assert found.exact and found.releases == (Release.of(2, [{A}, {B}]),) and found.utility == 3


def test_decomposable_search_anneals_when_the_budget_is_too_small():
    exact = decomposable_release(THREE_WAY, alpha=2)
    annealed = decomposable_release(THREE_WAY, alpha=2, max_evaluations=1, iterations=400, seed=1)
    assert not annealed.exact and annealed.utility == exact.utility
    assert all(is_decomposable(r) and disclosure_risk(THREE_WAY, r).risk >= 2 for r in annealed.releases)


def test_the_best_release_need_not_be_decomposable():
    # [AB][AC][BC] bounds the count-1 cell by [0, 1] (DR 1); no decomposable release of 7 sub-tables exists
    assert optimal_release(THREE_WAY, alpha=1).releases == (Release.of(3, [{A, B}, {A, C}, {B, C}]),)
    assert decomposable_release(THREE_WAY, alpha=1).utility == 6
