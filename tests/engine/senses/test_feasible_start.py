"""The SAT-style start (Castro & González 2011, §3) avoids the sense combinations a relation cannot balance."""

import numpy as np

from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.senses.feasible_start import infeasible_combinations, sat_senses, solve_sat_lp
from ctadesk.engine.table.generate import cox_table
from ctadesk.engine.table.structure import TableStructure


def two_by_two(upper_total: float) -> CTAProblem:
    """Row 1 of a 2x2 table holds two sensitive cells of 5 (protection 2); its total may rise by upper_total."""
    structure = TableStructure.flat(2, 2)
    values = structure.aggregate(np.array([[5, 5, 0], [5, 5, 0], [0, 0, 0]], float))
    upper = values * 2
    upper[2] = values[2] + upper_total
    return CTAProblem(values, structure.relations(), lower=np.zeros(9), upper=upper,
                      sensitive=[0, 1], lower_protection=[2, 2], upper_protection=[2, 2])


def test_a_pair_that_would_overflow_its_total_is_a_clause():
    a, b = infeasible_combinations(two_by_two(upper_total=3.0))
    # both up needs the row total to rise by 4 > 3: "not (cell 0 up and cell 1 up)" = literals (0, 2)
    assert (0, 2) in set(zip(a.tolist(), b.tolist()))
    assert infeasible_combinations(two_by_two(upper_total=5.0))[0].size == 0


def test_sat_senses_avoid_every_clause():
    problem = two_by_two(upper_total=3.0)
    senses = sat_senses(problem)
    assert not (senses[0] == 1 and senses[1] == 1)


def test_sat_lp_returns_a_verified_table_on_a_cox_table():
    _, problem = cox_table((6, 7), seed=3)
    result = solve_sat_lp(problem)
    assert result.verified
    assert result.method == "sat-lp"
