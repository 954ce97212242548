"""`ctadesk releases`: count tables and microdata in, the release, its risk and its sub-tables out."""

import csv
import json
from pathlib import Path

import pytest

from ctadesk.cli import main

#: a 2 x 2 table with a cell-number column; (x, u) = 1 and (y, v) = 2 are at risk
COUNTS = "cell,A,B,count\n1,x,u,1\n2,x,v,3\n3,y,u,4\n4,y,v,2\n"
MICRODATA = "A,B,weight\n" + "".join(f"{a},{b},1\n" for a, b, n in
                                     (("x", "u", 1), ("x", "v", 3), ("y", "u", 4), ("y", "v", 2)) for _ in range(n))
CZECH = Path("/work/shared/data/czech_autoworkers.csv")


@pytest.fixture
def counts_file(tmp_path):
    path = tmp_path / "counts.csv"
    path.write_text(COUNTS)
    return path


def test_releases_prints_frontier_du_dr_and_bounds(counts_file, capsys):
    assert main(["releases", str(counts_file), "--alpha", "3"]) == 0
    out, err = capsys.readouterr()
    assert "released frontier: [A] [B]" in out and "DU = 3" in out and "DR = 4" in out
    assert "A=x, B=u: count 1, bounds [0, 4]" in out and "cell" in err       # the cell numbers were left out


def test_releases_writes_json_and_the_released_sub_tables(counts_file, tmp_path):
    out = tmp_path / "release.json"
    assert main(["releases", str(counts_file), "--alpha", "3", "--search", "optimal", "-o", str(out),
                 "--export", str(tmp_path / "tables")]) == 0
    report = json.loads(out.read_text())
    assert report["frontier"] == ["[A]", "[B]"] and report["dr"] == 4 and report["search"]["exact"]
    assert sorted(p.name for p in (tmp_path / "tables").iterdir()) == ["A.csv", "B.csv", "total.csv"]
    assert list(csv.reader((tmp_path / "tables" / "A.csv").open())) == [["A", "count"], ["x", "4"], ["y", "6"]]


def test_releases_exports_the_released_sub_tables_as_one_workbook(counts_file, tmp_path):
    import openpyxl

    assert main(["releases", str(counts_file), "--alpha", "3", "--search", "optimal",
                 "--export", str(tmp_path / "release.xlsx")]) == 0
    book = openpyxl.load_workbook(tmp_path / "release.xlsx")
    assert book.sheetnames == ["total", "A", "B"]
    assert [list(row) for row in book["A"].iter_rows(values_only=True)] == [["A", "count"], ["x", 4], ["y", 6]]
    assert [list(row) for row in book["total"].iter_rows(values_only=True)] == [["count"], [10]]


def test_releases_counts_the_records_of_microdata(tmp_path, capsys):
    path = tmp_path / "records.csv"
    path.write_text(MICRODATA)
    assert main(["releases", "--microdata", str(path), "--span", "A", "B", "--response", "weight",
                 "--alpha", "5", "--search", "ordered"]) == 0
    assert "released frontier: []" in capsys.readouterr().out


def test_releases_counts_microdata_without_a_response_variable(tmp_path, capsys):
    # records with no numeric column at all: the 2 x 2 table of counts 1, 3, 4, 2 (two at risk)
    path = tmp_path / "records.csv"
    path.write_text("A,B,note\n" + "".join(line.replace(",1\n", ",n/a\n") for line in MICRODATA.splitlines(True)[1:]))
    assert main(["releases", "--microdata", str(path), "--span", "A", "B", "--alpha", "1", "-o",
                 str(tmp_path / "release.json")]) == 0
    report = json.loads((tmp_path / "release.json").read_text())
    assert sorted(cell["count"] for cell in report["at_risk"]) == [1, 2]


def test_releases_needs_one_input(counts_file, capsys):
    assert main(["releases", "--alpha", "3"]) == 2
    assert main(["releases", str(counts_file), "--alpha", "3", "--count", "n"]) == 2
    assert "no count column 'n'" in capsys.readouterr().err


@pytest.mark.skipif(not CZECH.exists(), reason="the Czech auto workers table is not here")
def test_czech_auto_workers_reproduce_karr_dobra_and_sanil_with_the_attributes_in_reverse_order(tmp_path):
    # Karr, Dobra & Sanil (undated slides): optimal release = all but [ABCDEF] [ACDEF] [ABCDE] [ABDEF];
    # largest decomposable: 48
    names = ["F_family_anamnesis_CHD", "E_beta_alpha_lipoprotein_ratio", "D_systolic_blood_pressure",
             "C_strenuous_physical_work", "B_strenuous_mental_work", "A_smoking"]
    out = tmp_path / "czech.json"
    assert main(["releases", str(CZECH), "--variables", *names, "--alpha", "7", "--search", "optimal",
                 "-o", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["subtables"] == 60 and report["equally_good"] == []
    assert set(report["frontier"]) == {"[ABCDF]", "[ABCEF]", "[BCDEF]", "[ABDE]", "[ACDE]", "[ADEF]"}
    assert main(["releases", str(CZECH), "--alpha", "7", "-o", str(out)]) == 0
    assert json.loads(out.read_text())["subtables"] == 48
