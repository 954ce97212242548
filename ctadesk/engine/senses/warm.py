"""Warm-started exact MILP: a heuristic's tables handed to HiGHS as incumbents (paper 000 §3, "SAT B&C").

The "*-milp" methods are portfolios (``ctadesk.engine.senses.portfolio``): the
exact MILP runs for the whole time limit while the heuristic runs beside it in
a second process, started from the MILP's incumbents, and hands every better
table to the running MILP.  The answer is the better table of the two with the
MILP's proven bound, so the user sees a certified gap; it is never worse than
the heuristic's table, nor than the plain MILP given the same time.
"""

from __future__ import annotations

from collections.abc import Callable

from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.result import CTAResult, SolveOptions
from ctadesk.engine.senses.portfolio import solve_milp_portfolio


def solve_warm_milp(problem: CTAProblem, options: SolveOptions,
                    heuristic: Callable[[CTAProblem, SolveOptions], CTAResult], name: str) -> CTAResult:
    """The MILP for the whole time, ``heuristic`` beside it feeding incumbents; best table, MILP bound."""
    return solve_milp_portfolio(problem, options, heuristic=heuristic, name=name)


def warm(heuristic: Callable[[CTAProblem, SolveOptions], CTAResult], name: str
         ) -> Callable[[CTAProblem, SolveOptions], CTAResult]:
    """The method 'name': the MILP with ``heuristic`` (a module-level function) beside it."""
    def method(problem: CTAProblem, options: SolveOptions = SolveOptions()) -> CTAResult:
        return solve_warm_milp(problem, options, heuristic, name)
    method.__name__ = f"solve_{name.replace('-', '_')}"
    method.__doc__ = f"The exact MILP with {heuristic.__name__} beside it handing it incumbents."
    return method
