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
model (2) with integral deviations; Castro & González 2011), a sense switched where its side
has no grid value within the cell's bounds.  HiGHS works on the change d = k - r
from the cell-by-cell rounding r of the protected table, small integers however
big the cells (a turnover table of 3e8 at 2 decimals has k up to 3e10, past
what HiGHS's integrality and feasibility tolerances can tell apart).  A table
whose cells already sit on the grid and satisfy all of this is kept as it is
(a vertex of the fixed-sense LP of a 2-D or 1H2D table with data on the grid is
integral: the relations form a network matrix).  Relations with non-integral
coefficients or right-hand sides off the grid cannot add up exactly at any
precision and are refused, naming them.

The model the user chose is the model of the published table.  The model above
is the weighted-L1 one (and SOC's, L1 in cone form); the L2 (5.8) and
pseudo-Huber (5.17) tables y (Petrenko 2017) are published as a
controlled rounding of y: each cell at floor or ceil of y / 10^-d, the one the
model's own objective prefers (on two grid values a separable objective is the
line through them, so the integer program stays linear), every relation exact.
For the network-matrix relations of 2-D and 1H2D tables such a rounding always
exists (y is a point of the polytope with the box [floor, ceil], whose vertices
are integral), so the published L2 table is within one published unit of the L2
optimum in every cell.  Where none exists the grid table nearest y in weighted
absolute change is published and info["precision_from"] says so.

The grid is any step s, not only 10^-d: with s a rounding base b (tau-argus's RND(table, b, ...))
the same integer program is a controlled rounding of the table to multiples of b -- additive,
every sensitive cell beyond its safe value -- which tau-argus's rounder (Salazar-González's
controlled rounding, the tau-argus manual, chapter on rounding) makes zero-restricted: a cell
already a multiple of b stays, any other goes to one of the two multiples around it, ``steps``
further multiples allowed when that has no solution.  Here ``steps`` boxes every cell that is not
sensitive to within that many steps of the multiples around it (a sensitive cell: of its first
safe multiple); when the box leaves no table the rounding is found without it and
info["precision_from"] says so.  A fixed cell keeps its value when it is on the grid; off it (a
rounding base over data that are not its multiples) it cannot, and fixed_to_grid bounds it to the
two grid values around it instead.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping

import numpy as np
import scipy.sparse as sp

from ctadesk.engine.errors import SolverError
from ctadesk.engine.model import Distance
from ctadesk.engine.problem import SENSE_DOWN, SENSE_UP, CTAProblem
from ctadesk.engine.result import CTAResult, SolveOptions, Status, relative_gap
from ctadesk.engine.settings import HUBER_DELTA, MAX_DECIMALS
from ctadesk.engine.solvers.finish import finish, senses_of, weighted_l1
from ctadesk.engine.solvers.highs import ColumnMatrix, LinearModel, solve_model

#: a cell's share of a model's objective for its change z (table units)
CellCost = Callable[[np.ndarray], np.ndarray]
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


def grid_step(decimals: int) -> float:
    """The grid of ``decimals`` decimals: 10^-decimals."""
    return 10.0 ** -decimals


def step_decimals(step: float) -> int:
    """The fewest decimals (up to MAX_DECIMALS) that show multiples of ``step``: d for 10^-d, 0 for
    a whole rounding base, 1 for 0.5."""
    for decimals in range(MAX_DECIMALS + 1):
        scaled = step * 10.0 ** decimals
        if abs(scaled - round(scaled)) <= 1e-9 * scaled:
            return decimals
    return MAX_DECIMALS


def _is_decimal_grid(step: float) -> bool:
    """``step`` is 10^-d for a d >= 0."""
    return math.isclose(step, grid_step(step_decimals(step)), rel_tol=1e-12)


def grid_name(step: float) -> str:
    """How a message names the grid of ``step``: 'at 2 decimals', 'at 0 decimals' for 1, 'rounded
    to multiples of 5' for a rounding base."""
    if _is_decimal_grid(step):
        decimals = step_decimals(step)
        return f"at {decimals} decimal{'s' * (decimals != 1)}"
    return f"rounded to multiples of {step:g}"


def grid_safe(problem: CTAProblem, decimals: int) -> CTAProblem:
    """``problem`` made safe for the grid of 10^-decimals (grid_safe_step)."""
    return grid_safe_step(problem, grid_step(decimals))


def grid_safe_step(problem: CTAProblem, step: float) -> CTAProblem:
    """``problem`` with every protection level and bound moved outward / inward to the grid of
    multiples of ``step``: a + upl and a - lpl, lower and upper on the grid, each as near as the grid
    allows (no level smaller than asked).  Every table on the grid that protects ``problem`` protects
    this one; solved before publication, the model's table then lies in the box of grid values around
    it, so a controlled rounding of it exists for network-matrix relations (2-D and 1H2D tables).
    ``problem`` itself where nothing moves (a job then knows the levels as asked are no other
    problem to try)."""
    cells = problem.sensitive
    a = problem.values[cells]
    safe_up = np.ceil((a + problem.upper_protection) / step - ON_GRID) * step
    safe_down = np.floor((a - problem.lower_protection) / step + ON_GRID) * step
    upper_protection = np.where(problem.upper_protection > 0, np.maximum(safe_up - a, problem.upper_protection), 0.0)
    lower_protection = np.where(problem.lower_protection > 0, np.maximum(a - safe_down, problem.lower_protection), 0.0)
    lower = np.where(np.isfinite(problem.lower) & ~problem.fixed,
                     np.minimum(np.ceil(problem.lower / step - ON_GRID) * step, problem.values), problem.lower)
    upper = np.where(np.isfinite(problem.upper) & ~problem.fixed,
                     np.maximum(np.floor(problem.upper / step + ON_GRID) * step, problem.values), problem.upper)
    # a cell with no grid value beyond either safe value, or beyond the one of the sense it is given,
    # keeps its own levels and bounds (at_precision then says which cell has no value at that precision)
    up_gone, down_gone = a + upper_protection > upper[cells], a - lower_protection < lower[cells]
    given = problem.senses
    keep = (up_gone & down_gone) | (up_gone & (given == SENSE_UP)) | (down_gone & (given == SENSE_DOWN))
    stuck = cells[keep]
    upper_protection[keep], lower_protection[keep] = problem.upper_protection[keep], problem.lower_protection[keep]
    lower[stuck], upper[stuck] = problem.lower[stuck], problem.upper[stuck]
    moved = {"lower_protection": lower_protection, "upper_protection": upper_protection, "lower": lower,
             "upper": upper}
    if all(np.allclose(value, getattr(problem, name), rtol=1e-12, atol=0.0) for name, value in moved.items()):
        return problem      # already on the grid (but for round-off): the same problem, not a copy
    return problem.replace(**moved)


def roomless_cells(problem: CTAProblem, step: float) -> np.ndarray:
    """The sensitive cells with no grid value of ``step`` within their bounds beyond a safe value on
    any side their sense allows: no table on that grid protects them (a cell of value 3 with level
    and bound 0.6 either way has none at 0 decimals, 3.6 at 1), so no precision that coarse can be
    published, whatever the model does.  Cell indices, ascending."""
    up_room, down_room = _sensitive_room(problem, step)
    senses = problem.effective_senses
    room = (up_room & (senses != SENSE_DOWN)) | (down_room & (senses != SENSE_UP))
    return problem.sensitive[~room]


def coarsest_decimals(problem: CTAProblem, decimals: int) -> tuple[int, np.ndarray]:
    """The fewest decimals from ``decimals`` to MAX_DECIMALS at which every sensitive cell of
    ``problem`` has room (roomless_cells), and the cells with none at ``decimals``; ``decimals``
    itself where no precision gives all of them room."""
    stuck = roomless_cells(problem, grid_step(decimals))
    if not stuck.size:
        return decimals, stuck
    for finer in range(decimals + 1, MAX_DECIMALS + 1):
        if not roomless_cells(problem, grid_step(finer)).size:
            return finer, stuck
    return decimals, stuck


def fixed_to_grid(problem: CTAProblem, step: float) -> CTAProblem:
    """``problem`` with each fixed cell off the grid of ``step`` freed between the two grid values
    around it: a rounding to a base rounds every cell (module docstring), a fixed one included,
    and a cell already on the grid keeps its value.  Returns ``problem`` itself when none is off."""
    scaled = problem.values / step
    off_grid = problem.fixed & (np.abs(scaled - np.round(scaled)) > ON_GRID)
    if not off_grid.any():
        return problem
    return problem.replace(fixed=problem.fixed & ~off_grid,
                           lower=np.where(off_grid, np.floor(scaled) * step, problem.lower),
                           upper=np.where(off_grid, np.ceil(scaled) * step, problem.upper))


def at_precision(problem: CTAProblem, result: CTAResult, decimals: int,
                 options: SolveOptions = SolveOptions(), distance: Distance = Distance.L1,
                 delta: float = HUBER_DELTA) -> CTAResult:
    """``result``'s protected table at 10^-decimals (at_step on that grid)."""
    return at_step(problem, result, grid_step(decimals), options, distance, delta)


def at_step(problem: CTAProblem, result: CTAResult, step: float,
            options: SolveOptions = SolveOptions(), distance: Distance = Distance.L1,
            delta: float = HUBER_DELTA, steps: int | None = None) -> CTAResult:
    """``result``'s protected table on the grid of multiples of ``step``: every cell on the grid,
    every relation exact there, every sensitive cell beyond its safe value on the side it took
    (module docstring), and the table the ``distance`` of ``result``'s model would publish there.

    L1 (and SOC, L1 in cone form): the weighted-L1 table on the grid with the senses taken, found
    again from the original values (model (2) with integral deviations).  L2 and pseudo-Huber
    (``delta``: Petrenko 2017 (5.8), (5.17)): a controlled rounding of the model's own table y -- each
    cell at floor(y/step) or ceil(y/step), the one the model's objective prefers, the relations
    exact -- which exists for the network-matrix relations of 2-D and 1H2D tables; where none
    exists, the grid table nearest y in weighted absolute change (said in info["precision_from"]).

    ``steps`` (None: no such limit) first keeps every cell that is not sensitive within that many
    grid steps of the grid values around its original value (0: zero-restricted, a cell on the grid
    stays), and every sensitive cell within that many of its first safe grid value; a table with no
    such rounding is found without the limit, and info["precision_from"] says so.

    Returns a CTAResult of method ``result.method`` with info["decimals"] (those the grid shows),
    info["step"], info["cells_changed"] and info["precision_from"]; NOT_FOUND when no such table
    exists near the senses taken (the message says why).
    """
    if not result.verified or result.values is None:
        raise SolverError("only a protected table can be put at a published precision")
    if steps is None:
        return _at_step(problem, result, step, options, distance, delta, None)
    restricted = _at_step(problem, result, step, options, distance, delta, steps)
    if restricted.verified:
        return restricted
    why = (f"no zero-restricted rounding ({restricted.message})" if steps == 0 else
           f"none within {steps} step{'s' * (steps != 1)} of the grid values around the original "
           f"({restricted.message})")
    return _at_step(problem, result, step, options, distance, delta, None, why)


def _at_step(problem: CTAProblem, result: CTAResult, step: float, options: SolveOptions, distance: Distance,
             delta: float, steps: int | None, why: str = "") -> CTAResult:
    """at_step with the box of ``steps`` (None: none); ``why`` there is none, said after how the
    table was found."""
    started = time.perf_counter()
    _check_grid_relations(problem, step)
    taken = senses_of(problem, result.table())
    senses = _grid_senses(problem, taken, step)
    k_low, k_high = _grid_box(problem, senses, step)
    if steps is not None:
        k_low, k_high = _within_steps(problem, senses, step, steps, k_low, k_high)
    info = {**result.info, "decimals": step_decimals(step), "step": step, "rounded_from": result.objective}
    grid = grid_name(step)
    # an empty box is the answer before any sum over the relations (a table on the grid in the box
    # is the only one kept as it is): the precisions 'auto' tries in turn fail at this cost
    if np.any(empty := k_low > k_high):
        cell = int(np.flatnonzero(empty)[0])
        return _not_found(result, started, info,
                          f"{problem.describe_cell(cell)} has no value {grid} within its bounds beyond its safe value")
    scaled = result.table() / step
    base = np.round(scaled)
    residual = np.round(problem.rhs / step) - _relations_of(problem, base)
    cost = _model_cost(problem, distance, delta)
    same_senses = bool(np.array_equal(senses, taken))

    def finished(k: np.ndarray, how: str) -> CTAResult:
        return _finished(problem, result, _grid_values(k, step), senses, started, f"{how}; {why}" if why else how,
                         info, options.gap, cost, same_senses)

    on_grid = np.all(np.abs(scaled - base) <= ON_GRID)
    fits = np.all((base >= k_low) & (base <= k_high)) and not residual.any()
    if fits and (on_grid or cost is None):
        return finished(base, "the table was on the grid")
    n = problem.n_cells
    start = (np.arange(n), np.clip(base, k_low, k_high) - base)
    if cost is not None:
        low = np.maximum(k_low, np.floor(scaled + ON_GRID))
        high = np.minimum(k_high, np.ceil(scaled - ON_GRID))
        # a cell the solver left a hair short of its safe value (low = its first safe grid value,
        # above ceil(y)) takes that value: the box is [low, low]
        high = np.maximum(high, np.minimum(low, k_high))
        if np.all(low <= high):
            model = _rounding_model(problem, low - base, high - base, residual, cost, base, step)
            outcome = solve_model(model, options, {"mip_rel_gap": float(options.gap)}, start=start)
            if outcome.values is not None:
                return finished(base + np.round(outcome.values[:n]),
                                f"a controlled rounding of the {distance.value} table")
        how = (f"no rounding of the {distance.value} table {grid} adds up: the grid table "
               f"nearest it in weighted absolute change")
        near = scaled - base
    else:
        how = "found by the integer program"
        near = problem.values / step - base
    model = _integer_model(problem, k_low - base, k_high - base, residual, near, step)
    outcome = solve_model(model, options, {"mip_rel_gap": float(options.gap)}, start=start)
    if outcome.values is None:
        return _not_found(result, started, info,
                          f"no table {grid} adds up with these senses ({outcome.model_status})")
    return finished(base + np.round(outcome.values[:n]), how)


def _grid_values(k: np.ndarray, step: float) -> np.ndarray:
    """The values k steps make: k / 10^d on a grid of decimals (the double nearest each, where
    k * 10^-d can be one off), else k * step."""
    return k / 10.0 ** step_decimals(step) if _is_decimal_grid(step) else k * step


def _within_steps(problem: CTAProblem, senses: np.ndarray, step: float, steps: int, k_low: np.ndarray,
                  k_high: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The box (k_low, k_high) narrowed to ``steps`` grid steps beyond the grid values around each
    original value, and for a sensitive cell beyond its first safe grid value on its side."""
    scaled = problem.values / step
    near_low = np.floor(scaled + ON_GRID) - steps
    near_high = np.ceil(scaled - ON_GRID) + steps
    cells = problem.sensitive
    up = senses == SENSE_UP
    first_safe = np.where(up, k_low[cells], k_high[cells])
    near_low[cells] = np.where(up, first_safe, first_safe - steps)
    near_high[cells] = np.where(up, first_safe + steps, first_safe)
    return np.maximum(k_low, near_low), np.minimum(k_high, near_high)


def published_or_why(problem: CTAProblem, result: CTAResult, decimals: int,
                     options: SolveOptions = SolveOptions(), distance: Distance = Distance.L1,
                     delta: float = HUBER_DELTA) -> tuple[CTAResult | None, str]:
    """(the table at ``decimals``, its message), or (None, why it cannot be put there): what the
    front ends need to publish a protected table or keep it as solved and say why."""
    return published_at_step_or_why(problem, result, grid_step(decimals), options, distance, delta)


def published_at_step_or_why(problem: CTAProblem, result: CTAResult, step: float,
                             options: SolveOptions = SolveOptions(), distance: Distance = Distance.L1,
                             delta: float = HUBER_DELTA, steps: int | None = None) -> tuple[CTAResult | None, str]:
    """(the table on the grid of ``step``, its message) or (None, why not): at_step for the front ends."""
    try:
        published = at_step(problem, result, step, options, distance, delta, steps)
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
    up_room, down_room = _sensitive_room(problem, step)
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


def _sensitive_room(problem: CTAProblem, step: float) -> tuple[np.ndarray, np.ndarray]:
    """Per sensitive cell: has it a grid value within its bounds beyond its safe value going up,
    and going down?  _grid_box's bounds of the sensitive cells on either side, computed for
    those cells alone (a million-cell table has a fraction of them sensitive)."""
    cells = problem.sensitive
    slack = ON_GRID
    k_low = np.ceil(problem.lower[cells] / step - slack)
    k_high = np.floor(problem.upper[cells] / step + slack)
    fixed = problem.fixed[cells]
    k_low[fixed] = k_high[fixed] = np.round(problem.values[cells][fixed] / step)
    safe_up = np.ceil((problem.values[cells] + problem.upper_protection) / step - slack)
    safe_down = np.floor((problem.values[cells] - problem.lower_protection) / step + slack)
    return np.maximum(k_low, safe_up) <= k_high, k_low <= np.minimum(k_high, safe_down)


def _relations_of(problem: CTAProblem, k: np.ndarray) -> np.ndarray:
    """A k on the grid (whole numbers): the relations' sums with the coefficients rounded to whole
    numbers, in float64 -- each product a whole number, exact below 2^53 and else the double nearest
    it, added in each relation's order (exact while every relation's sums stay below 2^53 grid
    steps); rounded to the nearest step.  One sparse product, no integer copies of the terms."""
    A = problem.relations
    whole = sp.csr_array((np.round(A.data), A.indices, A.indptr), shape=A.shape)
    return (whole @ k).round()


def _integer_model(problem: CTAProblem, d_low: np.ndarray, d_high: np.ndarray, residual: np.ndarray,
                   near: np.ndarray, step: float) -> LinearModel:
    """Columns [d (n, integer), z+ (n), z- (n)], d the table's change in grid steps from the
    rounded table it starts from (small numbers however big the cells are): A d = residual,
    d - z+ + z- = near, cost w step (z+ + z-) -- the weighted absolute change from ``near``
    (the original values or the model's table, in steps from the start)."""
    n = problem.n_cells
    eye = sp.identity(n, format="csr")
    matrix = sp.vstack([sp.hstack([problem.relations, sp.csr_array((problem.n_relations, 2 * n))]),
                        sp.hstack([eye, -eye, eye])], format="csc")
    matrix.sort_indices()
    rows = np.concatenate([residual, near])
    cost = np.concatenate([np.zeros(n), problem.weights * step, problem.weights * step])
    return LinearModel(cost, np.concatenate([d_low, np.zeros(2 * n)]),
                       np.concatenate([d_high, np.full(2 * n, np.inf)]),
                       ColumnMatrix.from_csc(matrix),
                       rows, rows, integer_columns=np.arange(n))


def _rounding_model(problem: CTAProblem, d_low: np.ndarray, d_high: np.ndarray, residual: np.ndarray,
                    cost: CellCost, base: np.ndarray, step: float) -> LinearModel:
    """Columns d (n, integer) with d_high - d_low <= 1: A d = residual and the model's cost, which
    on two grid values is the line through them: (f(high) - f(low)) per step up from low."""
    n = problem.n_cells
    low_cost = cost((base + d_low) * step - problem.values)
    high_cost = cost((base + d_high) * step - problem.values)
    slope = np.where(d_high > d_low, high_cost - low_cost, 0.0)
    matrix = sp.csc_array(problem.relations)
    matrix.sort_indices()
    return LinearModel(slope, d_low.astype(float), d_high.astype(float), ColumnMatrix.from_csc(matrix),
                       residual, residual, integer_columns=np.arange(n))


def model_objective(problem: CTAProblem, values: np.ndarray, distance: Distance, delta: float = HUBER_DELTA) -> float:
    """The objective of the ``distance`` model at the table ``values``: sum w |z| for L1 and SOC,
    sum w z^2 (5.8), sum w (sqrt(z^2 + delta^2) - delta) (5.17)."""
    cost = _model_cost(problem, distance, delta)
    if cost is None:
        return weighted_l1(problem, values)
    return float(np.sum(cost(np.asarray(values, dtype=float) - problem.values)))


def _model_cost(problem: CTAProblem, distance: Distance, delta: float) -> CellCost | None:
    """Each cell's share of the model's objective for a change z (table units), or None for the
    weighted-L1 models: w z^2 (5.8), w (sqrt(z^2 + delta^2) - delta) (5.17)."""
    weights = problem.weights
    if distance is Distance.L2:
        return lambda z: weights * z * z
    if distance is Distance.HUBER:
        return lambda z: weights * (np.sqrt(z * z + delta * delta) - delta)
    return None


def _finished(problem: CTAProblem, result: CTAResult, values: np.ndarray, senses: np.ndarray, started: float,
              how: str, info: dict, gap: float, cost: CellCost | None, same_senses: bool) -> CTAResult:
    """The published table as a result.  An optimal result stays optimal only for the senses it
    took and when the published table is proven within ``gap``: by the method's bound on the
    weighted absolute change (valid at any precision: tables on the grid are tables) for the L1
    models, by the model's own optimum for the others (``cost``: its objective is then the
    published table's); else it is feasible.  finish verifies the table and counts its weighted
    absolute change (its objective) and the cells it changes, once: the gap is taken from those."""
    model_objective = math.nan if cost is None else float(np.sum(cost(values - problem.values)))
    published = finish(problem, result.method, result.status, values, started=started, build_seconds=0.0,
                       solve_seconds=time.perf_counter() - started, senses=senses,
                       info={**info, "precision_from": how}, model_objective=model_objective)
    published = published.replace(timings=_with_publishing(result.timings, published.timings))
    if not published.verified:
        return published
    published_gap = None if result.bound is None else relative_gap(published.objective, result.bound)
    if cost is None:
        within = published_gap is not None and published_gap <= gap
    else:
        within = math.isfinite(result.model_objective) and relative_gap(model_objective, result.model_objective) <= gap
    proven = result.status is Status.OPTIMAL and same_senses and within
    status = Status.FEASIBLE if result.status is Status.OPTIMAL and not proven else result.status
    message = (f"protected table {grid_name(info['step'])}, {published.info['cells_changed']} cells changed; {how}; "
               "verified")
    return published.replace(status=status, message=message, bound=result.bound, gap=published_gap)


def _with_publishing(solved: Mapping[str, float], publishing: Mapping[str, float]) -> dict[str, float]:
    """The method's timings with the publication's seconds added: 'publish', and in 'total'."""
    seconds = float(publishing.get("total", 0.0))
    return {**solved, "publish": seconds, "total": float(solved.get("total", 0.0)) + seconds}


def _not_found(result: CTAResult, started: float, info: dict, why: str) -> CTAResult:
    return CTAResult(method=result.method, status=Status.NOT_FOUND, message=why,
                     timings={"total": time.perf_counter() - started}, info=info)


__all__ = ["MAX_DECIMALS", "at_precision", "at_step", "coarsest_decimals", "fixed_to_grid", "grid_name", "grid_safe",
           "grid_safe_step", "grid_step", "model_objective", "published_at_step_or_why", "published_decimals",
           "published_or_why", "roomless_cells", "step_decimals"]
