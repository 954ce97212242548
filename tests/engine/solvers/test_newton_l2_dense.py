"""The dense path of the L2 dual Newton method (newton_l2._DensePattern, DENSE_RELATIONS) and the
gathered relation subsets (newton_l2.gathered): the same systems, the same tables and the same
refusals as the sparse path, on small tables where the dense one is taken."""

from unittest import mock

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from ctadesk.engine.methods import solve
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.result import CTAResult, Status
from ctadesk.engine.senses.ordering import ordering_senses
from ctadesk.engine.solvers import newton_l2
from ctadesk.engine.solvers.network import defining_relations, sense_bounds
from ctadesk.engine.solvers.newton_l2 import _DensePattern, _shift, solve_network_l2
from ctadesk.engine.table.generate import cox_table, office_shapes, office_table
from tests.crosscheck.instances import instance
from tests.engine.solvers.test_newton_l2 import clarabel_optimum, linked_tables


def random_relations(rng: np.random.Generator, m: int, n: int) -> sp.csr_array:
    return sp.csr_array(sp.random_array((m, n), density=min(1.0, 2.5 / m), rng=rng,
                                        data_sampler=lambda size: rng.choice([-1.0, 1.0, 0.5], size)))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 40), st.integers(1, 60), st.floats(0.0, 1.0))
def test_dense_newton_systems_equal_the_explicit_system(seed, m, n, share_free):
    """_DensePattern's entries for a free set are A_F D A_F^T plus its shift, entry for entry, and
    its factor solves that shifted system."""
    rng = np.random.default_rng(seed)
    A = random_relations(rng, m, n)
    half_inverse = 10.0 ** rng.uniform(-3, 3, n)
    movable = rng.random(n) < 0.9
    free = movable & (rng.random(n) < share_free)
    pattern = _DensePattern.of(newton_l2.gathered(A, np.arange(m)), half_inverse, movable)
    data, diagonal, _ = pattern.entries(free)
    columns = np.flatnonzero(free)
    explicit = ((A[:, columns] * half_inverse[free]) @ A[:, columns].T).toarray()
    np.testing.assert_allclose(diagonal, np.diag(explicit), rtol=1e-12, atol=0)
    shifted = explicit + np.diag(_shift(diagonal))
    np.testing.assert_allclose(data.reshape(m, m), shifted, rtol=1e-12, atol=1e-300)
    gradient = rng.normal(size=m)
    step = pattern.factor(data.copy())(gradient)
    np.testing.assert_allclose(shifted @ step, gradient, rtol=0,
                               atol=1e-6 * np.abs(shifted).max() * np.abs(np.linalg.solve(shifted, gradient)).max()
                               + 1e-9)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 40), st.integers(1, 60), st.floats(0.0, 1.0))
def test_dense_product_systems_are_the_dense_patterns(seed, m, n, share_free):
    """_DenseProduct's systems (one matrix product) are _DensePattern's (the pairs' weighted count)
    to rounding, diagonal and shift included, and are taken up to TINY_PRODUCTS multiply-adds only."""
    rng = np.random.default_rng(seed)
    relations = newton_l2.gathered(random_relations(rng, m, n), np.arange(m))
    half_inverse = 10.0 ** rng.uniform(-3, 3, n)
    movable = rng.random(n) < 0.9
    free = movable & (rng.random(n) < share_free)
    product = newton_l2._DenseProduct.of(relations, half_inverse)
    assert (product is not None) is (isinstance(relations.A, np.ndarray) and m * m * n <= newton_l2.TINY_PRODUCTS)
    if product is None:
        return
    pairs = _DensePattern.of(relations, half_inverse, movable)
    data, diagonal, shift = product.entries(free)
    expected, expected_diagonal, expected_shift = pairs.entries(free)
    np.testing.assert_allclose(diagonal, expected_diagonal, rtol=1e-12, atol=0)
    np.testing.assert_allclose(shift, expected_shift, rtol=1e-12, atol=0)
    np.testing.assert_allclose(data, expected, rtol=1e-12, atol=1e-15 * np.abs(expected).max())


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(20, 100))
def test_the_dense_product_gives_the_dense_patterns_table(seed, cells):
    """Office tables solved with the Newton systems of one product (the default where they are
    small) and with the pairs (TINY_PRODUCTS = 0): the same table, each on a new problem."""
    _, dimensions = office_shapes(2, seed % 1000, cells, 2 * cells + 60)[seed % 2]
    problem = office_table(dimensions, seed=seed)
    product = solve_network_l2(problem)
    with mock.patch.object(newton_l2, "TINY_PRODUCTS", 0):
        pairs = solve_network_l2(problem.replace(values=problem.values.copy()))
    assert_same_table(problem, product, pairs)


def test_the_dense_path_is_taken_up_to_its_relation_count_only():
    rng = np.random.default_rng(0)
    for m, dense in ((newton_l2.DENSE_RELATIONS, True), (newton_l2.DENSE_RELATIONS + 1, False)):
        relations = newton_l2.gathered(random_relations(rng, m, 2 * m), np.arange(m))
        assert (_DensePattern.of(relations, np.ones(2 * m), np.ones(2 * m, bool)) is not None) is dense


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 40), st.integers(1, 60), st.booleans(), st.booleans())
def test_gathered_relations_equal_scipys(seed, m, n, dense, from_dense):
    """newton_l2.gathered: A[rows], its transpose and the transpose's CSR arrays (each cell's
    relations), dense or in CSR with sorted indices as DENSE_PRODUCTS says, gathered from A's CSR
    arrays or taken from A as a dense array."""
    rng = np.random.default_rng(seed)
    A = random_relations(rng, m, n)
    rows = np.flatnonzero(rng.random(m) < 0.6)
    with mock.patch.object(newton_l2, "DENSE_PRODUCTS", newton_l2.DENSE_PRODUCTS if dense else 0):
        relations = newton_l2.gathered(A, rows, A.toarray() if from_dense else None)
    expected = A[rows]
    transposed = sp.csr_array(expected.T)
    assert isinstance(relations.A, np.ndarray) is (dense or rows.size == 0)
    assert relations.A.shape == expected.shape and relations.At.shape == (n, rows.size)
    as_array = lambda matrix: matrix if isinstance(matrix, np.ndarray) else matrix.toarray()  # noqa: E731
    np.testing.assert_array_equal(as_array(relations.A), expected.toarray())
    np.testing.assert_array_equal(as_array(relations.At), expected.T.toarray())
    if not dense and rows.size:
        assert relations.A.has_sorted_indices and relations.At.has_sorted_indices
    transposed.sort_indices()
    for got, want in zip(newton_l2.by_cell(relations), (transposed.indptr, transposed.indices, transposed.data)):
        np.testing.assert_array_equal(got, want)


def both_paths(problem: CTAProblem) -> tuple[CTAResult, CTAResult]:
    """solve_network_l2's result with the dense path (the default on small tables) and without it."""
    dense = solve_network_l2(problem)
    with mock.patch.object(newton_l2, "DENSE_RELATIONS", 0):
        sparse = solve_network_l2(problem)
    return dense, sparse


def assert_same_table(problem: CTAProblem, dense, sparse) -> None:
    assert dense.status is sparse.status and dense.verified and sparse.verified
    assert "network" not in dense.info and "network" not in sparse.info      # the Newton method's own tables
    assert dense.model_objective == pytest.approx(sparse.model_objective, rel=1e-9)
    np.testing.assert_allclose(dense.values, sparse.values, rtol=0, atol=1e-7 * np.abs(problem.values).max())


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(20, 100))
def test_the_dense_path_gives_the_sparse_paths_table_on_small_office_tables(seed, cells):
    """Nested 2-D and 1H2D office tables of 20 to 260 cells (3-D ones have more defining relations
    than DENSE_RELATIONS): whichever path each round takes, the same table as the sparse path, at
    clarabel's optimum."""
    _, dimensions = office_shapes(2, seed % 1000, cells, 2 * cells + 60)[seed % 2]
    problem = office_table(dimensions, seed=seed)
    dense, sparse = both_paths(problem)
    assert_same_table(problem, dense, sparse)
    assert dense.model_objective == pytest.approx(clarabel_optimum(problem, problem.senses), rel=1e-6)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.lists(st.integers(2, 7), min_size=2, max_size=2), st.floats(0.05, 0.5))
def test_the_dense_path_gives_the_sparse_paths_table_with_bounds_active(seed, shape, capacity):
    """Cox-recipe 2-D tables whose cells may move by a share ``capacity`` of their value at most,
    with the ordering senses: many cells end on their bounds."""
    _, problem = cox_table(tuple(shape), seed=seed, capacity=capacity)
    problem = problem.with_senses(ordering_senses(problem))
    dense, sparse = both_paths(problem)
    if not sparse.verified:                     # senses that no table satisfies: refused alike
        assert dense.status is sparse.status and not dense.verified
        return
    assert_same_table(problem, dense, sparse)


def test_bounds_bind_in_the_tables_the_dense_path_is_compared_on():
    """The test above is about active bounds: on these seeds some cells end on a bound that is not
    a sense's safe value, in both paths' tables."""
    bound = 0
    for seed in range(5):
        _, problem = cox_table((5, 6), seed=seed, capacity=0.1)
        problem = problem.with_senses(ordering_senses(problem))
        dense, sparse = both_paths(problem)
        if not sparse.verified:
            continue
        assert_same_table(problem, dense, sparse)
        lower, upper = sense_bounds(problem, problem.senses)
        deviations = dense.values - problem.values
        at_bound = np.isclose(deviations, lower, rtol=0, atol=1e-9) | np.isclose(deviations, upper, rtol=0, atol=1e-9)
        at_bound &= lower < upper
        bound += int(np.count_nonzero(at_bound))
    assert bound > 0


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 4), st.integers(2, 5), st.integers(2, 5),
       st.sampled_from([1e-3, 1.0, 1e6]))
def test_the_dense_path_gives_the_sparse_paths_table_on_linked_tables(seed, a, b, c, magnitude):
    """Linked tables take a second round (the second breakdown of their common margin), weights
    over six orders of magnitude, cells from 1e-3 to 1e8."""
    problem = linked_tables(np.random.default_rng(seed), a, b, c, magnitude)
    dense, sparse = both_paths(problem)
    if not sparse.verified:
        assert dense.status is sparse.status and not dense.verified
        return
    assert_same_table(problem, dense, sparse)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_the_dense_path_gives_the_sparse_paths_result_on_the_crosscheck_instances(index):
    """The cross-check's instances (tests/crosscheck/instances.py: magnitudes from 1e-3 to 1e7,
    cells at their bounds, huge and marker bounds, shifted right-hand sides, fixed cells, a few
    zero weights, deliberately infeasible ones) through the registry, free senses completed by
    the ordering heuristic: the same status, verification and objective either way."""
    problem = instance(7, index).problem
    if problem is None:                         # refused by CTAProblem
        return
    dense = solve(problem, "network-l2")
    with mock.patch.object(newton_l2, "DENSE_RELATIONS", 0):
        sparse = solve(problem, "network-l2")
    assert dense.status is sparse.status and dense.verified == sparse.verified
    assert ("network" in dense.info) == ("network" in sparse.info)          # clarabel took over in both or neither
    if dense.verified:
        assert dense.model_objective == pytest.approx(sparse.model_objective, rel=1e-9)


def test_a_dense_system_whose_cholesky_fails_goes_to_the_general_factorisation(monkeypatch):
    """LAPACK's Cholesky raises where a pivot is not positive: _factor solves that system, and the
    table is the same."""
    dimensions = office_shapes(1, 0, 60, 120)[0][1]
    problem = office_table(dimensions, seed=1)
    assert np.count_nonzero(defining_relations(problem.relations)) <= newton_l2.DENSE_RELATIONS
    expected = solve_network_l2(problem)
    calls = []

    def refusing(self, data):
        calls.append(data)
        raise RuntimeError("the dense Newton system's pivot 1 is not positive")

    monkeypatch.setattr(_DensePattern, "factor", refusing)
    monkeypatch.setattr(newton_l2._DenseProduct, "factor", refusing)
    result = solve_network_l2(problem)
    assert calls and result.verified and "network" not in result.info
    assert result.model_objective == pytest.approx(expected.model_objective, rel=1e-9)


def three_cells(lower: list[float], weights: list[float], fixed: list[bool]) -> CTAProblem:
    """x0 + x1 = x2, x0 sensitive (protection 5 either way, sense up)."""
    return CTAProblem([10.0, 20.0, 30.0], [[1.0, 1.0, -1.0]], lower=lower, upper=100.0, weights=weights,
                      fixed=fixed, sensitive=[0], upper_protection=[5.0], lower_protection=[5.0], senses=[1])


def test_zero_weights_are_refused_by_the_newton_method_and_solved_by_clarabel():
    problem = three_cells([0.0, 0.0, 0.0], [1.0, 0.0, 1.0], [False, False, False])
    dense, sparse = both_paths(problem)
    for result in (dense, sparse):
        assert result.verified and "the L2 dual needs positive weights" in result.info["network"]
        assert result.model_objective == pytest.approx(solve(problem, "l2").model_objective, rel=1e-5)


def test_senses_no_table_satisfies_are_reported_infeasible_by_either_path():
    """x0 up by 5 needs x1 down by 5 below its bound 19: the dual has no maximum, the Newton method
    stops at the ray it rises along, and clarabel's infeasibility (confirmed by HiGHS's conflict) is
    reported."""
    problem = three_cells([0.0, 19.0, 0.0], [1.0, 1.0, 1.0], [False, False, True])
    dense, sparse = both_paths(problem)
    for result in (dense, sparse):
        assert result.status is Status.INFEASIBLE and not result.verified
        assert "the dual rises without end" in result.info["network"]
    assert solve(problem, "network-l2").status is Status.INFEASIBLE


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(20, 120), st.booleans())
def test_dense_products_give_the_csr_products_table(seed, cells, cox):
    """Relations of at most DENSE_PRODUCTS entries multiply vectors as dense arrays
    (newton_l2.gathered): office tables of 20-300 cells and Cox-recipe 2-D and 3-D tables
    with the ordering senses give the table, objective and status of CSR products
    (DENSE_PRODUCTS = 0), each on a new problem (nothing kept from the other)."""
    if cox:
        shape = tuple(int(size) for size in np.random.default_rng(seed).integers(2, 7, 2 + seed % 2))
        _, problem = cox_table(shape, seed=seed, capacity=0.3)
        problem = problem.with_senses(ordering_senses(problem))
    else:
        _, dimensions = office_shapes(2, seed % 1000, cells, 2 * cells + 60)[seed % 2]
        problem = office_table(dimensions, seed=seed)
    dense = solve_network_l2(problem)
    with mock.patch.object(newton_l2, "DENSE_PRODUCTS", 0):
        csr = solve_network_l2(problem.replace(values=problem.values.copy()))
    if not csr.verified:
        assert dense.status is csr.status and not dense.verified
        return
    assert_same_table(problem, dense, csr)
    assert dense.objective == pytest.approx(csr.objective, rel=1e-9)


def test_gathered_relations_take_csr_above_dense_products_entries():
    rng = np.random.default_rng(1)
    for m, n in ((48, 192), (48, 193)):
        A = random_relations(rng, m, n)
        gathered, transposed = newton_l2.gathered(A, np.arange(m))
        assert isinstance(gathered, np.ndarray) is (m * n <= newton_l2.DENSE_PRODUCTS)
        x, p = rng.normal(size=n), rng.normal(size=m)
        np.testing.assert_allclose(gathered @ x, A @ x, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(transposed @ p, A.T @ p, rtol=1e-12, atol=1e-12)


def test_dense_systems_are_factorised_anew_never_solved_by_conjugate_gradients(monkeypatch):
    """Conjugate gradients are tried on a system whose free cells changed a little only where it is
    sparse: a dense one is factorised anew, whatever the clock says a factorisation costs (here: as
    much as REUSE_ITERATIONS iterations), so its table does not hang on the clock."""
    calls = []
    cg = newton_l2.spla.cg
    monkeypatch.setattr(newton_l2._NewtonSystems, "iterations", property(lambda self: newton_l2.REUSE_ITERATIONS))
    monkeypatch.setattr(newton_l2.spla, "cg", lambda *args, **kwargs: calls.append(1) or cg(*args, **kwargs))
    problems = []
    for seed in range(12):
        _, problem = cox_table((5, 6), seed=seed, capacity=0.3)
        problems.append(problem.with_senses(ordering_senses(problem)))
    tables = [solve_network_l2(problem) for problem in problems]
    assert not calls
    with mock.patch.object(newton_l2, "DENSE_RELATIONS", 0), mock.patch.object(newton_l2, "REUSE_RELATIONS", 0):
        again = [solve_network_l2(problem.replace(values=problem.values.copy())) for problem in problems]
    assert calls                                # sparse systems (of any size here) try them, on the same tables
    for problem, dense, sparse in zip(problems, tables, again, strict=True):
        if sparse.verified:
            assert_same_table(problem, dense, sparse)
