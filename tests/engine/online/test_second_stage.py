"""The second stage (Castro & González 2011 §4) with cells held at their published values: exact
when the pins admit a table, the pins given up before additivity or protection when they do not,
soft only when the senses themselves admit no table."""

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from ctadesk.engine.methods import solve
from ctadesk.engine.online import Relaxation, held, second_stage
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.result import SolveOptions
from ctadesk.engine.table.structure import TableStructure

#: cells A, B and their total T = A + B, A sensitive (up, level 2)
ABT = CTAProblem(values=[10.0, 5.0, 15.0], relations=[[1.0, 1.0, -1.0]], lower=0.0, sensitive=[0],
                 lower_protection=[2.0], upper_protection=[2.0], senses=[1])


def test_a_free_cell_takes_what_the_pins_leave_it():
    table = second_stage(ABT, {2: 15.0})[3]
    np.testing.assert_allclose(table, [12.0, 3.0, 15.0])


def test_a_cell_the_pins_determine_is_held_at_that_value():
    free, _, values = held(ABT, {1: 5.0, 2: 17.0})
    assert free.size == 0 and values.tolist() == [12.0, 5.0, 17.0]
    _, status, _, table = second_stage(ABT, {1: 5.0, 2: 17.0})
    assert status == "optimal" and table.tolist() == [12.0, 5.0, 17.0]


def test_pins_that_leave_a_sensitive_cell_unprotected_are_given_up_not_the_protection():
    problem, status, message, table = second_stage(ABT, {1: 5.0, 2: 15.0})     # they determine A = 10
    a, b, total = table
    assert a == pytest.approx(12.0) and a + b == pytest.approx(total, abs=1e-9)  # protected, additive
    assert status == "optimal" and "published values given up" in message and problem.n_relations == 3
    relaxation = Relaxation.of(problem, ABT.senses, table, ABT.n_relations)
    assert relaxation and not relaxation.broken and len(relaxation.published) == 1
    given_up = relaxation.lines()
    assert len(given_up) == 1 and "as published before" in given_up[0]      # B or T, off by the 2 A needs
    assert given_up[0].endswith(("is off by 2", "is off by -2"))


def test_senses_that_admit_no_table_get_the_soft_stage():
    # A and B up by 2, their total down by 2: additive only if one of them falls short
    both = ABT.replace(sensitive=[0, 1, 2], lower_protection=[2.0] * 3, upper_protection=[2.0] * 3, senses=[1, 1, -1])
    problem, status, _, table = second_stage(both, {})
    assert status == "not_protected" and table is not None
    assert Relaxation.of(problem, both.senses, table)


def test_pins_that_contradict_each_other_leave_no_exact_table():
    two_totals = CTAProblem(values=[10.0, 5.0, 15.0, 15.0], relations=[[1.0, 1.0, -1.0, 0.0], [1.0, 1.0, 0.0, -1.0]])
    assert held(two_totals, {0: 10.0, 1: 5.0, 2: 15.0, 3: 16.0}) is None


@st.composite
def protected_tables(draw):
    """A 2-D table with margins, some sensitive cells with senses, and the L1 table of those
    senses: (problem, that table), when one exists."""
    rows, columns = draw(st.integers(2, 5)), draw(st.integers(2, 5))
    structure = TableStructure.flat(rows, columns)
    rng = np.random.default_rng(draw(st.integers(0, 10_000)))
    scale = draw(st.sampled_from([1e-2, 1.0, 1e3, 1e7]))
    values = structure.aggregate(rng.uniform(1.0, 100.0, structure.shape) * scale)
    inner = np.flatnonzero(structure.inner_mask())
    sensitive = np.sort(rng.choice(inner, draw(st.integers(1, max(1, inner.size // 3))), replace=False))
    levels = 0.1 * values[sensitive]
    problem = CTAProblem(values=values, relations=structure.relations(), lower=0.0, sensitive=sensitive,
                         lower_protection=levels, upper_protection=levels,
                         senses=rng.choice([-1, 1], sensitive.size), weights=1.0 / values)
    first = solve(problem, "lp", SolveOptions())
    return problem, (first.values if first.verified else None)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=protected_tables(), share=st.floats(0.1, 1.0), seed=st.integers(0, 1000))
def test_pins_from_a_protected_table_are_kept_exactly_at_no_greater_distance(case, share, seed):
    problem, before = case
    assume(before is not None)
    rng = np.random.default_rng(seed)
    plain = np.setdiff1d(np.arange(problem.n_cells), problem.sensitive)
    chosen = rng.choice(plain, max(1, int(share * plain.size)), replace=False)
    pins = {int(i): float(before[i]) for i in chosen}
    _, status, _, table = second_stage(problem, pins)
    assert status in ("optimal", "feasible")
    a = problem.values
    unit = float(np.median(a))
    assert all(table[i] == value for i, value in pins.items())
    assert np.all(np.abs(problem.relations @ table - problem.rhs) <= 1e-6 * np.abs(problem.relations) @ np.abs(a))
    moved = problem.senses * (table[problem.sensitive] - a[problem.sensitive])
    assert np.all(moved >= problem.upper_protection - 1e-6 * np.maximum(a[problem.sensitive], unit))
    assert np.all(table >= -1e-9 * unit)
    distance = lambda x: float(problem.weights @ np.abs(x - a))  # noqa: E731
    assert distance(table) <= distance(before) * (1 + 1e-6) + 1e-9
