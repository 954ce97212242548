"""The Excel import dialog's preview takes the value a refused cell needs (issue 32): the reader's
message on an Eurostat ':' asks for the number, and the number typed over the cell is imported,
while the workbook itself is left as it was."""

from pathlib import Path

import openpyxl
import pytest
from PySide6.QtWidgets import QAbstractItemView

from ctadesk.gui.import_dialogs import ExcelImportDialog, edited_grid
from ctadesk.io.errors import FileFormatError
from ctadesk.io.excel import open_workbook, read_grid

ROWS = [("Region", "Small", "Large", "Total"), ("North", 3, ":", 10), ("South", 4, 5, 9), ("Total", 7, 12, 19)]


def _workbook(path: Path) -> Path:
    book = openpyxl.Workbook()
    for row in ROWS:
        book.active.append(row)
    book.save(path)
    return path


def test_a_confidential_mark_refused_is_given_its_number_in_the_preview(qtbot, tmp_path):
    path = _workbook(tmp_path / "eurostat.xlsx")
    dialog = ExcelImportDialog(path)
    qtbot.addWidget(dialog)
    dialog.runner.wait()  # the first sheet, read in the dialog's runner
    dialog.accept()
    with pytest.raises(FileFormatError, match=r"C2.*enter the number"):
        dialog.reader()()
    cell = dialog.model.index(1, 2)
    assert cell.data() == ":" and dialog.preview.editTriggers() & QAbstractItemView.EditTrigger.DoubleClicked
    dialog.error.setText("the message of the failed build")
    assert dialog.model.setData(cell, "7")
    assert dialog.error.text() == "" and dialog.model.index(1, 2).data() == "7"
    dialog.accept()
    tables = dialog.reader()()
    assert tables[0].values.tolist() == [3, 7, 10, 4, 5, 9, 7, 12, 19]
    assert openpyxl.load_workbook(path).active["C2"].value == ":"


def test_colouring_and_marking_roles_are_no_edit(qtbot, tmp_path):
    dialog = ExcelImportDialog(_workbook(tmp_path / "t.xlsx"))
    qtbot.addWidget(dialog)
    dialog.runner.wait()
    grid = dialog.grids[dialog.current_sheet()]
    dialog.mark_columns({3}, "ignore")
    dialog.set_decimal_comma(True)
    assert dialog.grids[dialog.current_sheet()] is grid


@pytest.mark.parametrize("text, comma, value", [("7", None, 7), ("1.234,5", True, 1234.5), ("1,234.5", False, 1234.5),
                                                ("  ", None, None), ("n/a", None, "n/a")])
def test_a_value_typed_is_a_number_in_the_sheets_decimal_mark_else_text(tmp_path, text, comma, value):
    path = _workbook(tmp_path / "t.xlsx")
    grid = read_grid(open_workbook(path), "Sheet", path)
    edited = edited_grid(grid, 1, 2, text, comma)
    assert edited.values[1][2] == value and type(edited.values[1][2]) is type(value)
    assert edited.values[:1] + edited.values[2:] == grid.values[:1] + grid.values[2:]


def _two_sheets(path: Path) -> Path:
    book = openpyxl.Workbook()
    for row in ROWS:
        book.active.append(row)
    second = book.create_sheet("second")
    for row in [("Size", "2023", "2024"), ("Small", 1, 2), ("Large", 3, 4)]:
        second.append(row)
    book.save(path)
    return path


def test_a_sheet_not_read_yet_is_read_in_the_dialogs_runner_while_the_dialog_answers(qtbot, tmp_path, monkeypatch):
    """Switching to a sheet returns before the sheet is read: the reading blocks here until the
    test lets it go, and meanwhile the preview is empty and says what it is reading."""
    import threading

    from ctadesk.gui import import_dialogs

    dialog = ExcelImportDialog(_two_sheets(tmp_path / "two.xlsx"))
    qtbot.addWidget(dialog)
    dialog.runner.wait()
    released = threading.Event()
    read = import_dialogs.read_sheet

    def blocked(workbook, sheet, path):
        assert released.wait(20), "the sheet was read on the window's thread"
        return read(workbook, sheet, path)

    monkeypatch.setattr(import_dialogs, "read_sheet", blocked)
    dialog.sheets.setCurrentRow(1)  # returns while the reading waits
    assert dialog.runner.running and dialog.reading == "second"
    assert dialog.model.rowCount() == 0 and dialog.description.text() == "Reading sheet 'second'…"
    dialog.mark_rows({0}, "title")  # a correction while reading changes nothing
    released.set()
    qtbot.waitUntil(lambda: dialog.model.rowCount() == 3)
    assert dialog.model.index(1, 0).data() == "Small" and dialog.layouts["second"] is not None
    assert "Reading" not in dialog.description.text()


def test_switching_sheets_while_one_is_read_shows_the_last_one_chosen(qtbot, tmp_path, monkeypatch):
    import threading

    from ctadesk.gui import import_dialogs

    path = _two_sheets(tmp_path / "two.xlsx")
    released, asked = threading.Event(), []
    read = import_dialogs.read_sheet

    def blocked(workbook, sheet, path):
        asked.append(sheet)
        released.wait(20)
        return read(workbook, sheet, path)

    monkeypatch.setattr(import_dialogs, "read_sheet", blocked)
    dialog = ExcelImportDialog(path)  # its first sheet being read
    qtbot.addWidget(dialog)
    dialog.sheets.setCurrentRow(1)
    dialog.sheets.setCurrentRow(0)
    dialog.sheets.setCurrentRow(1)
    released.set()
    qtbot.waitUntil(lambda: not dialog.runner.running and dialog.model.rowCount() == 3)
    assert asked == ["Sheet", "second"]  # each read once, one at a time
    assert dialog.model.index(0, 0).data() == "Size"
    dialog.sheets.setCurrentRow(0)  # read already: shown at once
    assert not dialog.runner.running and dialog.model.index(0, 0).data() == "Region"


def test_a_sheet_that_cannot_be_read_says_why_and_is_refused_at_ok(qtbot, tmp_path):
    import zipfile

    source = _two_sheets(tmp_path / "two.xlsx")
    damaged = tmp_path / "damaged.xlsx"
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(damaged, "w") as new:
        for item in old.infolist():
            data = old.read(item.filename)
            new.writestr(item, data[: len(data) // 2] if item.filename == "xl/worksheets/sheet2.xml" else data)
    dialog = ExcelImportDialog(damaged)
    qtbot.addWidget(dialog)
    dialog.runner.wait()
    dialog.sheets.setCurrentRow(1)
    dialog.runner.wait()
    assert "damaged" in dialog.description.text() and dialog.model.rowCount() == 0
    dialog.set_checked(["second"])
    dialog.accept()
    assert dialog.result() != 1 and dialog.error.text().startswith("Sheet 'second':")
    assert "damaged" in dialog.error.text()
