import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from ctadesk.engine.errors import ProblemError
from ctadesk.engine.methods import solve
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.publish.verify import verify
from ctadesk.engine.quality.measures import bivariate_report, cell_indices, inner_cells, preserve, quality_report
from ctadesk.engine.result import SolveOptions
from ctadesk.engine.table.generate import cox_table
from ctadesk.engine.table.structure import TableStructure

#: a 2 x 2 table with margins (C order, totals last): inner cells 1, 3, 5, 7
ORIGINAL = np.array([1, 3, 4,
                     5, 7, 12,
                     6, 10, 16], dtype=float)
#: cell (1,1) 1 -> 2 and (1,2) 3 -> 2; column totals follow
ADJUSTED = np.array([2, 2, 4,
                     5, 7, 12,
                     7, 9, 16], dtype=float)


def tiny_problem() -> CTAProblem:
    structure = TableStructure.flat(2, 2)
    return CTAProblem(values=ORIGINAL, relations=structure.relations(), sensitive=[0],
                      upper_protection=[1.0], relation_label=structure.relation_label)


def test_inner_cells_are_the_cells_that_are_no_total():
    structure, problem = cox_table((4, 5), seed=1)
    assert np.array_equal(inner_cells(problem), np.flatnonzero(structure.inner_mask()))
    assert np.array_equal(inner_cells(tiny_problem()), [0, 1, 3, 4])


def test_report_numbers_by_hand_on_a_2x2_table():
    # inner a = 1,3,5,7 (mean 4, var 5); x = 2,2,5,7 (mean 4, var 4.5); cov = 18/4
    inner = quality_report(tiny_problem(), ADJUSTED)["inner cells"]
    assert inner.cells == 4 and inner.cells_changed == 2 and inner.zero_cells_moved == 0
    assert inner.mean_change == pytest.approx(0.0)
    assert inner.variance_original == pytest.approx(5.0) and inner.variance_adjusted == pytest.approx(4.5)
    assert inner.variance_change == pytest.approx(-10.0)
    assert inner.slope == pytest.approx(0.9) and inner.slope_change == pytest.approx(-10.0)
    assert inner.intercept == pytest.approx(4 - 0.9 * 4)
    assert inner.correlation == pytest.approx(4.5 / math.sqrt(5 * 4.5))
    assert inner.correlation_change == pytest.approx(100 * (4.5 / math.sqrt(22.5) - 1))
    assert inner.total_absolute_change == pytest.approx(2.0) and inner.mean_absolute_change == pytest.approx(0.5)
    # relative changes 100 % and 33.3 % on the changed cells, 0 on the others
    assert inner.mean_relative_change == pytest.approx((100 + 100 / 3) / 4)
    assert inner.largest_relative_change == pytest.approx(100.0) and inner.largest_relative_change_cell == 0
    assert inner.relative_change_quantiles[0] == pytest.approx((100 + 100 / 3) / 2)


def test_report_groups_default_to_inner_totals_sensitive_and_the_rest():
    report = quality_report(tiny_problem(), ADJUSTED)
    assert report.names == ["inner cells", "totals", "sensitive", "not sensitive"]
    totals = report["totals"]  # 4, 12, 6, 10, 16 -> 4, 12, 7, 9, 16
    assert totals.cells == 5 and totals.cells_changed == 2
    assert totals.largest_relative_change == pytest.approx(100 / 6) and totals.largest_relative_change_cell == 6
    assert report["sensitive"].cells == 1 and report["not sensitive"].cells == 8


def test_given_groups_accept_masks_and_indices():
    mask = np.zeros(9, bool)
    mask[[0, 1]] = True
    report = quality_report(tiny_problem(), ADJUSTED, {"first row": mask, "second row": [3, 4]})
    assert report["first row"].mean_change == pytest.approx(0.0)
    assert report["first row"].variance_change == pytest.approx(-100.0)  # 1,3 -> 2,2
    assert report["second row"].cells_changed == 0 and report["second row"].slope == pytest.approx(1.0)


def test_rows_and_as_dict_hold_the_same_numbers():
    report = quality_report(tiny_problem(), ADJUSTED)
    rows = report.rows()
    assert rows[0] == ("measure", "inner cells", "totals", "sensitive", "not sensitive")
    by_label = {row[0]: row[1:] for row in rows[1:]}
    assert by_label["variance change (%)"][0] == pytest.approx(-10.0)
    as_dict = report.as_dict()
    assert as_dict["inner cells"]["regression slope change (%)"] == pytest.approx(-10.0)
    assert as_dict["sensitive"]["variance change (%)"] is None  # one cell: no variance
    assert set(as_dict["totals"]) == set(by_label)


def test_zero_cell_that_moves_is_counted_not_divided():
    values = ADJUSTED.copy()
    original = ORIGINAL.copy()
    original[[0, 1, 6]] = [0, 4, 9]  # inner 0,4,5,7: the zero cell moves to 2
    structure = TableStructure.flat(2, 2)
    problem = CTAProblem(values=original, relations=structure.relations())
    inner = quality_report(problem, values)["inner cells"]
    assert inner.zero_cells_moved == 1 and inner.zero_cells == 1
    assert inner.largest_relative_change == pytest.approx(50.0)  # 4 -> 2, the zero cell is left out


def test_wrong_number_of_values_is_reported():
    with pytest.raises(ProblemError, match="8 adjusted values for a table of 9 cells"):
        quality_report(tiny_problem(), ADJUSTED[:8])


def test_preserve_appends_the_mean_and_L_relations():
    problem = tiny_problem()
    preserved = preserve(problem, mean=True, variance=True)
    assert preserved.n_relations == problem.n_relations + 2
    A = preserved.relations.toarray()[-2:]
    assert np.array_equal(A[0], [1, 1, 0, 1, 1, 0, 0, 0, 0])
    assert np.allclose(A[1] * 3, [-3, -1, 0, 1, 3, 0, 0, 0, 0])  # a - mean(a), largest coefficient 1
    assert np.allclose(preserved.rhs[-2:], [16, 20 / 3])            # sum a; sum (a - 4) a / 3
    assert "mean of 4 cells preserved" in preserved.describe_relation(problem.n_relations)
    assert "sum of its parts" in preserved.describe_relation(0)
    # the hand-made adjustment keeps the mean but not L(y): the verifier names the variance relation
    check = verify(preserved, ADJUSTED)
    assert check.counts["relation"] == 1 and "variance of 4 cells preserved" in check.violations[0].message


def test_preserve_over_chosen_cells_and_nothing_asked():
    problem = tiny_problem()
    assert preserve(problem, mean=False) is problem
    assert preserve(problem, cells=[2, 5]).rhs[-1] == 16.0
    with pytest.raises(ProblemError, match="variance is 0"):
        preserve(problem.replace(values=np.zeros(9), upper_protection=[0.0]), variance=True)


@pytest.mark.parametrize("method", ["lp", "milp"])
def test_preserved_mean_and_slope_do_not_change_while_unpreserved_ones_do(method):
    # Cox recipe 8 x 8 (seed 0): the adjusted table's mean and slope move without the
    # constraints; with them mean and slope change by 0 % and the variance only by
    # Var(y)/Var(a) (Cox 2005a, §3: Var(a+y)/Var(a) = 1 + 2L(y) + Var(y)/Var(a), L(y) = 0)
    _, problem = cox_table((8, 8), seed=0)
    options = SolveOptions(time_limit=20)
    plain = solve(problem, method, options)
    kept = solve(preserve(problem, mean=True, variance=True), method, options)
    assert plain.verified and kept.verified
    before = quality_report(problem, plain.values)["inner cells"]
    after = quality_report(problem, kept.values)["inner cells"]
    assert abs(before.slope_change) > 1.0
    assert abs(after.mean_change) < 1e-6 and abs(after.slope_change) < 1e-6 and abs(after.intercept) < 1e-6
    inner = inner_cells(problem)
    y = kept.values[inner] - problem.values[inner]
    assert after.variance_change == pytest.approx(100 * y.var() / problem.values[inner].var(), rel=1e-6)


# ---------------------------------------------------------------- distances and the bivariate report
MAGNITUDES = st.one_of(st.just(0.0), st.floats(1e-3, 1e6), st.floats(-1e6, -1e-3))


def test_distances_and_largest_absolute_change_by_hand():
    # changes +1 (cell 0), -1 (cell 1), +1 (cell 6), -1 (cell 7); weights 2 on cell 0
    problem = tiny_problem().replace(weights=[2, 1, 1, 1, 1, 1, 1, 1, 1])
    inner = quality_report(problem, ADJUSTED)["inner cells"]
    assert inner.total_absolute_change == 2.0 and inner.l2_distance == pytest.approx(math.sqrt(2))
    assert inner.weighted_distance == 3.0
    assert inner.largest_absolute_change == 1.0 and inner.largest_absolute_change_cell == 0
    assert quality_report(problem, ORIGINAL)["inner cells"].largest_absolute_change_cell == -1
    assert "L2 distance sqrt(sum (x - a)^2)" in quality_report(problem, ADJUSTED).as_dict()["totals"]


@settings(max_examples=40, deadline=None)
@given(original=arrays(float, 12, elements=MAGNITUDES),
       moves=arrays(float, 12, elements=st.floats(-1e3, 1e3)),
       weights=arrays(float, 12, elements=st.floats(0, 10)))
@example(original=np.array([61036.0] + [0.0] * 11), moves=np.array([2.0 ** -14] + [0.0] * 11),   # a CI run's:
         weights=np.zeros(12))      # a move within CHANGE_RTOL is no changed cell, but still the largest change
def test_univariate_distances_equal_numpy(original, moves, weights):
    problem = CTAProblem(values=original, relations=np.zeros((0, 12)), weights=weights)
    adjusted = original + moves
    group = quality_report(problem, adjusted, {"all": np.ones(12, bool)})["all"]
    change = adjusted - original
    assert group.total_absolute_change == pytest.approx(np.abs(change).sum(), rel=1e-12, abs=1e-9)
    assert group.l2_distance == pytest.approx(np.linalg.norm(change), rel=1e-12, abs=1e-9)
    assert group.weighted_distance == pytest.approx(np.dot(weights, np.abs(change)), rel=1e-12, abs=1e-9)
    assert group.largest_absolute_change == pytest.approx(np.abs(change).max(), rel=1e-12, abs=1e-12)


def numpy_pair(a, b):
    cov = np.cov(a, b, bias=True)
    slope, intercept = np.polyfit(a, b, 1)
    return cov[0, 1], np.corrcoef(a, b)[0, 1], slope, intercept


@settings(max_examples=40, deadline=None)
@given(size=st.integers(3, 30), seed=st.integers(0, 2**32 - 1), scale=st.sampled_from([1e-3, 1.0, 1e4, 1e8]))
def test_bivariate_report_equals_numpy(size, seed, scale):
    rng = np.random.default_rng(seed)
    a = scale * rng.uniform(1, 100, size)
    b = a * rng.lognormal(0, 0.5, size) + scale * rng.normal(0, 5, size)
    xa = a + scale * rng.normal(0, 2, size)
    xb = b + scale * rng.normal(0, 2, size)
    first = CTAProblem(values=a, relations=np.zeros((0, size)))
    second = CTAProblem(values=b, relations=np.zeros((0, size)))
    report = bivariate_report(first, second, xa, xb, {"all": np.arange(size)}, names=("turnover", "staff"))
    pair = report["all"]
    cov, corr, slope, _ = numpy_pair(a, b)
    cov_x, corr_x, slope_x, intercept_x = numpy_pair(xa, xb)
    assert pair.covariance_original == pytest.approx(cov, rel=1e-9)
    assert pair.covariance_change == pytest.approx(100 * (cov_x - cov) / abs(cov), rel=1e-7, abs=1e-9)
    assert pair.correlation_original == pytest.approx(corr, rel=1e-9)
    assert pair.correlation_change == pytest.approx(100 * (corr_x - corr) / abs(corr), rel=1e-7, abs=1e-9)
    assert pair.slope_change == pytest.approx(100 * (slope_x - slope) / abs(slope), rel=1e-6, abs=1e-8)
    assert pair.intercept_adjusted == pytest.approx(intercept_x, rel=1e-6, abs=1e-6 * scale * 100)
    assert pair.first.variance_change == pytest.approx(100 * (xa.var() - a.var()) / a.var(), rel=1e-7, abs=1e-9)
    assert pair.second.variance_change == pytest.approx(100 * (xb.var() - b.var()) / b.var(), rel=1e-7, abs=1e-9)
    as_dict = report.as_dict()["all"]
    assert as_dict["covariance change (%)"] == pytest.approx(pair.covariance_change)
    assert as_dict["staff: variance change (%)"] == pytest.approx(pair.second.variance_change)
    rows = report.rows()
    assert rows[0] == ("measure", "all") and len(rows) - 1 == len(as_dict)


def test_bivariate_report_groups_default_to_cells_sensitive_in_either_variable():
    first = tiny_problem()
    second = CTAProblem(values=ORIGINAL * 2, relations=first.relations, sensitive=[4], upper_protection=[1.0])
    report = bivariate_report(first, second, ADJUSTED, ORIGINAL * 2)
    assert [g.name for g in report.groups] == ["inner cells", "totals", "sensitive", "not sensitive"]
    assert report["sensitive"].first.cells == 2 and report["not sensitive"].first.cells == 7
    assert report["inner cells"].second.cells_changed == 0
    with pytest.raises(ProblemError, match="second: 8 adjusted values"):
        bivariate_report(first, second, ADJUSTED, ORIGINAL[:8])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 30), max_size=20), st.booleans())
def test_cell_indices_are_the_sorted_distinct_cells_whether_given_sorted_or_not(cells, presorted):
    given_cells = sorted(set(cells)) if presorted else cells
    assert cell_indices(np.array(given_cells, dtype=np.int64), 31, "group").tolist() == sorted(set(cells))


@settings(max_examples=80, deadline=None)
@given(signs=arrays(np.int8, (5, 7), elements=st.sampled_from([-1, 0, 0, 1])))
def test_inner_cells_leave_out_the_one_cell_of_the_other_sign_in_each_relation(signs):
    """Against the rule row by row: the cell of a relation's only negative coefficient is a total,
    and so is the only positive one of a relation with several negative ones."""
    is_total = np.zeros(7, bool)
    for row in signs:
        negative, positive = np.flatnonzero(row < 0), np.flatnonzero(row > 0)
        if negative.size == 1:
            is_total[negative] = True
        if positive.size == 1 and negative.size > 1:
            is_total[positive] = True
    problem = CTAProblem(values=np.zeros(7), relations=signs.astype(float))
    assert np.array_equal(inner_cells(problem), np.flatnonzero(~is_total))


@settings(max_examples=60, deadline=None)
@given(original=arrays(float, 15, elements=st.sampled_from([0.0, 1.0, -2.0, 7.5, 1e4])),
       moves=arrays(float, 15, elements=st.sampled_from([0.0, 0.0, 1e-12, 0.5, -3.0, 100.0])),
       weights=arrays(float, 15, elements=st.sampled_from([0.0, 1.0, 2.0])),
       groups=st.lists(arrays(bool, 15), min_size=1, max_size=4))
def test_every_figure_of_overlapping_groups_is_that_of_the_group_alone(original, moves, weights, groups):
    """The figures of each group, from changes worked out once for the whole table, against a
    group computed on its own cells by numpy."""
    problem = CTAProblem(values=original, relations=np.zeros((0, 15)), weights=weights)
    adjusted = original + moves
    report = quality_report(problem, adjusted, {f"g{k}": mask for k, mask in enumerate(groups)})
    for k, mask in enumerate(groups):
        group, cells = report[f"g{k}"], np.flatnonzero(mask)
        a, x, w = original[cells], adjusted[cells], weights[cells]
        size = np.abs(x - a)
        changed = size > 1e-9 * np.maximum(1.0, np.abs(a))
        relative = np.array([100 * s / abs(v) if v else 0.0 for s, v in zip(size, a)])
        moved = changed & (a != 0)
        assert (group.cells, group.zero_cells) == (cells.size, int(np.sum(a == 0)))
        assert (group.cells_changed, group.zero_cells_moved) == (int(changed.sum()), int((changed & (a == 0)).sum()))
        assert group.total_absolute_change == pytest.approx(size.sum(), rel=1e-12)
        assert group.weighted_distance == pytest.approx(float(np.sum(w * size)), rel=1e-12)
        assert group.total_relative_change == pytest.approx(relative.sum(), rel=1e-12)
        assert group.largest_relative_change_cell == (int(cells[np.argmax(relative)]) if moved.any() else -1)
        assert group.largest_absolute_change_cell == (int(cells[np.argmax(size)]) if changed.any() else -1)
        assert group.relative_change_quantiles == pytest.approx(
            np.percentile(relative[moved], [50, 90, 99]) if moved.any() else [0.0, 0.0, 0.0])
        if cells.size:
            assert group.mean_adjusted == pytest.approx(x.mean(), rel=1e-12, abs=1e-12)
            assert group.variance_original == pytest.approx(a.var(), rel=1e-9, abs=1e-9)
            assert group.variance_adjusted == pytest.approx(x.var(), rel=1e-9, abs=1e-9)
            if a.var() > 0 and x.var() > 0:
                assert group.correlation == pytest.approx(np.corrcoef(a, x)[0, 1], rel=1e-9)
        else:
            assert math.isnan(group.mean_original)
