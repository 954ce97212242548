"""LP, MILP and Fréchet bounds against brute-force enumeration and against each other."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctadesk.engine.errors import ProblemError
from ctadesk.engine.releases import CountTable, Release, frechet_bounds, lp_bounds
from tests.engine.releases.strategies import count_tables, decomposable_releases, enumerate_tables

A, B, C = 0, 1, 2
#: a 3 x 3 x 2 table of 5 records
SMALL = CountTable(np.array([[[1, 0], [0, 1], [0, 0]],
                             [[0, 0], [1, 0], [0, 0]],
                             [[0, 1], [0, 0], [1, 0]]]), ["A", "B", "C"])
RELEASES = {
    "no-three-way": Release.of(3, [{A, B}, {B, C}, {A, C}]),
    "AB,BC": Release.of(3, [{A, B}, {B, C}]),
    "one-way": Release.of(3, [{A}, {B}, {C}]),
    "AB,C": Release.of(3, [{A, B}, {C}]),
}


@pytest.mark.parametrize("name", sorted(RELEASES))
def test_integer_bounds_are_the_range_of_every_table_with_the_margins(name):
    release = RELEASES[name]
    tables = enumerate_tables(SMALL, release)
    integer = lp_bounds(SMALL, release, integer=True)
    assert np.array_equal(integer.lower, tables.min(axis=0)) and np.array_equal(integer.upper, tables.max(axis=0))


@pytest.mark.parametrize("name", sorted(RELEASES))
def test_lp_bounds_contain_the_integer_bounds(name):
    release = RELEASES[name]
    tables = enumerate_tables(SMALL, release)
    real = lp_bounds(SMALL, release)
    assert np.all(real.lower <= tables.min(axis=0) + 1e-9) and np.all(real.upper >= tables.max(axis=0) - 1e-9)


def test_lp_bounds_of_the_full_table_are_the_counts():
    bounds = lp_bounds(SMALL, Release.everything(3))
    assert np.array_equal(bounds.lower, SMALL.counts.reshape(-1)) and np.array_equal(bounds.width, np.zeros(18))


def test_nothing_released_leaves_cells_unbounded_above():
    bounds = frechet_bounds(SMALL, Release(3, frozenset()), [0])
    assert bounds.lower[0] == 0 and bounds.upper[0] == np.inf
    assert lp_bounds(SMALL, Release(3, frozenset()), [0]).upper[0] == np.inf


def test_frechet_bounds_refuse_a_release_that_is_not_decomposable():
    with pytest.raises(ProblemError, match="not decomposable"):
        frechet_bounds(SMALL, RELEASES["no-three-way"])


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_frechet_bounds_equal_lp_bounds_on_decomposable_releases(data):
    table = data.draw(count_tables())
    release = data.draw(decomposable_releases(table.n_axes))
    closed, real = frechet_bounds(table, release), lp_bounds(table, release)
    assert np.allclose(closed.lower, real.lower) and np.allclose(closed.upper, real.upper)


def test_frechet_bounds_are_sharp_over_integer_tables():
    release = RELEASES["AB,BC"]
    tables = enumerate_tables(SMALL, release)
    closed = frechet_bounds(SMALL, release)
    assert np.array_equal(closed.lower, tables.min(axis=0)) and np.array_equal(closed.upper, tables.max(axis=0))
