import time

import numpy as np
import pytest

from ctadesk.engine.publish.verify import verify
from ctadesk.engine.result import Status
from ctadesk.engine.table.generate import GeneratorSpec
from ctadesk.gui.jobs import available_methods
from ctadesk.gui.table_model import Display
from tests.timing import timed

from .conftest import solve_and_wait


def test_the_method_selector_lists_every_method_of_the_solvers(qapp):
    from ctadesk.engine.methods import METHODS
    from ctadesk.gui.model_panel import ModelPanel

    panel = ModelPanel(available_methods())
    assert [panel.method.itemData(k) for k in range(panel.method.count())] == ["auto", *METHODS]
    assert all(panel.method.itemText(k + 1) == METHODS[name].label for k, name in enumerate(METHODS))


def test_the_model_is_chosen_by_distance_and_senses_and_round_trips(qapp):
    from ctadesk.app import ProtectionRequest
    from ctadesk.gui.model_panel import ModelPanel

    panel = ModelPanel(available_methods())
    panel.distance.setCurrentIndex(panel.distance.findData("huber"))
    panel.senses.setCurrentIndex(panel.senses.findData("fixed"))
    panel.delta.setValue(0.25)
    options = panel.options()
    assert options["method"] == "auto" and options["parameters"] == {"delta": 0.25}
    request = ProtectionRequest.from_options(options)
    assert (request.distance, request.senses, dict(request.parameters)) == ("huber", "fixed", {"delta": 0.25})
    again = ModelPanel(available_methods())
    again.set_options(request.options())
    assert again.options() == options


@pytest.mark.parametrize("method", available_methods())
def test_marking_a_cell_sensitive_then_protecting_shows_a_verified_adjusted_table(qtbot, window, method):
    project = window.project
    project.sensitive[:] = False
    cell = int(np.flatnonzero(window.project.structure.inner_mask() & (project.values > 0))[0])
    window.editor.select_cells([cell])
    qtbot.mouseClick(window.mark_button, __import__("PySide6.QtCore").QtCore.Qt.MouseButton.LeftButton)
    assert project.sensitive.sum() == 1 and project.flagged_by[cell] == "manual"
    assert project.upper_protection[cell] == pytest.approx(0.2 * project.values[cell])
    result = solve_and_wait(qtbot, window, method)
    assert result.protected, result.message
    assert verify(project.to_problem(), result.values).ok
    assert abs(result.values[cell] - project.values[cell]) >= 0.2 * project.values[cell] - 1e-6
    assert window.editor.model.display is Display.ADJUSTED
    assert window.results.findings.item(0).text().startswith("verified")
    assert window.protect_button.isEnabled() and not window.cancel_button.isEnabled()


@timed
def test_cancel_during_a_long_milp_returns_control_within_2_seconds(qtbot, window, timed):
    window.new_generated(GeneratorSpec(shape=(20, 20), seed=0))  # Cox 20 x 20: MILP needs > 60 s
    window.model_panel.time_limit.setValue(0)  # no time limit
    window.model_panel.method.setCurrentIndex(window.model_panel.method.findData("milp"))
    window.protect()
    qtbot.wait(1500)
    assert window.runner.running
    cancelled_at = time.perf_counter()
    with qtbot.waitSignal(window.runner.finished, timeout=5000 if timed else 60_000):
        window.cancel_button.click()
    seconds = time.perf_counter() - cancelled_at
    assert not timed or seconds < 2.0, f"cancel took {seconds:.2f} s"
    assert window.project.result.status is Status.CANCELLED
    assert window.protect_button.isEnabled()
    assert window.project.sensitive.sum() == 120  # what the user set up is untouched


def test_a_solve_error_is_shown_in_plain_language_and_the_table_is_kept(qtbot, window):
    cell = int(window.project.sensitive.nonzero()[0][0])
    window.project.upper_protection[cell] = window.project.lower_protection[cell] = 10 * window.project.values[cell]
    before = window.project.values.copy()
    window.protect()
    assert "both safe values" in window.last_error and "cell" in window.last_error
    assert "Traceback" not in window.last_error
    assert not window.runner.running
    assert np.array_equal(window.project.values, before)


def test_edits_undo_and_redo(window):
    project = window.project
    cell = 0
    original = project.values[cell]
    window.editor.model.setData(window.editor.model.index(0, 0), original + 7)
    window.mark_sensitive(np.array([1, 2]))
    window.set_fixed(np.array([3]), True)
    assert project.values[cell] == original + 7 and project.sensitive[[1, 2]].all() and project.fixed[3]
    window.undo_stack.undo()
    window.undo_stack.undo()
    assert not project.fixed[3] and project.values[cell] == original + 7
    window.undo_stack.undo()
    assert project.values[cell] == original
    window.undo_stack.redo()
    assert project.values[cell] == original + 7
    assert window.isWindowModified()


def test_recompute_totals_restores_additivity_after_an_inner_edit(window):
    project = window.project
    window.editor.model.setData(window.editor.model.index(0, 0), project.values[0] + 100)
    assert np.abs(project.relations @ project.values).max() == pytest.approx(100)
    window.recompute_totals()
    assert np.abs(project.relations @ project.values).max() == 0
    window.undo_stack.undo()
    assert np.abs(project.relations @ project.values).max() == pytest.approx(100)


def test_save_and_reopen_restores_table_result_options_log_and_recent_files(qtbot, window, tmp_path, settings):
    window.set_senses(window.project.sensitive.nonzero()[0][:1], -1)
    window.model_panel.time_limit.setValue(17)
    result = solve_and_wait(qtbot, window, "lp")
    log = window.log_pane.toPlainText()
    path = tmp_path / "job.ctaproj"
    assert window.save_to(path) and not window.isWindowModified()

    from ctadesk.gui.main_window import MainWindow

    again = MainWindow(settings)
    again.ask_before_closing = False
    qtbot.addWidget(again)
    assert again.recent_files()[0] == str(path.resolve())
    assert again.open_path(path)
    assert np.array_equal(again.project.values, window.project.values)
    assert np.array_equal(again.project.senses, window.project.senses)
    assert np.array_equal(again.project.result.values, result.values)
    assert again.project.result.verification.ok
    assert again.model_panel.time_limit.value() == 17
    assert again.log_pane.toPlainText() == log and log
    assert again.editor.model.display is Display.ADJUSTED


def test_opening_a_missing_file_says_so_and_keeps_the_table(window, tmp_path):
    before = window.project
    assert not window.open_path(tmp_path / "nope.jj")
    assert "does not exist" in window.last_error
    assert window.project is before


def test_opening_the_sample_jj_shows_it_as_a_21_by_21_grid(window):
    assert window.open_path("sample_data/cox_20x20.jj")
    assert window.project.structure.shape == (21, 21)
    assert window.editor.model.rowCount() == 21 and window.editor.model.columnCount() == 21


def test_clicking_a_finding_selects_its_cell(qtbot, window):
    from ctadesk.engine.publish.verify import verify as check
    from ctadesk.engine.result import CTAResult

    values = window.project.values.copy()  # unchanged: every sensitive cell is unprotected
    problem = window.project.to_problem()
    result = CTAResult("lp", Status.NOT_PROTECTED, values=values, verification=check(problem, values))
    window.project.result = result
    window._show_result(result)
    first = window.results.findings.item(0)
    cell = result.verification.violations[0].index
    assert first.text().startswith("[protection]") and window.project.sensitive[cell]
    window.results._finding_clicked(first)
    assert cell in window.editor.selected_cells()
