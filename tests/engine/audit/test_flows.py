"""Max-flow tables for batches of interval ends (flows.py) against scipy linprog: a table is
found exactly when the LP says the batch can sit at its outer bounds together, and every table
found is one the attacker cannot rule out."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog
from scipy.sparse import csgraph

from ctadesk.engine.audit.batches import independent_batch
from ctadesk.engine.audit.flows import FEASIBILITY, FlowTables
from ctadesk.engine.audit.model import build_model
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.table.structure import Dimension, TableStructure


def model_of(rows: int, columns: int, seed: int, hierarchical: bool = False, slack: float = 0.3):
    """A 2-D table with margins (1H2D: ``columns`` codes under A and two under B; network_form
    finds the network of such a table from three rows on), its inner cells in a box of +-slack around their values
    (some unbounded above), and its attacker model."""
    rng = np.random.default_rng(seed)
    if hierarchical:
        hierarchy = Dimension.from_levels("C", [1, *([2] * columns), 1, 2, 2],
                                          ["A", *(f"A{k}" for k in range(columns)), "B", "B1", "B2"])
        structure = TableStructure((Dimension.flat("R", [str(r) for r in range(rows)]), hierarchy))
    else:
        structure = TableStructure.flat(rows, columns)
    inner = structure.inner_mask()
    raw = np.where(inner, rng.integers(0, 50, structure.n_cells), 0).astype(float)
    values = structure.aggregate(raw)
    lower = np.maximum(values * (1 - slack * rng.random(values.size)), 0)
    upper = values * (1 + slack * rng.random(values.size))
    upper[rng.random(values.size) < 0.3] = np.inf
    problem = CTAProblem(values, structure.relations(), lower=0.0)
    return build_model(problem, np.minimum(lower, values), np.maximum(upper, values))


def lp_attains(model, batch: np.ndarray, side: int) -> bool:
    """Does some table of the model hold every cell of ``batch`` at its outer bound (linprog)?"""
    outer = model.outer_upper if side > 0 else model.outer_lower
    lower, upper = model.lower.copy(), model.upper.copy()
    lower[batch] = upper[batch] = outer[batch]
    bounds = [(lo if np.isfinite(lo) else None, hi if np.isfinite(hi) else None) for lo, hi in zip(lower, upper)]
    result = linprog(np.zeros(model.n_columns), A_eq=model.matrix.toarray(), b_eq=model.rhs, bounds=bounds,
                     method="highs")
    return result.status == 0


@settings(max_examples=60, deadline=None)
@given(rows=st.integers(1, 6), columns=st.integers(2, 6), seed=st.integers(0, 2**32 - 1),
       hierarchical=st.booleans(), side=st.sampled_from([-1, 1]), share=st.floats(0.05, 1.0))
def test_a_flow_table_exists_exactly_when_the_lp_finds_one(rows, columns, seed, hierarchical, side, share):
    model = model_of(max(rows, 3) if hierarchical else rows, columns, seed, hierarchical)
    flows = FlowTables.of(model)
    assert flows is not None
    rng = np.random.default_rng(seed)
    finite = np.flatnonzero(np.isfinite(model.outer_upper if side > 0 else model.outer_lower))
    batch = np.sort(rng.choice(finite, size=max(1, int(share * finite.size)), replace=False))
    table = flows.table(batch, side)
    assert (table is not None) == lp_attains(model, batch, side)
    if table is not None:
        outer = model.outer_upper if side > 0 else model.outer_lower
        assert np.array_equal(table[batch], outer[batch])
        assert np.all(table >= model.lower) and np.all(table <= model.upper)
        assert np.abs(model.matrix.toarray() @ table - model.rhs).max() <= FEASIBILITY


def test_a_cell_reaches_the_bound_its_column_total_puts_on_it():
    # 2 x 2 with margins [[3, 5, 8], [4, 6, 10], [7, 11, 18]]; every cell in [0, 2 v] but cell
    # (1,1), unbounded above: column 1 (at most 14, (2,1) >= 0) allows 14, row 1 allows 16
    structure = TableStructure.flat(2, 2)
    values = structure.aggregate(np.array([3, 5, 0, 4, 6, 0, 0, 0, 0], float))
    problem = CTAProblem(values, structure.relations(), lower=0.0)
    upper = 2 * values
    upper[0] = np.inf
    model = build_model(problem, np.zeros(9), upper)
    table = FlowTables.of(model).table(np.array([0]), +1)
    assert model.outer_upper[0] * model.unit == 14
    assert table[0] * model.unit == 14 and np.abs(model.matrix @ table - model.rhs).max() <= FEASIBILITY
    assert np.all(table >= model.lower) and np.all(table <= model.upper)


def test_a_table_that_is_not_a_network_gets_no_flow_tables():
    structure = TableStructure.flat(2, 2, 2)
    values = structure.aggregate(np.where(structure.inner_mask(), 1.0, 0.0))
    problem = CTAProblem(values, structure.relations(), lower=0.0)
    assert FlowTables.of(build_model(problem, np.zeros(values.size), 2 * values)) is None


@pytest.mark.parametrize("side", [-1, 1])
def test_a_batch_with_an_unbounded_end_gets_no_table(side):
    model = model_of(2, 3, seed=1, slack=0.5)
    outer = model.outer_upper if side > 0 else model.outer_lower
    infinite = np.flatnonzero(~np.isfinite(outer))
    if infinite.size:
        assert FlowTables.of(model).table(infinite[:1], side) is None


@pytest.mark.parametrize("hierarchical", [False, True])
def test_the_arcs_are_found_in_the_flow_alike_by_mask_and_by_binary_search(monkeypatch, hierarchical):
    import ctadesk.engine.audit.flows as flows_module

    model = model_of(5, 6, seed=3, hierarchical=hierarchical)
    batch = independent_batch(model.matrix, np.flatnonzero(np.isfinite(model.outer_upper)), np.random.default_rng(0))
    by_mask = FlowTables.of(model).table(batch, +1)
    monkeypatch.setattr(flows_module, "MASK_KEYS", 0)
    by_search = FlowTables.of(model).table(batch, +1)
    assert by_mask is not None and by_search is not None
    assert np.array_equal(by_mask, by_search)


@settings(max_examples=40, deadline=None)
@given(rows=st.integers(1, 6), columns=st.integers(2, 6), seed=st.integers(0, 2**32 - 1),
       hierarchical=st.booleans())
def test_a_small_imbalance_sent_along_a_tree_is_routed_whenever_cells_with_room_join_its_nodes(
        rows, columns, seed, hierarchical):
    # the last pass of a table (FlowTables._tree_route): an imbalance of about 1e-6, summing to
    # zero, on the nodes that have cells
    model = model_of(max(rows, 3) if hierarchical else rows, columns, seed, hierarchical)
    flows = FlowTables.of(model)
    cells, n = flows.cells, flows.n_nodes
    has_cells = np.bincount(np.r_[flows.tail[cells], flows.head[cells]], minlength=n) > 0
    left = np.where(has_cells, np.random.default_rng(seed).random(n) * 1e-6, 0.0)
    left[has_cells] -= left[has_cells].mean()
    given = float(left[left > 0].sum())
    moved = flows._tree_route(model.truth, cells, left, given)
    room = np.minimum(model.upper[cells] - model.truth[cells], model.truth[cells] - model.lower[cells])
    joined = cells[room >= 2 * given]
    graph = sp.csr_array((np.ones(joined.size), (flows.tail[joined], flows.head[joined])), shape=(n, n))
    parts = csgraph.connected_components(graph, directed=False)[1]
    assert (moved is not None) == (np.unique(parts[has_cells]).size == 1)
    if moved is not None:
        changed, step = moved
        sent = np.bincount(flows.tail[changed], step, n) - np.bincount(flows.head[changed], step, n)
        assert np.abs(sent - left).max() < 1e-12  # each node sends out what it held
        x = model.truth.copy()
        x[changed] += step
        assert np.all(x >= model.lower) and np.all(x <= model.upper)
