"""When 1/value weights are suggested: before a unit-weight run on cells spanning orders of
magnitude, after one that moved a non-sensitive cell by more than its value or zeroed a large one."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ctadesk.app.weight_advice import MOVED_SHARE, after_run, before_run
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.table.structure import TableStructure


def _problem(inner, weights=1.0) -> CTAProblem:
    structure = TableStructure.flat(*np.shape(inner))
    values = structure.aggregate(np.pad(np.asarray(inner, float), ((0, 1), (0, 1))))
    level = 0.2 * values[[0]]
    return CTAProblem(values, structure.relations(), lower=0.0, upper=np.inf, sensitive=np.array([0]),
                      lower_protection=level, upper_protection=level, weights=weights,
                      cell_label=lambda i: structure.cell_label(i))


SPANNING = [[10.0, 489_707.0], [3.0, 120_000.0]]


def test_cells_spanning_orders_of_magnitude_get_the_advice_before_a_unit_weight_run():
    problem = _problem(SPANNING)
    advice = before_run(problem.values, np.ones(1), str)
    assert advice is not None and "5 orders of magnitude" in advice.text() and "1/value" in advice.text()
    assert before_run(problem.values, problem.values + 1.0, str) is None      # a table's own costs: none
    assert before_run(np.array([10.0, 20.0, 900.0]), np.ones(1), str) is None


def test_a_large_non_sensitive_cell_set_to_zero_is_named():
    problem = _problem(SPANNING)
    adjusted = problem.values.copy()
    big = int(np.flatnonzero(problem.values == 489_707.0)[0])
    adjusted[big] = 0.0
    advice = after_run(problem, adjusted)
    assert advice is not None and big in advice.cells and "489,707" in advice.text()
    assert after_run(problem.replace(weights=1 / np.maximum(problem.values, 1)), adjusted) is None


@settings(max_examples=50, deadline=None)
@given(share=st.floats(0.0, 50.0), cell=st.integers(1, 8))
def test_a_non_sensitive_cell_is_flagged_exactly_when_it_moved_by_more_than_its_value(share, cell):
    problem = _problem([[10.0, 40.0], [30.0, 20.0]])
    adjusted = problem.values.copy()
    adjusted[cell] += share * problem.values[cell]
    advice = after_run(problem, adjusted)
    assert (advice is not None) == (share > MOVED_SHARE)
    if advice is not None:
        assert advice.cells == (cell,)
