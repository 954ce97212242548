"""The sensitive cells' room on a grid, computed for those cells alone (precision._sensitive_room),
against the whole table's grid box on each side it was taken from before (precision._grid_box), and the
relations' sums at a table of grid steps (precision._relations_of) against integer sums."""

import numpy as np
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from ctadesk.engine.problem import SENSE_DOWN, SENSE_UP, CTAProblem
from ctadesk.engine.publish.precision import (
    _grid_box,
    _relations_of,
    _sensitive_room,
    coarsest_decimals,
    grid_step,
    roomless_cells,
)

STEPS = (1.0, 0.1, 0.01, 0.5, 5.0, 100.0)


@st.composite
def problems(draw) -> tuple[CTAProblem, float]:
    """Tables of values on a grid of tenths with bounds and levels anywhere near them: many cells
    whose safe value has no grid value inside their bounds at a coarse step, some fixed ones (and
    some sensitive ones fixed, with no level)."""
    n = draw(st.integers(1, 30))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    values = np.round(rng.uniform(0, 200, n), 1)
    lower = np.where(rng.random(n) < 0.2, -np.inf, values - rng.uniform(0, 12, n))
    upper = np.where(rng.random(n) < 0.2, np.inf, values + rng.uniform(0, 12, n))
    if draw(st.booleans()):     # bounds on a grid too, where a hair of slack decides
        lower, upper = np.floor(lower * 10) / 10, np.ceil(upper * 10) / 10
    sensitive = np.flatnonzero(rng.random(n) < 0.5)
    fixed = np.zeros(n, bool)
    fixed[rng.permutation(np.setdiff1d(np.arange(n), sensitive))[:draw(st.integers(0, 3))]] = True
    a = values[sensitive]
    # each level reaches past its bound at random, never both (the problem would refuse the cell)
    lpl = np.minimum(rng.uniform(0.1, 15, sensitive.size), np.where(np.isfinite(lower[sensitive]),
                                                                    a - lower[sensitive], 15))
    upl = rng.uniform(0.1, 15, sensitive.size)
    # a sensitive cell may be fixed where it has no level (its box is its value alone)
    held = rng.random(sensitive.size) < 0.15
    fixed[sensitive[held]] = True
    lpl[held] = upl[held] = 0.0
    problem = CTAProblem(values, sp.csr_array((0, n)), lower=lower, upper=upper, sensitive=sensitive,
                         lower_protection=lpl, upper_protection=upl, fixed=fixed)
    return problem, draw(st.sampled_from(STEPS))


@settings(max_examples=300, deadline=None)
@given(case=problems())
def test_the_room_of_the_sensitive_cells_is_the_whole_boxes(case):
    problem, step = case
    cells = problem.sensitive
    expected = []
    for side in (SENSE_UP, SENSE_DOWN):
        k_low, k_high = _grid_box(problem, np.full(cells.size, side, np.int8), step)
        expected.append(k_low[cells] <= k_high[cells])
    up_room, down_room = _sensitive_room(problem, step)
    assert np.array_equal(up_room, expected[0]) and np.array_equal(down_room, expected[1])


def test_a_cell_with_no_grid_value_beyond_its_safe_value_has_no_room_on_that_side():
    # 10 within [9.5, 10.45], up by 0.4 or down by 0.2: 10.4 or 9.8 on a grid of tenths, no whole number
    problem = CTAProblem([10.0, 10.0], sp.csr_array([[1.0, -1.0]]), lower=[9.5, 0.0], upper=[10.45, 20.0],
                         sensitive=[0], lower_protection=[0.2], upper_protection=[0.4])
    assert [room.tolist() for room in _sensitive_room(problem, 0.1)] == [[True], [True]]
    assert [room.tolist() for room in _sensitive_room(problem, 1.0)] == [[False], [False]]


def _has_room(value: float, lower: float, upper: float, up: float, down: float, sense: int, fixed: bool,
              step: float) -> bool:
    """An independent count: some multiple of ``step`` inside [lower, upper] (for a fixed cell: its
    value's grid value) lies at or beyond value + up going up, or at or below value - down going
    down, on a side the sense allows; found by walking the grid from below the lower safe value to above the
    upper one, one step at a time (a bound is never beyond the value, so past those nothing new)."""
    tol = 1e-6 * step
    for k in range(int(np.floor((value - down) / step)) - 2, int(np.ceil((value + up) / step)) + 3):
        x = k * step
        if fixed and k != round(value / step):      # a fixed cell stays at its value's grid value
            continue
        if not fixed and not (lower - tol <= x <= upper + tol):
            continue
        if sense != SENSE_DOWN and x >= value + up - tol:
            return True
        if sense != SENSE_UP and x <= value - down + tol:
            return True
    return False


@settings(max_examples=200, deadline=None)
@given(case=problems(), sense_seed=st.integers(0, 2 ** 32 - 1))
def test_the_roomless_cells_are_those_no_grid_value_protects(case, sense_seed):
    problem, step = case
    senses = np.random.default_rng(sense_seed).choice([0, SENSE_UP, SENSE_DOWN], problem.n_sensitive).astype(np.int8)
    try:
        problem = problem.with_senses(senses)
    except ValueError:          # a sense towards a side the bounds close: the problem refuses it
        return
    cells, allowed = problem.sensitive, problem.effective_senses
    expected = [int(cell) for cell, up, down, sense in
                zip(cells, problem.upper_protection, problem.lower_protection, allowed, strict=True)
                if not _has_room(problem.values[cell], problem.lower[cell], problem.upper[cell], up, down, sense,
                                 bool(problem.fixed[cell]), step)]
    assert roomless_cells(problem, step).tolist() == expected


def test_a_table_whose_safe_values_are_its_bounds_is_solved_at_the_decimals_they_have():
    # Cox's recipe (level = capacity = 20 % of the value): the safe values 3.6 and 2.4 are the bounds
    problem = CTAProblem([3.0, 5.0, 8.0], sp.csr_array([[1.0, 1.0, -1.0]]), lower=[2.4, 4.0, 6.4],
                         upper=[3.6, 6.0, 9.6], sensitive=[0, 1], lower_protection=[0.6, 1.0],
                         upper_protection=[0.6, 1.0])
    assert roomless_cells(problem, grid_step(0)).tolist() == [0]
    assert coarsest_decimals(problem, 0)[0] == 1 and coarsest_decimals(problem, 0)[1].tolist() == [0]
    assert coarsest_decimals(problem, 1)[0] == 1 and not coarsest_decimals(problem, 1)[1].size
    # a cell no precision gives room (a safe value past its bound) leaves the decimals asked
    closed = problem.replace(upper=[3.6000006, 6.0, 9.6], lower=[2.3999994, 4.0, 6.4],
                             upper_protection=[0.6000005, 1.0], lower_protection=[0.6000005, 1.0])
    assert coarsest_decimals(closed, 0)[0] == 0 and coarsest_decimals(closed, 0)[1].tolist() == [0]
    nearly = problem.replace(upper=[3.600015, 6.0, 9.6], lower=[2.399985, 4.0, 6.4],
                             upper_protection=[0.60001, 1.0], lower_protection=[0.60001, 1.0])
    assert coarsest_decimals(nearly, 0)[0] == 5


def _integer_sums(relations: sp.csr_array, k: np.ndarray) -> np.ndarray:
    """The relations' sums at k the way they were taken before: int64 products, summed in float64."""
    terms = np.round(relations.data).astype(np.int64) * k.astype(np.int64)[relations.indices]
    rows = np.repeat(np.arange(relations.shape[0]), np.diff(relations.indptr))
    return np.bincount(rows, weights=terms, minlength=relations.shape[0]).round()


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), cells=st.integers(1, 40), relations=st.integers(1, 12),
       magnitude=st.sampled_from([10, 10 ** 6, 10 ** 12, 2 ** 50]))
def test_the_sums_at_grid_steps_are_the_integer_sums(seed, cells, relations, magnitude):
    rng = np.random.default_rng(seed)
    dense = rng.choice([0.0, 0.0, 1.0, -1.0, 2.0, -3.0], size=(relations, cells))
    dense[dense != 0] += rng.choice([0.0, 1e-13], size=int(np.count_nonzero(dense)))   # whole up to 1e-12
    k = np.round(rng.uniform(-magnitude, magnitude, cells))
    problem = CTAProblem(np.zeros(cells), sp.csr_array(dense), rhs=np.zeros(relations))
    assert np.array_equal(_relations_of(problem, k), _integer_sums(problem.relations, k))
