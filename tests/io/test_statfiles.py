"""SPSS and Stata microdata written by the tests with pyreadstat, read into Microdata."""

from __future__ import annotations

import numpy as np
import pytest

from ctadesk.engine.table.microdata import tabulate
from ctadesk.io.errors import FileFormatError
from ctadesk.io.microdata import MicrodataSpec
from ctadesk.io.statfiles import read_statfile_columns, read_statfile_microdata

pd = pytest.importorskip("pandas")
pyreadstat = pytest.importorskip("pyreadstat")

REGION = [1, 1, 2, 2, 2, 3]
SIZE = [1, 2, 1, 1, 2, 2]
TURNOVER = [10.0, 20.5, 5.0, 7.0, 100.0, 3.25]
LABELS = {"region": {1: "North", 2: "East", 3: "West"}, "size": {1: "small", 2: "large"}}
SPEC = MicrodataSpec(spanning=("region", "size"), response="turnover")


def frame():
    return pd.DataFrame({"region": np.array(REGION, float), "size": np.array(SIZE, float),
                         "turnover": TURNOVER})


@pytest.fixture(params=[("sav", "spss"), ("dta", "stata")])
def statfile(request, tmp_path):
    suffix, package = request.param
    path = tmp_path / f"survey.{suffix}"
    writer = pyreadstat.write_sav if package == "spss" else pyreadstat.write_dta
    writer(frame(), str(path), column_labels=["Region", "Size class", "Turnover"],
           variable_value_labels=LABELS)
    return path, package


def test_columns_and_value_labels_are_read(statfile):
    columns = read_statfile_columns(*statfile)
    assert list(columns.columns) == ["region", "size", "turnover"]
    assert columns.value_labels["region"] == {"1": "North", "2": "East", "3": "West"}
    assert columns.variable_labels["size"] == "Size class"


def test_microdata_table_equals_a_brute_force_group_by(statfile):
    microdata, labels = read_statfile_microdata(statfile[0], SPEC, statfile[1])
    assert labels["size"] == {"1": "small", "2": "large"}
    statistics = tabulate(microdata)
    structure = microdata.structure
    region, size = structure.dimensions
    for r_code in ("1", "2", "3"):
        for s_code in ("1", "2"):
            expected = sum(t for r, s, t in zip(REGION, SIZE, TURNOVER) if str(r) == r_code and str(s) == s_code)
            i = np.ravel_multi_index((region.index(r_code), size.index(s_code)), structure.shape)
            assert statistics.values[i] == expected
    assert statistics.values.max() == sum(TURNOVER)


def test_value_labels_can_be_the_codes(statfile):
    microdata, labels = read_statfile_microdata(statfile[0], SPEC, statfile[1], codes_from_labels=True)
    assert set(microdata.structure.dimensions[0].codes) == {"North", "East", "West", "Total"}
    assert labels["region"]["East"] == "East"


def test_unknown_package_and_damaged_files_are_reported(tmp_path):
    with pytest.raises(ValueError, match="unknown statistical package 'sps'"):
        read_statfile_columns(tmp_path / "a.sav", "sps")
    (tmp_path / "broken.sav").write_bytes(b"not an spss file at all")
    with pytest.raises(FileFormatError, match=r"broken\.sav"):
        read_statfile_columns(tmp_path / "broken.sav", "spss")


def test_sas_transport_files_are_read_like_the_others(tmp_path):
    path = tmp_path / "survey.xpt"
    pyreadstat.write_xport(frame(), str(path), table_name="survey")
    assert list(read_statfile_columns(path, "xport").columns) == ["region", "size", "turnover"]
    microdata, _ = read_statfile_microdata(path, SPEC, "xport")
    assert tabulate(microdata).values.max() == sum(TURNOVER)
