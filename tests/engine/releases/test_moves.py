"""Widths proven by moves of counts (moves.py): never wider than the true bounds, and the ordered
marginals and the exact search that use them to skip LPs decide as the plain LP does."""

import itertools
import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ctadesk.engine.releases import CountTable, Release, lp_bounds, optimal_release, ordered_marginals
from ctadesk.engine.releases.moves import proven_widths, withheld_minimal
from tests.engine.releases.strategies import count_tables, enumerate_tables

A, B, C = 0, 1, 2


@st.composite
def releases(draw, n_axes: int) -> Release:
    """Any release: the down-closure of a few random sub-tables."""
    frontier = draw(st.lists(st.sets(st.integers(0, n_axes - 1)), max_size=4))
    return Release.of(n_axes, frontier) if frontier else Release(n_axes, frozenset())


def test_a_move_on_the_withheld_two_way_table_gives_the_frechet_width():
    # [[1, 2], [3, 4]] with both 1-way margins: moving 1 from (1,1) and (2,2) to (1,2) and (2,1)
    # and back keeps them; (1,1) ranges over [1 - 1, 1 + 2] = [0, 3], its Fréchet bounds
    table = CountTable(np.array([[1, 2], [3, 4]]), ["A", "B"])
    release = Release.of(2, [{A}, {B}])
    assert withheld_minimal(release, 2) == [(A, B)]
    assert proven_widths(table, release, np.array([0]), np.inf).tolist() == [3.0]
    assert lp_bounds(table, release, [0]).width.tolist() == [3.0]


def test_nothing_released_leaves_a_cell_free_and_everything_released_pins_it():
    table = CountTable(np.array([[1, 2], [3, 4]]), ["A", "B"])
    assert proven_widths(table, Release(2, frozenset()), np.arange(4), np.inf).tolist() == [np.inf] * 4
    assert proven_widths(table, Release.everything(2), np.arange(4), np.inf).tolist() == [0.0] * 4


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_a_proven_width_is_never_wider_than_the_integer_or_lp_bounds(data):
    table = data.draw(count_tables(max_axes=3, max_categories=3, max_count=2))
    release = data.draw(releases(table.n_axes))
    cells = np.arange(table.counts.size)
    proven = proven_widths(table, release, cells, np.inf)
    if release.frontier and math.comb(table.total + table.counts.size - 1, table.total) <= 100_000:  # few to list
        tables = enumerate_tables(table, release)
        integer = tables.max(axis=0) - tables.min(axis=0)
        assert np.all(proven <= integer)
    assert np.all(proven <= lp_bounds(table, release).width + 1e-9)


def plain_ordered_marginals(table: CountTable, alpha: float, threshold: int, order) -> Release:
    """Paper 001's procedure with DR(R) from the full LP bounds of every at-risk cell."""
    cells = table.at_risk(threshold)
    release = Release(table.n_axes, frozenset())
    for subtable, _ in order:
        if subtable in release:
            continue
        candidate = release.adding(subtable)
        if cells.size and lp_bounds(table, candidate, cells).width.min() < alpha - 1e-9:
            break
        release = candidate
    return release


@settings(max_examples=30, deadline=None)
@given(table=count_tables(max_axes=4, max_categories=3, max_count=6), alpha=st.sampled_from([1, 2, 3, 5]),
       threshold=st.integers(1, 3))
def test_ordered_marginals_decide_as_the_plain_lp(table, alpha, threshold):
    result = ordered_marginals(table, alpha, threshold)
    assert result.release == plain_ordered_marginals(table, alpha, threshold, result.order)


@settings(max_examples=15, deadline=None)
@given(table=count_tables(max_axes=3, max_categories=3, max_count=4), alpha=st.sampled_from([1, 2, 3]))
def test_the_exact_search_finds_the_largest_release_the_plain_lp_allows(table, alpha):
    # every release of a table of at most 3 attributes (the down-sets of its 8 sub-tables)
    cells = table.at_risk(2)
    lattice = [frozenset(s) for size in range(table.n_axes + 1)
               for s in itertools.combinations(range(table.n_axes), size)]
    every = {Release.of(table.n_axes, chosen) if chosen else Release(table.n_axes, frozenset())
             for k in range(len(lattice) + 1) for chosen in itertools.combinations(lattice, k)}
    allowed = [r for r in every if not cells.size or not r.frontier
               or lp_bounds(table, r, cells).width.min() >= alpha - 1e-9]
    found = optimal_release(table, alpha)
    assert found.exact and found.utility == max(len(r) for r in allowed)
    assert all(r in allowed for r in found.releases)
