"""Reading sheet parts: the fast reading of rows in the common form and expat's reading of any
part give the same sheet; parts in other forms fall back to expat; no part can declare entities."""

from __future__ import annotations

import datetime
import re
import zipfile
from pathlib import Path

import numpy as np
import openpyxl
import pytest
from openpyxl.styles import Alignment, Font

from ctadesk.engine.table.structure import TableStructure
from ctadesk.io.errors import FileFormatError
from ctadesk.io.excel import (
    canonical_rows,
    export_table_workbook,
    import_table,
    open_workbook,
    read_grid,
    safe_xml,
    sheet_part,
)
from ctadesk.io.excel.workbook import read_sheet
from tests.io import excel_books as books
from tests.io import office_books as office

SHEET = "xl/worksheets/sheet1.xml"


def rewritten(source: Path, target: Path, part: str, change) -> Path:
    """A copy of the workbook with one part's text changed by change(text)."""
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as new:
        for item in old.infolist():
            data = old.read(item.filename)
            new.writestr(item, change(data.decode("utf-8")).encode("utf-8") if item.filename == part else data)
    return target


def both_readings(path: Path, sheet: str | None = None):
    """The sheet read as ctadesk reads it, whether the fast reading took it, and read by expat alone."""
    taken = []
    fast = sheet_part.read_canonical

    def spy(*args):
        taken.append(fast(*args))
        return taken[-1]

    workbook = open_workbook(path)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sheet_part, "read_canonical", spy)
        read = read_sheet(workbook, sheet)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sheet_part, "read_canonical", lambda *args: False)
        by_expat = read_sheet(workbook, sheet)
    return read, taken == [True], by_expat


def assert_same(one, other) -> None:
    for name in ("rows", "columns", "styles"):
        np.testing.assert_array_equal(getattr(one, name), getattr(other, name), err_msg=name)
    assert one.values == other.values
    assert {k: one.formula(k) for k in one.formulas} == {k: other.formula(k) for k in other.formulas}
    for name in ("n_rows", "n_columns", "merged", "hidden_rows", "row_heights", "column_formats", "frozen",
                 "hyperlinks", "conditional_formats", "validations", "drawing"):
        assert getattr(one, name) == getattr(other, name), name


def styled_book(path: Path) -> Path:
    """Titles, merged header, indents, hidden and sized rows and columns, frozen panes, formulas
    (shared too), texts with markup characters, booleans, dates and errors."""
    book = openpyxl.Workbook()
    sheet = book.active
    sheet["A1"] = "Turnover & staff <2024> \"final\""
    sheet["A1"].font = Font(bold=True)
    sheet.merge_cells("B2:C2")
    sheet["B2"] = "Size"
    rows = [["Region", "Small", "Large", "Total"], ["North", 10, 20.5, "=B4+C4"], ["South", -3, 1e-7, "=B5+C5"],
            ["Total", "=SUM(B4:B5)", "=SUM(C4:C5)", "=SUM(D4:D5)"]]
    for r, row in enumerate(rows, start=3):
        for c, value in enumerate(row, start=1):
            sheet.cell(r, c, value)
    sheet["A5"].alignment = Alignment(indent=2)
    sheet["F4"] = True
    sheet["F5"] = "#N/A"
    sheet["F6"] = datetime.datetime(2024, 3, 1)
    sheet.row_dimensions[5].hidden = True
    sheet.row_dimensions[3].height = 30
    sheet.column_dimensions["E"].hidden = True
    sheet.column_dimensions["A"].width = 25
    sheet.freeze_panes = "B4"
    book.save(path)
    return path


WORKBOOKS = {
    "flat": lambda p: books.flat_book(p),
    "two label columns": books.two_label_columns_book,
    "merged column headers": books.hierarchical_columns_book,
    "formulas": lambda p: office.book(p, [["Region", "Small", "Total"], ["North", 1, "=B4"], ["Total", "=B4", "=C4"]]),
    "hidden": lambda p: office.book(p, [["Region", "A", "B"], ["x", 1, 2], ["y", 3, 4]], hidden_rows=[4],
                                    hidden_columns=["B"]),
    "styled": styled_book,
}


@pytest.mark.parametrize("name", list(WORKBOOKS))
def test_the_fast_reading_of_openpyxl_workbooks_is_expats(tmp_path, name):
    read, fast, by_expat = both_readings(WORKBOOKS[name](tmp_path / "t.xlsx"))
    assert fast
    assert_same(read, by_expat)


@pytest.mark.parametrize("chunk", [7, 97, 1000])
def test_rows_cut_across_chunks_read_alike(tmp_path, monkeypatch, chunk):
    path = styled_book(tmp_path / "t.xlsx")
    whole, _, _ = both_readings(path)
    monkeypatch.setattr(canonical_rows, "CHUNK", chunk)
    monkeypatch.setattr(safe_xml, "CHUNK", chunk)
    read, fast, by_expat = both_readings(path)
    assert fast
    assert_same(read, whole)
    assert_same(by_expat, whole)


def test_the_fast_reading_of_ctadesk_workbooks_is_expats(tmp_path):
    structure = TableStructure.flat(3, 4)
    values = structure.aggregate(np.arange(1.0, 21.0).reshape(4, 5) * 1.5)
    path = export_table_workbook(tmp_path / "t.xlsx", structure, values, values, np.array([0]), internal=True).path
    for sheet in ("Table", "Cells", "Quality", "Log"):
        read, fast, by_expat = both_readings(path, sheet)
        assert fast, sheet
        assert_same(read, by_expat)


VARIANTS = {  # name: (change of the sheet's XML, read fast)
    "whitespace between rows and cells": (lambda xml: xml.replace("<row", "\n  <row").replace("<c ", "\n    <c "),
                                          True),
    "whitespace inside cells": (lambda xml: xml.replace("<v>", "\n      <v>"), False),
    "attributes in another order": (lambda xml: re.sub(r'<c r="([A-Z]+\d+)" s="(\d+)" t="(\w+)"',
                                                       r'<c t="\3" r="\1" s="\2"', xml), False),
    "cells without references": (lambda xml: re.sub(r'<c r="A\d+"', "<c", xml), False),
    "prefixed elements": (lambda xml: re.sub(r"<(/?)(\w+)", r"<\1x:\2", xml).replace(
        'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"',
        'xmlns:x="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'), False),
    "a comment in the rows": (lambda xml: xml.replace("</row>", "<!-- c --></row>", 1), False),
    "a sheetData in a comment before the cells": (lambda xml: xml.replace(
        "<sheetData>", '<!-- <sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>fake</t></is></c></row>'
                       "</sheetData> --><sheetData>", 1), False),
}


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_parts_in_other_forms_read_alike(tmp_path, variant):
    source = styled_book(tmp_path / "t.xlsx")
    expected, _, _ = both_readings(source)
    change, read_fast = VARIANTS[variant]
    read, fast, by_expat = both_readings(rewritten(source, tmp_path / "v.xlsx", SHEET, change))
    assert fast == read_fast
    assert_same(read, expected)
    assert_same(by_expat, expected)


def test_entity_references_and_rich_text_read_as_text(tmp_path):
    source = office.book(tmp_path / "t.xlsx", [["Region", "A"], ["R&amp;D", 1], ["Total", 1]])
    rich = rewritten(source, tmp_path / "rich.xlsx", SHEET, lambda xml: re.sub(
        r'(<c r="A1"[^>]*><is>)<t>([^<]*)</t>', r"\1<r><t>Table </t></r><r><t>\2</t></r><rPh><t>phonetic</t></rPh>",
        xml))
    grid = read_grid(open_workbook(rich), None, rich)
    assert grid.values[0][0] == f"Table {office.TITLE}"
    assert grid.values[3][0] == "R&amp;D"  # openpyxl escaped the ampersand it was given
    read, fast, by_expat = both_readings(source)
    assert fast
    assert_same(read, by_expat)


@pytest.mark.parametrize("part", [SHEET, "xl/sharedStrings.xml", "xl/workbook.xml", "xl/styles.xml"])
def test_a_part_declaring_entities_is_refused_as_damaged(tmp_path, part):
    structure = TableStructure.flat(2, 2)
    source = export_table_workbook(tmp_path / "t.xlsx", structure, np.arange(9.0), np.arange(9.0), np.array([0])).path
    laughs = ('<!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
              '<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>')
    bomb = rewritten(source, tmp_path / "bomb.xlsx", part, lambda xml: re.sub(r"(<\?xml[^>]*\?>)?", lambda m: (
        m[0] or "") + laughs, xml, count=1))
    with pytest.raises(FileFormatError, match=r"bomb\.xlsx.*damaged"):
        import_table(bomb)
