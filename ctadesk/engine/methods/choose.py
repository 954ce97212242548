"""The algorithm for a model, chosen from the table's structure, size and time (issue 12: "model,
not algorithm, in front of the user").  The user picks a distance and a way of taking the senses
(ctadesk.engine.model); choose_method names the registry's method for them and says why, for
the log.  Every choice rests on a measurement (Cox-recipe tables, Cox 2005b, §3, and J. Castro's
office tables); the benchmarks named below print the figures side by side, so they are measured
again, not copied here:

- fixed-sense L1 of a 2-D or 1H2D table, of any size: the network solver (LEMON's network simplex
  on the integer-scaled flow, then a sifting simplex from its basis that proves the optimum in
  real arithmetic), an order of magnitude ahead of HiGHS's defaults on the same LP
  (benchmarks/cta.py --targets) and of the IPM LP (benchmarks/cta.py --methods lp network), whatever
  the weights (benchmarks/weights.py, issue 29), and minutes ahead of the IPM on 1H2D tables of a
  million cells (benchmarks/scale.py 1h2d-big network against lp).
  Other tables (benchmarks/lp_choice.py): the dual simplex where few cells are sensitive (under
  SIMPLEX_SHARE) in a table of at most SIMPLEX_CELLS cells -- J. Castro's office tables, 5-13 %
  sensitive -- else the IPM with crossover: Cox-recipe tables, a quarter of whose cells are
  sensitive, so many cells move and the simplex pivots long, and large office tables.  The
  exceptions lp_choice.py shows (a table with 35 % of its cells sensitive, Cox tables up to
  10x10x10) differ by hundredths of a second.
- fixed-sense L2: the dual Newton method wherever the weights are positive and CHOLMOD's
  supernodal Cholesky (the extra ctadesk[cholmod]) factorises its Newton systems: one unknown per
  relation that defines a total (network.defining_relations), the cells eliminated, so each system
  is a part of the one clarabel's interior point method factorises, with fewer relations, and the
  Newton method factorises it a few times (3-15) where clarabel takes 10-40 iterations.  Measured
  on every table tried, nothing tuned: generated office tables of every kind from 100 cells to a
  million (benchmarks/l2_shapes.py --both, which prints this choice against the faster method),
  Cox 2-D and 3-D tables (--cox), J. Castro's instances and CUTEst tables
  (benchmarks/castro_l2.py), the Newton method took 0.01-0.3 of clarabel's processor time
  (a 73 008-cell 3-D office table 1.6 s against 71 s; Cox 100x100x5 0.83 s against 5.7 s), and it
  converged on every cross-check instance with positive weights (3 to 300 cells, magnitudes 1e-3
  to 1e7; clarabel solves any it does not).  Relation counts do not predict its cost: the former
  caps (10 000 defining relations, 100 000 where each meets at most 20 others) sent tables it
  solves in 2 % of clarabel's time to clarabel.
  With QDLDL alone (cvxopt not installed) its column by column factor fills in on tables whose
  relations meet many others (a Cox 40x40x40 table 14.8 s, clarabel 16 s): there clarabel takes
  tables of more than NEWTON_RELATIONS defining relations, or NEWTON_SPARSE_RELATIONS where each
  meets at most network.SPARSE_DEGREE others (benchmarks/castro_l2.py --sif --qdldl).
- optimal senses: the exact MILP alone on small problems (HiGHS proves 10x10 tables optimal
  within seconds), else the portfolio with learning beside the MILP, the best at 60 s on 3-D
  tables against the plain MILP, and even with it on 2-D ones where HiGHS finds good tables
  itself (benchmarks/cta.py --exact, benchmarks/heuristics.py).  Where the problem fixes every
  sense the exact model is the fixed-sense one.
"""

from __future__ import annotations

import math
import types
from collections.abc import Mapping
from typing import NamedTuple

import numpy as np

from ctadesk.engine.errors import MethodError
from ctadesk.engine.methods.spec import ParameterValue
from ctadesk.engine.model import Distance, Senses
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.settings import MIN_HEURISTIC_SECONDS
from ctadesk.engine.solvers.network import (
    SPARSE_DEGREE,
    defining_relations,
    network_form,
    relation_degree,
)

#: at most this many free senses: the plain MILP (its proof comes quickly; a portfolio's second
#: process would only cost its start)
SMALL_MILP = 40
#: fixed-sense L1 of a table that is not a network: the dual simplex below this share of sensitive
#: cells in at most SIMPLEX_CELLS cells, else the IPM (module docstring)
SIMPLEX_SHARE = 0.2
SIMPLEX_CELLS = 10000
#: with QDLDL alone (no CHOLMOD) clarabel takes fixed-sense L2 above this many defining
#: relations (J. Castro's nine5d, benchmarks/castro_l2.py --qdldl) ...
NEWTON_RELATIONS = 10000
#: ... or this many where the relations meet few others (network.SPARSE_DEGREE) and QDLDL factorises
#: the system on a fixed pattern (1H2D tables of benchmarks/l2_shapes.py --max-cells 1000000)
NEWTON_SPARSE_RELATIONS = 100_000


class Choice(NamedTuple):
    """A method of the registry, the reason for it in a sentence for the log, and the parameters
    it is to run with (the others at their defaults)."""

    method: str
    reason: str
    parameters: Mapping[str, ParameterValue] = types.MappingProxyType({})


def choose_method(problem: CTAProblem, distance: Distance, senses: Senses,
                  time_limit: float = math.inf) -> Choice:
    """The method of the registry for ``distance`` and ``senses`` on ``problem`` within
    ``time_limit`` seconds, why, and its parameters (module docstring).  MethodError when no
    method solves that model."""
    free = problem.free_senses
    l1 = distance in (Distance.L1, Distance.SOC)
    if senses is Senses.SOFT:
        if distance is not Distance.L1:
            raise MethodError("soft protection is offered for the L1 distance only")
        return Choice("soft-lp", "soft protection: the fixed-sense L1 LP with priced relation and protection slack")
    if senses is Senses.HEURISTIC:
        if not l1:
            raise MethodError("sense heuristics search for the L1 distance only; choose fixed senses for "
                              f"the {distance.value} distance")
        return Choice("learning", "a sense heuristic: learning from LP relaxations and rounding, then the exact "
                                  "MILP over the senses it is unsure of (the best heuristic measured on 3-D tables)")
    if senses is Senses.OPTIMAL and free:
        if not l1:
            raise MethodError(f"optimal senses are offered for the L1 distance only; choose fixed senses for "
                              f"the {distance.value} distance")
        return _exact(free, time_limit)
    fixed = "the problem fixes every sense" if senses is Senses.OPTIMAL else "fixed senses"
    if distance is Distance.L1:
        return _fixed_l1(problem, fixed)
    if distance is Distance.SOC:
        return Choice("soc", f"{fixed}, L1 as a second-order cone program (clarabel), as asked")
    if distance is Distance.HUBER:
        return Choice("huber", f"{fixed}, pseudo-Huber distance as a cone program (clarabel)")
    return _fixed_l2(problem, fixed)


def _exact(free: int, time_limit: float) -> Choice:
    if free <= SMALL_MILP:
        return Choice("milp", f"{free} free senses: the exact MILP proves its optimum quickly on its own")
    if time_limit < MIN_HEURISTIC_SECONDS:
        return Choice("milp", f"{time_limit:g} s leave no time for a heuristic beside the exact MILP")
    return Choice("learning-milp", f"{free} free senses: the exact MILP with the learning heuristic beside it, "
                                   "handing it better tables; the MILP's bound certifies the gap")


def _fixed_l1(problem: CTAProblem, fixed: str) -> Choice:
    form = network_form(problem)
    if form is not None:
        dropped = problem.n_relations - form.kept.size
        implied = f", {dropped} implied relations dropped" if dropped else ""
        return Choice("network", f"{fixed}, L1 on a table whose relations form a network ({form.n_nodes} nodes"
                                 f"{implied}): LEMON's network simplex, then a sifting simplex that prices every "
                                 "cell")
    share = problem.sensitive.size / max(problem.n_cells, 1)
    if share < SIMPLEX_SHARE and problem.n_cells <= SIMPLEX_CELLS:
        return Choice("lp", f"{fixed}, L1 on a table whose relations are not a network, {share:.0%} of its "
                            f"{problem.n_cells} cells sensitive: the dual simplex",
                      types.MappingProxyType({"simplex": True}))
    return Choice("lp", f"{fixed}, L1 on a table whose relations are not a network: interior point method with "
                        "crossover")


def _fixed_l2(problem: CTAProblem, fixed: str) -> Choice:
    from ctadesk.engine.solvers import newton_l2  # scipy.linalg and the factorisers: L2 only

    unknowns = int(np.count_nonzero(kept := defining_relations(problem.relations)))
    if np.any(problem.weights <= 0):
        why = "some weights are 0"
    elif newton_l2.FACTORISER == "qdldl" and unknowns > (
            NEWTON_SPARSE_RELATIONS if relation_degree(problem.relations[kept]) <= SPARSE_DEGREE
            else NEWTON_RELATIONS):
        why = f"{unknowns} relations define its totals, too many for QDLDL alone (install ctadesk[cholmod])"
    else:
        return Choice("network-l2", f"{fixed}, L2 by a Newton method on its dual ({unknowns} unknowns, one per "
                                    "relation defining a total; clarabel if it does not converge)")
    return Choice("l2", f"{fixed}, L2 as a quadratic program (clarabel): {why}")


__all__ = ["SIMPLEX_CELLS", "SIMPLEX_SHARE", "SMALL_MILP", "Choice", "choose_method"]
