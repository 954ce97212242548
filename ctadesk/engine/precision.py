"""Published numbers: a protected table at the precision it is published in (issue 11).

A release shows its cells rounded to 10^-d.  Rounding a protected table cell by
cell breaks its totals (a 200-column table: 202 of 206 relations off by a
unit) and can pull a sensitive cell back inside its protection interval.  Here
the table is found again in integer units k = y / 10^-d:

    min sum_i w_i |k_i 10^-d - a_i|
    s.t. A k = b / 10^-d,   ceil(l_i / 10^-d) <= k_i <= floor(u_i / 10^-d),
         k_i >= ceil((a_i + upl_i) / 10^-d) going up, k_i <= floor((a_i - lpl_i) / 10^-d) going down,
         k integer,

with the senses of the protected table it starts from (Castro & González 2011,
model (2) with integral deviations; paper 000), a sense switched where its side
has no grid value within the cell's bounds.  A table whose cells already
sit on the grid and satisfy all of this is kept as it is (a vertex of the
fixed-sense LP of a 2-D or 1H2D table with data on the grid is integral: the
relations form a network matrix).  Otherwise HiGHS solves the integer program
from the rounded table; relations with non-integral coefficients or
right-hand sides off the grid cannot add up exactly at any precision and are
refused, naming them.
"""

from __future__ import annotations

import time

import numpy as np

from ctadesk.engine.errors import SolverError
from ctadesk.engine.problem import SENSE_DOWN, SENSE_UP, CTAProblem
from ctadesk.engine.result import CTAResult, SolveOptions, Status, relative_gap
from ctadesk.engine.solvers._finish import cells_changed, finish, senses_of, weighted_l1
from ctadesk.engine.solvers._highs import ColumnMatrix, LinearModel, solve_model

#: the finest precision a table is published at
MAX_DECIMALS = 6
#: how far from the grid a number may be (in grid steps) and still count as on it
ON_GRID = 1e-6


def published_decimals(values: np.ndarray, max_decimals: int = MAX_DECIMALS) -> int:
    """The fewest decimals (0..max_decimals) that show every value exactly: 0 for a count table."""
    values = np.asarray(values, dtype=float)
    for decimals in range(max_decimals + 1):
        scaled = values * 10.0 ** decimals
        if np.all(np.abs(scaled - np.round(scaled)) <= ON_GRID * np.maximum(1.0, np.abs(scaled)) * 1e-3 + ON_GRID):
            return decimals
    return max_decimals


def at_precision(problem: CTAProblem, result: CTAResult, decimals: int,
                 options: SolveOptions = SolveOptions()) -> CTAResult:
    """``result``'s protected table at 10^-decimals: every cell on the grid, every relation exact
    there, every sensitive cell beyond its safe value on the side it took (module docstring).

    Returns a CTAResult of method ``result.method`` with info["decimals"] and info["cells_changed"];
    NOT_FOUND when no such table exists near the senses taken (the message says why).
    """
    if not result.verified:
        raise SolverError("only a protected table can be put at a published precision")
    started = time.perf_counter()
    step = 10.0 ** -decimals
    _check_grid_relations(problem, step)
    senses = _grid_senses(problem, senses_of(problem, result.values), step)
    k_low, k_high = _grid_box(problem, senses, step)
    rounded = np.round(result.values / step)
    target = np.round(problem.rhs / step)
    info = {**result.info, "decimals": decimals, "rounded_from": result.objective}
    if np.all((rounded >= k_low) & (rounded <= k_high)) and np.array_equal(_relations_of(problem, rounded), target):
        return _finished(problem, result, rounded / 10.0 ** decimals, senses, started, "the table was on the grid", info,
                         options.gap)
    if np.any(k_low > k_high):
        cell = int(np.flatnonzero(k_low > k_high)[0])
        return _not_found(problem, result, started, info,
                          f"{problem.describe_cell(cell)} has no value at {decimals} decimals within its bounds "
                          "beyond its safe value")
    model = _integer_model(problem, k_low, k_high, target, step)
    n = problem.n_cells
    start = (np.arange(n), np.clip(rounded, k_low, k_high))
    outcome = solve_model(model, options, {"mip_rel_gap": float(options.gap)}, start=start)
    if outcome.values is None:
        return _not_found(problem, result, started, info,
                          f"no table at {decimals} decimals adds up with these senses ({outcome.model_status})")
    k = np.round(outcome.values[:n])
    return _finished(problem, result, k / 10.0 ** decimals, senses, started, "found by the integer program", info,
                     options.gap)


def published_or_why(problem: CTAProblem, result: CTAResult, decimals: int,
                     options: SolveOptions = SolveOptions()) -> tuple[CTAResult | None, str]:
    """(the table at ``decimals``, its message), or (None, why it cannot be put there): what the
    front ends need to publish a protected table or keep it as solved and say why."""
    try:
        published = at_precision(problem, result, decimals, options)
    except SolverError as error:
        return None, str(error)
    return (published if published.verified else None), published.message


def _check_grid_relations(problem: CTAProblem, step: float) -> None:
    coefficients = problem.relations.data
    if np.any(np.abs(coefficients - np.round(coefficients)) > 1e-12):
        row = int(np.repeat(np.arange(problem.n_relations), np.diff(problem.relations.indptr))[
            np.abs(coefficients - np.round(coefficients)) > 1e-12][0])
        raise SolverError(f"{problem.describe_relation(row)} has a coefficient that is not a whole number: "
                          "it cannot add up exactly at a published precision")
    off = np.abs(problem.rhs / step - np.round(problem.rhs / step)) > ON_GRID
    if off.any():
        row = int(np.flatnonzero(off)[0])
        raise SolverError(f"{problem.describe_relation(row)} has the right-hand side {problem.rhs[row]:g}, "
                          f"which is not a multiple of {step:g}")


def _grid_senses(problem: CTAProblem, senses: np.ndarray, step: float) -> np.ndarray:
    """The table's senses, each switched where its side has no grid value within the cell's bounds
    and the other side, allowed by the problem, has one."""
    room = []
    for side in (SENSE_UP, SENSE_DOWN):
        k_low, k_high = _grid_box(problem, np.full(problem.n_sensitive, side, np.int8), step)
        room.append(k_low[problem.sensitive] <= k_high[problem.sensitive])
    up_room, down_room = room
    allowed = problem.effective_senses
    switch_down = (senses == SENSE_UP) & ~up_room & down_room & (allowed != SENSE_UP)
    switch_up = (senses == SENSE_DOWN) & ~down_room & up_room & (allowed != SENSE_DOWN)
    return np.where(switch_down, SENSE_DOWN, np.where(switch_up, SENSE_UP, senses)).astype(np.int8)


def _grid_box(problem: CTAProblem, senses: np.ndarray, step: float) -> tuple[np.ndarray, np.ndarray]:
    """Integer bounds on k: the cell's bounds, and beyond its safe value on its side."""
    slack = ON_GRID
    k_low = np.ceil(problem.lower / step - slack)
    k_high = np.floor(problem.upper / step + slack)
    fixed = problem.fixed
    on_grid = np.round(problem.values / step)
    k_low[fixed] = k_high[fixed] = on_grid[fixed]
    cells = problem.sensitive
    up, down = senses == SENSE_UP, senses == SENSE_DOWN
    safe_up = np.ceil((problem.values[cells] + problem.upper_protection) / step - slack)
    safe_down = np.floor((problem.values[cells] - problem.lower_protection) / step + slack)
    k_low[cells[up]] = np.maximum(k_low[cells[up]], safe_up[up])
    k_high[cells[down]] = np.minimum(k_high[cells[down]], safe_down[down])
    return k_low, k_high


def _relations_of(problem: CTAProblem, k: np.ndarray) -> np.ndarray:
    """A k on the grid: integer products, summed in float64 (exact while every relation's sum
    stays below 2^53 grid steps; rounded to the nearest step)."""
    A = problem.relations
    coefficients = np.round(A.data).astype(np.int64)
    terms = coefficients * k.astype(np.int64)[A.indices]
    rows = np.repeat(np.arange(problem.n_relations), np.diff(A.indptr))
    return np.bincount(rows, weights=terms, minlength=problem.n_relations).round()


def _integer_model(problem: CTAProblem, k_low: np.ndarray, k_high: np.ndarray, target: np.ndarray,
                   step: float) -> LinearModel:
    """Columns [k (n, integer), z+ (n), z- (n)]: A k = target, k - z+ + z- = a / step,
    cost w step (z+ + z-)."""
    import scipy.sparse as sp

    n = problem.n_cells
    eye = sp.identity(n, format="csr")
    matrix = sp.vstack([sp.hstack([problem.relations, sp.csr_array((problem.n_relations, 2 * n))]),
                        sp.hstack([eye, -eye, eye])], format="csc")
    matrix.sort_indices()
    rows = np.concatenate([target, problem.values / step])
    cost = np.concatenate([np.zeros(n), problem.weights * step, problem.weights * step])
    return LinearModel(cost, np.concatenate([k_low, np.zeros(2 * n)]),
                       np.concatenate([k_high, np.full(2 * n, np.inf)]),
                       ColumnMatrix.from_csc(matrix),
                       rows, rows, integer_columns=np.arange(n))


def _finished(problem: CTAProblem, result: CTAResult, values: np.ndarray, senses: np.ndarray, started: float,
              how: str, info: dict, gap: float) -> CTAResult:
    """The published table as a result.  An optimal result stays optimal only when the method's
    bound (valid at any precision: tables on the grid are tables) proves the published table
    within ``gap``; else it is feasible."""
    changed = cells_changed(problem, values)
    info = {**info, "cells_changed": changed, "precision_from": how}
    published_gap = None if result.bound is None else relative_gap(weighted_l1(problem, values), result.bound)
    proven = result.status is Status.OPTIMAL and published_gap is not None and published_gap <= gap
    status = Status.FEASIBLE if result.status is Status.OPTIMAL and not proven else result.status
    published = finish(problem, result.method, status, values, started=started, build_seconds=0.0,
                       solve_seconds=time.perf_counter() - started, senses=senses, info=info)
    if not published.verified:
        return published
    decimals = info["decimals"]
    message = (f"protected table at {decimals} decimal{'s' * (decimals != 1)}, {changed} cells changed; "
               f"{how}; verified")
    return published.replace(message=message, bound=result.bound, gap=published_gap)


def _not_found(problem: CTAProblem, result: CTAResult, started: float, info: dict, why: str) -> CTAResult:
    return CTAResult(method=result.method, status=Status.NOT_FOUND, message=why,
                     timings={"total": time.perf_counter() - started}, info=info)


__all__ = ["MAX_DECIMALS", "at_precision", "published_decimals", "published_or_why"]
