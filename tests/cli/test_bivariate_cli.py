"""Two variables from the command line: `ctadesk solve --second-values` and `ctadesk protect
--response A,B` (Cox 2005a, §4).  Checked against numpy on the tables the JSON holds."""

import json

import numpy as np
import pytest

from ctadesk.cli import main
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.table.structure import TableStructure
from ctadesk.io.jj import read_jj, write_jj


def pair_files(folder, rows=5, cols=5, seed=3):
    """Two JJ files of one rows x cols table with margins: a, and b = a x noise, each with its own
    sensitive cells (protection 15 %, capacity 25 %)."""
    rng = np.random.default_rng(seed)
    structure = TableStructure.flat(rows, cols)
    inner = np.flatnonzero(structure.inner_mask())
    raw_a = np.zeros(structure.n_cells)
    raw_a[inner] = rng.integers(10, 1000, inner.size)
    raw_b = np.zeros(structure.n_cells)
    raw_b[inner] = np.round(raw_a[inner] * rng.lognormal(0, 0.4, inner.size))
    paths = []
    for name, raw in (("turnover", raw_a), ("employment", raw_b)):
        values = structure.aggregate(raw)
        sensitive = np.sort(rng.choice(inner, size=inner.size // 4, replace=False))
        levels = 0.15 * values[sensitive]
        room = 0.25 * values
        path = folder / f"{name}.jj"
        write_jj(path, CTAProblem(values=values, relations=structure.relations(), lower=values - room,
                                  upper=values + room, sensitive=sensitive, lower_protection=levels,
                                  upper_protection=levels))
        paths.append(path)
    return paths


def protected(problem: CTAProblem, values: np.ndarray) -> bool:
    change = values[problem.sensitive] - problem.values[problem.sensitive]
    return bool(np.all((change >= problem.upper_protection - 1e-6) | (change <= -problem.lower_protection + 1e-6)))


def test_solve_with_second_values_keeps_the_covariance_and_reports_numpy_numbers(tmp_path):
    first_path, second_path = pair_files(tmp_path)
    out = tmp_path / "out.json"
    code = main(["solve", str(first_path), "--second-values", str(second_path), "--method", "lp", "--approach",
                 "direct", "--covariance-target", "0.3", "--variance-target", "0.5", "--json", str(out)])
    document = json.loads(out.read_text())
    assert code == 0 and document["verified"] and document["targets_met"]
    first, second = read_jj(first_path).problem, read_jj(second_path).problem
    xa = np.array(document["variables"]["turnover"]["values"])
    xb = np.array(document["variables"]["employment"]["values"])
    for problem, values in ((first, xa), (second, xb)):
        assert np.allclose(problem.relations @ values, 0, atol=1e-6) and protected(problem, values)
    inner = np.flatnonzero(TableStructure.flat(5, 5).inner_mask())
    a, b = first.values[inner], second.values[inner]
    cov, cov_x = np.cov(a, b, bias=True)[0, 1], np.cov(xa[inner], xb[inner], bias=True)[0, 1]
    corr, corr_x = np.corrcoef(a, b)[0, 1], np.corrcoef(xa[inner], xb[inner])[0, 1]
    slope, slope_x = np.polyfit(a, b, 1)[0], np.polyfit(xa[inner], xb[inner], 1)[0]
    change = 100 * (cov_x - cov) / abs(cov)
    assert abs(change) <= 0.3 * (1 + 1e-6)
    assert document["changes"]["covariance"] == pytest.approx(change, rel=1e-6, abs=1e-9)
    report = document["bivariate"]["inner cells"]
    assert report["covariance change (%)"] == pytest.approx(change, rel=1e-6, abs=1e-9)
    assert report["correlation change (%)"] == pytest.approx(100 * (corr_x - corr) / abs(corr), rel=1e-6, abs=1e-9)
    assert report["regression slope change (%)"] == pytest.approx(100 * (slope_x - slope) / slope, rel=1e-6,
                                                                  abs=1e-8)
    assert report["turnover: variance change (%)"] == pytest.approx(
        100 * (xa[inner].var() - a.var()) / a.var(), rel=1e-6, abs=1e-9)
    assert document["variables"]["employment"]["objective"] == pytest.approx(
        np.dot(second.weights, np.abs(xb - second.values)), rel=1e-9)


def test_second_values_must_be_a_table_file_of_the_same_table(tmp_path, capsys):
    first_path, second_path = pair_files(tmp_path)
    (tmp_path / "other").mkdir()
    other_path, _ = pair_files(tmp_path / "other", rows=4, cols=5)
    hierarchy_path = tmp_path / "b.hrc"
    hierarchy_path.write_text("1\n@2\n")
    assert main(["solve", str(first_path), "--second-values", str(hierarchy_path)]) == 2
    assert "does not read '.hrc' project or table files" in capsys.readouterr().err
    project_path = tmp_path / "b.ctaproj"
    project_path.write_text("")
    assert main(["solve", str(first_path), "--second-values", str(project_path)]) == 2
    assert "reads a table file of the same table" in capsys.readouterr().err
    assert main(["solve", str(first_path), "--second-values", str(other_path)]) == 2
    assert "share one table structure" in capsys.readouterr().err
    assert main(["solve", str(first_path), "--second-values", str(second_path), "--release",
                 str(tmp_path / "r.xlsx")]) == 2
    assert "--release is not available for two variables" in capsys.readouterr().err


FIRMS = """Region,Size,Turnover,Employment
 1,1,100,12
 1,1,5,2
 1,2,30,4
 1,2,31,5
 1,2,29,3
 2,1,50,6
 2,1,48,9
 2,1,47,5
 2,2,80,3
 2,2,81,11
 3,1,60,7
 3,1,61,6
 3,1,59,8
 3,2,200,40
 3,2,3,1
"""


def test_protect_tabulates_two_responses_in_one_step(tmp_path, capsys):
    data = tmp_path / "firms.csv"
    data.write_text(FIRMS)
    out = tmp_path / "protected.json"
    code = main(["protect", str(data), "--span", "Region", "Size", "--response", "Turnover,Employment",
                 "--dominance", "1,80", "--p-percent", "10", "--method", "lp", "--variance-target", "5",
                 "--covariance-target", "5", "-o", str(out)])
    document = json.loads(out.read_text())
    assert code == 0 and document["bivariate"]["verified"]
    cells = document["cells"]
    for name in ("Turnover", "Employment"):
        by_code = {(c["Region"], c["Size"]): c for c in cells}
        for cell in cells:
            if cell[f"{name}_status"] == "unsafe":
                change = cell[f"{name}_change"]
                assert change >= cell[f"{name}_upper_protection"] - 1e-6 or \
                    change <= -cell[f"{name}_lower_protection"] + 1e-6
        for size in ("1", "2"):
            parts = sum(by_code[(region, size)][f"{name}_adjusted"] for region in (" 1", " 2", " 3"))
            assert by_code[("Total", size)][f"{name}_adjusted"] == pytest.approx(parts)
    originals = {(c["Region"], c["Size"]): c["Employment_original"] for c in cells}
    assert originals[(" 3", "2")] == 41 and originals[("Total", "Total")] == 122
    assert any(c["Turnover_status"] == "unsafe" for c in cells) and any(c["Employment_status"] == "unsafe"
                                                                       for c in cells)
    assert main(["rules", str(data), "--span", "Region", "Size", "--response", "Turnover,Employment"]) == 2
    assert "'ctadesk protect' takes two" in capsys.readouterr().err
