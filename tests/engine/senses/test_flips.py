"""The single-flip descent ends one-flip optimal, never worse than its start, by an independent LP."""

import threading

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctadesk.engine.problem import SENSE_FREE
from ctadesk.engine.result import SolveOptions, Status
from ctadesk.engine.senses.flips import flip_descent
from ctadesk.engine.table.generate import cox_table
from tests.crosscheck.checker import check_table, solve_fixed_senses, weighted_l1

SHAPES = [(3, 4), (5, 6), (2, 3, 3), (3, 3, 4)]


def _start(problem, rng: np.random.Generator) -> np.ndarray:
    """Random senses for the free cells, the problem's own elsewhere."""
    senses = np.asarray(problem.effective_senses).copy()
    free = senses == SENSE_FREE
    senses[free] = rng.choice([-1, 1], size=int(free.sum()))
    return senses.astype(np.int8)


def _optimum(problem, senses) -> float:
    solution = solve_fixed_senses(problem, senses)
    return solution.objective if solution.status == "optimal" else np.inf


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shape=st.sampled_from(SHAPES), seed=st.integers(0, 10_000), scale=st.sampled_from([1e-3, 1.0, 1e6]))
def test_the_descent_ends_one_flip_optimal_and_no_worse_than_its_start(shape, seed, scale):
    """Checked with scipy's linprog on the fixed-sense LP (tests/crosscheck/checker.py): the table
    is protected, costs what its senses' LP optimum costs, no more than the start's, and no single
    flip of a free sense lowers it."""
    _, problem = cox_table(shape, seed=seed)
    problem = problem.replace(values=problem.values * scale, lower=problem.lower * scale,
                              upper=problem.upper * scale, rhs=problem.rhs * scale,
                              upper_protection=problem.upper_protection * scale,
                              lower_protection=problem.lower_protection * scale)
    start = _start(problem, np.random.default_rng(seed))
    result = flip_descent(problem, start)
    assert result.verified, result.message
    assert result.info["local_optimum"]
    assert result.info["cut_off"] <= result.info["evaluations"] - result.info["flips"]
    assert check_table(problem, result.values).ok
    objective = weighted_l1(problem, result.values)
    tolerance = 1e-7 * max(objective, 1e-300)
    assert objective <= _optimum(problem, start) + tolerance
    senses = np.asarray(result.senses)
    own = _optimum(problem, senses)     # finite: the checker solves the table's own senses too
    assert np.isfinite(own) and objective <= own + tolerance
    for k in np.flatnonzero(problem.effective_senses == SENSE_FREE):
        flipped = senses.copy()
        flipped[k] = -flipped[k]
        assert _optimum(problem, flipped) >= objective - tolerance, f"flipping sensitive cell {k} is cheaper"


def test_most_refused_flips_stop_at_the_table_s_cost():
    """On a 3-D table the dual simplex proves most flips dearer before it ends (flips.py's
    docstring); the test above checks that no cheaper flip was refused that way."""
    _, problem = cox_table((6, 6, 6), seed=3)
    result = flip_descent(problem, _start(problem, np.random.default_rng(3)))
    assert result.info["local_optimum"]
    refused = result.info["evaluations"] - result.info["flips"]
    assert refused > 0 and result.info["cut_off"] >= refused / 2


def test_a_stopped_descent_stops_at_once():
    _, problem = cox_table((5, 6), seed=3)
    stop = threading.Event()
    stop.set()
    result = flip_descent(problem, _start(problem, np.random.default_rng(1)), SolveOptions(stop=stop))
    assert result.status is Status.CANCELLED
    assert result.info["evaluations"] == 0


def test_a_descent_whose_start_never_solves_claims_no_table():
    _, problem = cox_table((5, 6), seed=3)
    result = flip_descent(problem, _start(problem, np.random.default_rng(1)), SolveOptions(time_limit=1e-9))
    assert result.values is None and not result.verified
    assert result.status is Status.TIME_LIMIT
