"""Detecting where a table sits on a sheet, correcting it, and refusing bad workbooks clearly."""

from __future__ import annotations

import numpy as np
import openpyxl
import pytest

from ctadesk.io.errors import FileFormatError
from ctadesk.io.excel import build_table, import_table, is_total_label, read_layout
from ctadesk.io.excel import workbook as workbook_module
from tests.io import excel_books as books


def test_flat_sheet_layout_names_title_header_labels_data_and_totals(tmp_path):
    _, layout = read_layout(books.flat_book(tmp_path / "t.xlsx"))
    assert layout.title_rows == [0]
    assert layout.header_rows == [2]
    assert layout.label_columns == [0]
    assert layout.data_rows == [3, 4, 5, 6, 8]  # the blank spacer row 8 (0-based 7) is skipped
    assert layout.total_rows == {8} and layout.total_columns == {4}
    assert layout.row_name == "Region"


def test_numbers_stored_as_text_with_thousands_separators_are_read(tmp_path):
    table = import_table(books.flat_book(tmp_path / "t.xlsx"))
    grid = table.values.reshape(table.structure.shape)
    assert grid[2, 2] == 1250.0                  # written as the text '1,250.00'
    assert abs(table.structure.relations() @ table.values).max() == 0


def test_decimal_comma_text_is_detected(tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["Region", "A", "B", "Total"])
    ws.append(["x", "1,5", "2,25", "3,75"])
    ws.append(["y", "1.000,5", "0,5", "1.001"])
    ws.append(["Total", "1.002", "2,75", "1.004,75"])
    wb.save(tmp_path / "c.xlsx")
    table = import_table(tmp_path / "c.xlsx")
    assert table.layout.decimal_comma
    np.testing.assert_allclose(table.values, [1.5, 2.25, 3.75, 1000.5, 0.5, 1001, 1002, 2.75, 1004.75])


def test_years_as_column_headers_stay_headers(tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["Turnover"])
    ws.append([None, 2022, 2023])
    ws.append(["a", 1, 2])
    ws.append(["b", 3, 4])
    wb.save(tmp_path / "y.xlsx")
    table = import_table(tmp_path / "y.xlsx")
    assert table.structure.dimensions[1].codes == ("2022", "2023")
    assert table.values.tolist() == [1, 2, 3, 4]


def test_user_marks_a_total_the_labels_do_not_name(tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["Region", "Value"])
    ws.append(["Netherlands", 10])
    ws.append(["North", 4])
    ws.append(["South", 6])
    wb.save(tmp_path / "u.xlsx")
    grid, layout = read_layout(tmp_path / "u.xlsx")
    assert layout.total_rows == set()
    assert build_table(grid, layout).structure.relations().shape[0] == 0
    layout.total_rows.add(1)
    corrected = build_table(grid, layout).structure.dimensions[0]
    assert corrected.parents.tolist() == [-1, 0, 0]


def test_two_rows_standing_for_the_same_code_are_reported_with_their_rows(tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["Region", "Value"])
    ws.append(["North", 4])
    ws.append(["North", 6])
    wb.save(tmp_path / "d.xlsx")
    with pytest.raises(FileFormatError, match="row 2 and row 3 both stand for 'North'"):
        import_table(tmp_path / "d.xlsx")


def test_a_data_cell_that_is_not_a_number_is_named(tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["Region", "A", "B"])
    ws.append(["x", 1, 2])
    ws.append(["y", "n/a", 4])
    ws.append(["z", 5, 6])
    wb.save(tmp_path / "n.xlsx")
    with pytest.raises(FileFormatError, match=r"n\.xlsx, sheet 'Sheet', cell B3: 'n/a' is not a number"):
        import_table(tmp_path / "n.xlsx")


@pytest.mark.parametrize("label, total", [("Total", True), ("Total North", True), ("North total", True),
                                          ("Gesamt", True), ("All", True), ("Totaal", True),
                                          ("Totnes", False), ("Small", False), ("Overall rate", False)])
def test_total_labels(label, total):
    assert is_total_label(label) is total


def test_encrypted_workbook_is_reported_as_such(tmp_path):
    path = tmp_path / "locked.xlsx"
    path.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504))
    with pytest.raises(FileFormatError, match="password-protected"):
        import_table(path)


def test_damaged_workbook_is_reported_as_such(tmp_path):
    path = tmp_path / "broken.xlsx"
    path.write_bytes(b"PK\x03\x04 this is not a zip archive")
    with pytest.raises(FileFormatError, match=r"broken\.xlsx: not an \.xlsx workbook, or the file is damaged"):
        import_table(path)


def test_sheets_larger_than_the_cap_are_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(workbook_module, "MAX_CELLS", 20)
    with pytest.raises(FileFormatError, match="more than the 20 cells"):
        import_table(books.flat_book(tmp_path / "t.xlsx"))


def test_two_tables_on_one_sheet_are_refused_naming_the_sheet_and_the_rows_of_each(tmp_path):
    from ctadesk.io.excel import detect_layout, open_workbook, read_grid

    book = openpyxl.Workbook()
    book.active.title = "Both"
    for row in [("Turnover by region",), ("Region", "Small", "Large", "Total"), ("North", 3, 7, 10),
                ("South", 4, 5, 9), ("Total", 7, 12, 19), (), ("Employment by region",),
                ("Region", "Small", "Large", "Total"), ("North", 30, 70, 100), ("Total", 30, 70, 100)]:
        book.active.append(row)
    book.save(tmp_path / "two.xlsx")
    grid = read_grid(open_workbook(tmp_path / "two.xlsx"), "Both", tmp_path / "two.xlsx")
    with pytest.raises(FileFormatError, match=r"sheet 'Both' holds two tables, rows 1-5 and rows 7-10 "
                                              r"\(its header on row 8\)"):
        detect_layout(grid)
    book.active.delete_rows(6, 5)
    book.save(tmp_path / "one.xlsx")
    layout = detect_layout(read_grid(open_workbook(tmp_path / "one.xlsx"), "Both", tmp_path / "one.xlsx"))
    assert layout.data_rows == [2, 3, 4]
