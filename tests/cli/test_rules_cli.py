"""`ctadesk rules` and `ctadesk protect` from microdata."""

import csv
import json

import pytest

from ctadesk.cli import main

FIRMS = """Region,Size,Turnover
 1,1,100
 1,1,5
 1,2,30
 1,2,31
 1,2,29
 2,1,50
 2,1,48
 2,1,47
 2,2,80
 4,1,60
 4,1,61
 4,1,59
 4,2,200
 4,2,3
"""

RULES = ["--span", "Region", "Size", "--response", "Turnover", "--min-freq", "2", "--freq-range", "10",
         "--dominance", "1,80", "--p-percent", "10"]


@pytest.fixture
def files(tmp_path):
    data = tmp_path / "firms.csv"
    data.write_text(FIRMS)
    hrc = tmp_path / "region.hrc"
    hrc.write_text("N\n@ 1\n@ 2\nS\n@ 4\n")
    return data, hrc, tmp_path


def cells_by_code(rows):
    return {(row["Region"], row["Size"]): row for row in rows}


def test_rules_writes_status_rules_and_protection_levels_as_csv(files):
    data, hrc, folder = files
    out = folder / "rules.csv"
    assert main(["rules", str(data), *RULES, "--hierarchy", f"Region={hrc}", "-o", str(out)]) == 0
    rows = cells_by_code(list(csv.DictReader(out.open())))
    assert len(rows) == 3 * 6  # Region: Total, N, 1, 2, S, 4; Size: 1, 2, Total
    # cell ( 1, 1): 100 + 5; (1,80): 100/80*100 - 105 = 20 beats p%: 10 - 0 = 10
    assert rows[(" 1", "1")]["rules"] == "dominance;p%" and float(rows[(" 1", "1")]["upper_protection"]) == 20
    # cell ( 2, 2): one contributor of 80: frequency 8, dominance 20, p% 8
    assert rows[(" 2", "2")]["rules"] == "frequency;dominance;p%"
    assert float(rows[(" 2", "2")]["lower_protection"]) == 20
    assert rows[("N", "Total")]["status"] == "safe" and float(rows[("N", "Total")]["value"]) == 420


def test_rules_writes_json(files):
    data, _, folder = files
    out = folder / "rules.json"
    assert main(["rules", str(data), *RULES, "-o", str(out)]) == 0
    cells = json.loads(out.read_text())["cells"]
    unsafe = {(c["Region"], c["Size"]) for c in cells if c["status"] == "unsafe"}
    assert unsafe == {(" 1", "1"), (" 2", "2"), (" 4", "2")}


def test_manual_cell_and_asymmetric_levels(files):
    data, _, folder = files
    out = folder / "rules.csv"
    assert main(["rules", str(data), "--span", "Region", "Size", "--response", "Turnover",
                 "--manual", "Region= 2,Size=1", "--manual-range", "10", "--lower-ratio", "0.5",
                 "-o", str(out)]) == 0
    row = cells_by_code(list(csv.DictReader(out.open())))[(" 2", "1")]
    assert row["rules"] == "manual"
    assert float(row["upper_protection"]) == pytest.approx(14.5)
    assert float(row["lower_protection"]) == pytest.approx(7.25)


def test_unknown_code_fails_with_one_line_naming_file_and_lines(files, capsys):
    data, _, folder = files
    hrc = folder / "small.hrc"
    hrc.write_text("N\n@ 1\n@ 2\n")
    assert main(["rules", str(data), *RULES, "--hierarchy", f"Region={hrc}"]) == 2
    assert "firms.csv: Region: code ' 4' is not in the hierarchy (lines 11, 12, 13, 14, 15)" in capsys.readouterr().err


def test_protect_returns_an_additive_table_with_safe_values(files):
    data, hrc, folder = files
    out = folder / "protected.json"
    assert main(["protect", str(data), *RULES, "--hierarchy", f"Region={hrc}", "-o", str(out)]) == 0
    cells = cells_by_code(json.loads(out.read_text())["cells"])
    for cell in cells.values():
        if cell["status"] == "unsafe":
            change = cell["adjusted"] - cell["original"]
            assert change >= cell["upper_protection"] - 1e-6 or change <= -cell["lower_protection"] + 1e-6
        assert cell["adjusted"] >= -1e-9
    for size in ("1", "2", "Total"):
        parts = cells[(" 1", size)]["adjusted"] + cells[(" 2", size)]["adjusted"]
        assert cells[("N", size)]["adjusted"] == pytest.approx(parts)
