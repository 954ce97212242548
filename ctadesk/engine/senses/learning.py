"""Learning preferred senses from LP relaxations, then fixing the confident ones
(in the spirit of Cox's parametric-image learning, Cox 2005b, §5).

The LP relaxation of the MILP (2) is solved under several goal vectors: an
objective term -M y_i pulls cell i up, +M y_i down (Cox 2005b, eq. (9)).  A
binary that ends far from its goal resists it (overt resistance (10)-(11));
averaging the relaxed y over goals drawn around the start gives each cell a
preference.  First, rounding rounds: every free cell takes its preferred
sense, and the senses are kept when their fixed-sense LP is cheaper, the next
round learning around them.  Then the cells whose preference is clear are
fixed and the rest go to the exact MILP started from the best senses; the
result is the best table seen, so the method is never worse than its start.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ctadesk.engine.problem import SENSE_DOWN, SENSE_UP, CTAProblem
from ctadesk.engine.result import CTAResult, SolveOptions
from ctadesk.engine.senses.balance import balanced_senses
from ctadesk.engine.senses.common import SenseEvaluator, free_positions
from ctadesk.engine.senses.feasible_start import sat_senses, starting_senses
from ctadesk.engine.solvers.highs import solve_model
from ctadesk.engine.solvers.milp import milp_model, solve_milp

METHOD = "learning"
GOALS = 6
#: a cell is fixed when its mean relaxed y is this far from 1/2
CONFIDENCE = 0.45
#: share of the time the balancing search for a start takes (senses/balance.py; no start given)
BALANCE_SHARE = 0.05
#: share of the time for the relaxations
LEARNING_SHARE = 0.3
#: share of the time the rounding rounds may take, and rounds without gain before they stop
ROUNDING_SHARE = 0.5
STALL_ROUNDS = 3


def preferences(problem: CTAProblem, start: np.ndarray, options: SolveOptions, goals: int = GOALS,
                seed: int = 0) -> np.ndarray:
    """Mean relaxed y (f,) of the free cells over goal vectors near ``start`` (1: prefers up)."""
    model, free, _ = milp_model(problem, options, starting_senses)
    n = problem.n_cells
    rng = np.random.default_rng(seed)
    penalty = float(np.mean(problem.weights[problem.sensitive[free]] *
                            (problem.upper_protection[free] + problem.lower_protection[free])))
    relaxed = np.zeros(free.size)
    runs = 0
    for g in range(goals):
        goal = start[free] if g == 0 else np.where(rng.random(free.size) < 0.2, -start[free], start[free])
        cost = model.cost.copy()
        cost[2 * n:] = np.where(goal == SENSE_UP, -penalty, penalty)
        outcome = solve_model(dataclasses.replace(model, cost=cost, integer_columns=np.zeros(0, np.int64)),
                              options, {"solver": "ipm"})
        if outcome.values is None:
            continue
        relaxed += outcome.values[2 * n:]
        runs += 1
    return relaxed / runs if runs else np.full(free.size, 0.5)   # no relaxation solved: no preference


def solve_learning(problem: CTAProblem, options: SolveOptions = SolveOptions(),
                   start: np.ndarray | None = None) -> CTAResult:
    """Rounding rounds, then the confident senses fixed and the rest solved exactly; never worse
    than the start (given, else the cheaper of the 2-SAT start and the balanced senses).

    A rounding round learns preferences around the current senses, sets every free cell to its
    preferred sense and keeps the result when its fixed-sense LP is cheaper (on 3-D Cox tables it
    goes below HiGHS's MILP given the same minute: ``.venv/bin/python benchmarks/heuristics.py 60
    20x20x20 --methods milp,learning`` prints both); rounds stop after STALL_ROUNDS without gain or
    ROUNDING_SHARE of the time.
    """
    evaluator = SenseEvaluator(problem, options, METHOD)
    if start is None:
        start = options.start_senses
    if start is None:       # the cheaper of the 2-SAT start (protection feasible) and the balanced senses
        balanced = balanced_senses(problem, evaluator.budget.child(fraction=BALANCE_SHARE))
        sat = sat_senses(problem)
        start = balanced if sat is None else min((np.asarray(sat, np.int8), balanced), key=evaluator)
    start = np.asarray(start, np.int8)
    start_value = evaluator(start)
    free = free_positions(problem)
    current, value = start, start_value
    preference = np.zeros(0)
    rounds = stall = 0
    rounding = evaluator.budget.child(fraction=ROUNDING_SHARE)
    while free.size and stall < STALL_ROUNDS and not rounding.over():
        learned_here = preferences(problem, current, evaluator.options.within(rounding, on_log=None, on_progress=None),
                                   seed=rounds)
        rounds += 1
        rounded = current.copy()
        rounded[free] = np.where(learned_here > 0.5, SENSE_UP,
                                 np.where(learned_here < 0.5, SENSE_DOWN, current[free]))
        rounded_value = evaluator(rounded)
        if rounded_value < value - 1e-9 * max(1.0, abs(value)):
            current, value, preference, stall = rounded, rounded_value, np.zeros(0), 0
        else:
            preference, stall = learned_here, stall + 1     # learned around current: reused below
    if free.size and not preference.size and not evaluator.budget.over():
        preference = preferences(problem, current, evaluator.part(fraction=LEARNING_SHARE, on_log=None), seed=rounds)
    if not preference.size:     # the time ran out before anything was learned: no preference
        preference = np.full(free.size, 0.5)
    confident = np.abs(preference - 0.5) >= CONFIDENCE
    fixed = problem.effective_senses.copy()
    fixed[free[confident]] = np.where(preference[confident] > 0.5, SENSE_UP, SENSE_DOWN)
    learned = int(confident.sum())
    if not evaluator.budget.over():
        result = solve_milp(problem.with_senses(fixed), evaluator.part(start_senses=current, on_log=None),
                            certify=False, starts=starting_senses)
        if result.verified:
            evaluator.offer(dataclasses.replace(result, senses=np.asarray(result.senses, np.int8)))
    return evaluator.result(info={"fixed_by_learning": learned, "free": int(free.size),
                                  "start_objective": start_value, "rounding_rounds": rounds})
