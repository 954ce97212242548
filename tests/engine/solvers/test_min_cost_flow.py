"""The fixed-sense L1 network LP by LEMON's integer min-cost flow and the sifting LP started from
its basis (solvers/min_cost_flow.py): the same optimum as the general LP, proven in real
arithmetic, on 2-D and 1H2D tables with any weights and non-integer data."""

import subprocess
import threading

import numpy as np
import pylmcf
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import ctadesk.engine.solvers.lemon as lemon
import ctadesk.engine.solvers.network_l1 as network_l1
from ctadesk.engine.budget import Budget
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.result import SolveOptions, Status
from ctadesk.engine.senses.ordering import ordering_senses
from ctadesk.engine.solvers.lp import solve_lp
from ctadesk.engine.solvers.min_cost_flow import BASIC, flow_start, net_supply
from ctadesk.engine.solvers.network import network_form, sense_bounds
from ctadesk.engine.table.generate import cox_table
from ctadesk.engine.table.structure import Dimension, TableStructure
from tests.engine.solvers.network_tables import table_weights

LEMON = "min-cost flow (LEMON)"


def hierarchy_table(rng: np.random.Generator, columns: int, fraction: float) -> CTAProblem:
    """A random 1H2D table (hierarchy of up to 3 levels x ``columns`` + total) whose values are
    multiples of ``fraction`` (non-integer), with non-integer bounds and protection levels."""
    levels = [1] + [int(level) for level in rng.choice([1, 2, 3], int(rng.integers(3, 12)))]
    levels = [min(level, previous + 1) for previous, level in zip([0, *levels], levels)]
    structure = TableStructure((Dimension.from_levels("H", levels, [f"h{i}" for i in range(len(levels))]),
                                Dimension.flat("C", [str(j) for j in range(columns)])))
    inner = np.flatnonzero(structure.inner_mask())
    raw = np.zeros(structure.n_cells)
    raw[inner] = rng.integers(0, 1000, inner.size) * fraction
    values = structure.aggregate(raw)
    candidates = inner[values[inner] > 0]
    sensitive = np.sort(rng.choice(candidates, max(1, candidates.size // 4), replace=False))
    low, high = rng.uniform(0.05, 0.3), rng.uniform(0.05, 0.3)
    protection = rng.uniform(0.02, 0.9 * min(low, high))
    return CTAProblem(values, structure.relations(), lower=(1 - low) * values, upper=(1 + high) * values,
                      sensitive=sensitive, lower_protection=protection * values[sensitive],
                      upper_protection=protection * values[sensitive])


def grid_table(rng: np.random.Generator, seed: int, fraction: float) -> CTAProblem:
    """A random Cox-recipe 2-D table scaled by ``fraction`` (non-integer values and bounds)."""
    _, problem = cox_table(tuple(int(k) for k in rng.integers(2, 25, 2)), seed=seed % 1000,
                           capacity=float(rng.uniform(0.1, 0.4)))
    return problem.replace(values=problem.values * fraction, lower=problem.lower * fraction,
                           upper=problem.upper * fraction, lower_protection=problem.lower_protection * fraction,
                           upper_protection=problem.upper_protection * fraction)


def random_senses(problem: CTAProblem, rng: np.random.Generator, heuristic: bool) -> np.ndarray:
    """The ordering heuristic's senses, or random ones (often infeasible)."""
    if heuristic:
        return ordering_senses(problem)
    return rng.choice(np.array([-1, 1], np.int8), problem.n_sensitive)


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["2d", "1h2d"]), st.sampled_from(["unit", "inverse", "random"]),
       st.sampled_from([1.0, 0.37, 2.5e-3, 1234.5]), st.booleans(), st.booleans())
def test_the_flow_optimum_equals_the_general_lp(seed, shape, kind, fraction, heuristic, unbounded):
    """Differential: LEMON's path against the IPM over all columns, with feasible and (random
    senses) infeasible senses, with and without upper bounds; infeasible only where the general
    LP finds no table either."""
    rng = np.random.default_rng(seed)
    problem = grid_table(rng, seed, fraction) if shape == "2d" else hierarchy_table(rng, int(rng.integers(2, 9)),
                                                                                   fraction)
    if unbounded:
        problem = problem.replace(upper=np.full(problem.n_cells, np.inf))
    assume(network_form(problem) is not None)     # some random hierarchies are no network
    problem = problem.replace(weights=table_weights(kind, problem.values, rng))
    senses = random_senses(problem, rng, heuristic)
    network = network_l1.solve_network_l1(problem, senses=senses)
    general = solve_lp(problem, senses=senses)
    assert LEMON in network.log and "network" not in network.info        # no fallback
    if network.status is Status.INFEASIBLE:
        assert general.status is Status.INFEASIBLE or not general.verified
    if general.status is Status.OPTIMAL and general.verified:
        assert network.status is Status.OPTIMAL and network.verified
        scale = max(1.0, float(problem.weights @ np.abs(problem.values)))
        assert network.objective == pytest.approx(general.objective, rel=1e-6, abs=1e-9 * scale)


def test_senses_no_table_satisfies_are_infeasible_by_the_flow():
    """A 2 x 2 table with its totals fixed: both inner cells of row 1 cannot go up together."""
    values = np.array([[5, 5, 10], [5, 5, 10], [10, 10, 20]], float).reshape(-1)
    problem = CTAProblem(values, cox_table((2, 2))[0].relations(), lower=values * 0, upper=values * 2,
                         fixed=np.isin(np.arange(9), [2, 5, 6, 7, 8]), sensitive=[0, 1],
                         lower_protection=[1, 1], upper_protection=[1, 1])
    result = network_l1.solve_network_l1(problem, senses=np.array([1, 1]))
    assert LEMON in result.log and result.status is Status.INFEASIBLE and result.values is None


def test_a_tight_cut_rounding_cannot_carry_still_solves():
    """Scaled supplies round: a cut whose capacity carries its supply exactly can fall a unit
    short in integers, and the artificial arcs carry that residue; the LP has no gap."""
    rng = np.random.default_rng(3)
    problem = hierarchy_table(rng, 6, 0.1)
    senses = ordering_senses(problem)
    network = network_l1.solve_network_l1(problem, senses=senses)
    assert LEMON in network.log and network.verified and network.status is Status.OPTIMAL
    assert network.objective == pytest.approx(solve_lp(problem, senses=senses).objective, rel=1e-6)


@pytest.mark.parametrize("seed", range(4))
def test_the_basis_is_a_spanning_tree(seed):
    """Basic columns and basic rows (the artificial arcs kept) join every node: one fewer than the
    nodes, and no cycle."""
    rng = np.random.default_rng(seed)
    problem = hierarchy_table(rng, 5, 1.0)
    form = network_form(problem)
    lower, upper = sense_bounds(problem, ordering_senses(problem))
    base = np.clip(0.0, lower, upper)
    start = flow_start(form, problem.weights, upper - base, base - lower,
                       net_supply(form, base, form.supplies(problem.deviation_rhs)), Budget())
    assert start is not None
    cells = np.concatenate([start.forward, start.backward])[start.status == BASIC]
    node_of_row = np.full(problem.n_relations, -1)
    node_of_row[form.kept] = np.arange(form.kept.size)
    ground = form.n_nodes - 1
    tails = np.concatenate([form.tail[cells], node_of_row[start.basic_rows]])
    heads = np.concatenate([form.head[cells], np.full(start.basic_rows.size, ground)])
    assert tails.size == form.n_nodes - 1
    tree = sp.coo_array((np.ones(tails.size), (tails, heads)), shape=(form.n_nodes, form.n_nodes))
    assert csgraph.connected_components(tree, directed=False)[0] == 1


def test_above_simplex_rows_the_flow_replaces_the_general_lp(monkeypatch):
    """Above SIMPLEX_ROWS relations LEMON's path solves the table; where it fails, the general LP
    does, and says why."""
    rng = np.random.default_rng(7)
    problem = hierarchy_table(rng, 8, 1.0)
    senses = ordering_senses(problem)
    monkeypatch.setattr(network_l1, "SIMPLEX_ROWS", 3)
    taken = network_l1.solve_network_l1(problem, senses=senses)
    assert LEMON in taken.log and "network" not in taken.info and taken.verified
    monkeypatch.setattr(network_l1, "flow_start", lambda *args: None)
    failed = network_l1.solve_network_l1(problem, senses=senses)
    assert "min-cost flow failed" in failed.info["network"] and "general LP" in failed.info["network"]
    assert failed.objective == pytest.approx(taken.objective, rel=1e-6)


def test_a_long_flow_runs_in_a_child_process_that_a_stop_ends(monkeypatch):
    """Past IN_PROCESS_SECONDS LEMON runs in a child process: the same optimum; a solve stopped
    meanwhile kills it and ends cancelled, with no process left behind."""
    monkeypatch.setattr(lemon, "IN_PROCESS_SECONDS", 0.0)
    solved = []
    monkeypatch.setattr(lemon, "_solve", lambda *flow: solved.append(flow))     # not in this process
    problem = hierarchy_table(np.random.default_rng(9), 6, 0.37)
    senses = ordering_senses(problem)
    child = network_l1.solve_network_l1(problem, senses=senses)
    assert LEMON in child.log and "network" not in child.info and child.verified and not solved
    assert child.objective == pytest.approx(solve_lp(problem, senses=senses).objective, rel=1e-6)
    children, popen = [], subprocess.Popen

    def started(*args, **kwargs):
        children.append(popen(*args, **kwargs))
        return children[-1]

    monkeypatch.setattr(lemon.subprocess, "Popen", started)
    stop = threading.Event()
    stop.set()
    stopped = network_l1.solve_network_l1(problem, senses=senses, options=SolveOptions(stop=stop))
    assert stopped.status is Status.CANCELLED
    assert len(children) == 1 and children[0].poll() is not None         # started, and ended


def test_below_simplex_rows_a_failed_flow_leaves_the_max_flow_seed(monkeypatch):
    _, problem = cox_table((15, 20), seed=2)
    senses = ordering_senses(problem)
    monkeypatch.setattr(network_l1, "flow_start", lambda *args: None)
    result = network_l1.solve_network_l1(problem, senses=senses)
    assert LEMON not in result.log and "network" not in result.info and result.verified
    assert result.objective == pytest.approx(solve_lp(problem, senses=senses).objective, rel=1e-6)


def test_lemon_takes_parallel_and_opposite_arcs():
    """A cell's rise and fall are opposite arcs, and two cells may join the same two relations."""
    graph = pylmcf.Graph(3, np.array([0, 0, 0, 1], np.int32), np.array([1, 1, 2, 0], np.int32))
    graph.set_node_supply(np.array([5, 0, -5], np.int64))
    graph.set_edge_capacities(np.array([2, 10, 10, 3], np.int64))
    graph.set_edge_costs(np.array([1, 2, 10, 0], np.int64))
    graph.solve()
    assert graph.total_cost() == 50 and list(graph.result()) == [0, 0, 5, 0]
    parallel = pylmcf.Graph(2, np.array([0, 0, 1], np.int32), np.array([1, 1, 0], np.int32))
    parallel.set_node_supply(np.array([5, -5], np.int64))
    parallel.set_edge_capacities(np.array([2, 10, 10], np.int64))
    parallel.set_edge_costs(np.array([1, 3, 1], np.int64))
    parallel.solve()
    assert list(parallel.result()) == [2, 3, 0] and parallel.total_cost() == 11


def test_the_fewest_changes_rounds_start_from_the_flow_too(monkeypatch):
    """solvers/sparse.py's reweighted L1 rounds on a network table: each from LEMON's flow by the
    round's costs; never dearer, never more cells changed."""
    import ctadesk.engine.solvers.sparse as sparse

    monkeypatch.setattr(sparse, "MILP_CELLS", 0)  # the reweighted rounds, not the MILP
    monkeypatch.setattr(sparse, "REWEIGHT_CELLS", 10**9)
    calls = []

    def counted(*args):
        calls.append(args[1])
        return flow_start(*args)

    monkeypatch.setattr(network_l1, "flow_start", counted)
    problem = hierarchy_table(np.random.default_rng(5), 8, 1.0)
    senses = ordering_senses(problem)
    first = network_l1.solve_network_l1(problem, senses=senses)
    sparsest = network_l1.solve_network_l1(problem, senses=senses, fewest_changes=True)
    assert len(calls) >= 3 and not np.array_equal(calls[-1], problem.weights)    # a round's costs
    assert sparsest.verified and sparsest.objective <= first.objective * (1 + 1e-9) + 1e-9
    assert sparsest.info["cells_changed"] <= first.info["cells_changed"]


def test_a_table_with_nothing_to_move_and_no_bounds():
    """No supply and no finite capacity: nothing sets the scale of the flows."""
    values = np.array([[5, 5, 10], [5, 5, 10], [10, 10, 20]], float).reshape(-1)
    problem = CTAProblem(values, cox_table((2, 2))[0].relations(), lower=np.full(9, -np.inf),
                         upper=np.full(9, np.inf), sensitive=[], lower_protection=[], upper_protection=[])
    result = network_l1.solve_network_l1(problem, senses=np.zeros(0, np.int8))
    assert LEMON in result.log and result.verified and result.objective == 0.0
