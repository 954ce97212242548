"""Warm-started exact MILP: a heuristic's senses handed to HiGHS as a MIP start (paper 000 §3, "SAT B&C").

The heuristic gets a share of the time; the MILP the rest, started from the
heuristic's senses.  The answer is the better table of the two, with the
MILP's proven bound, so the user sees a certified gap; it is never worse than
the heuristic.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.result import CTAResult, SolveOptions, Status
from ctadesk.engine.senses.common import Deadline
from ctadesk.engine.solvers.milp import solve_milp

#: share of the time the heuristic gets
HEURISTIC_SHARE = 0.4


def solve_warm_milp(problem: CTAProblem, options: SolveOptions,
                    heuristic: Callable[[CTAProblem, SolveOptions], CTAResult], name: str,
                    share: float = HEURISTIC_SHARE) -> CTAResult:
    """heuristic for share x time_limit, then the MILP from its senses; best table, MILP bound."""
    deadline = Deadline(options)
    first_limit = share * options.time_limit if math.isfinite(options.time_limit) else options.time_limit
    start = heuristic(problem, deadline.options_for(first_limit))
    if options.cancelled():
        return start.replace(method=name)
    senses = np.asarray(start.senses, np.int8) if start.verified else None
    exact = solve_milp(problem, deadline.options_for(start_senses=senses))
    bound = exact.bound
    best = exact if exact.verified and (not start.verified or exact.objective <= start.objective) else start
    if not best.verified:
        return exact.replace(method=name)
    gap = None
    status = best.status
    if bound is not None and math.isfinite(bound):
        gap = max(0.0, best.objective - bound) / max(best.objective, 1e-12)
        status = Status.OPTIMAL if gap <= options.gap else Status.FEASIBLE
    if options.cancelled():
        status = Status.CANCELLED
    return best.replace(method=name, status=status, bound=bound, gap=gap,
                        message=f"{name}: best table, MILP bound {bound:.10g} (gap {100 * (gap or 0):.3g} %); verified",
                        timings={**best.timings, "total": deadline.elapsed},
                        info={**best.info, "heuristic_objective": start.objective,
                              "milp_objective": exact.objective})


def warm(heuristic: Callable[[CTAProblem, SolveOptions], CTAResult], name: str
         ) -> Callable[[CTAProblem, SolveOptions], CTAResult]:
    """The method 'name': heuristic then warm-started MILP."""
    def method(problem: CTAProblem, options: SolveOptions = SolveOptions()) -> CTAResult:
        return solve_warm_milp(problem, options, heuristic, name)
    method.__name__ = f"solve_{name.replace('-', '_')}"
    method.__doc__ = f"{heuristic.__name__} for part of the time, then the MILP started from its senses."
    return method

