"""The sense heuristics for big tables, by name (issue: senses for big tables).

Each entry maps a method name to a function (problem, options) -> verified
CTAResult; the "*-milp" entries run the heuristic for part of the time and then
the exact MILP from its senses, reporting the MILP's bound and gap.
"""

from __future__ import annotations

from collections.abc import Callable

from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.result import CTAResult, SolveOptions
from ctadesk.engine.senses.bcd import solve_bcd
from ctadesk.engine.senses.feasible_start import solve_sat_lp
from ctadesk.engine.senses.hybrid import solve_hybrid, solve_hybrid_swaps
from ctadesk.engine.senses.learning import solve_learning
from ctadesk.engine.senses.random_best import solve_random_best
from ctadesk.engine.senses.scatter import solve_scatter
from ctadesk.engine.senses.warm import warm
from ctadesk.engine.solvers.network import solve_network_l1, solve_network_l2
from ctadesk.engine.solvers.soft import solve_soft_lp

HEURISTICS: dict[str, Callable[[CTAProblem, SolveOptions], CTAResult]] = {
    "random": solve_random_best,
    "hybrid": solve_hybrid,
    "hybrid-swaps": solve_hybrid_swaps,
    "sat-lp": solve_sat_lp,
    "bcd": solve_bcd,
    "scatter": solve_scatter,
    "learning": solve_learning,
}

METHODS: dict[str, Callable[[CTAProblem, SolveOptions], CTAResult]] = {
    **HEURISTICS,
    "hybrid-milp": warm(solve_hybrid_swaps, "hybrid-milp"),
    "bcd-milp": warm(solve_bcd, "bcd-milp"),
    "learning-milp": warm(solve_learning, "learning-milp"),
    "network": solve_network_l1,
    "network-l2": solve_network_l2,
    "soft-lp": solve_soft_lp,
}
