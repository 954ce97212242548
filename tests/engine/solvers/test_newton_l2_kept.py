"""What the L2 dual Newton method keeps per problem (newton_l2._Relations) and what the claims
keep (claims.restated): a problem solved again, with the same senses or others, gets exactly the
table, objective, bound and claims that a new problem with the same data gets."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctadesk.engine.methods import solve
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.senses.ordering import ordering_senses
from ctadesk.engine.solvers.newton_l2 import _RELATIONS, solve_network_l2
from ctadesk.engine.table.generate import cox_table, office_shapes, office_table


def copied(problem: CTAProblem) -> CTAProblem:
    """A new problem with copies of ``problem``'s arrays: nothing kept for the one is found for the other."""
    return CTAProblem(values=problem.values.copy(), relations=problem.relations.copy(), rhs=problem.rhs.copy(),
                      lower=problem.lower.copy(), upper=problem.upper.copy(), weights=problem.weights.copy(),
                      sensitive=problem.sensitive.copy(), lower_protection=problem.lower_protection.copy(),
                      upper_protection=problem.upper_protection.copy(), fixed=problem.fixed.copy(),
                      senses=problem.senses.copy(), cell_label=problem.cell_label,
                      relation_label=problem.relation_label)


def assert_alike(kept, fresh) -> None:
    assert kept.status is fresh.status and kept.message == fresh.message        # (logs carry timings)
    assert kept.info.get("network") == fresh.info.get("network")    # the Newton method's notes, any handover
    assert (kept.values is None) is (fresh.values is None)
    if kept.values is not None:     # alike up to rounding: conjugate gradients' iteration cap is timed
        np.testing.assert_allclose(kept.values, fresh.values, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose([kept.model_objective, kept.objective], [fresh.model_objective, fresh.objective],
                               rtol=1e-9)
    assert (kept.bound is None) is (fresh.bound is None)
    if kept.bound is not None:
        assert kept.bound == pytest.approx(fresh.bound, rel=1e-9) and kept.gap == pytest.approx(fresh.gap, abs=1e-9)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(20, 200))
def test_an_office_table_solved_again_is_solved_alike(seed, cells):
    """solve() twice on one problem (the second finds its restated problem, bound and relations
    kept) against solve() on a copy: the same table, objectives, bound and claims."""
    _, dimensions = office_shapes(2, seed % 1000, cells, 2 * cells + 60)[seed % 2]
    problem = office_table(dimensions, seed=seed)
    solve(problem, "network-l2")
    assert_alike(solve(problem, "network-l2"), solve(copied(problem), "network-l2"))


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.lists(st.integers(2, 7), min_size=2, max_size=3), st.floats(0.05, 0.5))
def test_other_senses_between_solves_change_nothing_kept(seed, shape, capacity):
    """Two sense vectors in turns on one problem's relations (other movable cells, so the kept
    dense pattern is built again): each solve as on a new problem."""
    _, problem = cox_table(tuple(shape), seed=seed, capacity=capacity)
    ordering = ordering_senses(problem)
    for senses in (ordering, -ordering, ordering):
        kept = solve_network_l2(problem, senses=senses)
        assert problem in _RELATIONS
        assert_alike(kept, solve_network_l2(copied(problem), senses=senses))


def test_above_kept_cells_nothing_is_kept_and_the_table_is_the_same(monkeypatch):
    """A problem of more than KEPT_CELLS cells keeps no _Relations, and its relations are worked
    out once a solve (solve_network_l2 hands them to least_squares_deviations)."""
    from ctadesk.engine.solvers import newton_l2

    _, dimensions = office_shapes(1, 3, 100, 200)[0]
    problem = office_table(dimensions, seed=3)
    kept = solve_network_l2(problem)
    monkeypatch.setattr(newton_l2, "KEPT_CELLS", problem.n_cells - 1)
    other = copied(problem)
    calls = []
    monkeypatch.setattr(newton_l2, "defining_relations",
                        lambda A, original=newton_l2.defining_relations: calls.append(1) or original(A))
    assert_alike(kept, solve_network_l2(other))
    assert other not in _RELATIONS and calls == [1]
