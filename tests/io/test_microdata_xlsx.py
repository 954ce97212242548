"""xlsx microdata read by the workbook reader of ctadesk.io.excel: the rows openpyxl reads."""

from __future__ import annotations

import datetime
from pathlib import Path

import numpy as np
import openpyxl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctadesk.io.errors import FileFormatError
from ctadesk.io.microdata import MicrodataSpec, _xlsx_rows, read_xlsx_microdata

CELLS = st.one_of(st.none(), st.sampled_from(["north", "south", " east ", "", "1"]), st.integers(-10**9, 10**9),
                  st.floats(-1e9, 1e9, allow_nan=False), st.booleans(),
                  st.datetimes(datetime.datetime(1950, 1, 1), datetime.datetime(2090, 1, 1)).map(
                      lambda d: d.replace(microsecond=0)))


def openpyxl_rows(path: Path, sheet: str | None) -> list[list]:
    """The rows of the sheet as openpyxl's read-only worksheet gives them (what was read before)."""
    book = openpyxl.load_workbook(path, read_only=True, data_only=True)
    try:
        worksheet = book[sheet] if sheet is not None else book.worksheets[0]
        return [list(row) for row in worksheet.iter_rows(values_only=True)]
    finally:
        book.close()


def trimmed(rows: list[list]) -> list[list]:
    """Rows without trailing empty rows and cells (what a sheet's extent may add)."""
    rows = [list(row) for row in rows]
    while rows and all(v is None for v in rows[-1]):
        rows.pop()
    width = max((max((c + 1 for c, v in enumerate(row) if v is not None), default=0) for row in rows), default=0)
    return [row[:width] + [None] * (width - len(row)) for row in rows]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(st.lists(CELLS, max_size=6), max_size=12), hidden_first=st.booleans())
def test_the_rows_are_those_openpyxl_reads(tmp_path, rows, hidden_first):
    path = tmp_path / "m.xlsx"
    book = openpyxl.Workbook()
    book.active.append(["other"])
    book.active.sheet_state = "hidden" if hidden_first else "visible"
    records = book.create_sheet("records")
    for row in rows:
        records.append(row)
    book.save(path)
    for sheet in (None, "records"):
        title, read = _xlsx_rows(path, sheet)
        assert title == ("Sheet" if sheet is None else sheet)
        assert trimmed(read) == trimmed(openpyxl_rows(path, sheet))


def test_the_sample_workbook_tabulates_as_before(tmp_path):
    path = Path(__file__).resolve().parents[2] / "sample_data" / "business_microdata.xlsx"
    spec = MicrodataSpec(spanning=("region", "industry"), response="turnover", weight="weight")
    micro = read_xlsx_microdata(path, spec)
    rows = openpyxl_rows(path, None)
    header = rows[0]
    turnover = np.array([row[header.index("turnover")] for row in rows[1:]], float)
    weight = np.array([row[header.index("weight")] for row in rows[1:]], float)
    assert micro.structure.shape == (len({row[1] for row in rows[1:]}) + 1, len({row[2] for row in rows[1:]}) + 1)
    assert np.allclose(np.sort(micro.response), np.sort(turnover))
    assert np.allclose(np.sort(micro.weight), np.sort(weight))


def test_a_sheet_not_in_the_workbook_is_named_with_the_sheets(tmp_path):
    path = tmp_path / "m.xlsx"
    openpyxl.Workbook().save(path)
    with pytest.raises(FileFormatError, match=r"m.xlsx: no sheet named 'x' \(sheets: Sheet\)"):
        read_xlsx_microdata(path, MicrodataSpec(spanning=("a",)), sheet="x")
