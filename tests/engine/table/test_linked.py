"""Linked tables: shared cells identified by dimension names and codes, one relations matrix."""

from __future__ import annotations

import numpy as np
import pytest

from ctadesk.engine.errors import ProblemError
from ctadesk.engine.table.linked import LinkedTables, cell_keys, grand_total
from ctadesk.engine.table.structure import Dimension, TableStructure

REGION = Dimension.flat("Region", ["A", "B"])
SIZE = Dimension.flat("Size", ["s", "l"])
SECTOR = Dimension.flat("Sector", ["i", "x", "y"])


def test_grand_total_is_the_single_root_with_children():
    assert grand_total(REGION) == 2
    assert grand_total(Dimension.flat("F", ["a", "b"], total=None)) is None


def test_cell_keys_leave_out_grand_totals():
    keys = cell_keys(TableStructure((REGION, SIZE)))
    assert keys[0] == (("Region", "A"), ("Size", "s"))
    assert keys[2] == (("Region", "A"),)          # A x Total
    assert keys[-1] == ()                         # the grand total


def test_two_tables_share_their_common_margin():
    linked = LinkedTables.link([TableStructure((REGION, SIZE)), TableStructure((REGION, SECTOR))])
    assert linked.n_cells == 9 + 12 - 3
    assert linked.n_shared == 3                   # A, B and the grand total
    # Region x Size: 3 Region + 3 Size relations; Region x Sector: 4 + 3; the Region relation
    # at the Total column is the same in both and kept once
    relations = linked.relations()
    assert relations.shape == (3 + 3 + 4 + 3 - 1, 18)


def test_gather_scatter_and_additivity_over_unique_cells():
    first, second = TableStructure((REGION, SIZE)), TableStructure((REGION, SECTOR))
    linked = LinkedTables.link([first, second])
    a = first.aggregate(np.array([[1, 2, 0], [3, 4, 0], [0, 0, 0]]))
    b = second.aggregate(np.array([[1, 1, 1, 0], [5, 1, 1, 0], [0, 0, 0, 0]]))
    values = linked.gather([a, b])
    assert abs(linked.relations() @ values).max() == 0
    back = linked.scatter(values)
    np.testing.assert_array_equal(back[0], a)
    np.testing.assert_array_equal(back[1], b)


def test_shared_cells_that_disagree_are_named():
    first, second = TableStructure((REGION, SIZE)), TableStructure((REGION, SECTOR))
    linked = LinkedTables.link([first, second])
    a = first.aggregate(np.array([[1, 2, 0], [3, 4, 0], [0, 0, 0]]))
    b = second.aggregate(np.array([[1, 1, 2, 0], [5, 1, 1, 0], [0, 0, 0, 0]]))
    with pytest.raises(ProblemError, match="table 2, cell Region=A, Sector=Total: value 4 differs from 3"):
        linked.gather([a, b])


def test_table_indices_map_unique_sensitive_cells_back():
    linked = LinkedTables.link([TableStructure((REGION, SIZE)), TableStructure((REGION, SECTOR))])
    shared_a = linked.cell_maps[0][2]             # Region A x Size Total
    assert linked.table_indices(np.array([shared_a]), 0).tolist() == [2]
    assert linked.table_indices(np.array([shared_a]), 1).tolist() == [3]
    assert linked.cell_label(int(shared_a)) == "Region=A"
