"""How a registered method runs its solver: the parts of a method that are neither a solver's nor
a claim's business.

- A fixed-sense solver gets the problem's senses, the free ones completed by the ordering
  heuristic (Dandekar & Cox 2002; Cox 2005a, §5), and its result says so.
- When an exact solver ends without a verified table (a failure, a wrong "infeasible" from
  HiGHS's tolerances), the fixed-sense LP's table with the ordering senses is returned where it
  verifies: a failure still gives a table, and such an "infeasible" is refuted.  The LP is the
  network solver's on a 2-D or 1H2D table (solvers/network_l1.py: seconds for a million cells,
  where HiGHS's interior point method takes minutes), HiGHS's elsewhere.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
from collections.abc import Callable

from ctadesk.engine.methods.spec import Runner
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.result import CTAResult, SolveOptions, Status
from ctadesk.engine.senses.ordering import ordering_senses
from ctadesk.engine.solvers.finish import describe

Function = Callable[..., CTAResult]
ORDERING = "ordering heuristic"


@functools.cache
def loaded(runner: Runner) -> Function:
    """The function ``runner`` names (methods/spec.py): imported, its keywords bound (a Runner
    among them as itself: it loads when called), completed by with_senses or exact as it says."""
    module, _, name = runner.path.partition(":")
    function = getattr(importlib.import_module(module), name)
    if runner.keywords:
        function = functools.partial(function, **dict(runner.keywords))
    if runner.fixed_senses:
        function = with_senses(function)
    if runner.exact:
        function = exact(function)
    return function


def with_senses(solver: Function) -> Function:
    """``solver`` (problem, options, senses=..., **parameters) with the senses completed
    (module docstring)."""
    @functools.wraps(solver)
    def run(problem: CTAProblem, options: SolveOptions, **parameters) -> CTAResult:
        if not problem.free_senses:
            return solver(problem, options, **parameters)
        result = solver(problem, options, senses=ordering_senses(problem), **parameters)
        return result.replace(info={**result.info, "senses_from": ORDERING})
    return run


def exact(solver: Function) -> Function:
    """``solver`` (problem, options, **parameters), an exact method, with its failures rescued
    (module docstring)."""
    @functools.wraps(solver)
    def run(problem: CTAProblem, options: SolveOptions, **parameters) -> CTAResult:
        result = solver(problem, options, **parameters)
        if result.verified or options.cancelled():
            return result
        return rescued(problem, result, options)
    return run


def rescued(problem: CTAProblem, result: CTAResult, options: SolveOptions) -> CTAResult:
    """``result`` (an exact method's, without a verified table), or the fixed-sense LP's table with
    the ordering senses when that one verifies."""
    # network_l1 (scipy's csgraph, LEMON) is loaded only where a rescue is needed; it is solve_lp
    # where the relations are not a network
    from ctadesk.engine.solvers.network_l1 import solve_network_l1

    fallback = solve_network_l1(problem, dataclasses.replace(options, on_progress=None),
                                senses=ordering_senses(problem))
    if not fallback.verified:
        return result
    said = result.message or describe(result.status)
    status = Status.TIME_LIMIT if result.status is Status.TIME_LIMIT else Status.FEASIBLE
    return fallback.replace(method=result.method, status=status, bound=None, gap=None, log=result.log + fallback.log,
                            message=f"the exact solver gave no protected table ({said}); "
                                    "this is the fixed-sense LP's table with the ordering senses",
                            info={**result.info, "rescued_by_lp": True, "solver_said": said,
                                  "senses_from": ORDERING})


__all__ = ["exact", "loaded", "rescued", "with_senses"]
