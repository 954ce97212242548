"""Desktop conventions (issue 32): files dropped on the window open as File > Open does (asking
about unsaved work), Ctrl+C copies the selected cells as tab-separated text, Ctrl+V pastes a
range into the original values as one undoable edit."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QGuiApplication
from PySide6.QtWidgets import QMessageBox

from ctadesk.engine.table.generate import GeneratorSpec, generate_table
from ctadesk.io.project import Project, save_project

Button = QMessageBox.StandardButton


def _drop(window, path) -> QDropEvent:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    enter = QDragEnterEvent(QPoint(50, 50), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                            Qt.KeyboardModifier.NoModifier)
    window.dragEnterEvent(enter)
    assert enter.isAccepted()
    drop = QDropEvent(QPointF(50, 50), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                      Qt.KeyboardModifier.NoModifier)
    window.dropEvent(drop)
    return drop


def _other_project(tmp_path):
    structure, problem = generate_table(GeneratorSpec(shape=(4, 3), seed=5))
    path = tmp_path / "other.ctaproj"
    save_project(path, Project.from_problem(problem, structure))
    return path


def test_a_dropped_file_opens_and_its_name_is_the_title(qtbot, window, tmp_path):
    path = _other_project(tmp_path)
    _drop(window, path)
    qtbot.waitUntil(lambda: window.project.structure.shape == (5, 4))
    assert "other.ctaproj" in window.windowTitle()


def test_a_file_dropped_on_unsaved_work_asks_first_and_cancel_keeps_the_table(qtbot, window, tmp_path, monkeypatch):
    asked = []
    monkeypatch.setattr(QMessageBox, "question", lambda *args: asked.append(args[2]) or Button.Cancel)
    window.editor.model.setData(window.editor.model.index(0, 0), window.project.values[0] + 1)
    window.confirm = lambda title, question: False  # keep the table as typed
    before = window.project
    _drop(window, _other_project(tmp_path))
    qtbot.waitUntil(lambda: bool(asked))
    assert "opening other.ctaproj" in asked[0] and window.project is before


def test_ctrl_c_copies_the_selected_cells_as_tab_separated_text(qtbot, window):
    editor = window.editor
    view, model = editor.view, editor.model
    view.setFocus()
    view.selectionModel().select(model.index(0, 0), view.selectionModel().SelectionFlag.Select)
    view.selectionModel().select(model.index(1, 2), view.selectionModel().SelectionFlag.Select)
    QGuiApplication.clipboard().clear()
    qtbot.keyClick(view, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    text = QGuiApplication.clipboard().text()
    rows = [line.split("\t") for line in text.splitlines()]
    assert [len(row) for row in rows] == [3, 3]
    assert rows[0][1:] == ["", ""] and rows[1][:2] == ["", ""]
    assert float(rows[0][0].replace(",", "")) == window.project.values[model.cell_at(0, 0)]
    assert float(rows[1][2].replace(",", "")) == window.project.values[model.cell_at(1, 2)]


def test_ctrl_v_pastes_a_range_as_one_undoable_edit(qtbot, window):
    editor = window.editor
    view, model = editor.view, editor.model
    before = window.project.values.copy()
    view.setFocus()
    view.setCurrentIndex(model.index(1, 1))
    QGuiApplication.clipboard().setText("1,000.5\t2\n3\t\n")
    qtbot.keyClick(view, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    cells = [model.cell_at(1, 1), model.cell_at(1, 2), model.cell_at(2, 1)]
    assert np.array_equal(window.project.values[cells], [1000.5, 2.0, 3.0])
    assert window.project.values[model.cell_at(2, 2)] == before[model.cell_at(2, 2)]  # an empty field: unchanged
    assert window.undo_stack.count() == 1
    assert "no longer equal the sum of their parts" in window.statusBar().currentMessage()
    window.undo_stack.undo()
    assert np.array_equal(window.project.values, before)


def test_a_paste_that_is_not_numbers_or_runs_past_the_table_changes_nothing_and_says_why(qtbot, window):
    editor, model = window.editor, window.editor.model
    editor.view.setCurrentIndex(model.index(0, 0))
    assert "field 2" in editor.paste_text("1\tabc\n") and window.undo_stack.count() == 0
    editor.view.setCurrentIndex(model.index(model.rowCount() - 1, 0))
    assert "runs past the table's last row" in editor.paste_text("1\n2\n")
    window.editor.set_display(window.editor.model.display.__class__.DIFFERENCE)
    assert "original values" in editor.paste_text("1\n")
    assert window.undo_stack.count() == 0
