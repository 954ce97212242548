"""A whole job driven only through widgets: generate -> mark sensitive -> protect -> audit -> save."""

import numpy as np
from PySide6.QtCore import Qt, QTimer

from ctadesk.gui.generator import GeneratorDialog
from ctadesk.io.project import load_project


def _fill_generator_dialog(qtbot):
    from PySide6.QtWidgets import QApplication

    dialog = next(w for w in QApplication.topLevelWidgets() if isinstance(w, GeneratorDialog) and w.isVisible())
    dialog.sizes[0].setValue(4)
    dialog.sizes[1].setValue(3)
    dialog.sensitive_share.setValue(0.0)
    dialog.seed.setValue(11)
    dialog.accept()


def test_a_statistician_protects_and_saves_a_table_using_only_the_widgets(qtbot, window, tmp_path, monkeypatch):
    QTimer.singleShot(200, lambda: _fill_generator_dialog(qtbot))
    qtbot.mouseClick(window.generate_button, Qt.MouseButton.LeftButton)
    window.runner.wait()  # the table is generated in the background (issue 32)
    assert window.project.structure.shape == (5, 4) and not window.project.sensitive.any()

    view = window.editor.view
    target = window.editor.model.index(1, 2)  # an inner cell
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=view.visualRect(target).center())
    cell = window.editor.model.cell_at(1, 2)
    qtbot.mouseClick(window.mark_button, Qt.MouseButton.LeftButton)
    assert np.flatnonzero(window.project.sensitive).tolist() == [cell]

    window.model_panel.method.setCurrentIndex(window.model_panel.method.findData("milp"))
    with qtbot.waitSignal(window.runner.finished, timeout=20_000):
        qtbot.mouseClick(window.protect_button, Qt.MouseButton.LeftButton)
    result = window.project.result
    assert result.protected
    shown = window.editor.model.data(target)
    assert float(shown.replace(",", "")) == result.values[cell] != window.project.values[cell]
    assert "verified" in window.results.summary.text()

    path = tmp_path / "job.ctaproj"
    monkeypatch.setattr("PySide6.QtWidgets.QFileDialog.getSaveFileName", lambda *a, **k: (str(path), ""))
    qtbot.mouseClick(window.save_button, Qt.MouseButton.LeftButton)
    saved = load_project(path)
    assert np.array_equal(saved.result.values, result.values)
    assert saved.options["method"] == "milp"
