"""`ctadesk rules` on inputs other than CSV microdata: tau-argus .tab and SPSS/Stata files."""

import csv
from pathlib import Path

import pytest

from ctadesk.cli import main

EXAMPLES = Path(__file__).resolve().parents[3] / "shared" / "formats" / "tauargus-examples"
if not EXAMPLES.exists():
    EXAMPLES = Path("/work/shared/formats/tauargus-examples")


def read_rows(path):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def test_tab_input_flags_cells_below_the_minimum_frequency(tmp_path):
    out = tmp_path / "pp.csv"
    assert main(["rules", str(EXAMPLES / "pp.tab"), "--min-freq", "3", "--freq-range", "10", "-o", str(out)]) == 0
    rows = read_rows(out)
    assert len(rows) == 162
    for row in rows:
        few = 0 < int(row["freq"]) < 3
        assert (row["status"] == "unsafe") == few, row
        if few:
            assert "frequency" in row["rules"]
            assert float(row["upper_protection"]) == pytest.approx(0.10 * abs(float(row["value"])), rel=1e-9)


def test_tab_input_without_enough_top_contributions_is_refused(tmp_path, capsys):
    assert main(["rules", str(EXAMPLES / "pp.tab"), "--dominance", "3,70"]) == 2
    assert "need the 3 largest contributions" in capsys.readouterr().err


def test_microdata_needs_span_and_response(tmp_path, capsys):
    data = tmp_path / "m.csv"
    data.write_text("R,V\na,1\n")
    assert main(["rules", str(data), "--min-freq", "3"]) == 2
    assert "--span" in capsys.readouterr().err


@pytest.mark.parametrize("suffix", [".sav", ".dta"])
def test_statistical_file_gives_the_same_statuses_as_csv(tmp_path, suffix):
    pyreadstat = pytest.importorskip("pyreadstat")
    import pandas as pd

    frame = pd.DataFrame({"region": [1, 1, 1, 2, 2, 2, 2], "size": [1, 1, 2, 1, 1, 2, 2],
                          "turnover": [100.0, 5.0, 30.0, 50.0, 48.0, 80.0, 1.0]})
    csv_path = tmp_path / "m.csv"
    frame.to_csv(csv_path, index=False)
    stat_path = tmp_path / f"m{suffix}"
    (pyreadstat.write_sav if suffix == ".sav" else pyreadstat.write_dta)(frame, str(stat_path))
    rules = ["--span", "region", "size", "--response", "turnover", "--min-freq", "2", "--p-percent", "10"]
    assert main(["rules", str(csv_path), *rules, "-o", str(tmp_path / "a.csv")]) == 0
    assert main(["rules", str(stat_path), *rules, "-o", str(tmp_path / "b.csv")]) == 0
    from_csv, from_stat = read_rows(tmp_path / "a.csv"), read_rows(tmp_path / "b.csv")
    assert [r["status"] for r in from_csv] == [r["status"] for r in from_stat]
    assert any(r["status"] == "unsafe" for r in from_csv)
