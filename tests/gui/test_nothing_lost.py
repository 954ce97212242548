"""Issue 32, "nothing lost" and "state from before": an action that replaces the table asks first
when there is unsaved work; a run that fails or is cancelled leaves the result before it in view
and says why; what belonged to a table (its audit note, the stale banner, its model options) goes
with it; the stale banner does not move the grid."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QPoint
from PySide6.QtWidgets import QFileDialog, QMessageBox

from ctadesk.app.job import engine_solve
from ctadesk.engine.result import CTAResult, Status
from ctadesk.engine.table.generate import GeneratorSpec, generate_table
from ctadesk.gui.audit_panel import NO_AUDIT
from ctadesk.gui.main_window import MainWindow
from ctadesk.gui.table_model import Display
from ctadesk.io.project import Project, save_project

from .conftest import SMALL, solve_and_wait

Button = QMessageBox.StandardButton
OTHER = GeneratorSpec(shape=(4, 3), seed=5)


class Solves:
    """The window's solve function: the engine's, until a test sets ``answer`` (problem, method,
    options -> CTAResult, or raises)."""

    def __init__(self) -> None:
        self.answer = None

    def __call__(self, problem, method, options) -> CTAResult:
        return (self.answer or engine_solve)(problem, method, options)


@pytest.fixture
def solves() -> Solves:
    return Solves()


@pytest.fixture
def switchable(qtbot, settings, solves, window):
    """A window like ``window`` whose solves the test can replace (``solves.answer``)."""
    switchable = MainWindow(settings, solve=solves)
    switchable.ask_before_closing = False
    switchable.confirm = switchable.choose = window.confirm
    qtbot.addWidget(switchable)
    assert switchable.new_generated(SMALL)
    switchable.show()
    return switchable


def _answer(monkeypatch, answer: Button) -> list[str]:
    """Answer the unsaved-work question with ``answer``; the questions asked."""
    asked: list[str] = []

    def question(parent, title, text, *options):
        asked.append(text)
        return answer

    monkeypatch.setattr(QMessageBox, "question", question)
    return asked


def _replace_by(action: str, window, monkeypatch, tmp_path: Path) -> None:
    """Replace the window's table by ``action``: open a file, import microdata, generate."""
    if action == "open":
        structure, problem = generate_table(OTHER)
        path = tmp_path / "other.ctaproj"
        save_project(path, Project.from_problem(problem, structure))
        window.open_path(path)
    elif action == "import microdata":
        structure, problem = generate_table(OTHER)
        monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(tmp_path / "firms.csv"), ""))
        monkeypatch.setattr(window, "_import_microdata",
                            lambda path, place, wait: place(Project.from_problem(problem, structure)))
        window.microdata_dialog()
    else:
        window.new_generated(OTHER)


ACTIONS = ["open", "import microdata", "generate"]


@pytest.mark.parametrize("action", ACTIONS)
def test_cancel_at_the_unsaved_work_question_keeps_the_table(qtbot, window, monkeypatch, tmp_path, action):
    window.mark_sensitive(np.array([0]))
    table = window.project
    asked = _answer(monkeypatch, Button.Cancel)
    _replace_by(action, window, monkeypatch, tmp_path)
    assert len(asked) == 1 and "not saved" in asked[0]
    assert window.project is table and table.sensitive[0] and window.isWindowModified()


@pytest.mark.parametrize("action", ACTIONS)
def test_discard_at_the_unsaved_work_question_replaces_the_table(qtbot, window, monkeypatch, tmp_path, action):
    solve_and_wait(qtbot, window, "lp")                     # a protected result is work too
    table = window.project
    asked = _answer(monkeypatch, Button.Discard)
    _replace_by(action, window, monkeypatch, tmp_path)
    assert len(asked) == 1
    assert window.project is not table and window.project.structure.shape == (5, 4)   # OTHER with totals
    assert window.project.result is None and window.editor.model.display is Display.ORIGINAL


def test_save_at_the_unsaved_work_question_saves_then_replaces(qtbot, window, monkeypatch, tmp_path):
    window.mark_sensitive(np.array([0]))
    saved = tmp_path / "kept.ctaproj"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(saved), ""))
    _answer(monkeypatch, Button.Save)
    assert window.new_generated(OTHER)
    assert saved.exists() and window.project.structure.shape == (5, 4)
    assert window.open_path(saved) and window.project.sensitive[0]   # nothing unsaved now: no question


def test_a_table_only_generated_or_saved_is_replaced_without_a_question(qtbot, window, tmp_path):
    assert window.new_generated(OTHER)                      # the fixture's question raises if asked
    window.mark_sensitive(np.array([0]))
    assert window.save_to(tmp_path / "saved.ctaproj")
    assert window.new_generated(SMALL)


def _grid_texts(window) -> list[str]:
    model = window.editor.model
    return [model.index(row, column).data() or "" for row in range(model.rowCount())
            for column in range(model.columnCount())]


def _valueless(status: Status):
    def solve(problem, method, options) -> CTAResult:
        return CTAResult(method, status, message="no table: the senses asked conflict")

    return solve


@pytest.mark.parametrize("status", [Status.NOT_FOUND, Status.CANCELLED])
def test_a_run_that_found_no_table_leaves_the_result_before_it_in_view(qtbot, switchable, solves, status):
    window = switchable
    before = solve_and_wait(qtbot, window, "lp")
    shown = _grid_texts(window)
    solves.answer = _valueless(status)
    solve_and_wait(qtbot, window, "lp")
    assert window.project.result is before and window.editor.model.display is Display.ADJUSTED
    assert _grid_texts(window) == shown and all(shown)
    assert "result before this run is kept" in window.solve_state.text()
    assert not window.stale_banner.isVisibleTo(window)


def test_a_run_that_raised_leaves_the_result_before_it_in_view_and_says_why(qtbot, switchable, solves):
    window = switchable
    before = solve_and_wait(qtbot, window, "lp")
    shown = _grid_texts(window)

    def raises(problem, method, options):
        raise RuntimeError("the solver ran out of memory")

    solves.answer = raises
    with qtbot.waitSignal(window.runner.failed, timeout=10_000):
        window.protect()
    assert window.project.result is before and window.editor.model.display is Display.ADJUSTED
    assert _grid_texts(window) == shown
    assert "out of memory" in window.solve_state.text() and "kept" in window.solve_state.text()


def test_no_stale_banner_after_a_cancelled_run_that_produced_nothing(qtbot, switchable, solves):
    window = switchable
    solves.answer = _valueless(Status.CANCELLED)
    solve_and_wait(qtbot, window, "lp")
    assert window.editor.model.display is Display.ORIGINAL
    window.mark_safe(np.flatnonzero(window.project.sensitive)[:1])
    assert not window.session.stale and not window.stale_banner.isVisibleTo(window)


def test_the_audit_note_and_audit_go_with_the_table(qtbot, window, monkeypatch):
    solve_and_wait(qtbot, window, "lp")
    with qtbot.waitSignal(window.runner.finished, timeout=30_000):
        window.run_audit()
    assert window.solve_state.text().startswith("Audit:")
    _answer(monkeypatch, Button.Discard)
    assert window.new_generated(OTHER)
    assert window.solve_state.text() == "" and window.audit_result is None
    assert window.audit_panel.summary.text() == NO_AUDIT and window.editor.model.audit is None


def test_the_stale_banner_does_not_move_the_grid(qtbot, window):
    solve_and_wait(qtbot, window, "lp")
    layout = window.centralWidget().layout()
    layout.activate()
    top = window.editor.mapTo(window, QPoint(0, 0))
    window.mark_safe(np.flatnonzero(window.project.sensitive)[:1])
    layout.activate()
    assert window.stale_banner.isVisibleTo(window)
    assert window.editor.mapTo(window, QPoint(0, 0)) == top


def test_model_options_belong_to_the_table_and_not_to_the_last_session(qtbot, window, settings, tmp_path):
    panel = window.model_panel
    default = panel.time_limit.value()
    panel.time_limit.setValue(default + 17)
    solve_and_wait(qtbot, window, "lp")                     # the table's options hold the limit now
    assert window.project.options["time_limit"] == default + 17
    assert window.save_to(tmp_path / "limit.ctaproj")      # nothing unsaved to ask about
    assert window.new_generated(OTHER)
    assert panel.time_limit.value() == default              # a new table starts from the defaults
    assert window.open_path(tmp_path / "limit.ctaproj") and panel.time_limit.value() == default + 17
    again = MainWindow(settings)                            # and the next session starts from them too
    again.ask_before_closing = False
    qtbot.addWidget(again)
    assert again.new_generated(OTHER) and again.model_panel.time_limit.value() == default


def test_options_made_the_defaults_on_purpose_start_every_new_table(qtbot, window, settings):
    panel = window.model_panel
    panel.time_limit.setValue(panel.time_limit.value() + 17)
    limit = panel.time_limit.value()
    window.findChild(type(window.protect_action), "act_default_options").trigger()
    assert window.new_generated(OTHER) and panel.time_limit.value() == limit
    again = MainWindow(settings)
    again.ask_before_closing = False
    qtbot.addWidget(again)
    assert again.new_generated(OTHER) and again.model_panel.time_limit.value() == limit


def test_the_title_names_the_file_a_table_was_read_from(qtbot, window):
    from ctadesk.resources import samples_dir

    assert "untitled" in window.windowTitle()               # generated
    assert window.open_path(samples_dir() / "thesis_10x15.jj")
    assert "thesis_10x15.jj" in window.windowTitle() and not window.isWindowModified()
