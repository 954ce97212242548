"""Opening, importing and exporting every format from the window."""

import numpy as np
import openpyxl
import pytest

from ctadesk.io.excel import import_table

from .conftest import solve_and_wait

TAB = "/work/shared/formats/tauargus-examples/pp.tab"


def _workbook(path, total_label="Total"):
    """A sheet as people lay it out: title, header, region labels, a total row and column."""
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Turnover"
    sheet["A1"] = "Turnover by region and size, 2024"
    sheet.append([])
    sheet.append(["Region", "Small", "Large", "Total"])
    inner = [[120, 340], [75, 410], [230, 95]]
    for name, row in zip(("North", "East", "South"), inner):
        sheet.append([name, *row, sum(row)])
    column_sums = [sum(r[k] for r in inner) for k in range(2)]
    sheet.append([total_label, *column_sums, sum(column_sums)])
    sheet["B4"].number_format = "#,##0"
    book.save(path)
    return path


def _accept(window, adjust=None):
    """Answer the import dialogs as a user pressing OK (after adjust(dialog))."""
    def run(dialog):
        if adjust:
            adjust(dialog)
        dialog.accept()
        return dialog.result() == 1
    window.run_dialog = run


def test_an_excel_table_is_imported_protected_exported_as_release_and_reads_back_adjusted(qtbot, window, tmp_path):
    source = _workbook(tmp_path / "turnover.xlsx")
    _accept(window)
    assert window.open_path(source)
    project = window.project
    assert project.structure.shape == (4, 3) and project.values.tolist()[:3] == [120, 340, 460]
    window.mark_sensitive(np.array([4]))  # East, Large = 410
    result = solve_and_wait(qtbot, window, "lp")
    assert result.protected and result.values[4] != 410
    assert window.export_actions["release"].isEnabled()
    release = tmp_path / "release.xlsx"
    assert window.export_to("release", release)
    again = import_table(release, "Turnover")
    assert np.allclose(again.values, result.values)
    assert again.structure.dimensions[0].codes == project.structure.dimensions[0].codes
    assert openpyxl.load_workbook(release)["Turnover"]["B4"].number_format == "#,##0"
    every_value = [c.value for ws in openpyxl.load_workbook(release).worksheets for row in ws.iter_rows() for c in row]
    assert 410 not in every_value  # the original of the sensitive cell is nowhere in a release workbook


def test_the_user_corrects_a_total_row_the_detection_missed(window, tmp_path):
    source = _workbook(tmp_path / "country.xlsx", total_label="Country")
    _accept(window, lambda dialog: dialog.mark_rows({6}, "total"))  # sheet row 7
    assert window.open_path(source)
    rows = window.project.structure.dimensions[0]
    assert rows.codes[-1] == "Country" and rows.parents.tolist() == [3, 3, 3, -1]
    assert window.project.relations.shape[0] == 4 + 3  # 4 row sums, 3 column sums


def test_two_sheets_sharing_cells_open_as_linked_tables(window, tmp_path):
    path = _workbook(tmp_path / "two.xlsx")
    book = openpyxl.load_workbook(path)
    second = book.create_sheet("Employees")
    second.append(["Region", "Industry", "Services", "Total"])
    for name, row in (("North", [200, 260]), ("East", [300, 185]), ("South", [100, 225])):
        second.append([name, *row, sum(row)])
    second.append(["Total", 600, 670, 1270])
    book.save(path)
    _accept(window, lambda dialog: dialog.set_checked(["Turnover", "Employees"]))
    assert window.open_path(path)
    source = window.project.source
    assert len(source.tables) == 2 and source.linked is not None
    assert window.project.n_cells == 12 + 12 - 4  # the region totals are shared


def test_a_corrupt_workbook_is_reported_by_name_and_the_current_table_stays(window, tmp_path):
    before = window.project
    broken = tmp_path / "broken.xlsx"
    broken.write_bytes(b"PK\x03\x04 not really a workbook")
    assert not window.open_path(broken)
    assert "broken.xlsx" in window.last_error and "damaged" in window.last_error
    assert "Traceback" not in window.last_error
    assert window.project is before


@pytest.mark.parametrize("recompute", [False, True])
def test_a_tau_argus_tab_opens_with_its_statistics_and_unsafe_cells(window, recompute):
    asked = []
    window.confirm = lambda title, text: asked.append(text) or recompute
    assert window.open_path(TAB)
    project = window.project
    assert asked and "differ from the sum of their parts" in asked[0]
    assert project.structure.shape == (9, 18) and project.statistics.top.shape == (162, 2)
    assert project.sensitive.sum() == int((project.source.status == "U").sum())
    assert window.rules_panel.apply_button.isEnabled()
    residual = np.abs(project.relations @ project.values).max()
    assert (residual < 1e-6) == recompute


def test_a_tab_table_is_written_back_as_tab_with_the_adjusted_values(qtbot, window, tmp_path):
    from ctadesk.io.tauargus import read_tab

    window.confirm = lambda title, text: True
    assert window.open_path(TAB)
    result = solve_and_wait(qtbot, window, "milp")  # the ordering heuristic's senses are infeasible here
    assert result.protected
    out = tmp_path / "adjusted.tab"
    assert window.export_to("tab", out)
    again = read_tab(out)  # a release: codes and values, with the .rda written beside it
    listed = again.lines > 0
    assert np.allclose(again.values[listed], np.round(result.values[listed], 2), atol=0.006)


def test_csv_jj_and_sol_exports_of_a_generated_table(qtbot, window, tmp_path):
    from ctadesk.io.csv_table import read_long_csv
    from ctadesk.io.jj import read_jj, read_sol

    result = solve_and_wait(qtbot, window, "lp")
    assert window.export_actions["release"].isEnabled()  # in the default layout
    for kind in ("csv", "jj", "sol", "release"):
        assert window.export_to(kind, tmp_path / f"out.{kind}"), window.last_error
    assert np.allclose(read_long_csv(tmp_path / "out.csv").values, result.values)
    assert np.array_equal(read_jj(tmp_path / "out.jj").problem.values, window.project.values)
    assert np.allclose(read_sol(tmp_path / "out.sol"), result.values)


def test_exports_that_cannot_be_written_say_why(window, tmp_path):
    assert not window.export_to("release", tmp_path / "x.xlsx")
    assert "press Protect first" in window.last_error and not (tmp_path / "x.xlsx").exists()
    assert not window.export_to("csv", tmp_path / "x.csv")
    assert "press Protect first" in window.last_error and not (tmp_path / "x.csv").exists()


def test_a_long_csv_opens_after_the_user_confirms_its_kind(window, tmp_path):
    path = tmp_path / "long.csv"
    path.write_text("Region;Size;value\nA;x;1\nA;y;2\nA;Total;3\nB;x;4\nB;y;5\nB;Total;9\n"
                    "Total;x;5\nTotal;y;7\nTotal;Total;12\n")
    offered = []
    window.choose = lambda title, label, options, current: offered.append(current) or current
    assert window.open_path(path)
    assert offered == ["long"] and window.project.structure.shape == (3, 3)
    assert np.abs(window.project.relations @ window.project.values).max() == 0


def test_spss_microdata_are_tabulated_with_the_variables_chosen_in_the_dialog(window, tmp_path):
    import pyreadstat

    path = tmp_path / "firms.sav"
    columns = {"region": [1.0, 1.0, 2.0, 2.0, 2.0], "turnover": [10.0, 20.0, 5.0, 6.0, 7.0],
               "weight": [1.0, 2.0, 1.0, 1.0, 1.0]}
    import pandas as pd  # pyreadstat writes from a DataFrame

    pyreadstat.write_sav(pd.DataFrame(columns), str(path))

    def fill(dialog):
        dialog.set_spanning(["region"])
        dialog.response.setCurrentText("turnover")
        dialog.weight.setCurrentIndex(dialog.weight.findData("weight"))
    _accept(window, fill)
    assert window.open_path(path)
    stats = window.project.statistics
    assert stats.values.tolist() == [30.0, 18.0, 48.0] and stats.weighted_values.tolist() == [50.0, 18.0, 68.0]
    assert window.rules_panel.apply_weights.isEnabled()


def test_a_microdata_tabulation_error_shows_the_dialog_again_with_the_choices_kept(window, tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("Region;Turnover\nA;10\nB;n/a\n")
    window.choose = lambda *args: "microdata"
    shown = []

    def run(dialog):  # first accepted as filled in; shown again after the tabulation failed, cancelled
        shown.append((dialog.error.text(), dialog.spanning(), dialog.response.currentText()))
        if len(shown) > 1:
            return False
        dialog.set_spanning(["Region"])
        dialog.response.setCurrentText("Turnover")
        dialog.accept()
        return dialog.result() == 1
    window.run_dialog = run
    before = window.project
    assert not window.open_path(path)
    assert len(shown) == 2 and shown[0][0] == ""
    error, spanning, response = shown[1]
    assert "line 3" in error and "n/a" in error
    assert spanning == ["Region"] and response == "Turnover"
    assert window.project is before


def test_a_column_marked_ignore_in_the_import_dialog_is_left_out_of_the_table(window, tmp_path):
    source = _workbook(tmp_path / "turnover.xlsx")
    _accept(window, lambda dialog: dialog.mark_columns({3}, "ignore"))  # column D, the totals
    assert window.open_path(source)
    columns = window.project.structure.dimensions[1]
    assert columns.codes == ("Small", "Large") and window.project.structure.shape == (4, 2)


def test_what_the_excel_reader_left_out_is_listed_in_the_log_after_import(window, tmp_path):
    path = _workbook(tmp_path / "notes.xlsx")
    book = openpyxl.load_workbook(path)
    sheet = book.active
    sheet.row_dimensions[5].hidden = True  # East
    sheet["E3"], sheet["E4"] = "Flag", "p"
    book.save(path)
    _accept(window)
    assert window.open_path(path)
    log = window.log_pane.toPlainText()
    # issue 29: the totals include East, so the hidden row stays in the table (was: left out, totals broken)
    assert "notes.xlsx, sheet Turnover: hidden rows 5 are in the table: its totals include them" in log
    assert window.project.structure.dimensions[0].codes == ("North", "East", "South", "Total")
    assert "notes.xlsx, sheet Turnover: flag columns E were left out" in log
    assert window.bottom_tabs.currentWidget() is window.log_pane
