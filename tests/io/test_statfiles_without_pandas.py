"""SPSS, Stata and SAS files are read without pandas (pyreadstat's dict output), which neither the
`files` extra nor the installer's bundle (installer/ctadesk.spec) has: pyreadstat's default output
is a pandas DataFrame, for its metadata-only reads too."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from ctadesk.io.statfiles import read_statfile_columns, statfile_columns

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data" / "business_microdata.sav"


@pytest.fixture
def without_pandas(monkeypatch):
    """`import pandas` fails, as where it is not installed."""
    for name in [name for name in sys.modules if name == "pandas" or name.startswith("pandas.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "pandas", None)


def test_the_variables_of_an_spss_file_are_listed_without_pandas(without_pandas):
    assert statfile_columns(SAMPLE, "spss")[:3] == ["id", "region", "industry"]


def test_an_spss_file_is_read_without_pandas(without_pandas):
    read = read_statfile_columns(SAMPLE, "spss", usecols=["region", "turnover"])
    assert set(read.columns) == {"region", "turnover"}
    assert len(read.columns["turnover"]) == 20_000
