"""CTA methods: every one takes a CTAProblem and returns a verified CTAResult.

milp   exact weighted L1, Castro & González (2011) model (2)      (HiGHS)
lp     fixed-sense L1, Petrenko (2017) model (5.10)               (HiGHS IPM)
l2     fixed-sense L2 QP, model (5.8)                             (clarabel)
soc    fixed-sense L1 as a second-order cone program, (5.18)      (clarabel)
huber  fixed-sense pseudo-Huber as a cone program, (5.17)         (clarabel)
"""

from __future__ import annotations

from collections.abc import Callable

from ctadesk.engine.errors import SolverError
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.result import CTAResult, SolveOptions
from ctadesk.engine.solvers.conic import solve_huber, solve_l2, solve_soc
from ctadesk.engine.solvers.lp import solve_lp
from ctadesk.engine.solvers.milp import solve_milp

METHODS: dict[str, Callable[[CTAProblem, SolveOptions], CTAResult]] = {
    "milp": solve_milp,
    "lp": solve_lp,
    "l2": solve_l2,
    "soc": solve_soc,
    "huber": solve_huber,
}


def solve(problem: CTAProblem, method: str = "milp", options: SolveOptions = SolveOptions()) -> CTAResult:
    """Protect ``problem`` with ``method`` (a key of METHODS)."""
    try:
        function = METHODS[method]
    except KeyError:
        raise SolverError(f"unknown method '{method}'; choose one of {', '.join(METHODS)}") from None
    return function(problem, options)


__all__ = ["METHODS", "solve", "solve_huber", "solve_l2", "solve_lp", "solve_milp", "solve_soc"]
