"""Linear terms of the adjustments as auxiliary cells (engine/quality/auxiliary.py, Cox 2005a, model (3)):
every method honours a term's bounds, restrict() hands back the table's own cells with their
distance, and the values it reports are c . (x - a), checked here with numpy alone."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctadesk.engine.errors import ProblemError
from ctadesk.engine.methods import solve
from ctadesk.engine.publish.verify import verify
from ctadesk.engine.quality.auxiliary import LinearTerm, with_terms
from ctadesk.engine.result import SolveOptions
from ctadesk.engine.table.generate import cox_table
from tests.crosscheck.checker import check_table

METHODS = ("milp", "lp", "l2", "hybrid")


def _table(rows: int = 3, cols: int = 4, seed: int = 0):
    return cox_table((rows, cols), seed=seed)[1]


def test_each_term_is_one_more_cell_and_one_more_relation_scaled_to_the_tables_size():
    problem = _table()
    n, m = problem.n_cells, problem.n_relations
    c = np.zeros(n)
    c[[0, 1, 5]] = [0.001, -0.002, 0.0005]
    extended = with_terms(problem, [LinearTerm("t", c, -1.0, 2.0, weight=3.0)])
    big = extended.problem
    assert big.n_cells == n + 1 and big.n_relations == m + 1
    # s = 1 / max|c| = 500: the relation 500 c . x - w = 500 c . a, w in [-500, 1000], weight 3 / 500
    row = big.relations[[m], :].toarray().ravel()
    np.testing.assert_allclose(row[[0, 1, 5, n]], [0.5, -1.0, 0.25, -1.0])
    assert big.rhs[m] == pytest.approx(500 * c @ problem.values)
    assert (big.lower[n], big.upper[n], big.weights[n], big.values[n]) == pytest.approx((-500, 1000, 3 / 500, 0))
    assert "quality term: t" in big.describe_cell(n) and "definition of quality term: t" in big.describe_relation(m)


def test_no_terms_leave_the_problem_as_it_is():
    problem = _table()
    extended = with_terms(problem, [])
    assert extended.problem is problem and extended.terms == ()


@pytest.mark.parametrize("term, message", [
    ({"coefficients": [np.nan, 0, 0]}, "NaN or infinite"),
    ({"coefficients": [1.0], "lower": 1.0, "upper": 0.5}, "are empty"),
    ({"coefficients": [1.0], "lower": 0.5, "upper": 1.0}, "exclude the original table"),
    ({"coefficients": [1.0], "weight": -1.0}, "must be finite and >= 0"),
])
def test_a_term_that_cannot_be_kept_is_refused_naming_it(term, message):
    with pytest.raises(ProblemError, match=message) as raised:
        LinearTerm("my term", **term)
    assert "my term" in str(raised.value)


def test_a_term_of_the_wrong_length_or_without_cells_is_refused():
    problem = _table()
    with pytest.raises(ProblemError, match="3 coefficients for a table of 20 cells"):
        with_terms(problem, [LinearTerm("short", np.ones(3))])
    with pytest.raises(ProblemError, match="no cell"):
        with_terms(problem, [LinearTerm("empty", np.zeros(problem.n_cells))])


def test_a_table_breaking_a_term_fails_verification_naming_the_term():
    problem = _table()
    c = np.zeros(problem.n_cells)
    c[0] = 1.0
    extended = with_terms(problem, [LinearTerm("first cell fixed", c, 0.0, 0.0)])
    report = verify(extended.problem, np.append(problem.values, 1.0))  # the term's cell off its definition
    relations = [v.message for v in report.violations if v.kind == "relation"]
    assert len(relations) == 1 and "definition of quality term: first cell fixed" in relations[0]


@st.composite
def instances(draw):
    rows, cols = draw(st.integers(2, 4)), draw(st.integers(2, 5))
    problem = cox_table((rows, cols), seed=draw(st.integers(0, 10_000)),
                        max_value=draw(st.sampled_from([10, 1000, 10**6])))[1]
    n = problem.n_cells
    cells = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=n, unique=True))
    c = np.zeros(n)
    c[cells] = draw(st.lists(st.floats(-1, 1).filter(lambda v: abs(v) > 1e-3), min_size=len(cells),
                             max_size=len(cells)))
    c *= 10.0 ** draw(st.integers(-6, 0))
    scale = float(np.abs(c) @ np.abs(problem.values)) or 1.0   # terms over empty cells: bounds in units
    lower = -draw(st.sampled_from([0.0, 0.01, 0.1, math.inf])) * scale
    upper = draw(st.sampled_from([0.0, 0.01, 0.1, math.inf])) * scale
    weight = draw(st.sampled_from([0.0, 0.0, 1.0, 1e3]))
    return problem, LinearTerm("t", c, lower, upper, weight), draw(st.sampled_from(METHODS))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instances())
def test_every_method_keeps_the_terms_bounds_and_restrict_reports_the_table_and_its_term(instance):
    problem, term, method = instance
    extended = with_terms(problem, [term])
    raw = solve(extended.problem, method, SolveOptions(time_limit=10))
    result = extended.restrict(raw)
    if result.values is None:
        return
    x = result.values
    assert x.shape == (problem.n_cells,)
    assert check_table(problem, x).ok == result.verified
    if not result.verified:
        return
    # the term, recomputed: c . (x - a) within its bounds, to the solvers' tolerance in table units
    t = float(term.coefficients @ (x - problem.values))
    slack = 1e-6 * (float(np.abs(term.coefficients) @ np.abs(problem.values)) + float(np.abs(term.coefficients).max()))
    assert term.lower - slack <= t <= term.upper + slack
    assert result.info["terms"]["t"] == pytest.approx(t, abs=slack)
    # the distance is the table's own, and the auxiliary cell carried weight * |t|
    assert result.objective == pytest.approx(float(problem.weights @ np.abs(x - problem.values)), rel=1e-9, abs=1e-9)
    if method != "l2":
        assert raw.objective == pytest.approx(result.objective + term.weight * abs(t), rel=1e-6, abs=1e-6)
    if term.weight > 0:
        assert result.bound is None and "bound_with_terms" in result.info
    elif result.bound is not None:
        assert result.objective >= result.bound - 1e-6 * max(1.0, abs(result.bound))
