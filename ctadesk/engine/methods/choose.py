"""The algorithm for a model, chosen from the table's structure, size and time (issue 12: "model,
not algorithm, in front of the user").  The user picks a distance and a way of taking the senses
(ctadesk.engine.model); choose_method names the registry's method for them and says why, for
the log.  Every choice rests on a measurement (2 cores, Cox-recipe tables, Cox 2005b, §3):

- fixed-sense L1 of a 2-D or 1H2D table: the network solver (max flow + sifting simplex).
  300x350: 0.12 s end to end against 1.2 s for the IPM LP and 2.1 s for HiGHS's defaults on the
  same LP (benchmarks/cta.py --targets); 1000x1000: 2.7 s for the whole process, the IPM alone
  takes 17-26 s.  Whatever the weights (benchmarks/weights.py, issue 29): with 1/value weights
  1000x1000 1.05-1.44 s against 0.99-1.25 s with unit weights, 300x350 0.11 s; weights that make
  its simplex pivot long (random, or growing with the cell) it hands to the IPM over all columns
  after a bounded number of simplex iterations (network_l1.SIFTING_ITERATIONS): 500x500 12.1 s
  (|value| weights) and 11.2 s (random) against 10.2 and 9.6 s for the IPM chosen directly, side
  by side; a choice by the weights alone would save that fifth but cost 14x on weights it guessed
  wrong (1000x1000 with 1/value weights: 1.2 s by the network solver, 17 s by the IPM).
  Other tables (benchmarks/lp_choice.py, 25 tables): the dual simplex where few
  cells are sensitive (under SIMPLEX_SHARE) in a table of at most SIMPLEX_CELLS cells -- J.
  Castro's office tables, 5-13 % sensitive: table3 0.02 s against 0.12 s by the IPM, hier163a
  0.15 against 0.38, hier133a 0.06 against 0.21 -- else the IPM with crossover: Cox-recipe tables
  (a quarter of the cells sensitive, so many cells move and the simplex pivots long) 15x15x15
  0.10 against 0.43, 7x7x7x7 0.18 against 2.8, 30x30x30 1.2 against 43; nine5d (10 733 cells)
  1.9 against 4.9.  Exceptions measured: jjtabel3 (35 % sensitive) 0.10 by the IPM against 0.02,
  and Cox tables up to 10x10x10 where the two differ by hundredths of a second.
- fixed-sense L2: the dual Newton method where the relations that define the table's totals
  (network.defining_relations: one per total, so one Newton unknown per total) are few enough to
  factorise its Newton system quickly (NEWTON_RELATIONS, or NEWTON_SPARSE_RELATIONS where each
  meets few others, as in hierarchical 2-D tables: 205 221 cells, 25 221 relations 0.27 s against
  3.2 s), else clarabel.  300x350: 0.3 s against 2.3 s; 20x20x20
  0.4 s against 1.1 s; 1000x1000 1 s against 140 s; J. Castro's nine office tables
  (benchmarks/castro_l2.py) 0.01-0.08 s against clarabel's 0.05-6.3 s, nine5d (17 295 relations,
  10 750 kept) 0.45 s against 9.5 s, jjtabel3 0.02 s against 0.07 s.  Below
  NEWTON_CELLS cells clarabel takes well under a second and needs no fallback (on 40 cross-check
  instances of 4-368 cells the Newton method did not converge on 9, where clarabel then solved them).
  Where the relations that define the totals are not all (linked tables, second breakdowns of a
  total) the Newton method adds the ones its answer breaks, which fills its Newton system in;
  CHOLMOD's supernodal Cholesky factorises it where QDLDL took 7-18 s a step: J. Castro's CUTEst
  tables nine12, ninenew and hier16 (benchmarks/castro_l2.py --sif), which QDLDL's Newton handed
  to clarabel, 0.25, 0.22 and 0.05 of clarabel's time; generated office tables:
  benchmarks/l2_shapes.py.
- optimal senses: the exact MILP alone on small problems (HiGHS proves 10x10 tables, 30
  binaries, optimal in about a second), else the portfolio with learning beside the MILP, the
  best at 60 s on 10x10x10 (41 992 against 43 064 for the plain MILP) and 20x20x20 (309 131
  against 326 376); on 25x25, where HiGHS 1.16 finds good tables itself, the two are even
  (19 343-19 405 in seven runs against 19 398).  Where the problem fixes every sense the exact
  model is the fixed-sense one.
"""

from __future__ import annotations

import math
import types
from collections.abc import Mapping
from typing import NamedTuple

import numpy as np

from ctadesk.engine.errors import MethodError
from ctadesk.engine.model import Distance, Senses
from ctadesk.engine.problem import SENSE_FREE, CTAProblem
from ctadesk.engine.methods.spec import ParameterValue
from ctadesk.engine.settings import MIN_HEURISTIC_SECONDS
from ctadesk.engine.solvers.network import (SIMPLEX_ROWS, SPARSE_DEGREE, defining_relations, network_form,
                                            relation_degree)

#: at most this many free senses: the plain MILP (its proof comes quickly; a portfolio's second
#: process would only cost its start)
SMALL_MILP = 40
#: fewer cells than this: fixed-sense L2 by clarabel
NEWTON_CELLS = 1000
#: fixed-sense L1 of a table that is not a network: the dual simplex below this share of sensitive
#: cells in at most SIMPLEX_CELLS cells, else the IPM (module docstring)
SIMPLEX_SHARE = 0.2
SIMPLEX_CELLS = 10000
#: above this many defining relations the Newton system's factorisation costs more than clarabel's
#: whole solve (with all 17 295 of J. Castro's nine5d and SuperLU: 12 Newton steps of 0.65 s,
#: clarabel 6.9 s) ...
NEWTON_RELATIONS = 10000
#: ... or this many where the relations meet few others (network.SPARSE_DEGREE) and QDLDL factorises
#: the system on a fixed pattern: benchmarks/scale.py's 1H2D table, 487 411 cells and 67 411
#: defining relations, 8.0 s against clarabel's 58.4 s
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
    free = int(np.count_nonzero(problem.effective_senses == SENSE_FREE))
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
    if problem.n_relations <= SIMPLEX_ROWS:
        form = network_form(problem)
        if form is not None and form.kept.size <= SIMPLEX_ROWS:
            dropped = problem.n_relations - form.kept.size
            implied = f", {dropped} implied relations dropped" if dropped else ""
            return Choice("network", f"{fixed}, L1 on a table whose relations form a network ({form.n_nodes} nodes"
                                     f"{implied}): max flow, then a sifting simplex that prices every cell")
    share = problem.sensitive.size / max(problem.n_cells, 1)
    if share < SIMPLEX_SHARE and problem.n_cells <= SIMPLEX_CELLS:
        return Choice("lp", f"{fixed}, L1 on a table whose relations are not a network, {share:.0%} of its "
                            f"{problem.n_cells} cells sensitive: the dual simplex",
                      types.MappingProxyType({"simplex": True}))
    return Choice("lp", f"{fixed}, L1 on a table whose relations are not a network: interior point method with "
                        "crossover")


def _fixed_l2(problem: CTAProblem, fixed: str) -> Choice:
    if problem.n_cells < NEWTON_CELLS:
        why = f"a small table ({problem.n_cells} cells)"
    elif np.any(problem.weights <= 0):
        why = "some weights are 0"
    elif (unknowns := int(np.count_nonzero(kept := defining_relations(problem.relations)))) > (
            NEWTON_SPARSE_RELATIONS if relation_degree(problem.relations[kept]) <= SPARSE_DEGREE
            else NEWTON_RELATIONS):
        why = f"{unknowns} relations define its totals"
    else:
        return Choice("network-l2", f"{fixed}, L2 by a Newton method on its dual ({unknowns} unknowns, one per "
                                    "relation defining a total; clarabel if it does not converge)")
    return Choice("l2", f"{fixed}, L2 as a quadratic program (clarabel): {why}")


__all__ = ["NEWTON_CELLS", "SIMPLEX_CELLS", "SIMPLEX_SHARE", "SMALL_MILP", "Choice", "choose_method"]
