"""What every sense heuristic shares: a cached fixed-sense evaluator with the solve's budget, the
grouped MILP of the Hybrid (Cox 2005b, §3) and the final result.

A heuristic searches over sense vectors (+1 up / -1 down per sensitive cell);
the value of a vector is the fixed-sense L1 optimum (the network solver on
2-D/1H2D tables, the IPM LP otherwise), always a verified table.
"""

from __future__ import annotations

import math
import time

import numpy as np
import scipy.sparse as sp

from ctadesk.engine.problem import SENSE_FREE, SENSE_UP, CTAProblem
from ctadesk.engine.result import CTAResult, Progress, SolveOptions, Status
from ctadesk.engine.senses.feasible_start import starting_senses
from ctadesk.engine.solvers.highs import solve_model
from ctadesk.engine.solvers.lower_bound import with_lower_bound
from ctadesk.engine.solvers.lp import solve_lp
from ctadesk.engine.solvers.milp import milp_model
from ctadesk.engine.solvers.network import network_form
from ctadesk.engine.solvers.network_l1 import solve_network_l1


class SenseEvaluator:
    """Fixed-sense L1 optimum of sense vectors, cached; tracks the best table seen; the heuristic's
    budget and the options of its parts (``part``)."""

    def __init__(self, problem: CTAProblem, options: SolveOptions, method: str) -> None:
        self.problem = problem
        self.options = options.begun()
        self.budget = self.options.started_budget
        self.started = time.perf_counter()
        self.method = method
        self.form = network_form(problem)
        self.cache: dict[bytes, float] = {}
        self.best: CTAResult | None = None
        self.evaluations = 0

    def __call__(self, senses: np.ndarray) -> float:
        """sum w |x - a| of the best table with these senses (inf when none exists)."""
        senses = np.asarray(senses, dtype=np.int8)
        key = senses.tobytes()
        if key in self.cache:
            return self.cache[key]
        options = self.part(on_log=None)
        if self.form is not None:
            result = solve_network_l1(self.problem, options, senses=senses, form=self.form)
        else:
            result = solve_lp(self.problem, options, senses=senses, explain=False)
        self.evaluations += 1
        value = result.objective if result.verified else math.inf
        self.cache[key] = value
        self.offer(result)
        return value

    def offer(self, result: CTAResult) -> bool:
        """Keep result if it is a verified table better than the best so far."""
        if not result.verified or (self.best is not None and result.objective >= self.best.objective):
            return False
        self.best = result
        self.log(f"{self.elapsed:7.2f}s  best {result.objective:.10g}")
        if self.options.on_progress is not None:
            self.options.on_progress(Progress(self.elapsed, objective=result.objective,
                                              message=f"{self.method}: new best table"))
        return True

    @property
    def elapsed(self) -> float:
        return time.perf_counter() - self.started

    def part(self, *, fraction: float | None = None, seconds: float | None = None, **changes) -> SolveOptions:
        """The options of a part of the heuristic: a child of its budget (Budget.child), no progress
        reports of its own."""
        return self.options.within(self.budget.child(fraction=fraction, seconds=seconds), on_progress=None, **changes)

    def log(self, line: str) -> None:
        if self.options.on_log is not None:
            self.options.on_log(line)

    def result(self, info: dict | None = None) -> CTAResult:
        """The best table as this method's result (FEASIBLE, or CANCELLED/TIME_LIMIT with none), with
        the certified lower bound of solvers/lower_bound.py and the gap to it."""
        info = {"evaluations": self.evaluations, **(info or {})}
        if self.best is None:
            status = Status.CANCELLED if self.options.cancelled() else \
                Status.TIME_LIMIT if self.budget.over() else Status.NOT_FOUND
            return CTAResult(method=self.method, status=status, message=f"{self.method}: no protected table found",
                             timings={"total": self.elapsed}, info=info)
        status = Status.CANCELLED if self.options.cancelled() else Status.FEASIBLE
        best = self.best.replace(method=self.method, status=status,
                                 message=f"{self.method}: best of {self.evaluations} sense assignments; verified",
                                 bound=None, gap=None, timings={**self.best.timings, "total": self.elapsed},
                                 info={**self.best.info, **info})
        return with_lower_bound(self.problem, best, self.options)


def grouped_milp(problem: CTAProblem, groups: np.ndarray, options: SolveOptions,
                 start_senses: np.ndarray | None = None) -> CTAResult:
    """The MILP (2) with one binary per group: cells with the same group label share their sense.

    groups (s,) int, a label per sensitive cell (Cox 2005b, §3: B_i = B_{i+M} = ...);
    cells whose sense is given or forced ignore their label.
    """
    started = time.perf_counter()
    model, free, _ = milp_model(problem, options, starting_senses)
    n = problem.n_cells
    labels = np.asarray(groups)[free]
    order = np.argsort(labels, kind="stable")
    same = np.flatnonzero(labels[order][1:] == labels[order][:-1])
    first, second = 2 * n + order[same], 2 * n + order[same + 1]
    k = same.size
    ties = sp.csc_array((np.concatenate([np.ones(k), -np.ones(k)]),
                         (np.concatenate([np.arange(k), np.arange(k)]), np.concatenate([first, second]))),
                        shape=(k, model.matrix.n_cols))
    tied = model.with_rows(ties, np.zeros(k), np.zeros(k))
    start = None
    if start_senses is not None and free.size:
        start = (2 * n + np.arange(free.size), (np.asarray(start_senses)[free] == SENSE_UP).astype(float))
    outcome = solve_model(tied, options, {"mip_rel_gap": float(options.gap)}, start=start)
    if outcome.values is None:
        return CTAResult(method="grouped-milp", status=outcome.status, message=outcome.model_status,
                         timings={"total": time.perf_counter() - started})
    senses = problem.effective_senses.copy()
    senses[free] = np.where(outcome.values[2 * n:] > 0.5, 1, -1)
    return CTAResult(method="grouped-milp", status=outcome.status, senses=senses.astype(np.int8),
                     objective=outcome.objective, timings={"total": time.perf_counter() - started})


def free_positions(problem: CTAProblem) -> np.ndarray:
    """Positions (in problem.sensitive) of the cells whose sense is free."""
    return np.flatnonzero(problem.effective_senses == SENSE_FREE)

