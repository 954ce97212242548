"""What showing a table read in the background leaves to the window's thread (issue 32): the
weight advice before a run is worked out by the job that read the table, and the window only
picks the one for the weights the model panel shows."""

import numpy as np

import ctadesk.gui.protect_flow as protect_flow
from ctadesk.app.session import Session
from ctadesk.gui.jobs import TABLE_WEIGHTS, UNIT_WEIGHTS, weight_advice

from .test_weight_advice_gui import _spanning_project


def test_the_advice_before_a_run_comes_from_the_load_job(qtbot, window, tmp_path, monkeypatch):
    path = tmp_path / "spanning.ctaproj"
    Session(_spanning_project()).save(path)
    worked_out_here = []
    monkeypatch.setattr(protect_flow, "weight_advice", lambda project: worked_out_here.append(project))
    window.model_panel.weights.setCurrentIndex(window.model_panel.weights.findData("unit"))
    assert window.open_path(path)
    kept, advice = window._advice
    assert kept is window.project and not worked_out_here
    assert advice[UNIT_WEIGHTS] is not None and "orders of magnitude" in window.results.advice_text.text()


def test_a_table_shown_without_a_load_job_has_its_advice_worked_out_by_the_window(window):
    window.model_panel.weights.setCurrentIndex(window.model_panel.weights.findData("unit"))
    project = _spanning_project()
    window.set_project(project)
    assert window._advice[0] is not project
    assert "orders of magnitude" in window.results.advice_text.text()


def test_the_advice_under_the_tables_weights_and_under_unit_weights():
    project = _spanning_project()
    advice = weight_advice(project)
    smallest, largest = np.argmin(np.where(project.values > 0, project.values, np.inf)), np.argmax(project.values)
    assert advice[UNIT_WEIGHTS] is not None and advice[UNIT_WEIGHTS].cells == (smallest, largest)
    assert advice[TABLE_WEIGHTS] == advice[UNIT_WEIGHTS]  # the table's own weights are all one
    project.weights = np.arange(1.0, project.n_cells + 1)  # weights of their own: no advice under them
    assert weight_advice(project)[TABLE_WEIGHTS] is None
