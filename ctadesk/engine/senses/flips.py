"""Single-flip descent over the senses: a local optimum of the one-cell neighbourhood.

The fixed-sense L1 LP (Petrenko 2017, (5.10)-(5.12)) stays in one HiGHS object;
each free sense in turn is flipped by changing the bounds of its cell's two
columns (5.12) and the LP re-solved by the dual simplex from the last basis.
A flip is kept when the table gets cheaper (first improvement), undone
otherwise; passes over the cells, in a random order, go on until one keeps no
flip or the budget ends.  This is the swap move of Cox's Hybrid (Cox 2005b, §3)
for one cell, with the exact LP as the score.

The MILP's incumbents and the heuristics' tables are seldom one-flip optimal:
the descent lowers them further in a fraction of the time limit.  A flip moves
protection through the whole table, so its LP takes hundreds of simplex
iterations, but most flips are refused, and a refused one need not be solved to
the end: each flip's LP runs with the table's cost as HiGHS's ``objective_bound``.
The dual simplex's objective only rises from the last basis, and once HiGHS
finds the exact (unperturbed) dual objective above that bound, no table with
these senses is cheaper and the flip is refused there.  On Cox-recipe 10x10x10
tables a flip took 5.2 ms instead of 27-29 ms, and a 20-s descent from the
ordering heuristic's senses ended one-flip optimal (2 100-2 400 flips priced)
where it had been cut short after 690-740.
``.venv/bin/python benchmarks/heuristics.py 60 10x10x10`` prints the
portfolio's tables, whose helper runs the descent, beside the plain MILP's.
"""

from __future__ import annotations

import math
import time

import highspy
import numpy as np

from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.result import CTAResult, SolveOptions, Status
from ctadesk.engine.senses.common import free_positions
from ctadesk.engine.solvers.finish import finish
from ctadesk.engine.solvers.highs import HighsRun, LinearModel
from ctadesk.engine.solvers.lp import l1_column_bounds, l1_matrix

METHOD = "flips"
#: a flip is kept when it lowers the objective by more than this share of it (LP rounding is not a gain)
GAIN_RTOL = 1e-9


def flip_descent(problem: CTAProblem, senses: np.ndarray, options: SolveOptions = SolveOptions(),
                 seed: int = 0) -> CTAResult:
    """The verified table of the senses the descent ends at, starting from ``senses`` (s,) of +1/-1
    (never worse than theirs); info["flips"] counts the flips kept, info["evaluations"] the LPs,
    info["cut_off"] those stopped at the table's cost (module docstring), info["local_optimum"] says
    whether a whole pass found no flip to keep."""
    started = time.perf_counter()
    options = options.begun()
    n = problem.n_cells
    senses = np.asarray(senses, np.int8).copy()
    lower, upper = l1_column_bounds(problem, senses)
    rhs = problem.deviation_rhs
    model = LinearModel(np.concatenate([problem.weights, problem.weights]), lower, upper, l1_matrix(problem),
                        rhs, rhs)
    run = HighsRun(options, {"solver": "simplex"}, quiet=True)
    if not run.pass_model(model):
        return CTAResult(method=METHOD, status=Status.ERROR, message=f"{METHOD}: HiGHS rejected the LP")
    h = run.highs
    build_seconds = time.perf_counter() - started
    current = _objective(run)
    kept_solution = np.asarray(h.getSolution().col_value) if math.isfinite(current) else None
    rng = np.random.default_rng(seed)
    free = free_positions(problem)
    s = problem.sensitive.size
    up_bounds = l1_column_bounds(problem, np.ones(s, np.int8))      # every cell's columns for either sense
    down_bounds = l1_column_bounds(problem, -np.ones(s, np.int8))
    kept = evaluations = cut_off = 0
    improved = math.isfinite(current)
    local_optimum = False
    while improved and not options.started_budget.over():
        improved = False
        for k in rng.permutation(free):
            if options.started_budget.over():
                break
            columns = np.array([problem.sensitive[k], n + problem.sensitive[k]], np.int32)
            senses[k] = -senses[k]
            _set_bounds(h, up_bounds if senses[k] > 0 else down_bounds, columns)
            value = _objective(run, cutoff=current - GAIN_RTOL * abs(current))
            evaluations += 1
            cut_off += run.highs.getModelStatus() == highspy.HighsModelStatus.kObjectiveBound
            if value < current - GAIN_RTOL * abs(current):
                current, improved, kept = value, True, kept + 1
                kept_solution = np.asarray(h.getSolution().col_value)
            else:
                senses[k] = -senses[k]
                _set_bounds(h, up_bounds if senses[k] > 0 else down_bounds, columns)
        else:
            # a whole pass, and it kept no flip (its last LP did not run out of time)
            local_optimum = not improved and not options.started_budget.over()
    values = None
    if kept_solution is not None:
        values = np.clip(problem.values + kept_solution[:n] - kept_solution[n:], problem.lower, problem.upper)
    if options.cancelled():
        status = Status.CANCELLED
    elif values is not None:
        status = Status.FEASIBLE
    else:   # the start's LP did not finish or its senses admit no table
        status = Status.TIME_LIMIT if options.started_budget.over() else Status.NOT_FOUND
    return finish(problem, METHOD, status, values, started=started, build_seconds=build_seconds,
                  solve_seconds=time.perf_counter() - started - build_seconds, senses=senses,
                  info={"flips": kept, "evaluations": evaluations, "cut_off": cut_off,
                        "local_optimum": local_optimum})


def _set_bounds(h: highspy.Highs, bounds: tuple[np.ndarray, np.ndarray], columns: np.ndarray) -> None:
    """One cell's columns z+ and z- take their ``bounds`` (5.12) for the sense the bounds are of."""
    lower, upper = bounds
    h.changeColsBounds(2, columns, lower[columns], upper[columns])


def _objective(run: HighsRun, cutoff: float = math.inf) -> float:
    """The LP's optimum from the last basis (inf where no table has these senses, the run stopped,
    or the dual simplex proved the optimum above ``cutoff``)."""
    run.highs.setOptionValue("objective_bound", float(cutoff))
    run.run()
    if run.highs.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        return math.inf
    return float(run.highs.getInfo().objective_function_value)
