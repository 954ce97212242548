import numpy as np
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.table.guess import _flat_signatures, _row_signatures, guess_structure
from ctadesk.engine.table.structure import TableStructure

shapes = st.lists(st.integers(2, 6), min_size=2, max_size=3).map(tuple)


@settings(max_examples=60, deadline=None)
@given(shape=shapes, seed=st.integers(0, 2**32 - 1))
def test_a_flat_tables_signatures_from_the_probes_are_those_of_its_matrix(shape, seed):
    probes = np.random.default_rng(seed).random((int(np.prod(shape)), 2))
    relations = TableStructure.flat(*(size - 1 for size in shape)).relations()
    assert np.allclose(_flat_signatures(shape, probes), _row_signatures(relations, probes), rtol=1e-9, atol=1e-6)


def bare(relations: sp.csr_array, seed: int) -> CTAProblem:
    """A table of those relations, rows shuffled and some negated, no layout."""
    rng = np.random.default_rng(seed)
    signs = rng.choice([-1.0, 1.0], relations.shape[0])
    shuffled = sp.csr_array(sp.diags_array(signs) @ relations)[rng.permutation(relations.shape[0])]
    return CTAProblem(values=np.zeros(relations.shape[1]), relations=shuffled)


@settings(max_examples=40, deadline=None)
@given(shape=shapes, seed=st.integers(0, 2**32 - 1))
def test_a_flat_table_is_recognised_whatever_the_order_and_signs_of_its_rows(shape, seed):
    relations = TableStructure.flat(*(size - 1 for size in shape)).relations()
    assert guess_structure(bare(relations, seed)).shape == shape


@settings(max_examples=40, deadline=None)
@given(shape=shapes, seed=st.integers(0, 2**32 - 1), data=st.data())
def test_a_table_one_coefficient_away_from_a_flat_one_is_a_list_of_cells(shape, seed, data):
    relations = TableStructure.flat(*(size - 1 for size in shape)).relations().tocoo()
    k = data.draw(st.integers(0, relations.nnz - 1))
    moved = relations.col.copy()
    row = relations.row == relations.row[k]
    free = np.setdiff1d(np.arange(relations.shape[1]), relations.col[row])
    moved[k] = free[data.draw(st.integers(0, free.size - 1))]
    changed = sp.csr_array((relations.data, (relations.row, moved)), shape=relations.shape)
    n = relations.shape[1]
    assert guess_structure(bare(changed, seed)).shape == (n,)
