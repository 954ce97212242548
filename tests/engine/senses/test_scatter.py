import time

import numpy as np

from ctadesk.engine.senses.scatter import solve_scatter
from ctadesk.engine.solvers.milp import solve_milp
from ctadesk.engine.table.generate import cox_table
from tests.timing import timed


@timed
def test_one_free_sense_ends_at_once_without_a_time_limit(timed):
    _, problem = cox_table((4, 4), seed=1)
    problem = problem.replace(sensitive=problem.sensitive[:1], lower_protection=problem.lower_protection[:1],
                              upper_protection=problem.upper_protection[:1], senses=None)
    started = time.perf_counter()
    result = solve_scatter(problem)
    assert not timed or time.perf_counter() - started < 5
    assert result.verified
    assert result.objective <= solve_milp(problem).objective + 1e-6


@timed
def test_search_without_a_time_limit_stops_when_it_stops_improving(timed):
    _, problem = cox_table((5, 5), seed=2)
    started = time.perf_counter()
    result = solve_scatter(problem)
    assert not timed or time.perf_counter() - started < 20
    assert result.verified
    assert np.isfinite(result.objective)
