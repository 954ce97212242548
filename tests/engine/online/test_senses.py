"""The first stage's senses: local ones depend on the cell alone, the full table's are a
protected table's that keeps every stored sense and is never one-sided."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ctadesk.engine.online import full_table_senses, local_senses, one_sided
from ctadesk.engine.problem import SENSE_DOWN, SENSE_FREE, SENSE_UP, CTAProblem
from ctadesk.engine.table.generate import cox_table


def test_local_senses_are_forced_by_the_bounds_else_the_cells_coin():
    # cell 0 cannot go down by 3 (lower bound 8): only up; cell 1 cannot go up (upper bound 6)
    problem = CTAProblem(values=[10.0, 5.0, 4.0, 19.0], relations=[[1.0, 1.0, 1.0, -1.0]], lower=[8, 0, 0, 0],
                         upper=[100, 6, 100, 100], sensitive=[0, 1, 2], lower_protection=[3, 1, 1],
                         upper_protection=[3, 2, 1])
    senses = local_senses(problem, ["a", "b", "c"], "secret")
    assert senses[0] == SENSE_UP and senses[1] == SENSE_DOWN and senses[2] in (SENSE_UP, SENSE_DOWN)
    assert np.array_equal(senses, local_senses(problem, ["a", "b", "c"], "secret"))


def test_a_cells_coin_is_its_own_whatever_table_it_is_in():
    _, problem = cox_table((8, 9), seed=1)
    keys = [f"cell {i}" for i in problem.sensitive]
    senses = local_senses(problem, keys, "s")
    forced = problem.forced_senses
    reversed_problem = problem.replace(sensitive=problem.sensitive[::-1],
                                       lower_protection=problem.lower_protection[::-1],
                                       upper_protection=problem.upper_protection[::-1])
    again = local_senses(reversed_problem, keys[::-1], "s")[::-1]
    free = forced == SENSE_FREE
    assert np.array_equal(again[free], senses[free])


@settings(max_examples=50, deadline=None)
@given(st.lists(st.sampled_from([SENSE_UP, SENSE_DOWN]), min_size=0, max_size=40), st.integers(0, 2**32 - 1))
def test_one_sided_means_more_than_the_share_on_one_side(senses, seed):
    senses = np.array(senses, dtype=np.int8)
    new = np.random.default_rng(seed).random(senses.size) < 0.7
    count = int(new.sum())
    up = int(np.count_nonzero(senses[new] == SENSE_UP))
    assert one_sided(senses, new) == (count >= 2 and max(up, count - up) > 0.95 * count)


def test_the_full_tables_senses_keep_the_stored_ones_and_give_a_protected_table():
    _, problem = cox_table((6, 7), seed=3)
    stored = np.zeros(problem.n_sensitive, np.int8)
    stored[:2] = [SENSE_UP, SENSE_DOWN]
    coins = np.where(np.arange(problem.n_sensitive) % 2 == 0, SENSE_UP, SENSE_DOWN).astype(np.int8)
    senses, values, how = full_table_senses(problem, stored, 20.0, coins=coins)
    assert senses is not None, how
    assert np.array_equal(senses[:2], stored[:2])
    cells = problem.sensitive
    level = np.where(senses == SENSE_UP, problem.upper_protection, problem.lower_protection)
    assert np.all(senses * (values[cells] - problem.values[cells])
                  >= level - 1e-6 * np.maximum(1, problem.values[cells]))
    np.testing.assert_allclose(problem.relations @ values, problem.rhs, atol=1e-6 * np.abs(problem.values).max())
    assert not one_sided(senses, stored == SENSE_FREE)
