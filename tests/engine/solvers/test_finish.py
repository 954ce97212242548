"""finish's weighted sums: the same figure as a dot product, without BLAS."""

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.solvers.finish import cells_changed, distance_and_changes, weighted_l1, weighted_sum


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 30_000), st.sampled_from([1e-9, 1.0, 1e9]))
def test_a_weighted_sum_is_the_dot_product_of_weights_and_terms(seed, size, magnitude):
    rng = np.random.default_rng(seed)
    weights, terms = rng.uniform(0.0, 2.0, size), rng.normal(0.0, magnitude, size)
    exact = math.fsum((weights * terms).tolist())
    scale = float(np.abs(weights) @ np.abs(terms))
    assert abs(weighted_sum(weights, terms) - exact) <= 1e-12 * max(scale, 1e-300)
    assert isinstance(weighted_sum(weights, terms), float)


def test_the_weighted_l1_distance_sums_weighted_absolute_changes():
    problem = CTAProblem(values=[1.0, 2.0, 3.0], relations=[[1.0, 1.0, -1.0]], weights=[1.0, 2.0, 0.5])
    assert weighted_l1(problem, np.array([2.0, 0.0, 3.0])) == 1.0 + 4.0


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 60), st.sampled_from([1e-6, 1.0, 1e9]))
def test_distance_and_changes_are_the_weighted_l1_distance_and_the_cells_changed(seed, size, magnitude):
    """One |x - a| for both figures: the same numbers as weighted_l1 and cells_changed, changes
    around their threshold (1e-9 of max(1, |a|)) included."""
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1, 1, size) * magnitude * (rng.random(size) < 0.8)
    problem = CTAProblem(a, np.zeros((0, size)), weights=rng.uniform(0, 5, size))
    moved = rng.choice([0.0, 0.5e-9, 2e-9, 1e-3], size) * np.maximum(1.0, np.abs(a)) * rng.choice([-1, 1], size)
    values = a + moved
    assert distance_and_changes(problem, values) == (weighted_l1(problem, values), cells_changed(problem, values))


def _verified_table(problem: CTAProblem, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    from ctadesk.engine.result import Status
    from ctadesk.engine.solvers.finish import finish

    result = finish(problem, "test", Status.FEASIBLE, values, started=0.0, build_seconds=0.0, solve_seconds=0.0)
    return result.values, result.senses


def test_finish_keeps_the_verification_of_a_read_only_table_for_that_table_problem_and_senses_alone():
    from ctadesk.engine.solvers.finish import verified_before

    problem = CTAProblem(values=[1.0, 2.0, 3.0], relations=[[1.0, 1.0, -1.0]], sensitive=[0], upper_protection=[0.5],
                         lower_protection=[0.5])
    table = np.array([1.5, 1.5, 3.0])
    table.flags.writeable = False
    values, senses = _verified_table(problem, table)
    assert values is table and verified_before(problem, table, senses).ok
    assert verified_before(problem, table, -senses) is None                 # other senses
    assert verified_before(problem.replace(weights=[2.0, 1.0, 1.0]), table, senses) is None  # another problem
    writeable = np.array([1.5, 1.5, 3.0])
    values, senses = _verified_table(problem, writeable)
    assert verified_before(problem, writeable, senses) is None             # it could change after the check
    view = np.array([1.5, 1.5, 3.0, 0.0])[:3]
    view.flags.writeable = False
    values, senses = _verified_table(problem, view)
    assert verified_before(problem, view, senses) is None                  # its base could change


def test_a_kept_verification_goes_with_its_table():
    import gc

    from ctadesk.engine.solvers import finish

    problem = CTAProblem(values=[1.0, 2.0, 3.0], relations=[[1.0, 1.0, -1.0]])
    table = np.array([1.0, 2.0, 3.0])
    table.flags.writeable = False
    _verified_table(problem, table)
    key = id(table)
    assert key in finish._VERIFIED._kept
    del table
    gc.collect()
    assert key not in finish._VERIFIED._kept
