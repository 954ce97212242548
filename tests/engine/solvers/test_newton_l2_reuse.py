"""Conjugate gradients preconditioned by the last factorisation (newton_l2._NewtonSystems) only
on sparse Newton systems of at least REUSE_RELATIONS relations: below, a new factorisation is
cheaper than scipy's iterations, and the table does not hang on the clock."""

from __future__ import annotations

import itertools
from unittest import mock

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ctadesk.engine.methods import solve
from ctadesk.engine.solvers import newton_l2
from ctadesk.engine.table.generate import office_shapes, office_table


def _no_cg(*args, **kwargs):
    raise AssertionError("conjugate gradients on a system under REUSE_RELATIONS relations")


def _sparse_sized(seed: int):
    """Office tables of 120-600 cells whose first round has more than DENSE_RELATIONS relations:
    the sparse path, under REUSE_RELATIONS."""
    for number, (_, dimensions) in enumerate(office_shapes(12, seed, 120, 600)):
        problem = office_table(dimensions, seed=seed * 1000 + number)
        if newton_l2.DENSE_RELATIONS < problem.n_relations < newton_l2.REUSE_RELATIONS:
            yield problem


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**16))
def test_small_sparse_systems_are_factorised_anew_and_solve_alike_twice(seed):
    for problem in _sparse_sized(seed):
        with mock.patch.object(newton_l2.spla, "cg", _no_cg), \
                mock.patch.object(newton_l2.time, "perf_counter", side_effect=itertools.count(0.0, 1.0)):
            first = solve(problem, "network-l2")     # a clock on which every factorisation takes a second
        again = solve(problem, "network-l2")
        assert first.verified and np.array_equal(first.values, again.values)


def test_the_table_that_paid_for_its_iterations_is_one_of_them():
    # seed 52's first office table of 20-250 cells: nested 2-D (3,2) x (2,3,2), 210 cells, 138
    # defining relations, where 95 cg calls in 50 solves had cost 0.45-0.59 of clarabel's time
    dimensions = office_shapes(24, 52, 20, 250)[0][1]
    problem = office_table(dimensions, seed=52_000)
    assert problem.n_cells == 210
    with mock.patch.object(newton_l2.spla, "cg", _no_cg):
        assert solve(problem, "network-l2").verified
