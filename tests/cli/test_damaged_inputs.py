"""Damaged input files end the command with a message naming file and line (exit 2),
never with a traceback, a misread cell or an 'inf' written out (issue 10)."""

from __future__ import annotations

import pytest

from ctadesk.cli import main

JJ = """0
3
0 5 1 s 0 100 0 0 0
1 2 1 u 0 100 1 1 0
2 3 1 s 0 100 0 0 0
1
0 3 : 0 (-1) 1 (1) 2 (1)
"""


@pytest.mark.parametrize("old, new, message", [
    ("1 2 1 u", "1.5 2 1 u", "t.jj, line 4: cell index '1.5' must be a whole number"),  # solved as cell 1
    ("0 5 1 s", "1e-400 5 1 s", "t.jj, line 3: cell index '1e-400' must be a whole number"),  # as cell 0
    ("0 3 :", "0 1e400 :", "t.jj, line 7: number of terms '1e400' must be a whole number"),  # OverflowError
    ("\n1\n0 3", "\n1000000000000\n0 3", "t.jj, line 6: the file ends after 1 of its 1000000000000"),
])
def test_solve_refuses_a_damaged_jj(tmp_path, capsys, old, new, message):
    (tmp_path / "t.jj").write_text(JJ.replace(old, new))
    assert main(["solve", str(tmp_path / "t.jj"), "--method", "lp"]) == 2
    assert message in capsys.readouterr().err


def test_convert_refuses_a_value_out_of_range_instead_of_writing_inf(tmp_path, capsys):
    (tmp_path / "t.csv").write_text("region;value\nTotal;1e400\nA;1\n")
    assert main(["convert", str(tmp_path / "t.csv"), str(tmp_path / "out.csv")]) == 2
    assert "t.csv, line 2: value '1e400' is out of range" in capsys.readouterr().err
    assert not (tmp_path / "out.csv").exists()


def test_convert_reads_a_long_csv_with_blank_lines(tmp_path):
    (tmp_path / "t.csv").write_text("\nregion;value\n\nTotal;3\nA;1\nB;2\n\n")
    assert main(["convert", str(tmp_path / "t.csv"), str(tmp_path / "out.jj")]) == 0
    assert (tmp_path / "out.jj").read_text().splitlines()[1] == "3"
