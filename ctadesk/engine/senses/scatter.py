"""Scatter search over sense vectors (Laguna & Martí; Cox 2005b, §4).

A reference set of good and diverse sense vectors (ordering, SAT start,
Hybrid, random) is combined pair by pair: where the parents agree the child
keeps their sense, elsewhere it takes the better parent's sense with
probability proportional to its quality.  A child whose senses admit no table
gets its senses from the soft-protection LP's table (feasibility restored by
the fixed-sense LP).  A child better than the worst reference vector and
different from all of them replaces it; when a whole round of combinations
adds nothing, the set is rebuilt from its elite and perturbed copies
(diversification).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.result import CTAResult, SolveOptions
from ctadesk.engine.senses.common import SenseEvaluator, free_positions
from ctadesk.engine.senses.feasible_start import sat_senses
from ctadesk.engine.senses.ordering import ordering_senses
from ctadesk.engine.senses.random_best import random_senses
from ctadesk.engine.solvers.finish import senses_of
from ctadesk.engine.solvers.soft import solve_soft_lp

METHOD = "scatter"
REFERENCE_SIZE = 8
ELITE = 3
PERTURBATION = 0.1
#: diversifications in a row that leave the best value unchanged before the search stops
MAX_STALE_ROUNDS = 5
#: draws in a row that add no new vector before the reference set counts as full
MAX_DUPLICATE_DRAWS = 4 * REFERENCE_SIZE


def solve_scatter(problem: CTAProblem, options: SolveOptions = SolveOptions(), seed: int = 0,
                  seeds: list[np.ndarray] | None = None) -> CTAResult:
    """Scatter search until the time limit, the stop event, or MAX_STALE_ROUNDS
    diversifications in a row that do not improve the best sense vector."""
    evaluator = SenseEvaluator(problem, options, METHOD)
    rng = np.random.default_rng(seed)
    free = free_positions(problem)

    def value_of(senses: np.ndarray) -> tuple[float, np.ndarray]:
        value = evaluator(senses)
        if math.isfinite(value) or evaluator.budget.over():
            return value, senses
        soft = solve_soft_lp(problem, evaluator.part(on_log=None), senses)
        if soft.values is None:
            return value, senses
        repaired = senses_of(problem, soft.values)
        return evaluator(repaired), repaired

    starts = [ordering_senses(problem), *(seeds or [])]
    sat = sat_senses(problem)
    if sat is not None:
        starts.append(sat)
    reference: list[tuple[float, np.ndarray]] = []

    def fill(draw) -> None:
        """Add distinct vectors from draw() until the set is full or draws stop adding any
        (a problem with few free senses has fewer distinct vectors than REFERENCE_SIZE)."""
        duplicates = 0
        while (len(reference) < REFERENCE_SIZE and duplicates < MAX_DUPLICATE_DRAWS
               and not evaluator.budget.over()):
            entry = value_of(draw())
            if any(np.array_equal(entry[1], other) for _, other in reference):
                duplicates += 1
            else:
                reference.append(entry)

    fill(lambda: starts.pop(0) if starts else random_senses(problem, rng))
    combined: set[tuple[int, int]] = set()
    rounds = stale = 0
    best = min(value for value, _ in reference) if reference else math.inf
    while not evaluator.budget.over() and len(reference) >= 2 and free.size and stale < MAX_STALE_ROUNDS:
        reference.sort(key=lambda entry: entry[0])
        keys = [entry[1].tobytes() for entry in reference]
        added = False
        for i, j in itertools.combinations(range(len(reference)), 2):
            if evaluator.budget.over():
                break
            if (hash(keys[i]), hash(keys[j])) in combined:
                continue
            combined.add((hash(keys[i]), hash(keys[j])))
            (value_i, first), (value_j, second) = reference[i], reference[j]
            children = max(1, 3 - (i + j) // 3)                   # better pairs make more children
            share = _share(value_i, value_j)
            for _ in range(children):
                child = np.where(rng.random(first.size) < share, first, second).astype(np.int8)
                value, child = value_of(child)
                worst = max(reference, key=lambda entry: entry[0])
                if value < worst[0] and not any(np.array_equal(child, other) for _, other in reference):
                    reference[reference.index(worst)] = (value, child)
                    added = True
        rounds += 1
        if not added:                                               # diversification
            current = min(value for value, _ in reference)
            stale = stale + 1 if current >= best else 0
            best = min(best, current)
            reference.sort(key=lambda entry: entry[0])
            elite = reference[:ELITE]
            reference = list(elite)

            def perturbed(elite: list[tuple[float, np.ndarray]] = elite) -> np.ndarray:
                base = elite[int(rng.integers(len(elite)))][1].copy()
                flip = free[rng.random(free.size) < PERTURBATION]
                base[flip] = -base[flip]
                return base

            fill(perturbed)
            combined.clear()
    return evaluator.result(info={"rounds": rounds})


def _share(first: float, second: float) -> float:
    """Probability of taking the first parent's sense: proportional to its quality (1 / objective)."""
    if not math.isfinite(first):
        return 0.0 if math.isfinite(second) else 0.5
    if not math.isfinite(second):
        return 1.0
    return (1.0 / max(first, 1e-12)) / (1.0 / max(first, 1e-12) + 1.0 / max(second, 1e-12))
