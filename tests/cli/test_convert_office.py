"""`ctadesk convert` of office files: the right table, or a refusal naming the cell, never a
wrong table with exit status 0."""

from __future__ import annotations

import numpy as np
import pytest

from ctadesk.cli import main
from ctadesk.io.csv_table import read_long_csv
from ctadesk.io.jj import read_jj
from tests.io import office_books as office

WIDE = ["Region;Small;Medium;Large;Total", "North;10;20;30;60", "South;5;15;25;45", "East;1;2;3;6",
        "Total;16;37;58;111"]


def additive_jj(path) -> object:
    problem = read_jj(path).problem
    np.testing.assert_allclose(problem.relations @ problem.values, problem.rhs)
    return problem


def test_a_wide_csv_without_wide_is_refused_naming_the_problem(tmp_path, capsys):
    source = office.csv_file(tmp_path / "w.csv", WIDE)
    assert main(["convert", str(source), str(tmp_path / "out.csv")]) == 2
    assert "looks like a wide table" in capsys.readouterr().err
    assert not (tmp_path / "out.csv").exists()
    assert main(["convert", str(source), str(tmp_path / "out.jj"), "--wide"]) == 0
    assert additive_jj(tmp_path / "out.jj").n_cells == 16


def test_code_and_name_columns_convert_to_an_additive_jj_with_the_code_hierarchy(tmp_path):
    source = office.book(tmp_path / "c.xlsx", office.code_name_rows(totals_last=True))
    assert main(["convert", str(source), str(tmp_path / "c.jj")]) == 0
    problem = additive_jj(tmp_path / "c.jj")
    assert problem.relations.shape[0] == 3 * 2  # TOTAL, 01 and 02 in each of the two columns


def test_formula_totals_without_results_convert_to_an_additive_jj(tmp_path):
    rows = [["Region", "Small", "Large", "Total"], ["North", 10, 20, "=B4+C4"], ["South", 30, 40, "=B5+C5"],
            ["Total", "=SUM(B4:B5)", "=SUM(C4:C5)", "=SUM(D4:D5)"]]
    assert main(["convert", str(office.book(tmp_path / "f.xlsx", rows)), str(tmp_path / "f.jj")]) == 0
    problem = additive_jj(tmp_path / "f.jj")
    assert problem.values.tolist() == [10, 20, 30, 30, 40, 70, 40, 60, 100]


def test_a_confidential_cell_is_refused_naming_it(tmp_path, capsys):
    rows = [["GEO", "2021", "2022"], ["Region A", 120, "c"], ["Region B", 80, 60], ["Total", 200, 190]]
    assert main(["convert", str(office.book(tmp_path / "e.xlsx", rows)), str(tmp_path / "e.csv")]) == 2
    assert "cell C4: 'c' is not a number: it marks a value that is not available" in capsys.readouterr().err


def test_an_undecided_decimal_mark_is_refused_until_chosen(tmp_path, capsys):
    rows = [["Region", "Turnover", "Staff"], ["North", "1.234", 10], ["South", "2.500", 20], ["Total", "3.734", 30]]
    source = office.book(tmp_path / "t.xlsx", rows)
    assert main(["convert", str(source), str(tmp_path / "t.csv")]) == 2
    assert "cannot tell whether '1.234' in B4 is 1234 or 1.234" in capsys.readouterr().err
    assert main(["convert", str(source), str(tmp_path / "t.csv"), "--decimal-comma"]) == 0
    assert read_long_csv(tmp_path / "t.csv").values.tolist() == [1234, 10, 2500, 20, 3734, 30]


@pytest.mark.parametrize("include_hidden", [False, True])
def test_hidden_rows_are_left_out_and_said_unless_chosen(tmp_path, capsys, include_hidden):
    rows = [["Region", "Small", "Large"], ["North", 10, 20], ["of which exports", 4, 5], ["South", 30, 40],
            ["Total", 40, 60]]
    source = office.book(tmp_path / "h.xlsx", rows, hidden_rows=[5])
    extra = ["--include-hidden"] if include_hidden else []
    assert main(["convert", str(source), str(tmp_path / "h.csv"), *extra]) == 0
    err = capsys.readouterr().err
    table = read_long_csv(tmp_path / "h.csv")
    if include_hidden:
        assert table.structure.shape == (4, 2) and "relation(s) do not add up" in err
    else:
        assert table.structure.shape == (3, 2) and "hidden rows 5 were left out" in err
        assert "do not add up" not in err
