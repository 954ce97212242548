"""The network solver gives the same fixed-sense optima as the general LP, on 2-D and 1H2D tables."""

import re
from pathlib import Path

import numpy as np
import pytest

from ctadesk.engine.generate import cox_table
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.result import Status
from ctadesk.engine.senses.ordering import ordering_senses
from ctadesk.engine.solvers.lp import solve_lp
from ctadesk.engine.solvers.network import network_form, solve_network_l1, solve_network_l2
from ctadesk.engine.structure import Dimension, TableStructure
from ctadesk.io.jj import read_jj


def hierarchical_table(seed: int) -> CTAProblem:
    """A 1H2D table: a 3-level hierarchy of 10 codes under the total, crossed with 6 columns."""
    levels = [1, 2, 2, 2, 1, 2, 2, 3, 3, 1]
    structure = TableStructure((Dimension.from_levels("H", levels, [f"h{i}" for i in range(10)]),
                                Dimension.flat("C", [str(j) for j in range(6)])))
    rng = np.random.default_rng(seed)
    values = structure.aggregate(rng.integers(1, 1000, structure.shape))
    sensitive = rng.choice(np.flatnonzero(structure.inner_mask()), 10, replace=False)
    return CTAProblem(values, structure.relations(), lower=0.7 * values, upper=1.3 * values,
                      sensitive=sensitive, lower_protection=0.2 * values[sensitive],
                      upper_protection=0.2 * values[sensitive])


@pytest.mark.parametrize("seed", range(6))
def test_l1_optimum_equals_the_general_lp_on_random_2d_tables(seed):
    rng = np.random.default_rng(seed)
    _, problem = cox_table(tuple(int(k) for k in rng.integers(3, 30, 2)), seed=seed, capacity=0.3)
    senses = ordering_senses(problem)
    network = solve_network_l1(problem, senses=senses)
    general = solve_lp(problem, senses=senses)
    assert network.verified and network.status is Status.OPTIMAL
    assert network.objective == pytest.approx(general.objective, rel=1e-6)


def test_l1_optimum_equals_the_general_lp_on_a_1h2d_table():
    problem = hierarchical_table(1)
    senses = ordering_senses(problem)
    network = solve_network_l1(problem, senses=senses)
    assert network.info["dropped_relations"] == 3          # the row relations of the 3 subtotals
    assert network.verified
    assert network.objective == pytest.approx(solve_lp(problem, senses=senses).objective, rel=1e-6)


def test_a_3d_table_is_not_a_network_and_falls_back_to_the_lp():
    _, problem = cox_table((4, 4, 4), seed=2)
    assert network_form(problem) is None
    result = solve_network_l1(problem, senses=ordering_senses(problem))
    assert result.verified
    assert "general LP" in result.info["network"]


def test_senses_that_no_table_satisfies_are_reported_infeasible():
    # a 2 x 2 table with totals fixed: both inner cells of row 1 cannot go up together
    values = np.array([[5, 5, 10], [5, 5, 10], [10, 10, 20]], float).reshape(-1)
    problem = CTAProblem(values, cox_table((2, 2))[0].relations(), lower=values * 0, upper=values * 2,
                         fixed=np.isin(np.arange(9), [2, 5, 6, 7, 8]), sensitive=[0, 1],
                         lower_protection=[1, 1], upper_protection=[1, 1])
    result = solve_network_l1(problem, senses=np.array([1, 1]))
    assert result.status is Status.INFEASIBLE and result.values is None


def test_l2_optimum_is_the_least_squares_table_of_the_thesis_example():
    # paper 003 Figure 6.1: 3 x 4 table, cells (1,1)=10 (upl 3) and (3,4)=13 (upl 5); L2 |x-a| sums to 20.69
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


@pytest.mark.parametrize("seed", range(3))
def test_l2_matches_a_general_qp_solver_on_random_2d_tables(seed):
    clarabel = pytest.importorskip("clarabel")
    import scipy.sparse as sp

    _, problem = cox_table((6 + seed, 8), seed=seed, capacity=0.3)
    senses = ordering_senses(problem)
    result = solve_network_l2(problem, senses=senses)
    from ctadesk.engine.solvers.network import sense_bounds

    lower, upper = sense_bounds(problem, senses)
    n = problem.n_cells
    P = sp.csc_matrix(sp.diags(2 * problem.weights))
    A = sp.vstack([problem.relations, sp.identity(n), -sp.identity(n)]).tocsc()
    b = np.concatenate([problem.deviation_rhs, upper, -lower])
    cones = [clarabel.ZeroConeT(problem.n_relations), clarabel.NonnegativeConeT(2 * n)]
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    solution = clarabel.DefaultSolver(P, np.zeros(n), A, b, cones, settings).solve()
    assert result.verified
    assert result.model_objective == pytest.approx(solution.obj_val, rel=1e-6)


CASTRO = Path(__file__).resolve().parents[4] / "shared" / "instances" / "castro-l2"


@pytest.mark.parametrize("name, best, steps", [("table6", 743257.8, 12), ("toysarah", 1.13962e10, 27)])
def test_l2_newton_converges_on_castros_tables_of_cells_up_to_1e11(name, best, steps):
    """Cells from 0.5 to 1e11 with weights down to 1e-11: the dual's value is a difference of
    numbers near 1e20, so its line search reads slopes (a backtracking search on values took 21
    and 29 steps, crawling on the rounding).  The Newton method itself gives the table (clarabel
    is not called) within ``steps`` iterations, and it is at least as good as the best known."""
    if not CASTRO.is_dir():
        pytest.skip("J. Castro's instances are in ../shared/instances/castro-l2")
    problem = read_jj(CASTRO / f"{name}.jj").problem
    problem = problem.with_senses(np.loadtxt(CASTRO / f"{name}.senses", dtype=np.int8, ndmin=1))
    result = solve_network_l2(problem)
    assert result.verified and "network" not in result.info
    iterations = re.search(r"L2 dual Newton: (\d+) iterations", result.log)
    assert iterations and int(iterations.group(1)) <= steps
    assert result.model_objective <= best * (1 + 1e-6)
