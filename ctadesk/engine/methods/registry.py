"""Every CTA method ctadesk offers, by name: one entry each (adding a method is one entry here plus
its own module in solvers/ or senses/).  The front ends read names, labels, models, parameters
and reports from here.

Each method's function is named by a Runner (methods/spec.py) and imported at its first run:
this module loads no solver, so a command's --help and the app's menus list the methods at
once, and a run imports the solvers of its own method only.
"""

from __future__ import annotations

from ctadesk.engine import settings
from ctadesk.engine.methods.spec import Method, Parameter, Reports, Runner
from ctadesk.engine.model import Distance, Model, Senses

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
GROUPS = Parameter("groups", "Groups of cells sharing a sense (M)", settings.GROUPS, minimum=1)

_SOLVERS = "ctadesk.engine.solvers"
_SENSES = "ctadesk.engine.senses"
#: each method's function, named (methods/spec.py Runner): imported at the method's first run
_milp = Runner(f"{_SOLVERS}.milp:solve_milp", exact=True,
               keywords=(("starts", Runner(f"{_SENSES}.feasible_start:starting_senses")),))
_HYBRID_SWAPS = Runner(f"{_SENSES}.hybrid:solve_hybrid_swaps")
_BCD = Runner(f"{_SENSES}.bcd:solve_bcd")
_LEARNING = Runner(f"{_SENSES}.learning:solve_learning")


def _portfolio(name: str, label: str, heuristic: Runner, heuristic_name: str) -> Method:
    return Method(name, label, EXACT_L1,
                  f"the exact MILP for the whole time on one thread, {heuristic_name} beside it in a second "
                  "process handing it better tables (Castro & González 2011, §3); best table, the MILP's certified gap",
                  Runner(f"{_SENSES}.portfolio:solve_milp_portfolio", exact=True,
                         keywords=(("heuristic", heuristic), ("name", name))),
                  (_cuts(False), FEWEST_CHANGES), EXACT_REPORTS)


_ENTRIES = (
    Method("milp", "Exact (MILP, optimal senses)", EXACT_L1,
           "weighted L1 with binary senses, Castro & González (2011) model (2), by HiGHS's branch and cut",
           _milp, (_cuts(False), FEWEST_CHANGES), EXACT_REPORTS),
    Method("lp", "Fixed senses, L1 (LP)", FIXED_L1,
           "fixed-sense L1, Petrenko (2017) model (5.10), by HiGHS's interior point method and crossover",
           Runner(f"{_SOLVERS}.lp:solve_lp", fixed_senses=True),
           (FEWEST_CHANGES, Parameter("simplex", "Dual simplex instead of the interior point method (faster where "
                                      "few protection levels bind)", False))),
    Method("l2", "Fixed senses, L2 (QP)", FIXED_L2,
           "fixed-sense least squares, Petrenko (2017) model (5.8), by clarabel",
           Runner(f"{_SOLVERS}.conic:solve_l2", fixed_senses=True)),
    Method("soc", "Fixed senses, L1 as a cone program (SOC)", Model(Distance.SOC, Senses.FIXED),
           "fixed-sense L1 as a second-order cone program, Petrenko (2017) model (5.18), by clarabel",
           Runner(f"{_SOLVERS}.conic:solve_soc", fixed_senses=True)),
    Method("huber", "Fixed senses, pseudo-Huber", Model(Distance.HUBER, Senses.FIXED),
           "fixed-sense pseudo-Huber distance, Petrenko (2017) model (5.17), by clarabel",
           Runner(f"{_SOLVERS}.conic:solve_huber", fixed_senses=True),
           (Parameter("delta", "Pseudo-Huber delta (table units): L1 above, L2 below", settings.HUBER_DELTA,
                      minimum=0.0, above=True, length=True),)),
    Method("milp-cuts", "Exact (MILP with imbalance cuts)", EXACT_L1,
           "the exact MILP with the imbalance cuts of solvers/cuts.py: same optimum, a higher bound early",
           _milp, (_cuts(True), FEWEST_CHANGES), EXACT_REPORTS),
    Method("random", "Heuristic: best of random senses", HEURISTIC_L1,
           "the best fixed-sense table over random sense vectors, Cox (2005b), §3",
           Runner(f"{_SENSES}.random_best:solve_random_best"),
           (Parameter("repetitions", "Random sense vectors", settings.REPETITIONS, minimum=1), SEED),
           HEURISTIC_REPORTS),
    Method("hybrid", "Heuristic: Hybrid grouping", HEURISTIC_L1,
           "groups of cells sharing one sense, the grouped MILP for several group counts, Cox (2005b), §3",
           Runner(f"{_SENSES}.hybrid:solve_hybrid"), (GROUPS,), HEURISTIC_REPORTS),
    Method("hybrid-swaps", "Heuristic: Hybrid with swaps", HEURISTIC_L1,
           "Hybrid after swapping cells between groups to lower the group scores, Cox (2005b), §3",
           _HYBRID_SWAPS, (GROUPS,), HEURISTIC_REPORTS),
    Method("sat-lp", "Heuristic: SAT start, fixed senses", HEURISTIC_L1,
           "fixed-sense L1 with senses avoiding the combinations the relations forbid, Castro & González (2011), §3",
           Runner(f"{_SENSES}.feasible_start:solve_sat_lp"), (), HEURISTIC_REPORTS),
    Method("bcd", "Heuristic: block coordinate descent", HEURISTIC_L1,
           "the exact MILP over blocks of senses, the others fixed, Castro & González (2011), §3",
           _BCD,
           (Parameter("block_size", "Senses freed per block", settings.BLOCK_SIZE, minimum=1),
            Parameter("by_relations", "Blocks by sub-table (the cells of a few relations)", False), SEED,
            Parameter("block_seconds", "Seconds one block's MILP may take at most", settings.BLOCK_SECONDS,
                      minimum=0.0, above=True)),
           HEURISTIC_REPORTS),
    Method("scatter", "Heuristic: scatter search", HEURISTIC_L1,
           "scatter search over sense vectors with a reference set, Cox (2005b), §4",
           Runner(f"{_SENSES}.scatter:solve_scatter"), (SEED,),
           HEURISTIC_REPORTS),
    Method("learning", "Heuristic: learning and rounding (big 3-D tables)", HEURISTIC_L1,
           "LP relaxations learn preferred senses, the confident ones fixed, the rest exact, Cox (2005b), §5",
           _LEARNING, (), HEURISTIC_REPORTS),
    _portfolio("hybrid-milp", "MILP + Hybrid beside it", _HYBRID_SWAPS, "Hybrid with swaps"),
    _portfolio("bcd-milp", "MILP + BCD beside it", _BCD, "block coordinate descent"),
    _portfolio("learning-milp", "MILP + learning beside it (big tables)", _LEARNING, "learning"),
    Method("network", "Fixed senses, L1 as a network (2-D, 1H2D)", FIXED_L1,
           "fixed-sense L1 of a 2-D or 1H2D table as a minimum-cost flow: LEMON's network simplex, then a "
           "sifting simplex (other tables: the LP)",
           Runner(f"{_SOLVERS}.network_l1:solve_network_l1", fixed_senses=True),
           (FEWEST_CHANGES,)),
    Method("network-l2", "Fixed senses, L2 as a network (2-D, 1H2D)", FIXED_L2,
           "fixed-sense least squares by a Newton method on its dual, one variable per relation "
           "(failing that, clarabel)", Runner(f"{_SOLVERS}.newton_l2:solve_network_l2", fixed_senses=True)),
    Method("soft-lp", "Fixed senses, L1 with soft protection", Model(Distance.L1, Senses.SOFT),
           "fixed-sense L1 whose relations and protection levels may be missed at a price, "
           "Castro & González (2011), §4: always a table, the cells that fall short named",
           Runner(f"{_SOLVERS}.soft:solve_soft_lp", fixed_senses=True),
           (Parameter("relation_penalty", "Price of a unit of relation slack (x largest weight)",
                      settings.RELATION_PENALTY, minimum=0.0, above=True),
            Parameter("protection_penalty", "Price of a unit of missing protection (x largest weight)",
                      settings.PROTECTION_PENALTY, minimum=0.0, above=True))),
)

#: the method name that lets the engine choose the algorithm for the model (methods/choose.py)
AUTO = "auto"
#: the methods by name, in the order front ends list them
METHODS: dict[str, Method] = {method.name: method for method in _ENTRIES}

__all__ = ["AUTO", "METHODS"]
