"""The stale-result notice and collapsed hierarchy rows across slices."""

import numpy as np
from PySide6.QtCore import Qt

from ctadesk.engine.table.generate import GeneratorSpec

from .conftest import solve_and_wait


def test_editing_after_a_solve_shows_the_stale_notice_and_undo_removes_it(qtbot, window):
    solve_and_wait(qtbot, window, "lp")
    assert window.stale_banner.isHidden()
    window.editor.model.setData(window.editor.model.index(0, 0), window.project.values[0] + 5)
    assert window.stale_banner.isVisible() and window.project.result_stale
    window.undo_stack.undo()
    assert window.stale_banner.isHidden() and not window.project.result_stale
    window.mark_sensitive(np.array([0]))
    assert window.stale_banner.isVisible()
    solve_and_wait(qtbot, window, "lp")
    assert window.stale_banner.isHidden()


def test_a_stale_result_stays_stale_after_saving_and_reopening(qtbot, window, tmp_path):
    solve_and_wait(qtbot, window, "lp")
    window.mark_safe(np.flatnonzero(window.project.sensitive)[:1])
    assert window.save_to(tmp_path / "stale.ctaproj")
    assert window.open_path(tmp_path / "stale.ctaproj")
    assert window.stale_banner.isVisible()


def test_exporting_a_stale_result_asks_first(qtbot, window, tmp_path):
    solve_and_wait(qtbot, window, "lp")
    window.mark_sensitive(np.array([0]))
    questions = []
    window.confirm = lambda title, text: questions.append(title) or False
    assert not window.export_to("csv", tmp_path / "stale.csv")
    assert questions == ["Stale result"] and not (tmp_path / "stale.csv").exists()


def test_collapsed_rows_open_again_when_the_slice_changes(window):
    window.new_generated(GeneratorSpec(shape=(3, 2, 2), seed=1))
    editor = window.editor
    editor.toggle_collapsed(Qt.Orientation.Vertical, 3)  # the row total hides the three rows above it
    assert [editor.view.isRowHidden(r) for r in range(4)] == [True, True, True, False]
    third = editor.slices._combos[2]
    third.setCurrentIndex(0)
    assert not any(editor.view.isRowHidden(r) for r in range(4))
    editor.toggle_collapsed(Qt.Orientation.Vertical, 3)
    assert editor.view.isRowHidden(0)
