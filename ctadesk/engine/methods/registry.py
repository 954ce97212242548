"""Every CTA method ctadesk offers, by name: one entry each (adding a method is one entry here plus
its own module in solvers/ or senses/).  The front ends read names, labels, models, parameters
and reports from here.
"""

from __future__ import annotations

import functools

from ctadesk.engine.methods.runners import exact, with_senses
from ctadesk.engine.methods.spec import Method, Parameter, Reports
from ctadesk.engine.model import Distance, Model, Senses
from ctadesk.engine.senses import bcd, hybrid, random_best
from ctadesk.engine.senses.bcd import solve_bcd
from ctadesk.engine.senses.feasible_start import solve_sat_lp, starting_senses
from ctadesk.engine.senses.hybrid import solve_hybrid, solve_hybrid_swaps
from ctadesk.engine.senses.learning import solve_learning
from ctadesk.engine.senses.portfolio import solve_milp_portfolio
from ctadesk.engine.senses.random_best import solve_random_best
from ctadesk.engine.senses.scatter import solve_scatter
from ctadesk.engine.solvers import soft
from ctadesk.engine.solvers.conic import HUBER_DELTA, solve_huber, solve_l2, solve_soc
from ctadesk.engine.solvers.lp import solve_lp
from ctadesk.engine.solvers.milp import solve_milp
from ctadesk.engine.solvers.network_l1 import solve_network_l1
from ctadesk.engine.solvers.newton_l2 import solve_network_l2

EXACT_L1 = Model(Distance.L1, Senses.OPTIMAL)
FIXED_L1 = Model(Distance.L1, Senses.FIXED)
FIXED_L2 = Model(Distance.L2, Senses.FIXED)
HEURISTIC_L1 = Model(Distance.L1, Senses.HEURISTIC)

EXACT_REPORTS = Reports(solver_bound=True, progress_plot=True)
HEURISTIC_REPORTS = Reports(progress_plot=True)


def _cuts(default: bool) -> Parameter:
    return Parameter("cuts", "Imbalance cuts (a higher bound from the start)", default)


SEED = Parameter("seed", "Random seed", 0, minimum=0)
#: issue 11: among the optimal tables, the one changing fewest cells (solvers/sparse.py)
FEWEST_CHANGES = Parameter("fewest_changes", "Among equally close tables, the one changing fewest cells", True)
GROUPS = Parameter("groups", "Groups of cells sharing a sense (M)", hybrid.GROUPS, minimum=1)
_milp = exact(functools.partial(solve_milp, starts=starting_senses))


def _portfolio(name: str, label: str, heuristic, heuristic_name: str) -> Method:
    return Method(name, label, EXACT_L1,
                  f"the exact MILP for the whole time on one thread, {heuristic_name} beside it in a second "
                  "process handing it better tables (paper 000 §3); best table, the MILP's certified gap",
                  exact(functools.partial(solve_milp_portfolio, heuristic=heuristic, name=name)),
                  (_cuts(False), FEWEST_CHANGES), EXACT_REPORTS)


_ENTRIES = (
    Method("milp", "Exact (MILP, optimal senses)", EXACT_L1,
           "weighted L1 with binary senses, Castro & González (2011) model (2), by HiGHS's branch and cut",
           _milp, (_cuts(False), FEWEST_CHANGES), EXACT_REPORTS),
    Method("lp", "Fixed senses, L1 (LP)", FIXED_L1,
           "fixed-sense L1, Petrenko (2017) model (5.10), by HiGHS's interior point method and crossover",
           with_senses(solve_lp),
           (FEWEST_CHANGES, Parameter("simplex", "Dual simplex instead of the interior point method (faster where "
                                      "few protection levels bind)", False))),
    Method("l2", "Fixed senses, L2 (QP)", FIXED_L2,
           "fixed-sense least squares, Petrenko (2017) model (5.8), by clarabel", with_senses(solve_l2)),
    Method("soc", "Fixed senses, L1 as a cone program (SOC)", Model(Distance.SOC, Senses.FIXED),
           "fixed-sense L1 as a second-order cone program, Petrenko (2017) model (5.18), by clarabel",
           with_senses(solve_soc)),
    Method("huber", "Fixed senses, pseudo-Huber", Model(Distance.HUBER, Senses.FIXED),
           "fixed-sense pseudo-Huber distance, Petrenko (2017) model (5.17), by clarabel",
           with_senses(solve_huber),
           (Parameter("delta", "Pseudo-Huber delta (table units): L1 above, L2 below", HUBER_DELTA,
                      minimum=0.0, above=True, length=True),)),
    Method("milp-cuts", "Exact (MILP with imbalance cuts)", EXACT_L1,
           "the exact MILP with the imbalance cuts of solvers/cuts.py: same optimum, a higher bound early",
           _milp, (_cuts(True), FEWEST_CHANGES), EXACT_REPORTS),
    Method("random", "Heuristic: best of random senses", HEURISTIC_L1,
           "the best fixed-sense table over random sense vectors, Cox (2005) paper 004 §3",
           solve_random_best,
           (Parameter("repetitions", "Random sense vectors", random_best.REPETITIONS, minimum=1), SEED),
           HEURISTIC_REPORTS),
    Method("hybrid", "Heuristic: Hybrid grouping", HEURISTIC_L1,
           "groups of cells sharing one sense, the grouped MILP for several group counts, paper 004 §3",
           solve_hybrid, (GROUPS,), HEURISTIC_REPORTS),
    Method("hybrid-swaps", "Heuristic: Hybrid with swaps", HEURISTIC_L1,
           "Hybrid after swapping cells between groups to lower the group scores, paper 004 §3",
           solve_hybrid_swaps, (GROUPS,), HEURISTIC_REPORTS),
    Method("sat-lp", "Heuristic: SAT start, fixed senses", HEURISTIC_L1,
           "fixed-sense L1 with senses avoiding the combinations the relations forbid, paper 000 §3",
           solve_sat_lp, (), HEURISTIC_REPORTS),
    Method("bcd", "Heuristic: block coordinate descent", HEURISTIC_L1,
           "the exact MILP over blocks of senses, the others fixed, González & Castro, paper 000 §3",
           solve_bcd,
           (Parameter("block_size", "Senses freed per block", bcd.BLOCK_SIZE, minimum=1),
            Parameter("by_relations", "Blocks by sub-table (the cells of a few relations)", False), SEED,
            Parameter("block_seconds", "Seconds one block's MILP may take at most", bcd.BLOCK_SECONDS,
                      minimum=0.0, above=True)),
           HEURISTIC_REPORTS),
    Method("scatter", "Heuristic: scatter search", HEURISTIC_L1,
           "scatter search over sense vectors with a reference set, paper 004 §4", solve_scatter, (SEED,),
           HEURISTIC_REPORTS),
    Method("learning", "Heuristic: learning and rounding (big 3-D tables)", HEURISTIC_L1,
           "LP relaxations learn preferred senses, the confident ones fixed, the rest exact, paper 004 §5",
           solve_learning, (), HEURISTIC_REPORTS),
    _portfolio("hybrid-milp", "MILP + Hybrid beside it", solve_hybrid_swaps, "Hybrid with swaps"),
    _portfolio("bcd-milp", "MILP + BCD beside it", solve_bcd, "block coordinate descent"),
    _portfolio("learning-milp", "MILP + learning beside it (big tables)", solve_learning, "learning"),
    Method("network", "Fixed senses, L1 as a network (2-D, 1H2D)", FIXED_L1,
           "fixed-sense L1 of a 2-D or 1H2D table as a network flow LP: max flow, then a sifting simplex "
           "(other tables: the LP)", with_senses(solve_network_l1), (FEWEST_CHANGES,)),
    Method("network-l2", "Fixed senses, L2 as a network (2-D, 1H2D)", FIXED_L2,
           "fixed-sense least squares by a Newton method on its dual, one variable per relation "
           "(failing that, clarabel)", with_senses(solve_network_l2)),
    Method("soft-lp", "Fixed senses, L1 with soft protection", Model(Distance.L1, Senses.SOFT),
           "fixed-sense L1 whose relations and protection levels may be missed at a price, paper 000 §4: "
           "always a table, the cells that fall short named", with_senses(soft.solve_soft_lp),
           (Parameter("relation_penalty", "Price of a unit of relation slack (x largest weight)",
                      soft.RELATION_PENALTY, minimum=0.0, above=True),
            Parameter("protection_penalty", "Price of a unit of missing protection (x largest weight)",
                      soft.PROTECTION_PENALTY, minimum=0.0, above=True))),
)

#: the methods by name, in the order front ends list them
METHODS: dict[str, Method] = {method.name: method for method in _ENTRIES}

__all__ = ["METHODS"]
