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
    dialog.accept()
    with pytest.raises(FileFormatError, match="C2.*enter the number"):
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
