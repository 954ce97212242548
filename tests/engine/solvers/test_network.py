"""The network form of a table's relations (solvers/network.py): cells as arcs whose node balances
are the kept relations, and the sense bounds shared by the L1 and L2 methods."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from ctadesk.engine.problem import BOUND_RTOL, SENSE_DOWN, SENSE_UP, CTAProblem
from ctadesk.engine.solvers.network import defining_relations, network_form, sense_bounds
from ctadesk.engine.table.generate import cox_table
from tests.engine.solvers.network_tables import hierarchical_table


def node_balance(form, flow: np.ndarray) -> np.ndarray:
    """Out minus in of every node (the ground last) for a flow on the cells' arcs."""
    balance = np.zeros(form.n_nodes)
    np.add.at(balance, form.tail, flow)
    np.subtract.at(balance, form.head, flow)
    return balance


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 12), st.integers(2, 12))
def test_node_balances_are_the_signed_relations_of_a_2d_table(seed, rows, columns):
    _, problem = cox_table((rows, columns), seed=seed % 1000)
    form = network_form(problem)
    assert form is not None and form.kept.size == problem.n_relations
    flow = np.random.default_rng(seed).normal(size=problem.n_cells)
    balance = node_balance(form, flow)
    np.testing.assert_allclose(balance[:-1], form.sign * (problem.relations @ flow)[form.kept], atol=1e-9)
    assert balance.sum() == pytest.approx(0.0, abs=1e-9)


def parity_signs(relations: sp.csr_array) -> np.ndarray | None:
    """A reference signing of relations in which no cell lies in more than two: one relation of
    a cell's two keeps its sign and the other flips it when their coefficients agree, the first
    relation of each connected group keeps its sign; None when no signing fits.  Walked one
    relation at a time, as a plain breadth-first search."""
    by_cell = relations.tocsc()
    by_relation = relations.tocsr()
    sign = np.zeros(relations.shape[0])
    for root in range(relations.shape[0]):
        if sign[root]:
            continue
        sign[root] = 1.0
        queue = [root]
        while queue:
            r = queue.pop()
            for cell, coefficient in zip(*by_relation[[r]].nonzero()[1:], by_relation[[r]].data):
                column = by_cell[:, [cell]]
                for other, other_coefficient in zip(column.indices, column.data):
                    if other == r:
                        continue
                    wanted = -sign[r] * coefficient * other_coefficient
                    if sign[other] == 0:
                        sign[other] = wanted
                        queue.append(other)
                    elif sign[other] != wanted:
                        return None
    return sign


@st.composite
def sparse_networks(draw) -> CTAProblem:
    """Relations with coefficients +-1 in which each cell lies in zero, one or two of them:
    several groups, duplicate pairs and signings that do not fit among them."""
    m = draw(st.integers(1, 12))
    n = draw(st.integers(1, 40))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    rows, cells = [], []
    for cell in range(n):
        for r in rng.choice(m, size=min(int(rng.integers(0, 3)), m), replace=False):
            rows.append(r)
            cells.append(cell)
    data = rng.choice([-1.0, 1.0], size=len(rows))
    return CTAProblem(np.zeros(n), sp.csr_array((data, (rows, cells)), shape=(m, n)))


@settings(max_examples=200, deadline=None)
@given(sparse_networks())
def test_the_signing_is_the_breadth_first_one(problem):
    form = network_form(problem)
    expected = parity_signs(problem.relations)
    assert (form is None) == (expected is None)
    if form is not None:
        np.testing.assert_array_equal(form.sign, expected)
        flow = np.random.default_rng(0).normal(size=problem.n_cells)
        np.testing.assert_allclose(node_balance(form, flow)[:-1], form.sign * (problem.relations @ flow), atol=1e-9)


def test_tables_that_differ_in_one_sign_are_not_taken_for_each_other():
    _, problem = cox_table((3, 4), seed=1)
    flipped = problem.relations.copy()
    flipped.data[0] = -flipped.data[0]
    first = network_form(problem)
    assert first is not None
    assert network_form(CTAProblem(problem.values, flipped, rhs=flipped @ problem.values)) is None
    assert network_form(problem) is first


def test_a_1h2d_table_keeps_all_but_the_subtotals_row_relations():
    problem = hierarchical_table(1)
    form = network_form(problem)
    assert form is not None and form.kept.size == problem.n_relations - 3     # 3 subtotals
    deviation = np.random.default_rng(1).normal(size=problem.n_cells)
    np.testing.assert_allclose(node_balance(form, deviation)[:-1],
                               form.sign * (problem.relations @ deviation)[form.kept], atol=1e-9)


def test_a_3d_table_is_not_a_network(monkeypatch):
    """Every cell of a 3-D table lies in three relations: no relation is dropped to find out."""
    import ctadesk.engine.solvers.network as network

    def no_dropping(relations):
        raise AssertionError("_uncrowded tried on a 3-D table")

    monkeypatch.setattr(network, "_uncrowded", no_dropping)
    _, problem = cox_table((5, 4, 3), seed=7)          # a table no other test remembers the form of
    assert network_form(problem) is None


def test_sense_bounds_put_every_sensitive_cell_on_its_safe_side():
    problem = hierarchical_table(2)
    senses = np.where(np.arange(problem.sensitive.size) % 2 == 0, SENSE_UP, SENSE_DOWN)
    lower, upper = sense_bounds(problem, senses)
    up, down = problem.sensitive[senses == SENSE_UP], problem.sensitive[senses == SENSE_DOWN]
    assert np.all(lower[up] >= problem.upper_protection[senses == SENSE_UP])
    assert np.all(upper[down] <= -problem.lower_protection[senses == SENSE_DOWN])
    others = np.setdiff1d(np.arange(problem.n_cells), problem.sensitive)
    np.testing.assert_array_equal(lower[others], (problem.lower - problem.values)[others])
    np.testing.assert_array_equal(upper[others], (problem.upper - problem.values)[others])


def test_a_safe_value_a_hair_beyond_its_bound_sits_on_the_bound():
    values = np.array([100.0, 50.0, 150.0])
    hair = 0.5 * BOUND_RTOL * 100.0  # within the rounding tolerance of a value of 100
    problem = CTAProblem(values, [[1.0, 1.0, -1.0]], lower=[90.0, 0.0, 0.0], upper=[110.0 - hair, 1e3, 1e3],
                         sensitive=[0], lower_protection=[5.0], upper_protection=[10.0])
    lower, upper = sense_bounds(problem, np.array([SENSE_UP]))
    assert lower[0] == upper[0] == problem.upper[0] - values[0]
    np.testing.assert_array_equal(lower[1:], [-50.0, -150.0])


def _defining_by_unique(relations):
    """defining_relations as it was first written: each total's first relation by np.unique."""
    A = sp.csr_array(relations)
    negative = A.data < 0
    row = np.repeat(np.arange(A.shape[0]), np.diff(A.indptr))[negative]
    cell = A.indices[negative]
    single = np.bincount(row, minlength=A.shape[0]) == 1
    total_of = np.full(A.shape[0], -1)
    total_of[row[single[row]]] = cell[single[row]]
    candidates = np.flatnonzero(single)
    _, first = np.unique(total_of[candidates], return_index=True)
    kept = ~single
    kept[candidates[first]] = True
    return kept


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 12).flatmap(lambda m: st.integers(1, 15).flatmap(
    lambda n: arrays(np.int8, (m, n), elements=st.sampled_from([0, 0, 1, 1, -1])))))
def test_defining_relations_keep_each_totals_first_relation_and_every_other(coefficients):
    relations = sp.csr_array(coefficients.astype(float))
    assert np.array_equal(defining_relations(relations), _defining_by_unique(relations))
    assert np.array_equal(defining_relations(coefficients.astype(float)), _defining_by_unique(relations))
