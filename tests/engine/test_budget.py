"""One budget per solve (issue 12): the time limit counts from the method's start, and every part of
the solve (MILP, polishing LP, certified bound, explanations) runs within a share of it."""

import math
import threading
import time

import pytest

from ctadesk.engine.budget import Budget
from ctadesk.engine.methods import solve
from ctadesk.engine.result import SolveOptions, Status
from ctadesk.engine.solvers.highs import OVERRUN_GRACE
from ctadesk.engine.solvers.lower_bound import lower_bound
from ctadesk.engine.table.generate import cox_table
from tests.timing import timed


def test_a_child_gets_its_share_and_never_outlives_its_parent():
    parent = Budget.start(10.0)
    assert 4.9 < parent.child(fraction=0.5).remaining() <= 5.0
    assert 1.9 < parent.child(seconds=2.0).remaining() <= 2.0
    assert parent.child(seconds=60.0).deadline == parent.deadline
    assert parent.child(fraction=0.5, seconds=1.0).remaining() <= 1.0


def test_no_time_limit_stays_none_and_a_stop_reaches_every_child():
    stop = threading.Event()
    budget = Budget.start(math.inf, stop)
    child = budget.child(fraction=0.3).child(seconds=math.inf)
    assert child.remaining() == math.inf and not child.over()
    stop.set()
    assert child.cancelled() and child.over()


def test_options_begin_their_budget_once():
    options = SolveOptions(time_limit=5.0).begun()
    time.sleep(0.05)
    assert options.begun() is options and options.budget.remaining() < 4.96


def test_the_started_budget_is_the_begun_one_and_refused_before():
    with pytest.raises(RuntimeError, match=r"before SolveOptions\.begun"):
        assert SolveOptions(time_limit=5.0).started_budget is None
    options = SolveOptions(time_limit=5.0).begun()
    assert options.started_budget is options.budget
    child = options.started_budget.child(fraction=0.5)
    assert options.within(child).started_budget is child


@timed
@pytest.mark.parametrize("method", ["milp", "bcd", "learning-milp"])
def test_a_time_limited_solve_ends_at_its_time_limit_with_everything_after_it(method, timed):
    _, problem = cox_table((8, 8, 8), seed=1)     # no method proves its optimum in 3 s
    began = time.perf_counter()
    result = solve(problem, method, SolveOptions(time_limit=3.0))
    seconds = time.perf_counter() - began
    assert result.verified and result.bound is not None and result.status is not Status.OPTIMAL
    assert not timed or seconds < 3.0 + OVERRUN_GRACE + 0.5, seconds


def test_the_certified_bound_of_a_spent_budget_is_its_greedy_part_and_is_not_kept():
    _, problem = cox_table((4, 4, 3), seed=2)
    spent = lower_bound(problem, Budget.start(0.0))
    full = lower_bound(problem)
    assert spent.value <= full.value
    assert lower_bound(problem, Budget.start(0.0)).value == full.value     # found once, kept


def test_a_heuristic_that_searches_until_its_deadline_still_gets_the_full_bound():
    _, problem = cox_table((4, 4, 3), seed=2)
    result = solve(problem, "scatter", SolveOptions(time_limit=1.0))
    assert result.bound == pytest.approx(lower_bound(problem).value)
