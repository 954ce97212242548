"""The soft-protection LP always returns a table and says what it had to relax (paper 000 §4)."""

import pytest

from ctadesk.engine.generate import cox_table
from ctadesk.engine.result import Status
from ctadesk.engine.senses.ordering import ordering_senses
from ctadesk.engine.solvers.lp import solve_lp
from ctadesk.engine.solvers.soft import solve_soft_lp


def tight_table(seed: int):
    """A 10x10x10 Cox table whose non-sensitive cells may move by 10 % only (fixed senses often infeasible)."""
    _, problem = cox_table((10, 10, 10), seed=seed)
    lower, upper = problem.values * 0.9, problem.values * 1.1
    lower[problem.sensitive] = problem.lower[problem.sensitive]
    upper[problem.sensitive] = problem.upper[problem.sensitive]
    return problem.replace(lower=lower, upper=upper)


def test_feasible_senses_give_the_exact_fixed_sense_optimum():
    _, problem = cox_table((8, 9), seed=4)
    senses = ordering_senses(problem)
    soft = solve_soft_lp(problem, senses=senses)
    assert soft.verified and soft.status is Status.OPTIMAL
    assert soft.objective == pytest.approx(solve_lp(problem, senses=senses).objective, rel=1e-6)
    assert soft.info["relation_slack"] < 1e-6


def test_infeasible_senses_still_give_a_table_that_names_the_relaxed_relations():
    problem = tight_table(1)
    senses = ordering_senses(problem)
    assert solve_lp(problem, senses=senses).status is Status.INFEASIBLE
    soft = solve_soft_lp(problem, senses=senses)
    assert soft.values is not None and soft.status is Status.NOT_PROTECTED
    assert soft.info["relation_slack"] > 0 and soft.info["protection_slack"] < 1e-6
    assert "relations" in soft.message and "relation" in soft.verification.violations[0].kind
