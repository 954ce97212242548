"""Opening a workbook from the window (issue 32): the import dialog shows a lazy preview, the
tables are built in the job runner (a failed build shows the dialog again with the message and
the corrections kept), and a workbook of microdata is offered for tabulation."""

import dataclasses

import numpy as np
import openpyxl
from hypothesis import given, settings
from hypothesis import strategies as st

from ctadesk.gui.import_dialogs import AS_MICRODATA, MICRODATA_ROWS, ExcelImportDialog
from ctadesk.gui.sheet_preview import CELL_ROLES, PREVIEW_ROWS, cell_roles
from ctadesk.io.excel import DetectedLayout


def _records(path, n):
    """A workbook of ``n`` respondents: region, industry, turnover."""
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "enterprises"
    sheet.append(["region", "industry", "turnover"])
    rng = np.random.default_rng(1)
    for k in range(n):
        sheet.append([f"R{k % 3}", f"I{k % 4}", int(rng.integers(1, 1000))])
    book.save(path)
    return path


def _table_with_a_colon(path):
    book = openpyxl.Workbook()
    for row in [("Region", "Small", "Large", "Total"), ("North", 3, ":", 10), ("South", 4, 5, 9),
                ("Total", 7, 12, 19)]:
        book.active.append(row)
    book.save(path)
    return path


def test_a_workbook_of_records_is_tabulated_through_the_microdata_dialog(window, tmp_path):
    path = _records(tmp_path / "records.xlsx", MICRODATA_ROWS + 100)
    seen = []

    def run(dialog):
        seen.append(dialog.objectName())
        if dialog.objectName() == "excel_import_dialog":
            seen.append(dialog.looks_like_microdata() and dialog.microdata_hint.isVisibleTo(dialog))
            seen.append(dialog.model.rowCount())
            dialog.done(AS_MICRODATA)
            return False
        dialog.set_spanning(["region", "industry"])
        dialog.response.setCurrentText("turnover")
        dialog.accept()
        return dialog.result() == 1

    window.run_dialog = run
    assert window.open_path(path)
    assert seen == ["excel_import_dialog", True, PREVIEW_ROWS, "microdata_dialog"]
    assert window.project.structure.shape == (4, 5)  # 3 regions and 4 industries, with their totals


def test_a_table_is_not_offered_for_tabulation(qtbot, tmp_path):
    dialog = ExcelImportDialog(_table_with_a_colon(tmp_path / "t.xlsx"))
    qtbot.addWidget(dialog)
    dialog.runner.wait()  # the first sheet, read in the dialog's runner
    assert not dialog.looks_like_microdata() and not dialog.microdata_hint.isVisibleTo(dialog)


def test_a_build_that_fails_in_the_job_shows_the_dialog_again_with_the_message(window, tmp_path):
    path = _table_with_a_colon(tmp_path / "eurostat.xlsx")
    shown = []

    def run(dialog):
        shown.append(dialog.error.text())
        if len(shown) == 2:  # the second time: the user types the number the message asks for
            dialog.model.setData(dialog.model.index(1, 2), "7")
        dialog.accept()
        return dialog.result() == 1

    window.run_dialog = run
    assert window.open_path(path)
    assert shown[0] == "" and "C2" in shown[1] and "enter the number" in shown[1]
    assert window.project.values.tolist()[:3] == [3, 7, 10]


def test_the_preview_of_a_large_sheet_holds_its_first_rows_only(qtbot, tmp_path):
    dialog = ExcelImportDialog(_records(tmp_path / "records.xlsx", 2 * PREVIEW_ROWS))
    qtbot.addWidget(dialog)
    dialog.runner.wait()
    assert dialog.model.rowCount() == PREVIEW_ROWS and dialog.model.columnCount() == 3
    assert dialog.model.role_of(0, 0) == "header" and dialog.model.role_of(5, 2) == "data"


def _reference_role(layout, row, column):
    """A cell's role, read from the layout's lists one cell at a time."""
    if row in layout.title_rows:
        return "title"
    if row in layout.header_rows:
        return "header"
    if column in layout.label_columns and (row in layout.data_rows or row in layout.heading_rows):
        return "heading" if row in layout.heading_rows else "label"
    if row in layout.data_rows and column in layout.data_columns:
        return "total" if row in layout.total_rows or column in layout.total_columns else "data"
    return "ignore"


rows_drawn = st.lists(st.integers(0, 11), max_size=6, unique=True)


@settings(max_examples=60, deadline=None)
@given(title=rows_drawn, header=rows_drawn, data=rows_drawn, heading=rows_drawn, totals=rows_drawn,
       labels=st.lists(st.integers(0, 7), max_size=3, unique=True),
       data_columns=st.lists(st.integers(0, 7), max_size=5, unique=True),
       total_columns=st.lists(st.integers(0, 7), max_size=2, unique=True))
def test_the_roles_computed_at_once_are_those_of_each_cell(title, header, data, heading, totals, labels,
                                                           data_columns, total_columns):
    base = DetectedLayout(sheet="s", title_rows=[], header_rows=[], label_columns=[], data_rows=[],
                          heading_rows=[], data_columns=[], total_rows=set(), total_columns=set())
    layout = dataclasses.replace(base, title_rows=title, header_rows=header, data_rows=data, heading_rows=heading,
                                 total_rows=set(totals), label_columns=labels, data_columns=data_columns,
                                 total_columns=set(total_columns))
    roles = cell_roles(layout, 10, 6)  # the preview may show fewer rows and columns than the layout names
    assert [[CELL_ROLES[k] for k in row] for row in roles.tolist()] == [
        [_reference_role(layout, r, c) for c in range(6)] for r in range(10)]
