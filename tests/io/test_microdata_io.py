"""CSV and xlsx microdata readers."""

from pathlib import Path

import numpy as np
import openpyxl
import pytest

from ctadesk.engine.table.microdata import tabulate
from ctadesk.io.errors import FileFormatError
from ctadesk.io.hierarchy import read_hrc
from ctadesk.io.microdata import MicrodataSpec, microdata_from_columns, read_csv_microdata, read_xlsx_microdata

EXAMPLES = Path("/work/shared/formats/tauargus-examples")

CSV = """Region;Size;Turnover;Wgt;Group;Req
 1;1;100;1;g1;0
 2;1;40;2;g1;1
 4;2;25,5;1;;0
12;2;10;1;;2
"""


@pytest.fixture
def csv_file(tmp_path):
    path = tmp_path / "firms.csv"
    path.write_text(CSV)
    return path


@pytest.mark.skipif(not EXAMPLES.exists(), reason="tau-argus examples not present")
def test_csv_with_hrc_hierarchy_weights_holdings_and_requests(csv_file):
    spec = MicrodataSpec(spanning=("Region", "Size"), response="Turnover", weight="Wgt", holding="Group",
                         request="Req", hierarchies={"Region": read_hrc(EXAMPLES / "region2.hrc", "Region")},
                         decimal_comma=True)
    micro = read_csv_microdata(csv_file, spec)
    assert micro.n_records == 4
    np.testing.assert_allclose(micro.response, [100, 40, 25.5, 10])
    assert list(micro.request) == [0, 1, 0, 2]
    stats = tabulate(micro, 2)
    structure = micro.structure
    nr_total = np.ravel_multi_index((structure.dimensions[0].index("Nr"), structure.dimensions[1].index("Total")),
                                    structure.shape)
    assert stats.values[nr_total] == 140 and stats.weighted_values[nr_total] == 180
    assert stats.holding_freq[nr_total] == 1 and stats.holding_top[nr_total, 0] == 140


def test_flat_variables_take_the_codes_seen(csv_file):
    micro = read_csv_microdata(csv_file, MicrodataSpec(spanning=("Size",), response="Wgt"))
    assert micro.structure.dimensions[0].codes == ("1", "2", "Total")


def test_code_absent_from_hierarchy_names_file_and_lines(csv_file, tmp_path):
    hrc = tmp_path / "r.hrc"
    hrc.write_text("N\n@ 1\n@ 2\n")
    spec = MicrodataSpec(spanning=("Region",), response="Wgt", hierarchies={"Region": read_hrc(hrc, "Region")})
    with pytest.raises(FileFormatError, match=r"firms.csv: Region: code ' 4' is not in the hierarchy \(lines 4, 5\)"):
        read_csv_microdata(csv_file, spec)


def test_text_in_a_numeric_column_names_file_line_and_column(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("A,X\na,1\nb,n/a\n")
    with pytest.raises(FileFormatError, match=r"bad.csv, line 3: column 'X': 'n/a' is not a number"):
        read_csv_microdata(path, MicrodataSpec(spanning=("A",), response="X"))


def test_unknown_column_is_named(csv_file):
    with pytest.raises(FileFormatError, match="no column named 'Sales'"):
        read_csv_microdata(csv_file, MicrodataSpec(spanning=("Region",), response="Sales"))


def test_missing_code_is_reported(tmp_path):
    path = tmp_path / "m.csv"
    path.write_text("A,X\na,1\n,2\n")
    with pytest.raises(FileFormatError, match=r"A: missing code in line 3"):
        read_csv_microdata(path, MicrodataSpec(spanning=("A",), response="X"))


def test_xlsx_reader_with_digit_levels(tmp_path):
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.append(["Industry", "Size", "Turnover"])
    for row in [(12345, 1, 10.0), (12346, 1, 5.0), (99911, 2, 7.0)]:
        sheet.append(row)
    path = tmp_path / "m.xlsx"
    workbook.save(path)
    spec = MicrodataSpec(spanning=("Industry", "Size"), response="Turnover", hierarchies={"Industry": (3, 1, 1)})
    micro = read_xlsx_microdata(path, spec)
    industry = micro.structure.dimensions[0]
    assert industry.codes[:4] == ("Total", "123", "1234", "12345")
    grand_total = np.ravel_multi_index((industry.index("Total"), micro.structure.dimensions[1].index("Total")),
                                       micro.structure.shape)
    assert tabulate(micro, 1).values[grand_total] == 22


def test_xlsx_text_in_numbers_names_the_row(tmp_path):
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.append(["A", "X"])
    sheet.append(["a", "oops"])
    path = tmp_path / "bad.xlsx"
    workbook.save(path)
    with pytest.raises(FileFormatError, match=r"bad.xlsx, line 2: column 'X'"):
        read_xlsx_microdata(path, MicrodataSpec(spanning=("A",), response="X"))


def test_column_function_is_reusable_by_other_readers():
    micro = microdata_from_columns({"A": ["x", "y"], "V": [1.5, 2.5]}, MicrodataSpec(spanning=("A",), response="V"))
    assert micro.structure.dimensions[0].codes == ("x", "y", "Total")


def test_lines_are_named_as_in_the_file_when_blank_lines_come_before(tmp_path):
    path = tmp_path / "gaps.csv"
    path.write_text("Region,Turnover\n\nA,1\n\n\nB,2\nC,n/a\n", encoding="utf-8")
    spec = MicrodataSpec(spanning=("Region",), response="Turnover")
    with pytest.raises(FileFormatError, match="line 7"):
        read_csv_microdata(path, spec)
    path.write_text("Region,Turnover\n\nA,1\n\n,2\n", encoding="utf-8")
    with pytest.raises(FileFormatError, match="line 5"):
        read_csv_microdata(path, spec)


def test_a_spec_without_a_response_counts_the_records(csv_file):
    # no response: every record counts 1, so the values are the frequencies (Turnover is not read)
    micro = read_csv_microdata(csv_file, MicrodataSpec(spanning=("Size",)))
    np.testing.assert_array_equal(micro.response, np.ones(4))
    stats = tabulate(micro, 2)
    np.testing.assert_array_equal(stats.values, stats.freq)
    np.testing.assert_array_equal(stats.freq, [2, 2, 4])
