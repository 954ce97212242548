"""Block coordinate descent over the senses (González & Castro 2011; Castro & González 2011, §3).

From a start (the SAT-style feasible start unless one is given), blocks of
senses are freed in turn while the others stay fixed; each block is the exact
MILP (2) over the freed binaries, started from the current senses, and its
table replaces the current one only when it is cheaper, so the objective never
rises.  Blocks are random, or by sub-table (the sensitive cells of a few
relations, BLOCK_BY="relations").  After a pass without improvement the
blocks grow.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ctadesk.engine.problem import SENSE_FREE, CTAProblem
from ctadesk.engine.result import CTAResult, SolveOptions
from ctadesk.engine.senses.common import SenseEvaluator, free_positions
from ctadesk.engine.senses.feasible_start import sat_senses, starting_senses
from ctadesk.engine.senses.ordering import ordering_senses
from ctadesk.engine.settings import BLOCK_SECONDS, BLOCK_SIZE
from ctadesk.engine.solvers.milp import solve_milp

METHOD = "bcd"
GROWTH = 1.5


def blocks(problem: CTAProblem, free: np.ndarray, size: int, rng: np.random.Generator,
           by_relations: bool) -> list[np.ndarray]:
    """A partition of the free positions into blocks of about ``size``."""
    if not by_relations:
        order = rng.permutation(free)
        return [order[k:k + size] for k in range(0, order.size, size)]
    relations = problem.relations.tocsc()[:, problem.sensitive[free]].tocsr()
    seen = np.zeros(free.size, bool)
    result: list[np.ndarray] = []
    current: list[np.ndarray] = []
    for r in rng.permutation(problem.n_relations):
        cells = relations.indices[relations.indptr[r]:relations.indptr[r + 1]]
        cells = cells[~seen[cells]]
        seen[cells] = True
        current.append(cells)
        if sum(c.size for c in current) >= size:
            result.append(free[np.concatenate(current)])
            current = []
    rest = np.concatenate([*current, np.flatnonzero(~seen)]) if current or (~seen).any() else np.zeros(0, int)
    if rest.size:
        result.append(free[np.unique(rest)])
    return result


def solve_bcd(problem: CTAProblem, options: SolveOptions = SolveOptions(), start: np.ndarray | None = None,
              block_size: int = BLOCK_SIZE, by_relations: bool = False, seed: int = 0,
              block_seconds: float = BLOCK_SECONDS) -> CTAResult:
    """BCD from ``start`` (default options.start_senses, else the SAT start); never worse than the start.
    Each block's MILP gets at most ``block_seconds`` of the time left."""
    evaluator = SenseEvaluator(problem, options, METHOD if not by_relations else "bcd-tree")
    rng = np.random.default_rng(seed)
    if start is None:
        start = options.start_senses
    if start is None:
        start = sat_senses(problem)
    current = np.asarray(start if start is not None else ordering_senses(problem), np.int8).copy()
    value = evaluator(current)
    start_value = value
    free = free_positions(problem)
    size = block_size
    passes = 0
    while not evaluator.budget.over() and free.size:
        improved = False
        for block in blocks(problem, free, size, rng, by_relations):
            if evaluator.budget.over():
                break
            fixed = current.copy()
            fixed[block] = SENSE_FREE
            sub = problem.with_senses(np.where(problem.effective_senses != SENSE_FREE,
                                               problem.effective_senses, fixed))
            result = solve_milp(sub, evaluator.part(seconds=block_seconds, start_senses=current, on_log=None),
                                certify=False, starts=starting_senses)
            if result.verified and result.objective < value - 1e-9 * max(1.0, abs(value)):
                senses = np.asarray(result.senses, np.int8)
                result = dataclasses.replace(result, senses=senses)
                current = senses.copy()
                value = result.objective
                evaluator.offer(result)
                improved = True
        passes += 1
        if not improved:
            if size >= free.size:
                break
            size = int(size * GROWTH) + 1
    return evaluator.result(info={"passes": passes, "start_objective": start_value, "block_size": size})
