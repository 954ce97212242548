"""finish's weighted sums: the same figure as a dot product, without BLAS."""

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.solvers.finish import weighted_l1, weighted_sum


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
