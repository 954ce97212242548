import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ctadesk.cli import main
from ctadesk.io.jj import read_jj, read_sol

SAMPLES = Path(__file__).resolve().parents[2] / "sample_data"


@pytest.mark.parametrize("method", ["milp", "lp", "l2", "soc", "huber"])
def test_solve_writes_verified_json(tmp_path, method):
    out = tmp_path / "out.json"
    code = main(["solve", str(SAMPLES / "thesis_3x4.jj"), "--method", method, "--json", str(out)])
    result = json.loads(out.read_text())
    assert code == 0
    assert result["verified"] is True and result["status"] in ("optimal", "feasible")
    assert len(result["values"]) == 20 and set(result["senses"]) <= {"up", "down"}
    assert len(result["senses"]) == 2 and result["seconds"] > 0
    values = np.array(result["values"])
    problem = read_jj(SAMPLES / "thesis_3x4.jj").problem
    assert np.allclose(problem.relations @ values, 0, atol=1e-6)
    assert result["objective"] == pytest.approx(np.abs(values - problem.values).sum(), rel=1e-6)


def test_milp_reports_bound_not_above_objective(tmp_path):
    out = tmp_path / "out.json"
    assert main(["solve", str(SAMPLES / "cox_20x20.jj"), "--method", "milp", "--time-limit", "5",
                 "--json", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["bound"] is not None and result["bound"] <= result["objective"] + 1e-6


def test_a_heuristic_says_how_near_it_is(capsys):
    assert main(["solve", str(SAMPLES / "cox_20x20.jj"), "--method", "random", "--time-limit", "2"]) == 0
    line = capsys.readouterr().out
    objective = float(line.split("objective ")[1].split(",")[0])
    bound = float(line.split("bound ")[1].split(" ")[0])
    gap = float(line.split("(gap ")[1].split(" %")[0])
    assert 0 < bound < objective
    assert gap == pytest.approx(100 * (objective - bound) / objective, rel=1e-2)


def test_sol_file_holds_adjusted_values(tmp_path):
    out = tmp_path / "out.sol"
    assert main(["solve", str(SAMPLES / "thesis_3x4.jj"), "--method", "lp", "--sol", str(out)]) == 0
    adjusted = read_sol(out, 20)
    assert adjusted[0] != 10 and adjusted[-1] == 136


def test_inverse_weights_make_the_objective_relative(tmp_path):
    out = tmp_path / "out.json"
    assert main(["solve", str(SAMPLES / "thesis_3x4.jj"), "--method", "lp", "--weights", "inverse",
                 "--json", str(out)]) == 0
    result = json.loads(out.read_text())
    original = read_jj(SAMPLES / "thesis_3x4.jj").problem.values
    relative = np.abs(np.array(result["values"]) - original) / np.maximum(original, 1)
    assert result["objective"] == pytest.approx(relative.sum(), rel=1e-6)
    assert result["objective"] < 5


def test_weights_file_with_wrong_length_is_reported(tmp_path, capsys):
    weights = tmp_path / "w.txt"
    weights.write_text("1 2 3")
    assert main(["solve", str(SAMPLES / "thesis_3x4.jj"), "--method", "lp", "--weights", str(weights)]) == 2
    assert "3 weights for 20 cells" in capsys.readouterr().err


def test_missing_file_gives_one_line_and_nonzero_exit(tmp_path, capsys):
    code = main(["solve", str(tmp_path / "nope.jj"), "--method", "lp"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code != 0 and len(err) == 1 and "nope.jj" in err[0]


def test_malformed_file_names_the_line(tmp_path, capsys):
    bad = tmp_path / "bad.jj"
    bad.write_text("0\n2\n0 1 1 s 0 9 0 0 0\nx\n")
    assert main(["solve", str(bad)]) == 2
    assert "bad.jj, line 4" in capsys.readouterr().err


def test_python_dash_m_matches_the_command(tmp_path):
    out = tmp_path / "out.json"
    completed = subprocess.run([sys.executable, "-m", "ctadesk", "solve", str(SAMPLES / "thesis_3x4.jj"),
                                "--method", "lp", "--json", str(out)], capture_output=True, text=True)
    assert completed.returncode == 0, completed.stderr
    assert json.loads(out.read_text())["verified"] is True


def _inner_quality(tmp_path, *extra):
    out = tmp_path / "out.json"
    assert main(["solve", str(SAMPLES / "cox_20x20.jj"), "--method", "lp", "--json", str(out), *extra]) == 0
    return json.loads(out.read_text())["quality"]["inner cells"]


def test_preserve_mean_and_variance_keep_mean_and_slope_in_the_json_quality(tmp_path):
    plain = _inner_quality(tmp_path)
    kept = _inner_quality(tmp_path, "--preserve", "mean,variance")
    assert abs(plain["regression slope change (%)"]) > 0.01    # (the LP's vertex may keep the mean by itself)
    assert abs(kept["mean change (%)"]) < 1e-7 and abs(kept["regression slope change (%)"]) < 1e-6
    assert kept["cells"] == 400 and 0 < kept["variance change (%)"] < 20


def test_quality_object_has_every_group_and_the_percent_changes(tmp_path):
    out = tmp_path / "out.json"
    assert main(["solve", str(SAMPLES / "thesis_3x4.jj"), "--method", "lp", "--json", str(out)]) == 0
    quality = json.loads(out.read_text())["quality"]
    assert list(quality) == ["inner cells", "totals", "sensitive", "not sensitive"]
    assert quality["inner cells"]["cells"] == 12 and quality["sensitive"]["cells"] == 2
    assert quality["sensitive"]["cells changed"] == 2


def test_unknown_preserved_measure_is_one_line_error(capsys):
    assert main(["solve", str(SAMPLES / "thesis_3x4.jj"), "--preserve", "median"]) == 2
    assert "unknown measure 'median'" in capsys.readouterr().err
