import time

import numpy as np
import pytest

from ctadesk.engine.errors import ProblemError
from ctadesk.engine.table.structure import Dimension, TableStructure
from tests.timing import timed


def brute_force_relations(structure):
    """One relation per (dimension, parent code, other coordinates), by loops."""
    shape = structure.shape
    rows = []
    for d, dim in enumerate(structure.dimensions):
        for parent in dim.parent_codes:
            children = np.flatnonzero(dim.parents == parent)
            for other in np.ndindex(*(shape[:d] + shape[d + 1:])):
                row = np.zeros(structure.n_cells)
                idx = [*other[:d], parent, *other[d:]]
                row[np.ravel_multi_index(idx, shape)] = -1
                for child in children:
                    idx[d] = child
                    row[np.ravel_multi_index(idx, shape)] += 1
                rows.append(row)
    return np.array(rows)


@pytest.mark.parametrize("structure", [
    TableStructure.flat(3, 4),
    TableStructure.flat(2, 3, 4),
    TableStructure.flat(2, 2, 2, 3),
    TableStructure((Dimension.from_levels("Region", [1, 2, 2, 1, 2, 2, 2], list("ABCDEFG")),
                    Dimension.flat("Size", ["s", "m", "l"], total_first=True))),
])
def test_relations_match_brute_force(structure):
    assert np.array_equal(structure.relations().toarray(), brute_force_relations(structure))


def test_flat_2d_has_one_relation_per_row_and_column():
    A = TableStructure.flat(3, 4).relations()
    assert A.shape == (4 + 5, 20)


def test_aggregate_makes_table_additive():
    structure = TableStructure((Dimension.from_levels("R", [1, 2, 2, 1, 2], list("abcde")),
                                Dimension.flat("C", ["x", "y"]), Dimension.flat("L", ["p", "q", "r"])))
    rng = np.random.default_rng(1)
    values = structure.aggregate(rng.integers(0, 9, structure.shape))
    assert np.allclose(structure.relations() @ values, 0)
    assert values[-1] > 0


@timed
def test_thousand_by_thousand_builds_in_under_a_second(timed):
    structure = TableStructure.flat(1000, 1000)
    start = time.perf_counter()
    A = structure.relations()
    assert not timed or time.perf_counter() - start < 1.0
    assert A.shape == (2002, 1001 * 1001)


def test_hierarchy_from_levels_rejects_a_jump_of_two_levels():
    with pytest.raises(ProblemError, match="'B' is at level 3"):
        Dimension.from_levels("R", [1, 3], ["A", "B"])


def test_duplicate_codes_are_named():
    with pytest.raises(ProblemError, match="'a' appears twice"):
        Dimension.flat("R", ["a", "a"])


def test_labels_name_codes():
    structure = TableStructure((Dimension.flat("Region", ["N", "S"]), Dimension.flat("Size", ["1", "2"])))
    assert structure.cell_label(1) == "Region=N, Size=2"
    assert structure.relation_label(0) == "Region=Total = sum of its parts at Size=1"
