"""`ctadesk protect MICRODATA --span A B --span A C`: the tables of one microdata set protected
together, each shared cell published once, in one release workbook with a sheet per table."""

import csv
import json
from pathlib import Path

import numpy as np
import openpyxl
import pytest

from ctadesk.app.session import Session
from ctadesk.cli import main
from tests.io.test_release import leaks

SAMPLE = Path(__file__).parents[2] / "sample_data" / "business_microdata.csv"
TABLES = ["--span", "region", "size_class", "--span", "region", "industry", "--response", "turnover"]
RULES = ["--min-freq", "3", "--freq-range", "10", "--p-percent", "10", "--seed", "5", "--hierarchy",
         f"region={SAMPLE.parent / 'business_region.hrc'}", "--hierarchy",
         f"industry={SAMPLE.parent / 'business_industry.hrc'}"]


def region_totals(rows: list[dict], table: str, other: str) -> dict[str, float]:
    """region -> adjusted value at the total of ``other`` in ``table``."""
    return {row["region"]: float(row["adjusted"]) for row in rows
            if row["table"] == table and row[other] == "Total"}


def test_two_spans_publish_one_value_per_shared_cell(tmp_path):
    out, release, document = tmp_path / "cells.csv", tmp_path / "release.xlsx", tmp_path / "run.json"
    assert main(["protect", str(SAMPLE), *TABLES, *RULES, "-o", str(out), "--release", str(release),
                 "--json", str(document)]) == 0
    rows = list(csv.DictReader(out.open()))
    assert {row["table"] for row in rows} == {"region x size_class", "region x industry"}
    by_size = region_totals(rows, "region x size_class", "size_class")
    by_industry = region_totals(rows, "region x industry", "industry")
    assert by_size.keys() == by_industry.keys() and len(by_size) > 1
    assert by_size == by_industry
    changed = [row for row in rows if float(row["change"]) != 0]
    assert changed, "nothing was adjusted: the example protects nothing"
    assert openpyxl.load_workbook(release).sheetnames[:2] == ["region x size_class", "region x industry"]
    unsafe = [float(row["original"]) for row in rows if row["status"] != "safe" and float(row["change"]) != 0]
    assert unsafe and leaks(release, unsafe) == []   # no part of the workbook holds a moved unsafe original
    tables = json.loads(document.read_text())["tables"]
    assert [table["span"] for table in tables] == [["region", "size_class"], ["region", "industry"]]


def test_a_json_output_holds_the_cells_then_the_run(tmp_path):
    out, document = tmp_path / "cells.json", tmp_path / "run.json"
    assert main(["protect", str(SAMPLE), *TABLES, *RULES, "-o", str(out), "--json", str(document)]) == 0
    cells, run = json.loads(out.read_text()), json.loads(document.read_text())
    assert list(cells) == ["cells", *run] and {key: cells[key] for key in run} == run
    assert {cell["table"] for cell in cells["cells"]} == {"region x size_class", "region x industry"}


def test_one_span_keeps_the_single_table_outputs(tmp_path):
    out = tmp_path / "cells.csv"
    assert main(["protect", str(SAMPLE), "--span", "region", "size_class", "--response", "turnover", *RULES,
                 "-o", str(out)]) == 0
    assert "table" not in next(csv.DictReader(out.open()))


def test_linked_project_opens_with_its_result(tmp_path):
    project = tmp_path / "linked.ctaproj"
    assert main(["protect", str(SAMPLE), *TABLES, *RULES, "--save-project", str(project)]) == 0
    session = Session.open(project)
    assert session.project.result.protected
    assert session.project.structure.dimensions[0].name == "Cell"
    np.testing.assert_array_equal(session.project.sensitive, session.project.flagged_by != "")


@pytest.mark.parametrize("extra, message", [
    (["--tab", "out.tab"], "--tab"),
    (["--span", "region", "size_class"], "both spanned by"),
    (["--manual", "size_class=1,industry=C28"], "no table spans"),
])
def test_refused(extra, message, capsys):
    assert main(["protect", str(SAMPLE), *TABLES, *RULES, *extra]) == 2
    assert message in capsys.readouterr().err


def test_several_tables_of_a_table_file_are_refused(capsys):
    table = SAMPLE.parent / "region_industry.tab"
    assert main(["protect", str(table), "--span", "A", "B", "--span", "A", "C", "--response", "X"]) == 2
    assert "several tables are tabulated from microdata" in capsys.readouterr().err
