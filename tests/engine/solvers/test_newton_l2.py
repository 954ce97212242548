"""The L2 dual Newton method gives the least-squares fixed-sense table: the thesis example, the
tables of a general QP solver, J. Castro's office tables."""

import re
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import example, given, settings
from hypothesis import strategies as st

from ctadesk.engine.methods import choose_method, solve
from ctadesk.engine.model import Distance, Senses
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.result import SolveOptions, Status
from ctadesk.engine.senses.ordering import ordering_senses
from ctadesk.engine.solvers.network import sense_bounds
from ctadesk.engine.solvers.newton_l2 import _Pattern, _shift, cholmod, solve_network_l2
from ctadesk.engine.table.generate import cox_table, office_shapes, office_table
from ctadesk.engine.table.structure import TableStructure
from ctadesk.io.jj import read_jj
from tests.engine.solvers.network_tables import hierarchical_table

#: the factorisers installed: CHOLMOD comes with the optional extra ctadesk[cholmod]
FACTORISERS = ["qdldl"] + (["cholmod"] if cholmod is not None else [])
needs_cholmod = pytest.mark.skipif(cholmod is None, reason="cvxopt (ctadesk[cholmod]) is not installed")


def test_l2_optimum_is_the_least_squares_table_of_the_thesis_example():
    # Petrenko (2017) Figure 6.1: 3 x 4 table, cells (1,1)=10 (upl 3) and (3,4)=13 (upl 5); L2 |x-a| sums to 20.69
    inner = np.array([[10, 15, 11, 9], [8, 10, 12, 15], [10, 12, 11, 13]], float)
    structure = TableStructure.flat(3, 4)
    values = structure.aggregate(np.pad(inner, ((0, 1), (0, 1))))
    fixed = ~structure.inner_mask()
    sensitive = [0, 13]
    problem = CTAProblem(values, structure.relations(), lower=np.zeros(values.size), fixed=fixed,
                         sensitive=sensitive, upper_protection=[3, 5], senses=[1, 1])
    result = solve_network_l2(problem)
    assert result.verified
    assert result.objective == pytest.approx(20.69, abs=0.01)


def clarabel_optimum(problem: CTAProblem, senses: np.ndarray) -> float:
    """min sum w z^2 over A z = d and the senses' bounds, by clarabel at its defaults: independent
    of ctadesk's own clarabel model."""
    clarabel = pytest.importorskip("clarabel")
    lower, upper = sense_bounds(problem, senses)
    n = problem.n_cells
    finite_upper, finite_lower = np.flatnonzero(np.isfinite(upper)), np.flatnonzero(np.isfinite(lower))
    P = sp.csc_matrix(sp.diags(2 * problem.weights))
    identity = sp.identity(n, format="csr")
    A = sp.vstack([problem.relations, identity[finite_upper], -identity[finite_lower]]).tocsc()
    b = np.concatenate([problem.deviation_rhs, upper[finite_upper], -lower[finite_lower]])
    cones = [clarabel.ZeroConeT(problem.n_relations), clarabel.NonnegativeConeT(finite_upper.size + finite_lower.size)]
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    solution = clarabel.DefaultSolver(P, np.zeros(n), A, b, cones, settings).solve()
    assert str(solution.status) == "Solved"
    return float(solution.obj_val)


@pytest.mark.parametrize("seed", range(3))
def test_l2_matches_a_general_qp_solver_on_random_2d_tables(seed):
    _, problem = cox_table((6 + seed, 8), seed=seed, capacity=0.3)
    senses = ordering_senses(problem)
    result = solve_network_l2(problem, senses=senses)
    assert result.verified
    assert result.model_objective == pytest.approx(clarabel_optimum(problem, senses), rel=1e-6)


def chosen_l2_reaches_clarabels_optimum(problem: CTAProblem, kind: str) -> None:
    """choose_method's method for fixed-sense L2 is the Newton method, and it gives a verified table
    at clarabel's optimum by itself (no handover)."""
    choice = choose_method(problem, Distance.L2, Senses.FIXED)
    result = solve(problem, choice.method, SolveOptions(parameters=choice.parameters))
    assert choice.method == "network-l2" and result.verified and "network" not in result.info, (kind, result.message)
    assert result.model_objective == pytest.approx(clarabel_optimum(problem, problem.senses), rel=1e-6)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(150, 3000))
def test_the_chosen_l2_method_reaches_clarabels_optimum_on_office_tables(seed, cells):
    """Hierarchical tables of every kind office_shapes makes (nested 2-D, 1H2D, 3-D), a second
    breakdown of a total in every fourth, from 150 cells (the smallest 3-D kind) to 9000."""
    count = 4
    kind, dimensions = office_shapes(count, seed % 1000, cells, 3 * cells)[seed % count]
    chosen_l2_reaches_clarabels_optimum(office_table(dimensions, seed=seed), kind)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(20, 150))
def test_the_chosen_l2_method_reaches_clarabels_optimum_on_small_office_tables(seed, cells):
    """Nested 2-D and 1H2D office tables of 20 to 510 cells, where the solve's fixed costs weigh
    most (one verification reused in the user's units, no polishing below rounding)."""
    kind, dimensions = office_shapes(2, seed % 1000, cells, 3 * cells + 60)[seed % 2]
    chosen_l2_reaches_clarabels_optimum(office_table(dimensions, seed=seed), kind)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.lists(st.integers(2, 6), min_size=1, max_size=3))
@example(3_538_515_556, [2, 6, 2])      # a breakpoint jump of slope -3.9e-32: no line search along it
def test_the_chosen_l2_method_reaches_clarabels_optimum_on_small_cox_tables(seed, shape):
    """Tables of 3 to 343 cells, a quarter of their inner cells sensitive (Cox 2005b, §3)."""
    _, problem = cox_table(tuple(shape), seed=seed)
    chosen_l2_reaches_clarabels_optimum(problem.with_senses(ordering_senses(problem)), f"cox {shape}")


CASTRO = Path(__file__).resolve().parents[4] / "shared" / "instances" / "castro-l2"


def best_known() -> dict[str, float]:
    """The best known objectives of the instances' README table."""
    table = {}
    for line in (CASTRO / "README.md").read_text().splitlines():
        parts = [part.strip() for part in line.strip("|").split("|")]
        if len(parts) == 5:
            try:
                table[parts[0]] = float(parts[4])
            except ValueError:
                continue
    return table


#: Newton steps (all rounds) each instance takes, measured, with a fifth more as margin
CASTRO_STEPS = {"table3": 8, "table6": 10, "hier133a": 3, "hier163a": 5, "hier133d": 3, "jjtabel3": 24,
                "toysarah": 20, "nine5d": 14, "hie1327d": 4}


@pytest.mark.parametrize("units", ["user", "table"])
@pytest.mark.parametrize("name", list(CASTRO_STEPS))
def test_l2_newton_solves_castros_office_tables_itself(name, units):
    """Cells from 0.5 to 1e11 with weights down to 1e-11 (toysarah, table6: the dual's value is a
    difference of numbers near 1e20, so the line search reads slopes), relations mostly redundant
    (nine5d: 17 295, of which 10 750 are kept), relations whose cells are all at their bounds
    (a step to the first breakpoint; in table units table6 had one stuck for 50 steps).  The
    Newton method itself gives the table (clarabel is not called) within the steps measured, in
    the user's units and through the registry in table units, as good as the best known."""
    if not CASTRO.is_dir():
        pytest.skip("J. Castro's instances are in ../shared/instances/castro-l2")
    problem = read_jj(CASTRO / f"{name}.jj").problem
    problem = problem.with_senses(np.loadtxt(CASTRO / f"{name}.senses", dtype=np.int8, ndmin=1))
    result = solve_network_l2(problem) if units == "user" else solve(problem, "network-l2")
    assert result.verified and "network" not in result.info
    steps = [int(found) for found in re.findall(r"L2 dual Newton: (\d+) iterations", result.log)]
    assert steps and sum(steps) <= CASTRO_STEPS[name]
    assert result.model_objective <= best_known()[name] * (1 + 1e-6)


def linked_tables(rng: np.random.Generator, a: int, b: int, c: int, magnitude: float) -> CTAProblem:
    """Two tables A x B and A x C linked by their common margin A (and grand total): the margin
    cell A_i totals two relations with different parts, so one is not implied by the other tables'
    relations (the case defining_relations alone misses)."""
    x = rng.integers(1, 100, size=(a, b))
    margin = x.sum(axis=1)
    y = np.floor(rng.dirichlet(np.ones(c), size=a) * margin[:, None]).astype(int)
    y[:, -1] += margin - y.sum(axis=1)                 # whole units: both breakdowns of A_i add up exactly
    values = magnitude * np.concatenate([x.ravel(), y.ravel(), margin, x.sum(axis=0), y.sum(axis=0),
                                         [margin.sum()]]).astype(float)
    nx, ny = a * b, a * c
    A_at, B_at, C_at, T = nx + ny, nx + ny + a, nx + ny + a + b, nx + ny + a + b + c
    rows = []
    for i in range(a):
        rows.append({A_at + i: -1.0, **{i * b + j: 1.0 for j in range(b)}})
        rows.append({A_at + i: -1.0, **{nx + i * c + k: 1.0 for k in range(c)}})
    rows += [{B_at + j: -1.0, **{i * b + j: 1.0 for i in range(a)}} for j in range(b)]
    rows += [{C_at + k: -1.0, **{nx + i * c + k: 1.0 for i in range(a)}} for k in range(c)]
    rows += [{T: -1.0, **{start + i: 1.0 for i in range(size)}} for start, size in ((A_at, a), (B_at, b), (C_at, c))]
    matrix = np.zeros((len(rows), values.size))
    for r, row in enumerate(rows):
        matrix[r, list(row)] = list(row.values())
    sensitive = np.sort(rng.choice(nx + ny, size=max(1, (nx + ny) // 6), replace=False))
    level = np.round(0.3 * values[sensitive] / magnitude) * magnitude
    weights = 10.0 ** rng.uniform(-3, 3, values.size) / magnitude
    return CTAProblem(values=values, relations=matrix, lower=0.0, weights=weights, sensitive=sensitive,
                      lower_protection=level, upper_protection=level,
                      senses=np.where(rng.random(sensitive.size) < 0.7, 1, -1))


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 6), st.integers(2, 8), st.integers(2, 8),
       st.sampled_from([1e-3, 1.0, 1e6]))
def test_l2_newton_agrees_with_clarabel_on_linked_tables(seed, a, b, c, magnitude):
    problem = linked_tables(np.random.default_rng(seed), a, b, c, magnitude)
    reference = solve(problem, "l2")
    ours = solve(problem, "network-l2")
    if reference.status is Status.INFEASIBLE:
        assert not ours.verified
        return
    assert reference.verified and ours.verified and "network" not in ours.info   # the Newton method's own table
    # both tables are verified, so only a higher objective would be wrong (clarabel's stops within its gap)
    assert ours.model_objective <= reference.model_objective * (1 + 1e-6)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 30), st.integers(1, 60), st.floats(0.0, 1.0),
       st.sampled_from(FACTORISERS))
def test_newton_systems_on_a_fixed_pattern_equal_the_explicit_system(seed, m, n, share_free, factoriser):
    """_Pattern's entries for a free set, factorised by CHOLMOD or QDLDL, solve the same shifted
    system A D A^T + shift as one built from the free cells' columns: a free set only zeroes
    entries of the pattern built with every movable cell free."""
    from ctadesk.engine.solvers import newton_l2

    rng = np.random.default_rng(seed)
    A = sp.random_array((m, n), density=min(1.0, 2.5 / m), rng=rng,
                        data_sampler=lambda size: rng.choice([-1.0, 1.0], size))
    A = sp.csr_array(A)
    half_inverse = 10.0 ** rng.uniform(-3, 3, n)
    movable = rng.random(n) < 0.9
    free = movable & (rng.random(n) < share_free)
    pattern = _Pattern.of(A, half_inverse, movable)
    if pattern is None:                                         # too dense for the pattern path
        assert (np.bincount(A.indices, minlength=n)[movable] ** 2).sum() > 12 * m
        return
    data, diagonal, _ = pattern.entries(free)
    explicit = (A[:, np.flatnonzero(free)] * half_inverse[free]) @ A[:, np.flatnonzero(free)].T
    explicit = np.asarray(sp.csr_array(explicit).todense()).reshape(m, m)
    np.testing.assert_allclose(diagonal, np.diag(explicit), rtol=1e-12, atol=0)
    shifted = explicit + np.diag(_shift(diagonal))
    gradient = rng.normal(size=m)
    with mock.patch.object(newton_l2, "FACTORISER", factoriser):
        step = pattern.factor(data)(gradient)
    np.testing.assert_allclose(shifted @ step, gradient, rtol=0,
                               atol=1e-6 * np.abs(shifted).max() * np.abs(np.linalg.solve(shifted, gradient)).max()
                               + 1e-9)


def test_a_failed_ldl_factorisation_falls_back_to_the_general_one(monkeypatch):
    """QDLDL factorises without pivoting and raises on a pivot too small: the Newton system is then
    factorised by _factor, and the table is the same."""
    import ctadesk.engine.solvers.newton_l2 as newton_l2

    problem = hierarchical_table(3)
    problem = problem.with_senses(ordering_senses(problem))
    expected = solve_network_l2(problem)

    class Failing:
        def __init__(self, *args, **kwargs):
            raise RuntimeError("Input matrix is not quasi-definite")

    monkeypatch.setattr(newton_l2, "DENSE_RELATIONS", 0)        # the sparse pattern, not the dense system
    monkeypatch.setattr(newton_l2, "FACTORISER", "qdldl")
    monkeypatch.setattr(newton_l2.qdldl, "Solver", Failing)
    result = solve_network_l2(problem)
    assert result.verified and "network" not in result.info
    assert result.model_objective == pytest.approx(expected.model_objective, rel=1e-9)


@needs_cholmod
def test_a_system_cholmod_finds_not_positive_definite_goes_to_qdldl(monkeypatch):
    """CHOLMOD's Cholesky raises where a pivot is not positive (a Newton system singular up to its
    shift): QDLDL's LDL^T factorises it on the same pattern, and the table is the same."""
    import ctadesk.engine.solvers.newton_l2 as newton_l2

    monkeypatch.setattr(newton_l2, "DENSE_RELATIONS", 0)        # the sparse pattern, not the dense system
    problem = hierarchical_table(3)
    problem = problem.with_senses(ordering_senses(problem))
    expected = solve_network_l2(problem)
    calls = []

    def refusing(*args):
        calls.append(args)
        raise ArithmeticError(1)

    monkeypatch.setattr(newton_l2.cholmod, "numeric", refusing)
    result = solve_network_l2(problem)
    assert calls and result.verified and "network" not in result.info
    assert result.model_objective == pytest.approx(expected.model_objective, rel=1e-9)


@needs_cholmod
@pytest.mark.parametrize("seed", range(3))
def test_cholmod_and_qdldl_give_the_same_table_through_a_second_round(monkeypatch, seed):
    """Linked tables share a margin, so a second round adds the second table's breakdowns of it and
    fills the Newton system: the Newton method solves it itself with either factoriser (a system
    this small is kept by QDLDL too: GROWN_RELATIONS), and the two tables agree to the method's
    accuracy."""
    from ctadesk.engine.solvers import newton_l2
    from ctadesk.engine.table.generate import OfficeDimension, linked_office_tables

    problem = linked_office_tables(OfficeDimension((3, 4)), (OfficeDimension((3,)), OfficeDimension((2, 3))),
                                   seed=seed)
    monkeypatch.setattr(newton_l2, "DENSE_RELATIONS", 0)        # the sparse pattern, not the dense system
    results = {}
    for factoriser in ("cholmod", "qdldl"):
        monkeypatch.setattr(newton_l2, "FACTORISER", factoriser)
        results[factoriser] = solve_network_l2(problem)
        assert results[factoriser].verified and "network" not in results[factoriser].info
        assert len(re.findall(r"L2 dual Newton: \d+ iterations", results[factoriser].log)) >= 2
    cholmod, qdldl = results["cholmod"], results["qdldl"]
    assert cholmod.model_objective == pytest.approx(qdldl.model_objective, rel=1e-9)
    np.testing.assert_allclose(cholmod.values, qdldl.values, rtol=1e-7, atol=1e-7 * np.abs(problem.values).max())


def test_l2_newton_with_qdldl_alone_hands_the_qp_to_clarabel_where_added_relations_fill_its_system(monkeypatch):
    """With QDLDL alone, where a later round grows a big enough Newton system's pattern more than
    PATTERN_GROWTH times the QP goes to clarabel, with the same table (up to clarabel's accuracy);
    else the Newton method goes on itself; CHOLMOD keeps every such system."""
    from ctadesk.engine.solvers import newton_l2
    from ctadesk.engine.table.generate import OfficeDimension, linked_office_tables

    problem = linked_office_tables(OfficeDimension((3, 4)), (OfficeDimension((3,)), OfficeDimension((2, 3))),
                                   seed=4)
    monkeypatch.setattr(newton_l2, "FACTORISER", "qdldl")
    itself = solve_network_l2(problem)
    assert itself.verified and "network" not in itself.info
    assert len(re.findall(r"L2 dual Newton: \d+ iterations", itself.log)) == 2          # a second round
    monkeypatch.setattr(newton_l2, "GROWN_RELATIONS", 1)
    monkeypatch.setattr(newton_l2, "PATTERN_GROWTH", 1.0)
    handed = solve_network_l2(problem)
    assert handed.verified and "grow the Newton system's pattern" in handed.info["network"]
    assert handed.model_objective == pytest.approx(itself.model_objective, rel=1e-6)
    if cholmod is not None:
        monkeypatch.setattr(newton_l2, "FACTORISER", "cholmod")
        assert "network" not in solve_network_l2(problem).info


def test_pattern_entries_count_pairs_of_relations_sharing_a_movable_cell():
    from ctadesk.engine.solvers.newton_l2 import pattern_entries

    A = sp.csr_array(np.array([[1, 1, 0, 0], [0, 1, 1, 0], [0, 0, 0, 1]], float))
    assert pattern_entries(A, np.ones(4, bool)) == 3 + 2              # the diagonal and (0, 1), (1, 0)
    assert pattern_entries(A, np.array([True, False, True, True])) == 3


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(20, 3000))
def test_the_newton_deviations_hold_every_relation_to_rounding_error(seed, cells):
    """Convergence to L2_TOLERANCE, then polishing steps down to POLISH_FLOOR: every relation of
    an office table holds to 1e-15 of its scale (sum |c| max(|a|, 1)), not only to 1e-10."""
    from ctadesk.engine.solvers.newton_l2 import least_squares_deviations

    count = 3 if cells >= 150 else 2            # 3-D tables have at least 147 cells
    kind, dimensions = office_shapes(count, seed % 1000, cells, 3 * cells + 60)[seed % count]
    problem = office_table(dimensions, seed=seed)
    lower, upper = sense_bounds(problem, problem.senses)
    z, note = least_squares_deviations(problem, lower, upper, SolveOptions().begun())
    assert z is not None, note
    scale = abs(problem.relations) @ np.maximum(np.abs(problem.values), 1.0)
    assert np.max(np.abs(problem.deviation_rhs - problem.relations @ z) / scale) <= 1e-15, (kind, note)


def test_l2_newton_solves_tables_without_relations_or_with_an_empty_one():
    """No relation at all (the Newton system has no unknown), and a relation of no cells beside a
    real one (its residual is 0 in a scale of 0: it used to stop convergence, and clarabel took
    over after 50 steps)."""
    alone = CTAProblem([10.0, 20.0], sp.csr_array((0, 2)), sensitive=[0], upper_protection=[3.0],
                       lower_protection=[3.0], senses=[1])
    result = solve_network_l2(alone)
    assert result.verified and "network" not in result.info
    np.testing.assert_allclose(result.values, [13.0, 20.0])
    empty = CTAProblem([10.0, 20.0], [[0.0, 0.0], [1.0, -1.0]], rhs=[0.0, -10.0], sensitive=[0],
                       upper_protection=[3.0], lower_protection=[3.0], senses=[1])
    result = solve_network_l2(empty)
    assert result.verified and "network" not in result.info
    assert result.model_objective == pytest.approx(clarabel_optimum(empty, empty.senses), rel=1e-6)
