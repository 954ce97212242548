"""The mirror symmetry of model (2): found only where it holds, and one fixed sense keeps the optimum."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctadesk.engine.problem import SENSE_DOWN, SENSE_UP
from ctadesk.engine.publish.verify import verify
from ctadesk.engine.result import SolveOptions
from ctadesk.engine.solvers.highs import solve_model
from ctadesk.engine.solvers.lp import solve_lp
from ctadesk.engine.solvers.milp import milp_model
from ctadesk.engine.solvers.symmetry import anchor, broken, mirror_symmetric, mirrored
from ctadesk.engine.table.generate import GeneratorSpec, cox_table, generate_table


def _small(shape: tuple[int, ...], seed: int, count: int):
    return generate_table(GeneratorSpec(shape=shape, seed=seed, sensitive_count=count))[1]


def _enumerated(problem, anchored: int | None = None) -> float:
    """The cheapest table over every sense vector (the anchor's sense up, if given)."""
    best = np.inf
    for signs in itertools.product((SENSE_UP, SENSE_DOWN), repeat=problem.sensitive.size):
        senses = np.array(signs, np.int8)
        if anchored is not None and senses[anchored] != SENSE_UP:
            continue
        table = solve_lp(problem, senses=senses)
        if table.verified:
            best = min(best, table.objective)
    return best


@settings(max_examples=8, deadline=None)
@given(shape=st.sampled_from([(4, 4), (3, 3, 2), (5, 3)]), seed=st.integers(0, 10_000),
       count=st.integers(2, 6))
def test_one_fixed_sense_keeps_the_enumerated_optimum(shape, seed, count):
    """On Cox tables the model is mirror-symmetric, the enumerated optimum with the anchor's sense
    fixed up is the optimum over all senses, and HiGHS's optimum of the broken model reaches it."""
    problem = _small(shape, seed, count)
    model, free, _ = milp_model(problem, SolveOptions())
    assert mirror_symmetric(problem, model, free)
    k = anchor(problem, free)
    optimum = _enumerated(problem)
    assert _enumerated(problem, int(free[k])) == pytest.approx(optimum, rel=1e-9)
    outcome = solve_model(broken(model, problem.n_cells, k), SolveOptions(time_limit=30), {"mip_rel_gap": 0.0})
    assert outcome.objective == pytest.approx(optimum, rel=1e-6)
    assert outcome.values[2 * problem.n_cells + k] == pytest.approx(1.0)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000), draw=st.integers(0, 2 ** 16))
def test_a_mirrored_table_is_protected_and_costs_the_same(seed, draw):
    _, problem = cox_table((5, 4), seed)
    senses = np.where(np.random.default_rng(draw).random(problem.sensitive.size) < 0.5, SENSE_UP, SENSE_DOWN)
    table = solve_lp(problem, senses=senses.astype(np.int8))
    if not table.verified:
        return
    values, flipped = mirrored(problem, table.values, table.senses)
    again = solve_lp(problem, senses=flipped)
    assert verify(problem, values, flipped).ok
    assert again.objective == pytest.approx(table.objective, rel=1e-9)
    assert problem.weights @ np.abs(values - problem.values) == pytest.approx(table.objective, rel=1e-9)


def _asymmetric(kind: str):
    problem = _small((4, 4), 3, 4)
    if kind == "given sense":
        senses = problem.senses.copy()
        senses[0] = SENSE_UP
        return problem.replace(senses=senses)
    if kind == "one-sided bound":
        cell = next(i for i in range(problem.n_cells) if i not in problem.sensitive and problem.values[i] > 0)
        upper = problem.upper.copy()
        upper[cell] = problem.values[cell]
        return problem.replace(upper=upper)
    if kind == "unequal levels":
        levels = problem.upper_protection.copy()
        levels[1] *= 1.5
        return problem.replace(upper_protection=levels)
    rhs = np.zeros(problem.n_relations)
    rhs[0] = 1.0
    return problem.replace(rhs=problem.relations @ problem.values + rhs)


@pytest.mark.parametrize("kind", ["given sense", "one-sided bound", "unequal levels", "shifted relation"])
def test_no_mirror_where_the_model_is_not_symmetric(kind):
    problem = _asymmetric(kind)
    model, free, _ = milp_model(problem, SolveOptions())
    assert free.size and not mirror_symmetric(problem, model, free)
