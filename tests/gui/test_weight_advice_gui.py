"""1/value weights suggested, with one click to use them: before a run on a table whose cells span
orders of magnitude with unit weights, and after a unit-weight run that distorted a cell."""

import numpy as np

import ctadesk.gui.protect_flow as protect_flow
from ctadesk.app.weight_advice import WeightAdvice
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.table.structure import TableStructure
from ctadesk.io.project import Project

from .conftest import solve_and_wait


def _spanning_project() -> Project:
    structure = TableStructure.flat(2, 2)
    values = structure.aggregate(np.array([[10.0, 489_707.0, 0], [3.0, 120_000.0, 0], [0, 0, 0]]))
    problem = CTAProblem(values, structure.relations(), lower=0.0, upper=np.inf, sensitive=np.array([0]),
                         lower_protection=np.array([2.0]), upper_protection=np.array([2.0]))
    return Project.from_problem(problem, structure)


def test_a_table_spanning_orders_of_magnitude_is_offered_inverse_weights_before_the_run(window):
    window.model_panel.weights.setCurrentIndex(window.model_panel.weights.findData("table"))
    window.set_project(_spanning_project())
    results = window.results
    assert results.advice.isVisibleTo(results) and "orders of magnitude" in results.advice_text.text()
    results.use_inverse.click()
    assert window.model_panel.weights.currentData() == "inverse" and not results.advice.isVisibleTo(results)
    assert not window.runner.running                   # no result yet: nothing to protect again


def test_a_unit_weight_run_that_distorts_a_cell_says_so_and_protects_again_on_one_click(qtbot, window,
                                                                                       monkeypatch):
    seen = []

    def advice(problem, adjusted):
        seen.append(float(problem.weights.max() - problem.weights.min()))
        return WeightAdvice("Unit weights moved cell X by 12,367 %.", (1,))
    monkeypatch.setattr(protect_flow, "after_run", advice)
    window.model_panel.weights.setCurrentIndex(window.model_panel.weights.findData("unit"))
    solve_and_wait(qtbot, window, "auto")
    results = window.results
    assert seen == [0.0]                                # judged on the unit-weighted problem
    assert results.advice.isVisibleTo(results) and "12,367 %" in results.advice_text.text()
    with qtbot.waitSignal(window.runner.finished, timeout=30_000):
        results.use_inverse.click()                     # weights 1/value, protected again
    assert window.model_panel.weights.currentData() == "inverse"
    assert not results.advice.isVisibleTo(results)
    assert len(seen) == 1                               # an inverse-weight run is not judged
