"""The L1 network solver gives the same fixed-sense optima as the general LP, on 2-D and 1H2D tables."""

import re

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph
from hypothesis import given, settings
from hypothesis import strategies as st

from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.result import Status
from ctadesk.engine.senses.ordering import ordering_senses
from ctadesk.engine.solvers.lp import solve_lp
from ctadesk.engine.solvers.network import network_form
from ctadesk.engine.solvers.network_l1 import _cheapest_tree, solve_network_l1
from ctadesk.engine.table.generate import cox_table
from tests.engine.solvers.network_tables import hierarchical_table, table_weights


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


def sifting_figures(log: str) -> tuple[int, int]:
    """(pricing rounds, simplex iterations) of the sifting LP's note."""
    found = re.search(r"sifting LP: (\d+) pricing rounds, .* (\d+) simplex iterations", log)
    assert found, log
    return int(found.group(1)), int(found.group(2))


@pytest.fixture
def max_flow_start(monkeypatch):
    """The start where LEMON's min-cost flow fails: the max flow's support and the cheapest tree."""
    import ctadesk.engine.solvers.network_l1 as network_l1

    monkeypatch.setattr(network_l1, "flow_start", lambda *args: None)


@pytest.mark.parametrize("shape, seed", [((60, 80), 1), ((100, 120), 2), ((150, 40), 3)])
@pytest.mark.parametrize("kind", ["inverse", "sqrt"])
def test_weights_that_favour_large_cells_need_one_pricing_round(shape, seed, kind, max_flow_start):
    """The max flow's support joined by the cheapest tree is the whole optimum's support with
    1/value-like weights: one LP, about one dual simplex pivot per relation (the max flow alone
    took 3 rounds, and 49 s on 1000 x 1000)."""
    _, problem = cox_table(shape, seed=seed)
    problem = problem.replace(weights=table_weights(kind, problem.values, np.random.default_rng(seed)))
    result = solve_network_l1(problem, senses=ordering_senses(problem))
    assert result.verified and result.status is Status.OPTIMAL and "network" not in result.info
    rounds, iterations = sifting_figures(result.log)
    assert rounds <= 2 and iterations <= 2 * problem.n_relations


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 25), st.integers(2, 25),
       st.sampled_from(["unit", "inverse", "sqrt", "random"]))
def test_weighted_network_optimum_equals_the_general_lp(seed, rows, columns, kind):
    rng = np.random.default_rng(seed)
    _, problem = cox_table((rows, columns), seed=seed % 1000, capacity=0.3)
    problem = problem.replace(weights=table_weights(kind, problem.values, rng))
    senses = ordering_senses(problem)
    network = solve_network_l1(problem, senses=senses)
    general = solve_lp(problem, senses=senses)
    assert network.verified == general.verified
    if general.verified:
        assert network.status is Status.OPTIMAL
        scale = max(1.0, float(problem.weights @ np.abs(problem.values)))
        assert network.objective == pytest.approx(general.objective, rel=1e-6, abs=1e-9 * scale)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("kind", ["inverse", "random"])
def test_weighted_network_optimum_of_a_1h2d_table_equals_the_general_lp(seed, kind):
    """1H2D: the network form drops the subtotals' row relations; the tree spans what is left."""
    problem = hierarchical_table(seed)
    problem = problem.replace(weights=table_weights(kind, problem.values, np.random.default_rng(seed)))
    senses = ordering_senses(problem)
    network = solve_network_l1(problem, senses=senses)
    assert network.verified and network.status is Status.OPTIMAL and "network" not in network.info
    assert network.objective == pytest.approx(solve_lp(problem, senses=senses).objective, rel=1e-6)


def test_the_cheapest_tree_spans_the_network():
    _, problem = cox_table((12, 17), seed=4)
    form = network_form(problem)
    weights = table_weights("random", problem.values, np.random.default_rng(4))
    forward, backward = np.ones(problem.n_cells), np.zeros(problem.n_cells)
    rising, falling = _cheapest_tree(form, weights, forward, backward)
    tree = sp.coo_array((np.ones(rising.size), (form.tail[rising], form.head[rising])),
                        shape=(form.n_nodes, form.n_nodes))
    every = sp.coo_array((np.ones(problem.n_cells), (form.tail, form.head)), shape=(form.n_nodes, form.n_nodes))
    components, piece = csgraph.connected_components(every, directed=False)
    assert falling.size == 0 and rising.size == form.n_nodes - components      # a forest ...
    assert np.array_equal(csgraph.connected_components(tree, directed=False)[1], piece)   # ... spanning


def test_sifting_past_its_simplex_iterations_hands_over_to_the_general_lp(monkeypatch, max_flow_start):
    """Weights the tree does not foresee can make the simplex pivot long: past SIFTING_ITERATIONS
    per relation the general LP solves the table, with the same optimum."""
    import ctadesk.engine.solvers.network_l1 as network_l1

    _, problem = cox_table((20, 30), seed=5)
    problem = problem.replace(weights=table_weights("random", problem.values, np.random.default_rng(5)))
    senses = ordering_senses(problem)
    monkeypatch.setattr(network_l1, "SIFTING_ITERATIONS", 0.1)
    result = solve_network_l1(problem, senses=senses)
    assert "simplex iterations" in result.info["network"] and "general LP" in result.info["network"]
    assert result.verified and result.status is Status.OPTIMAL
    assert result.objective == pytest.approx(solve_lp(problem, senses=senses).objective, rel=1e-6)
