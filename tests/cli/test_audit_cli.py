"""`ctadesk audit ORIGINAL RELEASED`: summary, per-cell file and exit status."""

from __future__ import annotations

import csv

import pytest

from ctadesk.cli import main
from ctadesk.io.jj import write_jj, write_sol
from tests.engine.audit.tables import MANUAL, THESIS_L1, manual_problem, thesis_problem


@pytest.fixture
def thesis_files(tmp_path):
    problem = thesis_problem()
    write_jj(tmp_path / "thesis.jj", problem)
    write_sol(tmp_path / "release.sol", problem, THESIS_L1.reshape(-1))
    return tmp_path / "thesis.jj", tmp_path / "release.sol"


def suppressed_release(tmp_path, *cells: tuple[int, int]):
    """The 3 x 3 table as a long CSV with the given (row, column) cells left blank."""
    rows, columns = ["1", "2", "3", "Total"], ["1", "2", "3", "Total"]
    body = [f"{rows[r]};{columns[c]};{'' if (r, c) in cells else f'{MANUAL[r, c]:g}'}"
            for r in range(4) for c in range(4)]
    path = tmp_path / "release.csv"
    path.write_text("\n".join(["R;C;Value", *body]) + "\n")
    write_jj(tmp_path / "table.jj", manual_problem())
    return tmp_path / "table.jj", path


def test_a_single_suppression_in_a_row_exits_1_and_names_the_cell(tmp_path, capsys):
    original, release = suppressed_release(tmp_path, (0, 0))
    assert main(["audit", str(original), str(release), "-o", str(tmp_path / "cells.csv")]) == 1
    out = capsys.readouterr().out
    assert "(suppressed release): 1 sensitive cell(s) audited, 1 at risk (1 exact disclosure" in out
    assert "cell 0 (R=1, C=1): [20, 20], exact disclosure" in out
    with open(tmp_path / "cells.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert rows[0]["label"] == "R=1, C=1" and rows[0]["published"] == "" and rows[0]["at_risk"] == "1"
    assert float(rows[0]["lower"]) == float(rows[0]["upper"]) == 20


def test_a_rectangle_of_suppressions_is_safe_and_exits_0(tmp_path, capsys):
    original, release = suppressed_release(tmp_path, (0, 0), (0, 1), (1, 0), (1, 1))
    assert main(["audit", str(original), str(release)]) == 0
    assert "1 sensitive cell(s) audited, 0 at risk" in capsys.readouterr().out


def test_a_cta_release_with_a_known_capacity_and_percentage(thesis_files, capsys):
    original, release = thesis_files
    assert main(["audit", str(original), str(release), "--capacity", "abs", "5"]) == 0
    assert "(adjusted release): 2 sensitive cell(s) audited, 0 at risk" in capsys.readouterr().out
    assert main(["audit", str(original), str(release), "--capacity", "abs", "5", "--percentage-known"]) == 1
    assert "cell 13 (R=3, C=4): [8, 13.3611], upper end too close; original singled out" in capsys.readouterr().out


@pytest.mark.parametrize("arguments, message", [
    (["--capacity", "rel", "1.5"], "a relative capacity must be below 1"),
    (["--capacity", "pct", "5"], "--capacity: 'pct' must be abs or rel"),
    (["--capacity", "abs", "4"], "cell 10 (R=3, C=1) moved from 10 to 5, more than the capacity"),
])
def test_bad_assumptions_exit_2_with_a_message(thesis_files, capsys, arguments, message):
    original, release = thesis_files
    assert main(["audit", str(original), str(release), *arguments]) == 2
    assert message in capsys.readouterr().err


def test_a_missing_release_exits_2_naming_the_file(thesis_files, capsys):
    original, release = thesis_files
    assert main(["audit", str(original), str(release.with_name("nowhere.sol"))]) == 2
    assert "nowhere.sol" in capsys.readouterr().err


def test_help_lists_the_command(capsys):
    with pytest.raises(SystemExit):
        main(["audit", "--help"])
    assert "--percentage-known" in capsys.readouterr().out


def test_an_xlsx_release_ctadesk_wrote_is_audited_as_its_values(tmp_path):
    # protect the thesis table, write the release workbook, audit it from the file; the intervals
    # are those of auditing the protected values themselves
    import numpy as np

    from ctadesk.app.formats import read_table
    from ctadesk.app.session import Session
    from ctadesk.engine.audit import AttackerKnowledge, Capacity, Release, audit

    write_jj(tmp_path / "thesis.jj", thesis_problem())
    session = Session(read_table(tmp_path / "thesis.jj"))
    protected = session.protect(session.request()).result
    session.export("release", tmp_path / "release.xlsx")
    assert main(["audit", str(tmp_path / "thesis.jj"), str(tmp_path / "release.xlsx"), "--capacity", "rel", "0.9",
                 "--percentage-known", "-o", str(tmp_path / "cells.csv")]) in (0, 1)
    with open(tmp_path / "cells.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    direct = audit(thesis_problem(), Release.adjusted(np.asarray(protected.values, float)),
                   AttackerKnowledge(capacity=Capacity("rel", 0.9), percentage_known=True))
    assert [float(row["lower"]) for row in rows] == pytest.approx(direct.lower.tolist(), abs=1e-9)
    assert [float(row["upper"]) for row in rows] == pytest.approx(direct.upper.tolist(), abs=1e-9)
    assert [int(row["at_risk"]) for row in rows] == direct.at_risk.astype(int).tolist()


def test_blanks_in_an_xlsx_release_are_suppressed_cells(tmp_path, capsys):
    from ctadesk.engine.table.structure import TableStructure
    from tests.io.test_released import write_release

    write_jj(tmp_path / "table.jj", manual_problem())
    write_release(tmp_path / "release.xlsx", TableStructure.flat(3, 3), MANUAL.reshape(-1), blank=[0])
    assert main(["audit", str(tmp_path / "table.jj"), str(tmp_path / "release.xlsx")]) == 1
    out = capsys.readouterr().out
    assert "release.xlsx (suppressed release): 1 sensitive cell(s) audited, 1 at risk (1 exact disclosure" in out
    assert "cell 0 (R=1, C=1): [20, 20], exact disclosure" in out


def test_the_attacker_may_know_each_value_to_within_the_rules_range(tmp_path, capsys):
    """--a-priori range, as the app's audit: each original known to within PCT % of itself."""
    original, release = suppressed_release(tmp_path, (0, 0), (0, 1), (1, 0), (1, 1))
    command = ["audit", str(original), str(release), "--a-priori", "range"]
    assert main(command) == 0  # +-100 %: the rectangle still hides the cell
    assert "0 at risk; smallest relative interval width 0.8;" in capsys.readouterr().out
    assert main([*command, "--a-priori-range", "5"]) == 1
    assert "cell 0 (R=1, C=1): [19.6, 20.4], lower end too close; upper end too close" in capsys.readouterr().out
    assert main([*command, "--a-priori-range", "0"]) == 1
    assert "cell 0 (R=1, C=1): [20, 20], exact disclosure" in capsys.readouterr().out


@pytest.mark.parametrize("arguments, message", [
    (["--a-priori-range", "5"], "--a-priori-range is the range of --a-priori range; give both"),
    (["--a-priori", "range", "--a-priori-range", "-1"], "--a-priori-range: -1 is not a percentage >= 0"),
    (["--a-priori", "range", "--a-priori-range", "nan"], "--a-priori-range: nan is not a percentage >= 0"),
])
def test_a_range_without_its_kind_or_below_zero_is_refused(tmp_path, capsys, arguments, message):
    original, release = suppressed_release(tmp_path, (0, 0), (0, 1), (1, 0), (1, 1))
    assert main(["audit", str(original), str(release), *arguments]) == 2
    assert message in capsys.readouterr().err
