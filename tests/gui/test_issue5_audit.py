"""Issue 5, 'Main window', checked bullet by bullet: hand edits of bounds and protection levels with
undo/redo, tooltips, collapse/expand, the generator, senses by hand, heatmap orientation, recent files,
remembered settings and nothing typed lost."""

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit, QPushButton

from ctadesk.engine.errors import SolverError
from ctadesk.engine.table.generate import COX_PRESET, GeneratorSpec
from ctadesk.gui.main_window import MainWindow
from ctadesk.gui.numbers import figure
from ctadesk.gui.table_model import relative_change

from .conftest import SMALL, solve_and_wait


def _answer(window, fill):
    """Answer the next dialog as a user who fills it with fill(dialog) and presses OK."""
    window.run_dialog = lambda dialog: fill(dialog) or True


def _another_window(qtbot, settings, **kwargs):
    window = MainWindow(settings, **kwargs)
    window.ask_before_closing = False
    qtbot.addWidget(window)
    return window


def test_bounds_are_set_by_hand_as_percent_or_numbers_and_undone(window):
    project = window.project
    cells = np.array([0, 7])
    before = project.lower[cells].copy(), project.upper[cells].copy()
    window.editor.select_cells(cells)
    _answer(window, lambda d: (d.lower_limit.setValue(5.0), d.upper_limit.setValue(10.0)))
    window.bounds_dialog()
    assert np.allclose(project.lower[cells], 0.95 * project.values[cells])
    assert np.allclose(project.upper[cells], 1.10 * project.values[cells])
    window.undo_stack.undo()
    assert np.array_equal(project.lower[cells], before[0]) and np.array_equal(project.upper[cells], before[1])
    window.undo_stack.redo()
    assert np.allclose(project.upper[cells], 1.10 * project.values[cells])
    value = project.values[0]
    _answer(window, lambda d: (d.mode.setCurrentIndex(1), d.lower_limit.setValue(value - 1),
                               d.no_upper.setChecked(True)))
    window.editor.select_cells([0])
    window.bounds_dialog()
    assert project.lower[0] == value - 1 and project.upper[0] == np.inf


def test_bounds_that_exclude_the_value_are_refused_naming_the_cell(window):
    project = window.project
    upper = project.upper.copy()
    depth = window.undo_stack.count()
    assert not window.set_bounds(np.array([0]), np.array([0.0]), np.array([0.1 * project.values[0]]))
    assert "R=1, C=1" in window.last_error and "exclude its value" in window.last_error
    assert np.array_equal(project.upper, upper) and window.undo_stack.count() == depth


def test_lower_and_upper_protection_levels_are_set_apart_on_sensitive_cells_only(window):
    project = window.project
    sensitive = int(np.flatnonzero(project.sensitive)[0])
    safe = int(np.flatnonzero(~project.sensitive & project.structure.inner_mask())[0])
    old_safe = project.upper_protection[safe]
    window.editor.select_cells([sensitive, safe])
    _answer(window, lambda d: (d.mode.setCurrentIndex(1), d.lower_limit.setValue(3.0), d.upper_limit.setValue(11.0)))
    window.protection_dialog()
    assert project.lower_protection[sensitive] == 3.0 and project.upper_protection[sensitive] == 11.0
    assert project.upper_protection[safe] == old_safe
    window.undo_stack.undo()
    assert project.upper_protection[sensitive] != 11.0
    tip = window.editor.model.tooltip(sensitive)
    window.undo_stack.redo()
    a = project.values[sensitive]
    assert f"protection interval: ({figure(a - 3)}, {figure(a + 11)})" in window.editor.model.tooltip(sensitive) != tip


def test_tooltip_names_original_adjusted_interval_and_rule(qtbot, window):
    result = solve_and_wait(qtbot, window, "lp")
    cell = int(np.flatnonzero(window.project.sensitive)[0])
    row, column = window.editor.model.layout_.position(cell)
    tip = window.editor.model.data(window.editor.model.index(row, column), Qt.ItemDataRole.ToolTipRole)
    a = window.project.values[cell]
    numbers = window.editor.model.numbers
    assert f"original: {numbers.text(a)}" in tip and f"adjusted: {numbers.text(result.values[cell])}" in tip
    assert "protection interval: (" in tip and "flagged by: generator" in tip


def test_a_subtotal_collapses_and_expands_on_rows_and_columns(window):
    editor = window.editor
    rows, columns = window.project.structure.shape  # 6 x 5: totals last
    editor.toggle_collapsed(Qt.Orientation.Vertical, rows - 1)
    editor.toggle_collapsed(Qt.Orientation.Horizontal, columns - 1)
    assert [editor.view.isRowHidden(r) for r in range(rows)] == [True] * (rows - 1) + [False]
    assert all(editor.view.isColumnHidden(c) for c in range(columns - 1))
    editor.toggle_collapsed(Qt.Orientation.Vertical, rows - 1)
    editor.toggle_collapsed(Qt.Orientation.Horizontal, columns - 1)
    assert not any(editor.view.isRowHidden(r) for r in range(rows))
    assert not any(editor.view.isColumnHidden(c) for c in range(columns))


def test_generator_makes_a_3d_table_with_a_number_of_sensitive_cells_and_ranges(window):
    def fill(dialog):
        dialog.dimensions.setValue(3)
        for box, size in zip(dialog.sizes, (4, 3, 2)):
            box.setValue(size)
        dialog.min_value.setValue(50)
        dialog.max_value.setValue(60)
        dialog.zero_share.setValue(0.0)
        dialog.sensitive_by.setCurrentIndex(1)
        dialog.sensitive_count.setValue(7)
        dialog.protection_min.setValue(10.0)
        dialog.protection_max.setValue(30.0)
    _answer(window, fill)
    window.generate_dialog()
    window.runner.wait()  # generated in the background (issue 32)
    project = window.project
    inner = project.structure.inner_mask()
    assert project.structure.shape == (5, 4, 3) and project.sensitive.sum() == 7, window.last_error
    assert project.values[inner].min() >= 50 and project.values[inner].max() <= 60
    share = project.upper_protection[project.sensitive] / project.values[project.sensitive]
    assert share.min() >= 0.1 - 1e-12 and share.max() <= 0.3 + 1e-12 and np.ptp(share) > 0
    assert window.editor.slices._combos  # a 3-D table shows a slice selector for the third dimension


def test_cox_preset_button_restores_the_cox_recipe_and_two_dimensions_give_a_grid(window):
    def fill(dialog):
        dialog.sensitive_by.setCurrentIndex(1)
        dialog.protection_max.setValue(90.0)
        dialog.dimensions.setValue(2)
        dialog.sizes[0].setValue(6)
        dialog.sizes[1].setValue(6)
        dialog.findChild(QPushButton, "gen_cox").click()
    _answer(window, fill)
    window.generate_dialog()
    window.runner.wait()  # generated in the background (issue 32)
    project = window.project
    assert project.structure.shape == (7, 7)
    assert project.sensitive.sum() == round(COX_PRESET.sensitive_share * 36)
    assert np.allclose(project.upper_protection[project.sensitive], 0.2 * project.values[project.sensitive])


def test_senses_set_by_hand_are_kept_by_the_fixed_sense_method_and_undone(qtbot, window):
    project = window.project
    cells = np.flatnonzero(project.sensitive)[:2]
    window.editor.select_cells(cells)
    next(a for a in window.cell_actions if a.text() == "Sense &down").trigger()
    assert np.all(project.senses[cells] == -1)
    result = solve_and_wait(qtbot, window, "lp")
    assert np.all(result.values[cells] <= project.values[cells] - project.lower_protection[cells] + 1e-6)
    window.undo_stack.undo()
    assert np.all(project.senses[cells] == 0)


@pytest.mark.parametrize("axes", [(0, 1), (2, 0)])
def test_heatmap_rows_are_the_table_rows(qtbot, window, axes):
    window.new_generated(GeneratorSpec(shape=(5, 3, 2), seed=2))
    window.editor.slices.rows.setCurrentIndex(axes[0])
    window.editor.slices.columns.setCurrentIndex(axes[1])
    result = solve_and_wait(qtbot, window, "lp")
    cells = window.editor.model.layout_.cells
    image = window.results.image.image
    expected = relative_change(window.project.values[cells], result.values[cells])
    assert image.shape == cells.shape == (window.editor.model.rowCount(), window.editor.model.columnCount())
    assert np.allclose(image, np.clip(expected, -100, 100))
    assert np.abs(image).max() > 0
    assert window.results.heatmap.getViewBox().yInverted()  # row 0 drawn at the top, as in the table
    window.editor.slices._combos[next(iter(window.editor.slices._combos))].setCurrentIndex(0)
    assert np.allclose(window.results.image.image, np.clip(relative_change(
        window.project.values[window.editor.model.layout_.cells],
        result.values[window.editor.model.layout_.cells]), -100, 100))


def test_recent_files_menu_reopens_a_saved_project(qtbot, window, tmp_path, settings):
    assert window.save_to(tmp_path / "a.ctaproj")
    again = _another_window(qtbot, settings)
    actions = again.recent_menu.actions()
    assert [a.text() for a in actions] == [str((tmp_path / "a.ctaproj").resolve())]
    actions[0].trigger()
    again.runner.wait()  # read in the background (issue 32)
    assert again.path.resolve() == (tmp_path / "a.ctaproj").resolve() and again.project.n_cells == 30


def test_generator_choices_protection_level_and_model_options_made_the_defaults_are_remembered(qtbot, window,
                                                                                                settings):
    _answer(window, lambda d: (d.sizes[0].setValue(7), d.seed.setValue(42)))
    window.generate_dialog()
    window.runner.wait()  # generated in the background (issue 32)
    window.default_protection.setValue(12.5)
    window.model_panel.method.setCurrentIndex(window.model_panel.method.findData("l2"))
    window.model_panel.preserve_mean.setChecked(True)
    window.make_options_default()  # on purpose (issue 32): options chosen for one table stay with it
    window.close()
    again = _another_window(qtbot, settings)
    assert again.default_protection.value() == 12.5
    assert again.model_panel.options()["method"] == "l2" and again.model_panel.options()["preserve"] == ["mean"]
    seen = []
    _answer(again, lambda d: seen.append(d.spec()))
    again.generate_dialog()
    again.runner.wait()  # generated in the background (issue 32)
    assert seen[0].shape[0] == 7 and seen[0].seed == 42


def test_a_value_being_typed_when_protect_is_pressed_is_kept(qtbot, window):
    view = window.editor.view
    index = window.editor.model.index(0, 0)
    view.setCurrentIndex(index)
    view.edit(index)
    editor = view.indexWidget(index)
    typed = window.project.values[window.editor.model.cell_at(0, 0)] + 1  # inside the cell's bounds
    if isinstance(editor, QLineEdit):
        editor.setText(f"{typed:g}")
    else:
        editor.setValue(typed)
    with qtbot.waitSignal(window.runner.finished, timeout=20_000):
        window.protect()
    assert window.project.values[window.editor.model.cell_at(0, 0)] == typed
    assert window.undo_stack.count() == 1


def test_a_failed_solve_keeps_the_table_options_and_edits(qtbot, settings):
    def broken(problem, method, options):
        raise SolverError("HiGHS stopped: out of memory")
    window = _another_window(qtbot, settings, solve=broken)
    assert window.new_generated(SMALL)
    window.set_senses(np.flatnonzero(window.project.sensitive)[:1], 1)
    window.model_panel.preserve_variance.setChecked(True)
    window.model_panel.time_limit.setValue(33)
    values = window.project.values.copy()
    with qtbot.waitSignal(window.runner.failed, timeout=5000):
        window.protect()
    assert "out of memory" in window.last_error
    assert np.array_equal(window.project.values, values) and window.undo_stack.count() == 1
    assert window.model_panel.options()["preserve"] == ["variance"] and window.model_panel.time_limit.value() == 33
    assert window.protect_button.isEnabled() and window.project.result is None


def test_a_relation_finding_selects_every_cell_of_the_relation_and_a_preserved_one_is_listed(window):
    from ctadesk.engine.publish.verify import verify
    from ctadesk.engine.quality.measures import preserve
    from ctadesk.engine.result import CTAResult, Status

    project = window.project
    values = project.values.copy()
    values[0] += 1.0  # row 1 and column 1 no longer add up; the preserved mean moves
    problem = preserve(project.to_problem(), mean=True)
    result = CTAResult("lp", Status.NOT_PROTECTED, values=values, verification=verify(problem, values))
    project.result = result
    window._show_result(result)
    findings = window.results.findings
    texts = [findings.item(k).text() for k in range(findings.count())]
    assert any("mean of 20 cells preserved" in t for t in texts)
    relation = next(v for v in result.verification.violations
                    if v.kind == "relation" and v.index < project.relations.shape[0])
    window.results._finding_clicked(findings.item(texts.index(f"[relation] {relation.message}")))
    indptr = project.relations.indptr
    cells = project.relations.indices[indptr[relation.index]:indptr[relation.index + 1]]
    assert len(cells) > 1 and sorted(window.editor.selected_cells().tolist()) == sorted(cells.tolist())
