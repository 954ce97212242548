"""`--quality SPEC` and `--quality-price` on `ctadesk solve` and `ctadesk protect`: the terms reach
the run and the JSON carries each term's value on the published table."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from ctadesk.cli import main
from ctadesk.io.jj import read_jj
from tests.cli.test_rules_cli import FIRMS, RULES

SAMPLES = Path(__file__).resolve().parents[2] / "sample_data"


@pytest.fixture
def firms(tmp_path):
    data = tmp_path / "firms.csv"
    data.write_text(FIRMS)
    hrc = tmp_path / "region.hrc"
    hrc.write_text("N\n@ 1\n@ 2\nS\n@ 4\n")
    return data, hrc, tmp_path


def test_solve_keeps_the_terms_and_reports_them_in_the_json(tmp_path):
    out = tmp_path / "out.json"
    assert main(["solve", str(SAMPLES / "cox_20x20.jj"), "--method", "lp", "--no-widen",
                 "--quality", "mean:hard", "--quality", "L:bounded:0.001", "--quality", "L:weighted:1000@R=3",
                 "--quality-price", "--json", str(out)]) == 0
    document = json.loads(out.read_text())
    report = document["quality_terms"]
    assert [term["term"] for term in report["terms"]] == [
        "mean change = 0 over inner cells", "|L(y)| <= 0.001 over inner cells", "|L(y)| weighted 1000 over R=3"]
    problem = read_jj(SAMPLES / "cox_20x20.jj").problem
    x, a = np.array(document["values"]), problem.values
    inner = [i for i in range(problem.n_cells) if (i + 1) % 21 and i < 420]
    centred = a[inner] - a[inner].mean()
    assert report["terms"][0]["value"] == pytest.approx((x[inner].sum() - a[inner].sum()) / len(inner), abs=1e-9)
    assert report["terms"][1]["value"] == pytest.approx(centred @ (x - a)[inner] / (centred @ centred), abs=1e-9)
    assert abs(report["terms"][1]["value"]) <= 1e-3 * (1 + 1e-6)
    assert all(term["price"] is not None for term in report["terms"])
    assert report["met"] is True


def test_solve_without_terms_has_no_terms_report(tmp_path):
    out = tmp_path / "out.json"
    assert main(["solve", str(SAMPLES / "thesis_3x4.jj"), "--method", "lp", "--json", str(out)]) == 0
    assert json.loads(out.read_text())["quality_terms"] is None


@pytest.mark.parametrize("spec, message", [("L:fuzzy", "'fuzzy' is neither a mode"),
                                           ("mean@Q=1", "no dimension 'Q'"),
                                           ("correlation:1.5", "strictly between 0 and 1")])
def test_a_spec_that_names_no_term_is_an_error_naming_it(spec, message, capsys):
    assert main(["solve", str(SAMPLES / "thesis_3x4.jj"), "--quality", spec]) == 2
    error = capsys.readouterr().err
    assert f"quality term '{spec}'" in error and message in error


def test_protect_takes_the_terms_and_writes_them_beside_the_cells(firms):
    data, hrc, folder = firms
    out = folder / "protected.json"
    assert main(["protect", str(data), *RULES, "--hierarchy", f"Region={hrc}", "--quality", "mean:hard",
                 "--method", "milp", "-o", str(out)]) == 0
    document = json.loads(out.read_text())
    cells = [cell for cell in document["cells"] if "Total" not in cell["Size"] and cell["Region"] in (" 1", " 2", " 4")]
    assert sum(cell["adjusted"] for cell in cells) == pytest.approx(sum(cell["original"] for cell in cells), abs=1e-9)
    assert document["quality_terms"]["terms"][0]["met"] is True
