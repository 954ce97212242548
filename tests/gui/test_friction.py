"""The GUI friction of issue 12, each fixed: the primary action in view, no wheel changes on
unfocused settings, every digit in the cell editor, resizable columns, a warning when an edit
breaks additivity, numbers with their whole exponent, senses in the grid, labelled heatmap axes."""

import numpy as np
import pytest
from PySide6.QtCore import QLocale, QPoint, QPointF, QRect, QSize, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication, QComboBox, QHeaderView

from ctadesk.engine.table.generate import cox_table
from ctadesk.gui.numbers import TableFormat
from ctadesk.gui.results_panel import axis_ticks
from ctadesk.gui.table_model import CellTableModel, Display
from ctadesk.io.project import Project

from .conftest import solve_and_wait


def _wheel_down(widget) -> QWheelEvent:
    centre = QPointF(widget.width() / 2, widget.height() / 2)
    return QWheelEvent(centre, widget.mapToGlobal(centre), QPoint(0, 0), QPoint(0, -120), Qt.MouseButton.NoButton,
                       Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)


@pytest.mark.parametrize("size", [(1280, 820), (1024, 700)])
def test_protect_and_cancel_are_in_view_whatever_the_window_size_and_scroll(qtbot, window, size):
    window.resize(*size)
    qtbot.waitUntil(lambda: window.size() == QSize(*size))
    window.workflow_scroll.verticalScrollBar().setValue(0)  # scrolled to the top: the table step in view
    qtbot.wait(20)
    for button in (window.protect_button, window.cancel_button):
        assert button.isVisible() and not window.workflow_scroll.isAncestorOf(button)
        assert window.rect().contains(QRect(button.mapTo(window, QPoint(0, 0)), button.size()))
        assert button.visibleRegion().boundingRect() == button.rect()  # nothing of it clipped


def test_the_wheel_over_an_unfocused_method_or_rule_setting_changes_nothing(qtbot, window):
    method = window.model_panel.method
    rule = window.rules_panel.min_frequency
    assert not method.hasFocus() and method.count() > 2
    method.setCurrentIndex(1)
    before = rule.value()
    for widget in (method, rule):
        QApplication.sendEvent(widget, _wheel_down(widget))
    assert method.currentIndex() == 1 and rule.value() == before
    plain = QComboBox()  # the same event does turn a combo box left as Qt makes it
    qtbot.addWidget(plain)
    plain.addItems(["a", "b", "c"])
    QApplication.sendEvent(plain, _wheel_down(plain))
    assert plain.currentIndex() == 1


@pytest.mark.parametrize("typed", ["10.3456", "0.004"])
def test_the_cell_editor_shows_and_stores_every_digit(window, typed):
    window.confirm = lambda title, question: False
    view, model = window.editor.view, window.editor.model
    index = model.index(0, 0)
    view.setCurrentIndex(index)
    view.edit(index)
    view.indexWidget(index).setText(typed)
    window.editor.commit_open_editor()
    assert window.project.values[model.cell_at(0, 0)] == float(typed)
    view.edit(index)
    assert view.indexWidget(index).text() == typed
    window.editor.commit_open_editor()
    assert window.undo_stack.count() == 1  # reopening and closing the editor changed nothing


def test_columns_fit_their_widest_number_and_the_user_can_resize_them(window):
    project = window.project
    project.values[0] = 123456789.123
    window.editor.set_project(project)
    view, model = window.editor.view, window.editor.model
    header = view.horizontalHeader()
    assert header.sectionResizeMode(0) == QHeaderView.ResizeMode.Interactive
    text = model.data(model.index(0, 0))
    assert text == "123,456,789.123"  # every cell at the table's three decimals
    assert view.columnWidth(0) > view.fontMetrics().horizontalAdvance(text)
    header.resizeSection(2, 230)
    window.editor.set_display(Display.DIFFERENCE)
    assert view.columnWidth(2) == 230  # a width the user chose survives a change of display


def test_an_edit_that_breaks_a_total_is_named_and_the_totals_recomputed_on_request(qtbot, window):
    project = window.project
    asked = []
    window.confirm = lambda title, question: asked.append(question) or True
    original = project.values.copy()
    window.editor.model.setData(window.editor.model.index(0, 0), original[0] + 100)
    qtbot.waitUntil(lambda: bool(asked))
    assert "R=Total = sum of its parts at C=1 (off by +100)" in asked[0]
    assert "C=Total = sum of its parts at R=1 (off by +100)" in asked[0]
    assert np.abs(project.relations @ project.values).max() == 0 and project.values[0] == original[0] + 100
    window.undo_stack.undo()  # the recomputed totals
    assert np.abs(project.relations @ project.values).max() == 100 and project.values[0] == original[0] + 100
    window.undo_stack.undo()  # the edit
    assert np.array_equal(project.values, original)


def test_an_edit_kept_as_typed_stays_one_undoable_step_and_an_edited_total_says_where_it_goes_back(qtbot, window):
    project = window.project
    asked = []
    window.confirm = lambda title, question: asked.append(question) and False
    total = project.structure.shape[1] - 1  # R=1, C=Total
    before = project.values[total]
    window.editor.model.setData(window.editor.model.index(0, total), before + 5)
    qtbot.waitUntil(lambda: bool(asked))
    assert f"R=1, C=Total goes back to {before:,.10g}" in asked[0]
    assert project.values[total] == before + 5 and window.undo_stack.count() == 1
    window.undo_stack.undo()
    assert project.values[total] == before


def test_an_editor_closed_without_a_change_makes_no_edit_and_asks_nothing(qtbot, window):
    model = window.editor.model
    model.setData(model.index(0, 0), window.project.values[0])
    qtbot.wait(20)  # the window's question hooks fail the test if called
    assert window.undo_stack.count() == 0 and not window.undo_stack.canUndo()


def test_numbers_show_with_their_whole_exponent_and_leftovers_as_zero():
    structure, problem = cox_table((3, 3), seed=1)
    project = Project.from_problem(problem, structure)
    project.values[:3] = [3.6379788e-12, 1.5e20, 123456789.125]
    model = CellTableModel()
    model.numbers = TableFormat(0, QLocale(QLocale.Language.English, QLocale.Country.UnitedStates))
    model.set_project(project)
    assert [model.data(model.index(0, c)) for c in range(3)] == ["0.000", "1.5e+20", "123,456,789.125"]


def test_given_senses_show_as_arrows_in_the_grid(window):
    model = window.editor.model
    project = window.project
    cell = int(np.flatnonzero(project.sensitive)[0])
    index = model.index(*model.layout_.position(cell))
    assert model.data(index, Qt.ItemDataRole.DecorationRole) is None  # free
    window.set_senses(np.array([cell]), 1)
    assert model.data(index, Qt.ItemDataRole.DecorationRole) is model.sense_icons[1]
    window.set_senses(np.array([cell]), -1)
    assert model.data(index, Qt.ItemDataRole.DecorationRole) is model.sense_icons[-1]
    assert model.data(index) == model.numbers.text(project.values[cell])  # the number itself unchanged
    safe = int(np.flatnonzero(~project.sensitive)[0])
    assert model.data(model.index(*model.layout_.position(safe)), Qt.ItemDataRole.DecorationRole) is None


def test_heatmap_axes_carry_the_category_labels(qtbot, window):
    solve_and_wait(qtbot, window, "lp")
    plot = window.results.heatmap.getPlotItem()
    for side, dimension in zip(("left", "bottom"), window.project.structure.dimensions):
        levels = plot.getAxis(side)._tickLevels  # where pyqtgraph keeps ticks set by hand (coarse level first)
        assert sorted(tick for level in levels for tick in level) == [(k + 0.5, code) for k, code in
                                                                      enumerate(dimension.codes)]
    assert dimension.codes[-1] == "Total"


def test_a_long_axis_labels_a_few_codes_first_and_finer_levels_where_they_fit():
    codes = [str(k) for k in range(1, 22)] + ["Total"]
    coarse, finer = axis_ticks(codes)
    assert coarse == [(4.5, "5"), (9.5, "10"), (14.5, "15"), (19.5, "20")]
    assert len(finer) == len(codes) - 4 and (21.5, "Total") in finer
