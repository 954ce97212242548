"""CTA methods: every one takes a CTAProblem and returns a verified CTAResult.

milp   exact weighted L1, Castro & González (2011) model (2)      (HiGHS)
lp     fixed-sense L1, Petrenko (2017) model (5.10)               (HiGHS IPM)
l2     fixed-sense L2 QP, model (5.8)                             (clarabel)
soc    fixed-sense L1 as a second-order cone program, (5.18)      (clarabel)
huber  fixed-sense pseudo-Huber as a cone program, (5.17)         (clarabel)
milp-cuts  the exact MILP with imbalance cuts (solvers/cuts.py): same optimum, higher bound early

Sense heuristics for big tables (ctadesk.engine.heuristics; each returns its best verified table):
random         best of random sense vectors, fixed-sense LP each (paper 004 §3, the baseline)
hybrid         M groups of cells sharing one sense, grouped MILP for several M (paper 004 §3)
hybrid-swaps   Hybrid after swapping cells between groups to lower the group scores (paper 004 §3)
sat-lp         fixed-sense LP with senses avoiding the combinations the relations forbid (paper 000 §3)
bcd            block coordinate descent: exact MILP over blocks of senses, the rest fixed (paper 000 §3)
scatter        scatter search over sense vectors with a reference set (paper 004 §4)
learning       LP relaxations learn preferred senses, the confident ones fixed, the rest exact (paper 004 §5)
hybrid-milp    portfolio: the exact MILP for the whole time limit, Hybrid-with-swaps beside it in a
               second process handing it better tables; best table and the MILP's certified gap
bcd-milp       portfolio of the exact MILP and BCD (as hybrid-milp)
learning-milp  portfolio of the exact MILP and learning (as hybrid-milp)
network        fixed-sense L1 of a 2-D/1H2D table as a network flow LP
network-l2     fixed-sense L2 of a 2-D/1H2D table by a dual Newton method
soft-lp        fixed-sense LP with penalised protection slack: always a table, under-protected cells named

Every METHODS entry solves in table units and says only what it can stand by (solvers/claims.py);
the solve_* functions themselves are the building blocks the heuristics call.
"""

from __future__ import annotations

from collections.abc import Callable

from ctadesk.engine.errors import SolverError
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.result import CTAResult, SolveOptions
from ctadesk.engine.solvers.claims import in_table_units
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


def solve_milp_cuts(problem: CTAProblem, options: SolveOptions = SolveOptions()) -> CTAResult:
    """The exact MILP with imbalance cuts (ctadesk.engine.solvers.cuts)."""
    return solve_milp(problem, options, cuts=True).replace(method="milp-cuts")


METHODS["milp-cuts"] = solve_milp_cuts

#: the methods of ctadesk.engine.heuristics, in the order listed above
HEURISTIC_METHODS = ("random", "hybrid", "hybrid-swaps", "sat-lp", "bcd", "scatter", "learning",
                     "hybrid-milp", "bcd-milp", "learning-milp", "network", "network-l2", "soft-lp")


def _heuristic(name: str) -> Callable[[CTAProblem, SolveOptions], CTAResult]:
    """The METHODS entry of heuristic ``name``, imported at its first call (the heuristics import
    this package, so it cannot import them while it loads)."""
    def method(problem: CTAProblem, options: SolveOptions = SolveOptions()) -> CTAResult:
        from ctadesk.engine.heuristics import METHODS as heuristics

        return heuristics[name](problem, options)

    method.__name__ = f"solve_{name.replace('-', '_')}"
    return method


METHODS.update({name: _heuristic(name) for name in HEURISTIC_METHODS})
METHODS = {name: in_table_units(name, method) for name, method in METHODS.items()}


def solve(problem: CTAProblem, method: str = "milp", options: SolveOptions = SolveOptions()) -> CTAResult:
    """Protect ``problem`` with ``method`` (a key of METHODS)."""
    try:
        function = METHODS[method]
    except KeyError:
        raise SolverError(f"unknown method '{method}'; choose one of {', '.join(METHODS)}") from None
    return function(problem, options)


__all__ = ["HEURISTIC_METHODS", "METHODS", "solve", "solve_huber", "solve_l2", "solve_lp", "solve_milp",
           "solve_milp_cuts", "solve_soc"]
