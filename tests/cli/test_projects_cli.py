"""CLI parity with the app: senses from a file, projects in and out of `ctadesk solve`, and
`ctadesk export` from a saved project."""

from __future__ import annotations

import json

import numpy as np
import openpyxl
import pytest

from ctadesk.cli import main
from ctadesk.io.jj import write_jj
from ctadesk.io.project import load_project
from tests.app.test_job import _table


@pytest.fixture
def instance(tmp_path):
    path = tmp_path / "t.jj"
    write_jj(path, _table())
    return path


def _solve(*args) -> dict:
    return main(["solve", *map(str, args)])


def test_senses_from_a_file_are_kept_by_the_table(tmp_path, instance):
    senses = tmp_path / "senses.csv"
    senses.write_text("cell,sense\n0, down\n# the other one\n10;up\n", encoding="utf-8")
    out = tmp_path / "out.json"
    assert _solve(instance, "--method", "lp", "--senses", senses, "--json", out, "--no-widen") == 0
    result = json.loads(out.read_text())
    assert result["senses"] == ["down", "up"]
    values, original = np.array(result["values"]), _table().values
    assert values[0] <= original[0] - 5 and values[10] >= original[10] + 4


@pytest.mark.parametrize("text, words", [("3, up\n", ["line 1", "not sensitive"]),
                                         ("0, up\n0, down\n", ["line 2", "line 1"]),
                                         ("0, sideways\n", ["line 1", "sideways"]),
                                         ("99 up\n", ["line 1", "99"])])
def test_a_bad_senses_file_is_refused_naming_the_line(tmp_path, instance, capsys, text, words):
    senses = tmp_path / "senses.txt"
    senses.write_text(text, encoding="utf-8")
    assert _solve(instance, "--senses", senses) == 2
    error = capsys.readouterr().err
    assert "senses.txt" in error and all(word in error for word in words)


def test_a_saved_project_keeps_senses_seed_and_result_and_exports_a_release(tmp_path, instance, capsys):
    senses = tmp_path / "senses.csv"
    senses.write_text("0 up\n10 down\n", encoding="utf-8")
    project = tmp_path / "t.ctaproj"
    assert _solve(instance, "--method", "milp", "--senses", senses, "--save-project", project, "--seed", 9) == 0
    saved = load_project(project)
    assert saved.result is not None and saved.result.protected
    assert saved.options["widening_seed"] == 9 and list(saved.senses[[0, 10]]) == [1, -1]
    # solving the project again reuses its seed
    again = tmp_path / "again.ctaproj"
    assert _solve(project, "--method", "lp", "--save-project", again) == 0
    assert load_project(again).options["widening_seed"] == 9
    release = tmp_path / "release.xlsx"
    assert main(["export", str(project), "release", str(release)]) == 0
    cells = [c.value for row in openpyxl.load_workbook(release).active.iter_rows() for c in row]
    published = {float(v) for v in cells if isinstance(v, (int, float))}
    assert float(saved.result.values[0]) in published and float(_table().values[0]) not in published


def test_export_refuses_a_project_without_a_result(tmp_path, capsys):
    from ctadesk.io.project import Project, save_project

    path = tmp_path / "empty.ctaproj"
    save_project(path, Project.from_problem(_table()))
    assert main(["export", str(path), "release", str(tmp_path / "r.xlsx")]) == 2
    assert "Protect first" in capsys.readouterr().err
    assert not (tmp_path / "r.xlsx").exists()


def test_the_algorithm_is_chosen_for_the_model_and_the_reason_printed(instance, tmp_path, capsys):
    out = tmp_path / "out.json"
    assert _solve(instance, "--distance", "l2", "--senses-by", "fixed", "--json", out, "--log") == 0
    chosen = json.loads(out.read_text())["method"]
    error = capsys.readouterr().err
    assert chosen in ("l2", "network-l2") and f"'{chosen}'" in error and "algorithm:" in error


def test_a_parameter_reaches_the_method_and_a_bad_one_is_refused(instance, tmp_path, capsys):
    assert _solve(instance, "--distance", "huber", "--senses-by", "fixed", "--param", "delta=0.5") == 0
    capsys.readouterr()
    assert _solve(instance, "--method", "huber", "--param", "delta=-1") == 2
    assert "delta" in capsys.readouterr().err
