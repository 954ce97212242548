"""The workbook reader on damaged parts: sheet, shared strings and styles XML mutated (bytes
replaced, inserted or cut, numbers swapped for 1e400, nan or -0) must be read or refused with
FileFormatError, never another exception, and never give a table holding inf or nan."""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctadesk.engine.table.structure import TableStructure
from ctadesk.io.errors import FileFormatError
from ctadesk.io.excel import export_table_workbook, import_table
from tests.io import office_books as office
from tests.io.test_reader_fuzz import BYTE_MUTATION, MUTATION, mutate

FUZZ = settings(max_examples=150, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
PARTS = ["xl/worksheets/sheet1.xml", "xl/sharedStrings.xml", "xl/styles.xml", "xl/workbook.xml"]


@pytest.fixture(scope="module", params=["ctadesk", "openpyxl"])
def workbook(request, tmp_path_factory) -> Path:
    """A small release written by ctadesk (shared strings, styles, a frozen pane, a grid of numbers),
    or a sheet written by openpyxl (inline strings, formulas without results, merged cells)."""
    folder = tmp_path_factory.mktemp("fuzz")
    if request.param == "openpyxl":
        rows = [["Region", "Small", "Large", "Total"], ["North", 10, 20.5, "=B4+C4"], ["South", 30, 40, "=B5+C5"],
                ["Total", "=SUM(B4:B5)", "=SUM(C4:C5)", "=SUM(D4:D5)"]]
        return office.book(folder / "table.xlsx", rows, merges=["A1:D1"])
    structure = TableStructure.flat(3, 4)
    values = structure.aggregate(np.arange(1.0, 21.0).reshape(4, 5) * 12.5)
    return export_table_workbook(folder / "table.xlsx", structure, values, values, np.array([0])).path


def damaged(source: Path, target: Path, part: str, mutations) -> Path:
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as new:
        for item in old.infolist():
            data = old.read(item.filename)
            new.writestr(item, mutate(data, mutations) if item.filename == part else data)
    return target


@FUZZ
@given(part=st.sampled_from(PARTS), mutations=st.lists(st.one_of(MUTATION, BYTE_MUTATION), min_size=1, max_size=3))
def test_a_damaged_workbook_is_read_or_refused_with_a_file_format_error(workbook, tmp_path, part, mutations):
    path = damaged(workbook, tmp_path / "damaged.xlsx", part, mutations)
    try:
        table = import_table(path)
    except FileFormatError:
        return
    assert np.all(np.isfinite(table.values))
