"""An exact method's failure rescued (methods/runners.exact): the fixed-sense LP's table with the
ordering senses, by the network solver where the relations form a network (a 487 k-cell 1H2D
table's rescue by HiGHS's interior point method could not finish in a job's minute)."""

from __future__ import annotations

import time

import numpy as np
import pytest

from ctadesk.engine.methods.runners import exact
from ctadesk.engine.result import SolveOptions, Status
from ctadesk.engine.senses.ordering import ordering_senses
from ctadesk.engine.solvers.finish import finish
from ctadesk.engine.solvers.lp import solve_lp
from ctadesk.engine.table.generate import cox_table


def _failing(problem, options, **parameters):
    """An exact solver that ends with no table (HiGHS stopped oddly)."""
    return finish(problem, "milp", Status.ERROR, None, started=time.perf_counter(), build_seconds=0.0,
                  solve_seconds=0.0, message="the solver stopped")


@pytest.mark.parametrize(("shape", "network"), [((6, 7), True), ((4, 3, 3), False)])
def test_a_failed_exact_solve_returns_the_ordering_senses_table(shape, network):
    _, problem = cox_table(shape, seed=4)
    rescued = exact(_failing)(problem, SolveOptions(time_limit=20))
    assert rescued.verified and rescued.status is Status.FEASIBLE and rescued.info["rescued_by_lp"]
    assert rescued.bound is None and "the solver stopped" in rescued.message
    assert np.array_equal(rescued.senses, ordering_senses(problem))
    reference = solve_lp(problem, SolveOptions(time_limit=20), senses=ordering_senses(problem))
    assert rescued.objective == pytest.approx(reference.objective, rel=1e-7)
    # the network solver's log line on a 2-D table; HiGHS's LP on a 3-D one
    assert ("min-cost flow (LEMON)" in rescued.log) is network
