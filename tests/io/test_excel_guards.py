"""The table reader's archive guards (io/excel/workbook.check_workbook_archive), shared with microdata."""

import zipfile

import openpyxl
import pytest

from ctadesk.io.errors import FileFormatError
from ctadesk.io.excel.workbook import open_workbook, read_grid


def small_workbook(path):
    book = openpyxl.Workbook()
    book.active.append(["Region", "Total"])
    book.active.append(["North", 12])
    book.save(path)
    return path


def rewritten(source, target, change):
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as new:
        for item in old.infolist():
            new.writestr(item, change(item.filename, old.read(item.filename)))
    return target


def test_a_zip_bomb_is_refused_before_parsing(tmp_path):
    source = small_workbook(tmp_path / "plain.xlsx")
    bomb = rewritten(source, tmp_path / "bomb.xlsx", lambda name, data: data + b" " * (8 << 20)
                     if name == "xl/worksheets/sheet1.xml" else data)
    with pytest.raises(FileFormatError, match="zip bomb"):
        open_workbook(bomb)


def test_malformed_sheet_xml_is_one_line_naming_the_file(tmp_path):
    source = small_workbook(tmp_path / "plain.xlsx")
    broken = rewritten(source, tmp_path / "broken.xlsx",
                       lambda name, data: data[: len(data) // 2] if name == "xl/worksheets/sheet1.xml" else data)
    with pytest.raises(FileFormatError, match=r"broken\.xlsx.*damaged"):
        read_grid(open_workbook(broken), None, broken)
