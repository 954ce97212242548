"""Best-among-random sense assignments, the baseline of Cox 2005b, §3."""

from __future__ import annotations

import numpy as np

from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.result import CTAResult, SolveOptions
from ctadesk.engine.senses.common import SenseEvaluator, free_positions
from ctadesk.engine.settings import REPETITIONS

METHOD = "random"


def random_senses(problem: CTAProblem, rng: np.random.Generator) -> np.ndarray:
    """Given and forced senses kept, each free one up or down with probability 1/2."""
    senses = problem.effective_senses.copy()
    free = free_positions(problem)
    senses[free] = rng.choice(np.array([-1, 1], np.int8), free.size)
    return senses


def solve_random_best(problem: CTAProblem, options: SolveOptions = SolveOptions(),
                      repetitions: int = REPETITIONS, seed: int = 0) -> CTAResult:
    """The best fixed-sense table over ``repetitions`` random sense vectors (or until the time limit)."""
    evaluator = SenseEvaluator(problem, options, METHOD)
    rng = np.random.default_rng(seed)
    for _ in range(repetitions):
        if evaluator.budget.over():
            break
        evaluator(random_senses(problem, rng))
    return evaluator.result()
