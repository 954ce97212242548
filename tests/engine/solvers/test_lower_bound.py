"""The combinatorial lower bound is never above the exact optimum and is close to the MILP's root bound."""

import dataclasses

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from ctadesk.engine.errors import ProblemError
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.result import SolveOptions
from ctadesk.engine.solvers.cuts import with_imbalance_cuts
from ctadesk.engine.solvers.highs import solve_model
from ctadesk.engine.solvers.lower_bound import lower_bound
from ctadesk.engine.solvers.milp import milp_model, solve_milp
from ctadesk.engine.table.generate import cox_table
from ctadesk.engine.table.structure import Dimension, TableStructure
from tests.crosscheck.checker import reference
from tests.crosscheck.claims import tolerances
from tests.crosscheck.instances import build, specs

from .conftest import thesis_problem


def hierarchical_problem(seed: int) -> CTAProblem:
    """A 1H2D table (region hierarchy x 4 industries), random weights, unequal protection, loose capacity."""
    rng = np.random.default_rng(seed)
    structure = TableStructure((Dimension.from_levels("R", [1, 2, 2, 1, 2, 2, 2], list("abcdefg")),
                                Dimension.flat("I", list("wxyz"))))
    inner = structure.inner_mask()
    raw = np.where(inner, rng.integers(1, 100, structure.n_cells), 0).astype(float)
    values = structure.aggregate(raw)
    sensitive = np.sort(rng.choice(np.flatnonzero(inner), 6, replace=False))
    return CTAProblem(values=values, relations=structure.relations(), lower=0.5 * values, upper=1.6 * values,
                      weights=rng.uniform(0.2, 2.0, structure.n_cells), sensitive=sensitive,
                      lower_protection=0.15 * values[sensitive], upper_protection=0.3 * values[sensitive])


def cases():
    for shape, seed in [((5, 6), 0), ((7, 7), 3), ((4, 4, 3), 2), ((3, 4, 5), 5)]:
        yield pytest.param(cox_table(shape, seed)[1], id=f"cox-{'x'.join(map(str, shape))}")
    _, loose = cox_table((6, 6), 4, capacity=0.5)
    weights = np.random.default_rng(1).uniform(0.1, 3.0, loose.n_cells)
    yield pytest.param(loose.replace(weights=weights, upper_protection=1.5 * loose.upper_protection),
                       id="cox-loose-weighted")
    _, given = cox_table((5, 5), 7)
    senses = np.zeros(given.n_sensitive, np.int8)
    senses[::3] = 1
    yield pytest.param(given.replace(senses=senses), id="some-senses-given")
    for seed in range(3):
        yield pytest.param(hierarchical_problem(seed), id=f"1h2d-{seed}")


@pytest.mark.parametrize("problem", list(cases()))
def test_the_bound_is_never_above_the_optimum(problem):
    optimum = solve_milp(problem, SolveOptions(gap=1e-9))
    assert optimum.verified and optimum.status.value == "optimal"
    bound = lower_bound(problem)
    assert 0 < bound.protection <= bound.value
    assert bound.value <= optimum.objective * (1 + 1e-7) + 1e-7


def test_a_lone_sensitive_cell_costs_its_level_and_moves_its_row_and_column():
    # thesis table, cell (1,1) = 10 alone with protection 3 both ways; margins fixed, so its row and its
    # column each need 3 from other cells, and no one cell of the table lies in both; the optimum
    # closes the cycle with a fourth cell: 12
    problem = thesis_problem(sensitive=[0], lower_protection=[3], upper_protection=[3], senses=None)
    bound = lower_bound(problem)
    assert bound.protection == pytest.approx(3)
    assert bound.relations == 2
    assert bound.imbalance == pytest.approx(6)
    assert bound.value == pytest.approx(9)
    assert solve_milp(problem).objective == pytest.approx(12)


def test_a_cell_shared_by_two_imbalances_absorbs_only_its_room():
    # a (50, level 10 both ways, no further) lies in two relations with s (room 1) and its own cell
    # e1 / e2 (room 50); totals fixed.  Without rooms s alone would absorb both imbalances (bound
    # 10 + 10 = 20); s moves by 1, so e1 and e2 move by 9 each: 10 + 1 + 9 + 9 = 29, the optimum
    values = np.array([50.0, 5.0, 50.0, 50.0, 105.0, 105.0])
    relations = np.array([[1, 1, 1, 0, -1, 0], [1, 1, 0, 1, 0, -1]], float)
    problem = CTAProblem(values=values, relations=relations, lower=np.array([40, 4, 0, 0, 105, 105.0]),
                         upper=np.array([60, 6, 100, 100, 105, 105.0]), sensitive=[0], lower_protection=[10],
                         upper_protection=[10])
    bound = lower_bound(problem)
    assert bound.protection == pytest.approx(10)
    assert bound.value == pytest.approx(29)
    assert solve_milp(problem).objective == pytest.approx(29)


@settings(max_examples=80, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(spec=specs(sizes=("tiny", "small"), max_sensitive=6))
def test_the_bound_is_never_above_the_checkers_enumerated_optimum(spec):
    """Generated tables of every kind the cross-check draws (bounds from tight to infinite, zero
    weights, fixed cells, given senses): the rooms may lift the bound, never past the optimum the
    independent checker finds by enumerating the senses."""
    problem = build(spec).problem
    assume(problem is not None)
    found = reference(problem, max_free=6)
    assume(found.status == "optimal")
    assert lower_bound(problem).value <= found.objective + tolerances(problem, found.objective)[0]


def test_the_bound_is_at_least_the_root_bound_with_cuts_on_a_3d_table_less_a_percent():
    _, problem = cox_table((6, 6, 6), 1)
    model, _, _ = milp_model(problem, SolveOptions())
    relaxed = dataclasses.replace(with_imbalance_cuts(problem, model), integer_columns=np.zeros(0, np.int64))
    root = solve_model(relaxed, SolveOptions(), {}).objective
    bound = lower_bound(problem)
    assert bound.imbalance > 0.1 * bound.protection
    assert 0.99 * root <= bound.value


def test_a_time_limited_milp_reports_the_certified_bound_when_higher():
    _, problem = cox_table((8, 8, 8), 1)
    certified = lower_bound(problem).value
    result = solve_milp(problem, SolveOptions(time_limit=1.0))
    assert result.verified
    assert result.bound >= certified - 1e-6
    assert result.gap == pytest.approx((result.objective - result.bound) / result.objective)
    if result.info.get("bound_from"):
        assert result.bound == pytest.approx(certified)
        assert result.info["solver_bound"] is None or result.info["solver_bound"] < certified


@pytest.mark.parametrize("problem", list(cases()) + [pytest.param(hierarchical_problem(seed), id=f"1h2d-{seed}")
                                                     for seed in range(3)])
def test_without_free_senses_the_bound_skips_propagation_and_is_the_same_where_a_table_exists(problem, monkeypatch):
    """With every sense fixed, bound propagation only finds a sense's level unreachable where no
    table is protected: the bound without it equals the bound with it wherever the fixed-sense LP
    finds a table, and stays below that LP's optimum."""
    from ctadesk.engine.senses.ordering import ordering_senses
    from ctadesk.engine.solvers import lower_bound as module
    from ctadesk.engine.solvers.lp import solve_lp

    fixed = problem.with_senses(ordering_senses(problem))
    found = lower_bound(fixed)
    implied_lower, implied_upper = module.propagated_deviation_bounds(fixed)
    propagated = module._protection_part(fixed, fixed.effective_senses, -implied_lower[fixed.sensitive],
                                         implied_upper[fixed.sensitive])
    table = solve_lp(fixed)
    assert table.verified
    assert found.value == propagated
    assert found.value <= table.objective * (1 + 1e-9)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.lists(st.integers(2, 6), min_size=2, max_size=3), st.booleans())
def test_without_free_senses_the_bound_is_the_protection_part_the_whole_computation_gives(seed, shape, office):
    """Every sense fixed (a Cox table with random senses, or an office table, whose senses are fixed):
    lower_bound's short path gives what the whole computation gives, worked out here as it does
    with free senses (the column bounds, imbalance_bounds' D_r, the packing over them)."""
    from ctadesk.engine.budget import Budget
    from ctadesk.engine.solvers import lower_bound as module
    from ctadesk.engine.solvers.cuts import imbalance_bounds
    from ctadesk.engine.solvers.lp import deviation_bounds, l1_column_bounds
    from ctadesk.engine.table.generate import office_shapes, office_table

    if office:
        _, dimensions = office_shapes(1, seed % 1000, 20, 400)[0]
        problem = office_table(dimensions, seed=seed)
    else:
        _, problem = cox_table(tuple(shape), seed=seed, capacity=0.3)
        senses = np.where(np.random.default_rng(seed).random(problem.n_sensitive) < 0.5, 1, -1)
        fits_up, fits_down = problem.safe_value_fits()
        problem = problem.with_senses(np.where(fits_up & fits_down, senses, np.where(fits_up, 1, -1)))
    senses = problem.effective_senses
    implied_lower, implied_upper = deviation_bounds(problem)
    col_lower, col_upper = l1_column_bounds(problem, senses)
    deficit = imbalance_bounds(problem, col_lower, col_upper)
    deficit = np.where(np.isfinite(deficit), deficit, 0.0)
    movable = (col_upper[:problem.n_cells] > 0) | (col_upper[problem.n_cells:] > 0)
    imbalance, complete = module._packing(problem, deficit, movable, Budget())
    protection = module._protection_part(problem, senses, -implied_lower[problem.sensitive],
                                         implied_upper[problem.sensitive])
    found, found_complete = module._lower_bound(problem, Budget())
    assert found == module.LowerBound(protection + imbalance, protection, imbalance,
                                      int(np.count_nonzero(deficit > 0)))
    assert found_complete is complete


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 30), st.sampled_from([1e-3, 1.0, 1e6, 1e12]))
def test_the_fixed_senses_protection_part_is_the_general_ones(seed, cells, magnitude):
    """_protection_part with the sensitive cells' own rooms (lower_bound._own_rooms, every sense
    fixed) is _protection_part with deviation_bounds, to the bit: random values, infinite bounds,
    and rooms a hair below a level, where CTAProblem accepts the sense (its tolerance is relative to
    the value) and the bound's test does not (relative to the room), so the smaller level counts."""
    from ctadesk.engine.solvers import lower_bound as module
    from ctadesk.engine.solvers.lp import deviation_bounds

    rng = np.random.default_rng(seed)
    values = rng.uniform(0.0, magnitude, cells)
    upl, lpl = rng.uniform(0.0, 0.5, cells) * values, rng.uniform(0.0, 0.5, cells) * values
    shave = rng.choice([0.0, 1e-12, 1e-10, 1e-9, 1e-3], cells) * np.maximum(values, 1.0)
    upper = np.where(rng.random(cells) < 0.3, np.inf, values + upl - shave)
    lower = np.where(rng.random(cells) < 0.3, -np.inf, values - lpl + shave)
    senses = np.where(rng.random(cells) < 0.5, 1, -1)
    try:
        problem = CTAProblem(values, np.zeros((0, cells)), lower=lower, upper=upper, sensitive=np.arange(cells),
                             upper_protection=upl, lower_protection=lpl, senses=senses,
                             weights=rng.uniform(0.1, 10.0, cells))
    except ProblemError:                # a sense CTAProblem refuses: its side does not fit at all
        return
    implied_lower, implied_upper = deviation_bounds(problem)
    senses, cells = problem.effective_senses, problem.sensitive
    general = module._protection_part(problem, senses, -implied_lower[cells], implied_upper[cells])
    assert module._protection_part(problem, senses, *module._own_rooms(problem)) == general
    assert lower_bound(problem).value == general
