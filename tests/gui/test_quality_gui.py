"""Quality-preserving options (Cox 2005a, §3) and the quality report in the window and its exports."""

import numpy as np
import openpyxl
import pytest

from ctadesk.engine.quality.measures import inner_cells

from .conftest import solve_and_wait
from .test_files import _accept, _workbook

SLOPE = "regression slope change (%)"
MEAN = "mean change (%)"


def test_preserve_boxes_keep_mean_and_slope_of_the_inner_cells_in_the_quality_table(qtbot, window):
    solve_and_wait(qtbot, window, "lp")
    table = window.results.quality
    assert abs(table.value(SLOPE, "inner cells")) > 0.01  # 5 x 4 table, seed 3: the slope moves
    window.model_panel.preserve_mean.setChecked(True)
    window.model_panel.preserve_variance.setChecked(True)
    window.model_panel.set_precision("full")    # L(y) has fractional coefficients: no grid holds it exactly
    result = solve_and_wait(qtbot, window, "lp")
    assert result.protected
    assert abs(table.value(MEAN, "inner cells")) < 1e-7 and abs(table.value(SLOPE, "inner cells")) < 1e-6
    inner = inner_cells(window.project.to_problem())
    assert np.isclose(result.values[inner].sum(), window.project.values[inner].sum())
    assert window.project.options["preserve"] == ["mean", "variance"]
    assert window.results.indexOf(table) >= 0
    assert "inner cells: regression slope change" in window.results.summary.text()


def test_preserve_choice_is_kept_in_the_project_and_not_carried_to_the_next_session(qtbot, window, settings,
                                                                                    tmp_path):
    from ctadesk.gui.main_window import MainWindow

    window.model_panel.preserve_variance.setChecked(True)
    window.model_panel.set_precision("full")    # L(y) has fractional coefficients: no grid holds it exactly
    solve_and_wait(qtbot, window, "lp")
    assert window.save_to(tmp_path / "kept.ctaproj")
    again = MainWindow(settings)
    again.ask_before_closing = False
    qtbot.addWidget(again)
    assert again.model_panel.options()["preserve"] == []    # the defaults: a choice for one table stays with it
    assert again.open_path(tmp_path / "kept.ctaproj")
    assert again.model_panel.preserve_variance.isChecked() and not again.model_panel.preserve_mean.isChecked()


def test_clicking_the_largest_relative_change_selects_that_cell(qtbot, window):
    solve_and_wait(qtbot, window, "lp")
    table = window.results.quality
    group = table.report["not sensitive"]
    row = [table.verticalHeaderItem(r).text() for r in range(table.rowCount())].index("largest relative change (%)")
    table.cellClicked.emit(row, table.report.names.index("not sensitive"))
    assert window.editor.selected_cells().tolist() == [group.largest_relative_change_cell]
    assert float(table.item(row, 0).text().replace(",", "")) == pytest.approx(
        table.report["inner cells"].largest_relative_change, rel=1e-3)


def test_internal_workbook_quality_sheet_holds_the_quality_report(qtbot, window, tmp_path):
    _accept(window)
    assert window.open_path(_workbook(tmp_path / "turnover.xlsx"))
    window.mark_sensitive(np.array([4]))
    solve_and_wait(qtbot, window, "lp")
    assert window.export_to("internal", tmp_path / "internal.xlsx")
    assert window.export_to("release", tmp_path / "release.xlsx")
    rows = [tuple(c for c in row if c is not None) for row in
            openpyxl.load_workbook(tmp_path / "internal.xlsx")["Quality"].iter_rows(values_only=True)]
    header = next(row for row in rows if row and row[0] == "measure")
    assert header == ("measure", "inner cells", "totals", "sensitive", "not sensitive")
    slope = next(row for row in rows if row and row[0] == "regression slope of adjusted on original")
    assert slope[1] == pytest.approx(window.results.quality.value("regression slope of adjusted on original",
                                                                  "inner cells"))
    quality = openpyxl.load_workbook(tmp_path / "release.xlsx")["Quality"]
    released = [row[0] for row in quality.iter_rows(values_only=True)]
    assert "measure" not in released and "cells changed" in released  # percent changes stay internal
