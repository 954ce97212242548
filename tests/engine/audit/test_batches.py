"""Batches of cells sharing no relation."""

import numpy as np
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from ctadesk.engine.audit.batches import independent_batch
from ctadesk.engine.table.structure import TableStructure


@settings(max_examples=30, deadline=None)
@given(rows=st.integers(1, 8), columns=st.integers(1, 8), seed=st.integers(0, 2**32 - 1))
def test_a_batch_shares_no_relation_and_no_other_cell_could_join_it(rows, columns, seed):
    matrix = sp.csc_array(abs(TableStructure.flat(rows, columns).relations()))
    rng = np.random.default_rng(seed)
    candidates = np.sort(rng.choice(matrix.shape[1], size=rng.integers(1, matrix.shape[1] + 1), replace=False))
    batch = independent_batch(matrix, candidates, rng)
    assert set(batch.tolist()) <= set(candidates.tolist())
    touched = matrix[:, batch].sum(axis=1)
    assert touched.max(initial=0) <= 1
    for column in np.setdiff1d(candidates, batch):
        assert touched[matrix[:, [column]].nonzero()[0]].max() == 1


@settings(max_examples=30, deadline=None)
@given(rows=st.integers(1, 8), columns=st.integers(1, 8), seed=st.integers(0, 2**32 - 1), pool=st.integers(1, 20))
def test_a_batch_from_a_pool_shares_no_relation_and_is_maximal_among_some_pool_of_candidates(rows, columns, seed,
                                                                                              pool):
    matrix = sp.csc_array(abs(TableStructure.flat(rows, columns).relations()))
    rng = np.random.default_rng(seed)
    candidates = np.sort(rng.choice(matrix.shape[1], size=rng.integers(1, matrix.shape[1] + 1), replace=False))
    batch = independent_batch(matrix, candidates, rng, pool)
    assert set(batch.tolist()) <= set(candidates.tolist())
    assert matrix[:, batch].sum(axis=1).max(initial=0) <= 1
    # a candidate no relation of the batch blocks was left out of the pool: at most all but pool of them
    touched = matrix[:, batch].sum(axis=1)
    free = [c for c in np.setdiff1d(candidates, batch) if touched[matrix[:, [c]].nonzero()[0]].max(initial=0) == 0]
    assert len(free) <= max(candidates.size - pool, 0)
    assert batch.size >= 1
