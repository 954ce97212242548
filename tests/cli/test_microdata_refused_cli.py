"""Microdata given where a table is expected are refused naming the file and the command that
tabulates them, never read as a one-column table without relations and "protected" (issue 32)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ctadesk.cli import main

SAMPLES = Path("sample_data")


@pytest.fixture(params=["business_microdata.csv", "business_microdata.xlsx"])
def microdata(request, tmp_path) -> Path:
    return Path(shutil.copy(SAMPLES / request.param, tmp_path))


@pytest.mark.parametrize("command", [["solve"], ["convert"], ["convert", "--wide"], ["audit"]])
def test_microdata_are_refused_where_a_table_is_read(microdata, command, tmp_path, capsys):
    """--wide (a CSV layout, ignored for a workbook) reads the records as a wide table: refused too."""
    arguments = [*command, str(microdata)]
    if command[0] == "convert":
        arguments.append(str(tmp_path / "out.csv"))
    if command[0] == "audit":
        arguments.append(str(SAMPLES / "thesis_3x4.jj"))
    assert main(arguments) == 2
    error = capsys.readouterr().err
    assert f"{microdata.name}" in error and "looks like microdata" in error
    assert f"ctadesk protect {microdata.name} --span" in error and "--response" in error
    assert "'region' repeats its codes" in error
    assert not (tmp_path / "out.csv").exists()


def test_the_command_the_refusal_names_tabulates_the_file(microdata, capsys):
    assert main(["protect", str(microdata), "--span", "region", "industry", "--response", "turnover"]) == 0
    assert "96 cells, 0 unsafe" in capsys.readouterr().err
