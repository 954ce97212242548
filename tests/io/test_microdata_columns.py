"""xlsx_columns: the variable names of a microdata workbook from its first row alone."""

from __future__ import annotations

import datetime
import zipfile
from pathlib import Path

import openpyxl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctadesk.io.errors import FileFormatError
from ctadesk.io.microdata import xlsx_columns
from tests.io.test_microdata_guards import SHEET, replace_part

ROWS = 20_000


def openpyxl_names(path: Path) -> list[str]:
    """The names as xlsx_columns gave them when it read the whole first sheet with openpyxl."""
    book = openpyxl.load_workbook(path, read_only=True, data_only=True)
    try:
        first = next(book.worksheets[0].iter_rows(values_only=True), ())
    finally:
        book.close()
    return [str(v).strip() for v in first if v is not None and str(v).strip()]


def records(path: Path, header: list, rows: int = 3) -> Path:
    book = openpyxl.Workbook()
    book.active.append(header)
    for k in range(rows):
        book.active.append([f"r{k % 7}", k, 1.5 * k][: max(len(header), 1)])
    book.save(path)
    return path


HEADER_CELLS = st.one_of(st.none(), st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")),
                                            max_size=12),
                         st.integers(-10**6, 10**6), st.floats(-1e6, 1e6, allow_nan=False), st.booleans())


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(header=st.lists(HEADER_CELLS, max_size=10))
def test_the_names_are_those_of_the_whole_sheet_read_by_openpyxl(tmp_path, header):
    path = records(tmp_path / "m.xlsx", header)
    assert xlsx_columns(path) == openpyxl_names(path)


def test_gaps_blanks_numbers_and_dates_in_the_header_as_before(tmp_path):
    path = tmp_path / "m.xlsx"
    book = openpyxl.Workbook()
    sheet = book.active
    sheet["A1"], sheet["C1"], sheet["D1"], sheet["E1"] = " region ", "   ", 2023, 1.25
    sheet["F1"] = datetime.datetime(2024, 3, 1)
    sheet["G1"], sheet["A2"], sheet["B2"] = "turnover", "north", 5
    book.save(path)
    assert xlsx_columns(path) == openpyxl_names(path) == ["region", "2023", "1.25", "2024-03-01 00:00:00",
                                                          "turnover"]


def test_an_empty_sheet_and_a_sheet_whose_first_row_is_empty_have_no_names(tmp_path):
    empty = tmp_path / "empty.xlsx"
    openpyxl.Workbook().save(empty)
    assert xlsx_columns(empty) == []
    book = openpyxl.Workbook()
    book.active["B2"] = "region"
    book.save(tmp_path / "low.xlsx")
    assert xlsx_columns(tmp_path / "low.xlsx") == openpyxl_names(tmp_path / "low.xlsx") == []


def test_the_first_sheet_is_read_hidden_or_not(tmp_path):
    path = tmp_path / "m.xlsx"
    book = openpyxl.Workbook()
    book.active.append(["hidden_first"])
    book.active.sheet_state = "hidden"
    book.create_sheet("second").append(["region"])
    book.save(path)
    assert xlsx_columns(path) == openpyxl_names(path) == ["hidden_first"]


def test_only_the_first_row_is_parsed(tmp_path):
    # the part is cut off (damaged) well after its first row: reading every row fails, the names do not
    source = records(tmp_path / "m.xlsx", ["region", "size", "turnover"], ROWS)
    with zipfile.ZipFile(source) as archive:
        xml = archive.read(SHEET)
    cut = replace_part(source, tmp_path / "cut.xlsx", SHEET, lambda stream: stream.write(xml[: len(xml) // 2]))
    assert xlsx_columns(cut) == ["region", "size", "turnover"]


@pytest.mark.parametrize("first_row", [b'<row r="1"><c r="A1" t="s"><v>99</v></c></row>',
                                       b'<row r="1"><c r="A1"><v>1</v></c><c r="1A"><v>2</v></c></row>',
                                       b'<row r="1"><c r="A1" t="inlineStr"><is><t>a</t></is></c>'])
def test_a_damaged_first_row_is_one_line_naming_the_file_and_sheet(tmp_path, first_row):
    source = records(tmp_path / "m.xlsx", ["region"])
    head = b'<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>'
    damaged = replace_part(source, tmp_path / "bad.xlsx", SHEET,
                           lambda stream: stream.write(head + first_row + b"</sheetData></worksheet>"))
    with pytest.raises(FileFormatError) as caught:
        xlsx_columns(damaged)
    message = str(caught.value)
    assert message.startswith("bad.xlsx, sheet 'Sheet'") and "damaged" in message and "\n" not in message, message
