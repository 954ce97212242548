"""Writing workbooks: what Excel and openpyxl read back, what a failed export leaves, and the
settings and number formats each sheet keeps."""

from __future__ import annotations

import zipfile

import numpy as np
import openpyxl
import pytest
from openpyxl.styles import Alignment, Font

from ctadesk.engine.table.structure import Dimension, TableStructure
from ctadesk.io.errors import FileFormatError
from ctadesk.io.excel import ExportReport, export_table_workbook, export_workbook, import_table
from ctadesk.io.excel.sheet_part import ColumnFormat
from ctadesk.io.excel.styles import CellFormat
from ctadesk.io.excel.writer import WorkbookWriter
from tests.io import office_books as office
from tests.io.test_office_reading import HIDDEN_ROWS


def test_a_written_workbook_reads_back_with_its_values_and_looks(tmp_path):
    path = tmp_path / "w.xlsx"
    with WorkbookWriter(path) as writer:
        bold = writer.styles.add(CellFormat(font=Font(bold=True), alignment=Alignment(indent=2),
                                            number_format='0.0" t"'))
        sheet = writer.add_sheet("Data", [ColumnFormat(0, 0, 30.0), ColumnFormat(2, 3, hidden=True)], frozen="B3")
        sheet.merge("A1:C1")
        sheet.row(1, writer.cell("A1", "R&D <sales> \x01", bold), height=24.0)
        sheet.row(2, writer.cell("A2", "=SUM(A1)") + writer.cell("B2", 1.5, bold) + writer.cell("C2", True),
                  hidden=True)
        sheet.row(3, writer.cell("A3", 12345678901234) + writer.cell("B3", -0.1))
    book = openpyxl.load_workbook(path)
    data = book["Data"]
    assert data["A1"].value == "R&D <sales> _x0001_" and data["A1"].font.b and data["A1"].alignment.indent == 2
    assert data["A2"].value == "=SUM(A1)" and data["A2"].data_type == "s" and data["A2"].quotePrefix
    assert (data["B2"].value, data["B2"].number_format, data["C2"].value) == (1.5, '0.0" t"', True)
    assert (data["A3"].value, data["B3"].value) == (12345678901234, -0.1)
    assert [str(r) for r in data.merged_cells.ranges] == ["A1:C1"] and data.freeze_panes == "B3"
    assert data.column_dimensions["A"].width == 30 and data.column_dimensions["C"].hidden
    assert data.row_dimensions[1].height == 24 and data.row_dimensions[2].hidden
    assert book.properties.creator == "ctadesk" and not book.properties.title


def test_a_failed_export_leaves_the_target_as_it_was(tmp_path):
    target = tmp_path / "release.xlsx"
    target.write_bytes(b"the previous release")
    structure = TableStructure.flat(2, 2)
    values = structure.aggregate(np.array([[1.0, 2, 0], [3, 4, 0], [0, 0, 0]]))

    class Unwritable:
        def __str__(self) -> str:
            raise OSError("disk full")

    report = ExportReport(settings=(("method", Unwritable()),))  # fails after the table's sheet is written
    with pytest.raises(OSError, match="disk full"):
        export_table_workbook(target, structure, values, values, np.array([0]), report=report)
    assert target.read_bytes() == b"the previous release"
    assert [p.name for p in tmp_path.iterdir()] == ["release.xlsx"]


def test_a_table_with_values_that_are_not_finite_is_refused_naming_the_cell(tmp_path):
    structure = TableStructure.flat(2, 2)
    adjusted = np.zeros(structure.n_cells)
    adjusted[3] = np.nan
    with pytest.raises(FileFormatError, match="cell 3 is nan"):
        export_table_workbook(tmp_path / "t.xlsx", structure, np.zeros(structure.n_cells), adjusted, np.array([0]))
    assert not (tmp_path / "t.xlsx").exists()


def test_hidden_rows_and_columns_stay_hidden_in_the_release(tmp_path):
    # issue 11: hidden rows/columns left out of the table "and kept hidden in the release"
    table = import_table(office.book(tmp_path / "h.xlsx", HIDDEN_ROWS, hidden_rows=[5], hidden_columns=["C"]))
    release = export_workbook(tmp_path / "r.xlsx", [table], [table.values], [np.zeros(0, int)]).path
    sheet = openpyxl.load_workbook(release)["Table"]
    assert sheet.row_dimensions[5].hidden and sheet.column_dimensions["C"].hidden
    assert sheet["A5"].value == "of which exports" and sheet["B5"].value is None  # a number outside the table
    np.testing.assert_array_equal(import_table(release).values, table.values)


def test_each_sheet_of_the_default_layout_takes_the_number_format_of_its_own_values(tmp_path):
    # was: one format from all the table's values, so a sheet of whole numbers showed them as 'General'
    structure = TableStructure((Dimension.flat("Year", ["2023", "2024"]), Dimension.flat("Region", ["N", "S"]),
                                Dimension.flat("Size", ["small", "large"])))
    inner = np.arange(1.0, 28.0).reshape(3, 3, 3)
    inner[1] += 0.5
    values = structure.aggregate(inner)
    path = export_table_workbook(tmp_path / "cube.xlsx", structure, values, values, np.array([0])).path
    book = openpyxl.load_workbook(path)
    formats = {title: {book[title].cell(4 + i, 2 + j).number_format for i in range(3) for j in range(3)}
               for title in ("2023", "2024", "Total")}
    assert formats == {"2023": {"#,##0"}, "2024": {"General"}, "Total": {"General"}}


def test_each_sheet_of_a_workbook_decides_its_own_decimal_mark(tmp_path):
    # issue 11 leftover: the decimal mark is inferred from the sheet a table is read from, not the workbook
    sheets = {"Comma": [["Region", "Turnover"], ["North", "12,5"], ["South", "1.234,5"], ["Total", "1.247"]],
              "Point": [["Region", "Turnover"], ["North", "12.5"], ["South", "1,234.5"], ["Total", "1,247"]],
              "Undecided": [["Region", "Turnover"], ["North", "1.234"], ["South", "2.500"], ["Total", "3.734"]]}
    book = openpyxl.Workbook()
    book.remove(book.active)
    for title, rows in sheets.items():
        sheet = book.create_sheet(title)
        for row in rows:
            sheet.append(row)
    path = tmp_path / "marks.xlsx"
    book.save(path)
    comma, point = import_table(path, "Comma"), import_table(path, "Point")
    assert comma.layout.decimal_comma and not point.layout.decimal_comma
    assert comma.values.tolist() == point.values.tolist() == [12.5, 1234.5, 1247]
    with pytest.raises(FileFormatError, match=r"sheet 'Undecided': cannot tell whether '1.234' in B2"):
        import_table(path, "Undecided")


def test_a_release_keeps_no_style_that_is_not_used(tmp_path):
    # the source's own stylesheet (with the format it marked sensitive cells with) never travels
    table = import_table(office.book(tmp_path / "s.xlsx", [["Region", "A", "B"], ["x", 1, 2], ["y", 3, 4]]))
    source = openpyxl.load_workbook(table.source)
    source["Table"]["B4"].number_format = '0" (confidential)"'
    source.save(table.source)
    release = export_workbook(tmp_path / "r.xlsx", [table], [table.values], [np.array([0])]).path
    with zipfile.ZipFile(release) as archive:
        assert b"confidential" not in archive.read("xl/styles.xml")
