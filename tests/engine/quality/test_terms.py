"""Quality terms on one variable (engine/quality/terms.py; Cox 2005a, §3): mean, L(y) and
correlation, hard, bounded or weighted, through any method.  Every figure is recomputed here from
the returned table with numpy alone: m(y) = mean_S(x) - mean_S(a),
L(y) = sum_S (a_i - mean a) (x_i - a_i) / sum_S (a_i - mean a)^2, Corr(a, x) by np.corrcoef."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctadesk.engine.errors import ProblemError
from ctadesk.engine.methods import solve
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.publish.precision import published_or_why
from ctadesk.engine.quality.terms import (
    QualityTerm,
    TermsReport,
    correlation_cut,
    parse_term,
    published_with_terms,
    rounded_near,
    size_class,
    slice_cells,
    solve_with_terms,
)
from ctadesk.engine.result import SolveOptions, Status
from ctadesk.engine.senses.ordering import ordering_senses
from ctadesk.engine.table.generate import cox_table
from ctadesk.engine.table.structure import TableStructure
from tests.crosscheck.checker import check_table

METHODS = ("milp", "lp", "l2", "hybrid")


# ------------------------------------------------------------------ the independent checker
def inner(structure: TableStructure) -> np.ndarray:
    return np.flatnonzero(structure.inner_mask())


def mean_change(a: np.ndarray, x: np.ndarray, cells: np.ndarray) -> float:
    return float(x[cells].mean() - a[cells].mean())


def variance_term(a: np.ndarray, x: np.ndarray, cells: np.ndarray) -> float:
    centred = a[cells] - a[cells].mean()
    return float(centred @ (x[cells] - a[cells]) / (centred @ centred))


def corr(a: np.ndarray, x: np.ndarray, cells: np.ndarray) -> float:
    return float(np.corrcoef(a[cells], x[cells])[0, 1])


def l_tolerance(a: np.ndarray, cells: np.ndarray) -> float:
    """1e-6 of the scale of L(y)'s relation, sum |a_i - mean a| |a_i| / sum (a_i - mean a)^2."""
    centred = a[cells] - a[cells].mean()
    return 1e-6 * float(np.abs(centred) @ np.abs(a[cells]) / (centred @ centred))


def runner(method: str):
    return lambda problem, options: solve(problem, method, options)


# ------------------------------------------------------------------ the paper's two checks
def one_way_table() -> CTAProblem:
    """Cells 10, 30, 60 and their total 100.  Cell 0 is sensitive (protection 5 both ways); cell 2
    and the total are fixed, so cell 1 must take -y0: y = (y0, -y0, 0), and
    L(y) = (a0 - a1) y0 / sum (a - mean a)^2 = -20 y0 / 1266.67 is never 0 -- the smallest |L|
    any protected table has is 100 / 1266.67 (|y0| = 5)."""
    return CTAProblem(values=[10.0, 30.0, 60.0, 100.0], relations=np.array([[1.0, 1.0, 1.0, -1.0]]),
                      lower=0.0, upper=[20.0, 40.0, 60.0, 100.0], fixed=[False, False, True, True],
                      sensitive=[0], lower_protection=[5.0], upper_protection=[5.0])


SMALLEST_L = 100.0 / (1 / 3 * ((10 - 100 / 3) ** 2 + (30 - 100 / 3) ** 2 + (60 - 100 / 3) ** 2) * 3)


@pytest.mark.parametrize("method", ["milp", "lp"])
def test_exact_l_zero_infeasible_the_hard_term_finds_no_table_the_minimised_one_the_least_l(method):
    problem = one_way_table()
    hard, _ = solve_with_terms(problem, [QualityTerm("L")], runner(method))
    assert hard.values is None or not hard.verified
    result, report = solve_with_terms(problem, [QualityTerm("L", "weighted", weight=1e6)], runner(method))
    assert result.verified and check_table(problem, result.values).ok
    cells = np.arange(3)
    assert abs(variance_term(problem.values, result.values, cells)) == pytest.approx(SMALLEST_L, rel=1e-9)
    assert report.outcomes[0].value == pytest.approx(variance_term(problem.values, result.values, cells), abs=1e-12)
    bounded, _ = solve_with_terms(problem, [QualityTerm("L", "bounded", bound=0.9 * SMALLEST_L)], runner(method))
    assert bounded.values is None or not bounded.verified
    loose, _ = solve_with_terms(problem, [QualityTerm("L", "bounded", bound=1.1 * SMALLEST_L)], runner(method))
    assert loose.verified and abs(variance_term(problem.values, loose.values, cells)) <= 1.1 * SMALLEST_L + 1e-12


@st.composite
def tables(draw):
    shape = (draw(st.integers(2, 4)), draw(st.integers(2, 5)))
    structure, problem = cox_table(shape, seed=draw(st.integers(0, 10_000)),
                                   max_value=draw(st.sampled_from([10, 1000, 10**6])),
                                   capacity=draw(st.sampled_from([0.2, 0.5])))
    return structure, problem


@st.composite
def groups(draw, structure: TableStructure, problem: CTAProblem):
    """(cells, QualityTerm fields) of a group: the inner cells, a row, a column, a size class, any cells."""
    kind = draw(st.sampled_from(["inner", "row", "column", "size", "cells"]))
    if kind == "inner":
        return inner(structure), {}
    if kind in ("row", "column"):
        dimension = structure.dimensions[0 if kind == "row" else 1]
        code = draw(st.sampled_from(dimension.codes[:-1]))
        cells = slice_cells(structure, dimension.name, code)
        return cells, {"cells": tuple(cells), "group": f"{dimension.name}={code}"}
    if kind == "size":
        median = float(np.median(problem.values[inner(structure)]))
        cells = size_class(problem, median, math.inf)
        return cells, {"cells": tuple(cells), "group": "large cells"}
    cells = np.array(sorted(draw(st.lists(st.integers(0, problem.n_cells - 1), min_size=2, max_size=8, unique=True))))
    return cells, {"cells": tuple(cells), "group": "chosen cells"}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_with_the_mean_term_hard_the_chosen_sums_are_unchanged(data):
    structure, problem = data.draw(tables())
    cells, group = data.draw(groups(structure, problem))
    method = data.draw(st.sampled_from(METHODS))
    result, report = solve_with_terms(problem, [QualityTerm("mean", **group)], runner(method),
                                      SolveOptions(time_limit=10))
    if not result.verified:
        return
    x, a = result.values, problem.values
    assert check_table(problem, x).ok
    assert abs(x[cells].sum() - a[cells].sum()) <= 1e-9 * max(np.abs(a[cells]).sum(), 1.0)
    assert report.outcomes[0].met is True
    assert report.outcomes[0].value == pytest.approx(mean_change(a, x, cells), abs=1e-9 * np.abs(a).max())


@st.composite
def bounded_terms(draw, structure: TableStructure, problem: CTAProblem):
    cells, group = draw(groups(structure, problem))
    if np.ptp(problem.values[cells]) == 0:
        cells, group = inner(structure), {}
    # L(y) needs cells of different values (a group of equal cells is refused: variance 0)
    measure = draw(st.sampled_from(["mean", "L"] if np.ptp(problem.values[cells]) > 0 else ["mean"]))
    scale = float(np.abs(problem.values[cells]).mean()) if measure == "mean" else 1.0
    bound = draw(st.sampled_from([0.0, 1e-4, 1e-3, 1e-2, 0.1])) * scale
    return cells, QualityTerm(measure, "bounded", bound=bound, **group)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_bounded_terms_hold_in_table_units_and_the_distance_is_never_below_the_bound(data):
    structure, problem = data.draw(tables())
    method = data.draw(st.sampled_from(METHODS))
    drawn = [data.draw(bounded_terms(structure, problem)) for _ in range(data.draw(st.integers(1, 2)))]
    result, report = solve_with_terms(problem, [term for _, term in drawn], runner(method), SolveOptions(time_limit=10))
    if not result.verified:
        return
    x, a = result.values, problem.values
    assert check_table(problem, x).ok
    assert result.objective == pytest.approx(float(problem.weights @ np.abs(x - a)), rel=1e-9, abs=1e-9)
    if result.bound is not None:
        assert result.objective >= result.bound - 1e-6 * max(1.0, abs(result.bound))
    for (cells, term), outcome in zip(drawn, report.outcomes):
        if term.measure == "mean":  # in table units: |sum_S y| <= t bound
            change = abs(x[cells].sum() - a[cells].sum())
            assert change <= cells.size * term.bound + 1e-6 * np.abs(a[cells]).sum() + 1e-9
            assert outcome.value == pytest.approx(mean_change(a, x, cells), abs=1e-9 * max(1.0, np.abs(a).max()))
        else:  # in table units: |sum_S (a_i - mean a) y_i| <= bound sum_S (a_i - mean a)^2
            assert abs(variance_term(a, x, cells)) <= term.bound + l_tolerance(a, cells)
            assert outcome.value == pytest.approx(variance_term(a, x, cells), abs=l_tolerance(a, cells))
        assert outcome.met is True


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_a_weighted_term_never_grows_beyond_what_its_weight_allows(data):
    """x0 (no term) and x_hard (t = 0) are tables of the weighted problem too, so at its optimum
    d(xw) + w |t(xw)| <= d(x0) + w |t(x0)| and <= d(x_hard): |t(xw)| <= |t(x0)| + (d(x0) - d(xw) + slack) / w
    and |t(xw)| <= (d(x_hard) - d(xw) + slack) / w, slack = how far the weighted solve may be from its
    optimum (its proven bound; 0 for the fixed-sense LP, optimal for its senses)."""
    structure, problem = data.draw(tables())
    method = data.draw(st.sampled_from(["milp", "lp", "hybrid"]))
    if method == "lp":  # the same senses for both solves: the LP is then optimal on one feasible set
        problem = problem.with_senses(ordering_senses(problem))
    cells, group = data.draw(groups(structure, problem))
    if np.ptp(problem.values[cells]) == 0:
        cells, group = inner(structure), {}
    measure = data.draw(st.sampled_from(["mean", "L"] if np.ptp(problem.values[cells]) > 0 else ["mean"]))
    weight = data.draw(st.sampled_from([1.0, 1e2, 1e4, 1e6])) * (1.0 if measure == "mean" else 1e3)
    options = SolveOptions(time_limit=10)
    plain, _ = solve_with_terms(problem, [], runner(method), options)
    weighted, _ = solve_with_terms(problem, [QualityTerm(measure, "weighted", weight=weight, **group)],
                                   runner(method), options)
    hard, _ = solve_with_terms(problem, [QualityTerm(measure, **group)], runner(method), options)
    if not (plain.verified and weighted.verified):
        return
    value = mean_change if measure == "mean" else variance_term
    a = problem.values
    t0, tw = abs(value(a, plain.values, cells)), abs(value(a, weighted.values, cells))
    with_terms = weighted.info["objective_with_terms"]
    assert with_terms == pytest.approx(weighted.objective + weight * tw, rel=1e-6, abs=1e-6)
    slack = 1e-6 * max(1.0, with_terms) if method == "lp" else with_terms - weighted.info["bound_with_terms"]
    assert tw <= t0 + (plain.objective - weighted.objective + slack) / weight + 1e-9 * max(1.0, t0)
    if hard.verified:  # the term minimised: where t = 0 is feasible, |t| within what the weight leaves
        assert tw <= (hard.objective - weighted.objective + slack) / weight + 1e-9 * max(1.0, t0)


# ------------------------------------------------------------------ correlation
@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), rho=st.floats(0.5, 0.999), size=st.integers(3, 30))
def test_a_correlation_cut_keeps_every_table_reaching_the_target_and_cuts_off_the_one_it_was_made_at(seed, rho, size):
    rng = np.random.default_rng(seed)
    a = rng.uniform(1, 1000, size)
    problem = CTAProblem(values=a, relations=np.zeros((0, size)))
    term = QualityTerm("correlation", "bounded", bound=rho, cells=tuple(range(size)))
    cells = np.arange(size)
    far = a + rng.normal(0, 2000, size)
    if corr(a, far, cells) >= rho:
        return
    cut = correlation_cut(term, problem, far, 1)
    assert cut.coefficients @ (far - a) > cut.upper  # the table it was made at is cut off
    assert cut.upper >= 0                           # the original table is kept
    for noise in (1.0, 10.0, 100.0, 1000.0):
        near = a + rng.normal(0, noise, (50, size))
        for x in near:
            if corr(a, x, cells) >= rho:
                assert cut.coefficients @ (x - a) <= cut.upper + 1e-9 * np.abs(cut.coefficients) @ np.abs(a)


def test_the_cutting_planes_reach_a_correlation_the_plain_table_misses():
    """The target lies above the plain optimum's correlation (the MILP's pick among tables of the
    same distance, which differs between HiGHS versions), so the cuts must reach it."""
    structure, problem = cox_table((5, 6), seed=3)
    cells = inner(structure)
    plain = solve(problem, "milp")
    target = corr(problem.values, plain.values, cells) + 0.003
    result, report = solve_with_terms(problem, [QualityTerm("correlation", "bounded", bound=target)], runner("milp"))
    outcome = report.outcomes[0]
    assert result.verified and check_table(problem, result.values).ok
    assert corr(problem.values, result.values, cells) >= target - 1e-9
    assert outcome.met is True and outcome.rounds >= 1
    assert outcome.value == pytest.approx(corr(problem.values, result.values, cells), abs=1e-12)
    # the cuts relax the problem asked, so the MILP's bound is one for it, never above the table's distance
    assert result.bound is not None and result.bound <= result.objective + 1e-6


def test_a_correlation_target_out_of_reach_is_said_so_with_a_table_and_no_optimality_claim():
    structure, problem = cox_table((5, 6), seed=3)
    result, report = solve_with_terms(problem, [QualityTerm("correlation", "bounded", bound=0.9999)],
                                      runner("milp"), rounds=3)
    outcome = report.outcomes[0]
    assert result.verified and result.status is not Status.OPTIMAL
    assert outcome.met is False and outcome.rounds >= 1
    assert outcome.value == pytest.approx(corr(problem.values, result.values, inner(structure)), abs=1e-12)
    assert "not reached" in result.message and "NOT met" in report.lines()[-1]
    assert not report.met


# ------------------------------------------------------------------ prices
def test_a_price_is_the_distance_with_every_term_minus_the_distance_without_it():
    _, problem = cox_table((4, 5), seed=7)
    terms = [QualityTerm("L", "bounded", bound=1e-4), QualityTerm("mean")]
    result, report = solve_with_terms(problem, terms, runner("milp"), price=True)
    for i, outcome in enumerate(report.outcomes):
        without, _ = solve_with_terms(problem, terms[:i] + terms[i + 1:], runner("milp"))
        assert outcome.price == pytest.approx(result.objective - without.objective, rel=1e-6, abs=1e-6)
        # both solves proven optimal within the gap: keeping a term cannot make the table cheaper
        assert outcome.price >= -1e-4 * result.objective
    assert report.distance == result.objective


# ------------------------------------------------------------------ rounding
def test_the_published_table_keeps_the_terms_that_held_or_is_not_published():
    structure, problem = cox_table((6, 7), seed=2, protection=0.1, capacity=0.3)
    cells = inner(structure)
    term = QualityTerm("L", "weighted", weight=1e4)
    result, report = solve_with_terms(problem, [QualityTerm("L", "bounded", bound=0.01), term], runner("milp"))
    rounded, why = published_with_terms(problem, result, 0, report)
    assert rounded is not None, why
    x = rounded.values
    np.testing.assert_array_equal(x, np.round(x))
    assert check_table(problem, x).ok and np.all(problem.relations @ x == problem.rhs)
    assert abs(variance_term(problem.values, x, cells)) <= 0.01 + l_tolerance(problem.values, cells)
    # of the grid tables keeping the bound -- found again from the original (precision.at_precision) or
    # nearest the solved one -- the one of least distance + 1e4 |L(y)|
    def priced(values):
        return float(problem.weights @ np.abs(values - problem.values)) + 1e4 * abs(
            variance_term(problem.values, values, cells))

    candidates = [found.values for found, _ in (published_or_why(problem, result, 0), rounded_near(problem, result, 0))
                  if found is not None and abs(variance_term(problem.values, found.values, cells)) <= 0.01]
    # (which of them keeps the bound depends on the tie HiGHS breaks among grid tables of equal distance)
    assert candidates and priced(x) == pytest.approx(min(map(priced, candidates)), abs=1e-9)


# ------------------------------------------------------------------ the term itself
@pytest.mark.parametrize("text, fields", [
    ("mean", {"measure": "mean", "mode": "hard"}),
    ("L:hard", {"measure": "L", "mode": "hard"}),
    ("L:bounded:0.001", {"measure": "L", "mode": "bounded", "bound": 0.001}),
    ("variance:0.01", {"measure": "L", "mode": "bounded", "bound": 0.01}),
    ("L:weighted:1000", {"measure": "L", "mode": "weighted", "weight": 1000.0}),
    ("correlation:0.999", {"measure": "correlation", "mode": "bounded", "bound": 0.999}),
    ("mean:bounded:5@R=2", {"measure": "mean", "mode": "bounded", "bound": 5.0, "group": "R=2"}),
])
def test_the_text_form_names_measure_mode_number_and_group(text, fields):
    structure, problem = cox_table((3, 4), seed=0)
    term = parse_term(text, problem, structure)
    for name, value in fields.items():
        assert getattr(term, name) == value
    if "@R=2" in text:  # row 2's inner cells: positions 5..8 of the 4 x 5 layout
        assert term.cells == (5, 6, 7, 8)


@pytest.mark.parametrize("text, message", [
    ("median", "unknown measure 'median'"),
    ("L:fuzzy", "'fuzzy' is neither a mode"),
    ("L:hard:3", "a hard term takes no number"),
    ("L:bounded:-1", "the bound must be finite and >= 0"),
    ("correlation:1", "strictly between 0 and 1"),
    ("correlation:hard", "kept as a target"),
    ("mean:weighted", "needs a finite weight > 0"),
    ("mean@Q=1", "no dimension 'Q'"),
    ("mean@size=1e9..", "has no cells"),
    ("L@cells=3", "at least two cells"),
    ("mean@cells=99", "cell 99 does not exist"),
])
def test_a_text_that_names_no_term_is_refused_naming_the_text(text, message):
    structure, problem = cox_table((3, 4), seed=0)
    with pytest.raises(ProblemError, match=message) as raised:
        parse_term(text, problem, structure)
    assert f"quality term '{text}'" in str(raised.value)


def test_size_classes_and_slices_are_the_cells_a_statistician_means():
    structure, problem = cox_table((4, 5), seed=3)
    cells = inner(structure)
    small = size_class(problem, 0, 100)
    assert set(small) == {i for i in cells if 0 <= problem.values[i] < 100}
    column = slice_cells(structure, "C", "2")  # column 2's inner cells: one per inner row
    np.testing.assert_array_equal(column, [1, 7, 13, 19])


def test_the_report_is_json_and_evaluates_another_table():
    _, problem = cox_table((3, 4), seed=0)
    terms = [QualityTerm("mean"), QualityTerm("L", "weighted", weight=10.0),
             QualityTerm("correlation", "bounded", bound=0.5)]
    _, report = solve_with_terms(problem, terms, runner("lp"))
    document = json.loads(json.dumps(report.as_dict()))
    assert [t["measure"] for t in document["terms"]] == ["mean", "L", "correlation"]
    assert document["terms"][1]["met"] is None and document["met"] is True
    again = report.evaluated(problem, problem.values)  # the original table: every change 0, Corr 1
    assert [o.value for o in again.outcomes] == pytest.approx([0.0, 0.0, 1.0])
    assert isinstance(again, TermsReport) and again.distance == report.distance


@given(st.floats(min_value=0.0, max_value=1e6), st.floats(min_value=1e-6, max_value=1e6))
def test_limit_and_price_are_what_each_mode_holds_a_term_to(bound, weight):
    hard = QualityTerm("mean")
    bounded = QualityTerm("L", "bounded", bound=bound)
    weighted = QualityTerm("mean", "weighted", weight=weight)
    assert (hard.limit, bounded.limit, weighted.price) == (0.0, bound, weight)
    with pytest.raises(ProblemError, match="has no bound"):
        weighted.limit  # noqa: B018
    for term in (hard, bounded):
        with pytest.raises(ProblemError, match="only a weighted term has a weight"):
            term.price  # noqa: B018
