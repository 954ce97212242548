"""The MILP portfolio: never worse than plain MILP in the same time, a valid bound, prompt cancel,
and heuristic tables the MILP accepts as incumbents."""

import threading
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctadesk.engine.problem import SENSE_UP
from ctadesk.engine.publish.verify import verify
from ctadesk.engine.result import SolveOptions, Status
from ctadesk.engine.senses.portfolio import (
    ROUND_SECONDS,
    _run_milp,
    _upright,
    milp_columns,
    round_limit,
    solve_milp_portfolio,
)
from ctadesk.engine.senses.random_best import random_senses
from ctadesk.engine.solvers.lp import solve_lp
from ctadesk.engine.solvers.milp import milp_model, solve_milp
from ctadesk.engine.solvers.symmetry import anchor, broken, mirror_symmetric, mirrored
from ctadesk.engine.table.generate import cox_table
from tests.timing import timed


def test_portfolio_is_no_worse_than_plain_milp_and_certifies_its_gap():
    # both prove the optimum well within the limit (0.8 s and 2.8 s on a loaded 2-core machine)
    _, problem = cox_table((5, 5, 3), seed=4)
    plain = solve_milp(problem, SolveOptions(time_limit=10))
    portfolio = solve_milp_portfolio(problem, SolveOptions(time_limit=10))
    assert portfolio.verified
    assert portfolio.objective <= plain.objective + 1e-6 * plain.objective
    assert portfolio.bound <= portfolio.objective + 1e-6
    assert portfolio.gap == pytest.approx((portfolio.objective - portfolio.bound) / portfolio.objective, abs=1e-9)


@timed
def test_a_stop_ends_the_portfolio_within_two_seconds(timed):
    _, problem = cox_table((10, 10, 10), seed=1)
    stop = threading.Event()
    threading.Timer(1.0, stop.set).start()
    began = time.perf_counter()
    result = solve_milp_portfolio(problem, SolveOptions(time_limit=60, stop=stop))
    assert not timed or time.perf_counter() - began < 3.0
    assert result.status is Status.CANCELLED


def test_a_heuristic_table_is_a_feasible_point_of_the_milp():
    _, problem = cox_table((5, 4, 3), seed=2)
    senses = random_senses(problem, np.random.default_rng(1))
    table = solve_lp(problem, senses=senses)
    assert table.verified
    model, free, _ = milp_model(problem, SolveOptions())
    x = milp_columns(problem, table.values, table.senses, free)
    matrix = np.zeros((model.matrix.n_rows, model.matrix.n_cols))
    for j in range(model.matrix.n_cols):
        span = slice(model.matrix.start[j], model.matrix.start[j + 1])
        matrix[model.matrix.index[span], j] = model.matrix.value[span]
    activity = matrix @ x
    assert np.all(x >= model.col_lower - 1e-7) and np.all(x <= model.col_upper + 1e-7)
    assert np.all(activity >= model.row_lower - 1e-6) and np.all(activity <= model.row_upper + 1e-6)
    assert model.cost @ x == pytest.approx(table.objective)


class _Stub:
    """A helper that offers one table, from the start: whenever HiGHS first asks for user
    solutions, the table is better than anything the MILP holds (it holds nothing yet or worse)."""

    def __init__(self, table):
        self.best = (table.objective, table.values, table.senses)
        self.fresh = True

    def receive(self, wait=0.0):
        pass

    def send(self, message):
        pass


def test_the_running_milp_takes_a_better_table_as_its_incumbent():
    """Behaviour only, whatever the machine's load: the table offered is taken once (HiGHS logs
    it with "X"), and the MILP's answer is no worse than it.  (It used to race a 2 s MILP against
    a 3 s one, which a loaded machine lost.)"""
    from ctadesk.engine.senses.ordering import ordering_senses

    _, problem = cox_table((10, 10, 10), seed=1)
    good = solve_lp(problem, senses=ordering_senses(problem))
    assert good.verified
    model, free, _ = milp_model(problem, SolveOptions())
    _, _, objective, bound, log, _, _, handed = _run_milp(
        problem, model, SolveOptions(time_limit=3.0), free, _Stub(good))
    assert handed == 1
    assert any(line.startswith(" X ") for line in log.splitlines())   # HiGHS: "X => User solution"
    assert objective <= good.objective + 1e-6
    assert bound <= objective


def test_a_table_moving_the_anchor_down_reaches_the_broken_milp_mirrored():
    """With the mirror symmetry broken (solvers/symmetry.py: the anchor's sense fixed up), a helper
    table that moves the anchor down is infeasible for the model as it is: it goes in mirrored,
    HiGHS takes it (its log's "X" line), and the MILP's answer is no dearer."""
    from ctadesk.engine.senses.ordering import ordering_senses

    _, problem = cox_table((10, 10, 10), seed=1)
    model, free, _ = milp_model(problem, SolveOptions())
    assert mirror_symmetric(problem, model, free)
    k = anchor(problem, free)
    good = solve_lp(problem, senses=ordering_senses(problem))
    assert good.verified
    if good.senses[free[k]] == SENSE_UP:
        values, senses = mirrored(problem, good.values, good.senses)
        good = good.replace(values=values, senses=senses)
    _, values, objective, _, log, _, _, handed = _run_milp(
        problem, broken(model, problem.n_cells, k), SolveOptions(time_limit=3.0), free, _Stub(good), k)
    assert handed == 1
    assert any(line.startswith(" X ") for line in log.splitlines())
    assert objective <= good.objective + 1e-6
    assert values[problem.sensitive[free[k]]] > problem.values[problem.sensitive[free[k]]]


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000), draw=st.integers(0, 2 ** 16))
def test_every_table_the_helper_keeps_moves_the_anchor_up_at_the_same_cost(seed, draw):
    """A table and its mirror are one table to the search: upright, the helper's pool holds one of
    them, and a crossing of the best table with another frees only the senses they disagree on."""
    _, problem = cox_table((5, 4, 2), seed)
    model, free, _ = milp_model(problem, SolveOptions())
    assert mirror_symmetric(problem, model, free)
    cell = int(free[anchor(problem, free)])
    table = solve_lp(problem, senses=random_senses(problem, np.random.default_rng(draw)))
    assert table.verified
    up = _upright(problem, table, cell)
    assert up.senses[cell] == SENSE_UP
    assert verify(problem, up.values, up.senses).ok
    assert problem.weights @ np.abs(up.values - problem.values) == pytest.approx(table.objective, rel=1e-9)
    assert up is table if table.senses[cell] == SENSE_UP else np.array_equal(up.senses[free], -table.senses[free])
    assert _upright(problem, table, None) is table


def test_the_progress_reports_are_in_the_distance_the_result_reports():
    """The MILP's incumbents are tables' distances, so none lies below the result's bound, and no
    bound reported lies above its table (on HiGHS 1.15 the run's objective was shifted)."""
    _, problem = cox_table((12, 12), seed=5)
    reports = []
    result = solve_milp_portfolio(problem, SolveOptions(time_limit=4, on_progress=reports.append))
    assert result.verified and result.bound is not None
    incumbents = [r.objective for r in reports if np.isfinite(r.objective)]
    bounds = [r.bound for r in reports if np.isfinite(r.bound)]
    assert incumbents and bounds
    tolerance = 1e-6 * result.objective
    assert min(incumbents) >= result.bound - tolerance
    assert max(bounds) <= result.objective + tolerance
    for r in reports:
        if np.isfinite(r.objective) and np.isfinite(r.bound):
            assert r.gap == pytest.approx(max(0.0, (r.objective - r.bound) / abs(r.objective)), abs=1e-9)


# the fast path gets 30 % of the time: at 1 s its LP (0.05 s idle) ran out of time on a machine at load
# 10 (no table at all), so the 15x15x15 table is given 2 s
@pytest.mark.parametrize("shape, seconds", [((15, 15, 15), 2.0), ((12, 12, 12), 3.0)])
def test_the_portfolio_is_never_worse_than_its_fast_path(monkeypatch, shape, seconds):
    """Issue 29 (office scale): on big tables the MILP and the helper may not reach, in the time, the
    table fixed senses from the ordering heuristic give; the portfolio starts from it (here from
    any number of free senses) and returns it, or better, with the MILP's bound.  (Before, the
    15x15x15 table at 1 s came back with no table at all.)"""
    from ctadesk.engine.senses import portfolio
    from ctadesk.engine.senses.ordering import ordering_senses

    monkeypatch.setattr(portfolio, "FAST_PATH_FREE", 0, raising=False)
    _, problem = cox_table(shape, seed=2)
    fast = solve_lp(problem, senses=ordering_senses(problem))
    result = solve_milp_portfolio(problem, SolveOptions(time_limit=seconds))
    assert result.verified and fast.verified
    # the portfolio's fast path solves the same LP in the MILP's model: the two optima agree
    # within HiGHS's feasibility tolerance (1e-7), not to the last bit
    assert result.objective <= fast.objective * (1 + 1e-6)
    assert result.bound is not None and result.bound <= result.objective * (1 + 1e-9)


@pytest.mark.parametrize("shape, method", [((40, 50), "network"), ((6, 7, 8), "lp")])
def test_the_fast_path_takes_the_network_solver_where_the_relations_form_a_network(monkeypatch, shape, method):
    """A 1H2D table of half a million cells took minutes by the IPM, so the portfolio's fast path
    ran out of its share of the time with no table; the network solver takes seconds.  Other
    tables keep the general LP.  The fast path's table is the LP optimum of the ordering senses."""
    from ctadesk.engine.senses import portfolio
    from ctadesk.engine.senses.ordering import ordering_senses

    monkeypatch.setattr(portfolio, "FAST_PATH_FREE", 0, raising=False)
    _, problem = cox_table(shape, seed=3)
    _, free, _ = milp_model(problem, SolveOptions())
    fast = portfolio._fast_path(problem, free, None, SolveOptions(time_limit=30).begun())
    reference = solve_lp(problem, senses=ordering_senses(problem))
    assert fast is not None and fast.verified and fast.method == method
    assert fast.objective == pytest.approx(reference.objective, rel=1e-7)


@settings(max_examples=30, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**16), flips=st.integers(0, 40), share=st.sampled_from([0.0, 0.15, 1.0]))
def test_a_crossing_fixes_the_best_tables_senses_where_the_other_agrees(seed, flips, share):
    from ctadesk.engine.problem import SENSE_FREE
    from ctadesk.engine.senses import portfolio

    _, problem = cox_table((6, 7), 1)
    rng = np.random.default_rng(seed)
    best = random_senses(problem, rng)
    other = best.copy()
    other[rng.choice(best.size, size=min(flips, best.size), replace=False)] *= -1
    kept, portfolio.CROSS_SHARE = portfolio.CROSS_SHARE, share
    try:
        crossed = portfolio.crossing(problem, best, other, np.random.default_rng(seed)).effective_senses
    finally:
        portfolio.CROSS_SHARE = kept
    free = crossed == SENSE_FREE
    # every disagreement is left to the MILP, every fixed sense is the best table's, and the share
    # of agreeing senses released goes from none to all
    assert np.all(free[best != other])
    np.testing.assert_array_equal(crossed[~free], best[~free])
    if share == 0.0:
        np.testing.assert_array_equal(free, best != other)
    if share == 1.0:
        assert free.all()


def test_a_doubled_round_takes_at_most_a_third_of_the_time_left():
    assert round_limit(ROUND_SECONDS, 60.0) == ROUND_SECONDS
    assert round_limit(40.0, 30.0) == 10.0
    assert round_limit(40.0, 9.0) == ROUND_SECONDS
    assert round_limit(40.0, 3.0) == 3.0
