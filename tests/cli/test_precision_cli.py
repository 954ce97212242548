"""`ctadesk solve --precision`: the published table adds up exactly at its precision."""

import json
from pathlib import Path

import numpy as np
import pytest

from ctadesk.cli import main
from ctadesk.engine.table.generate import cox_table
from ctadesk.io.jj import read_jj, write_jj


@pytest.fixture
def fractional(tmp_path: Path) -> Path:
    _, problem = cox_table((6, 8), seed=3)
    table = problem.replace(values=problem.values * 1.37, lower=0.0, upper=np.inf,
                            lower_protection=problem.lower_protection * 1.37,
                            upper_protection=problem.upper_protection * 1.37)
    path = tmp_path / "fractional.jj"
    write_jj(path, table)
    return path


def released(path: Path, tmp_path: Path, *options: str) -> np.ndarray:
    out = tmp_path / "out.json"
    assert main(["solve", str(path), "--method", "lp", "--json", str(out), "--no-widen", *options]) == 0
    return np.array(json.loads(out.read_text())["values"])


@pytest.mark.parametrize("decimals", [0, 1])
def test_precision_publishes_a_table_that_adds_up_at_it(fractional, tmp_path, decimals, capsys):
    problem = read_jj(fractional).problem
    values = released(fractional, tmp_path, "--precision", str(decimals))
    units = np.round(values * 10 ** decimals)
    assert np.allclose(values * 10 ** decimals, units, rtol=0, atol=1e-6)
    assert np.array_equal(problem.relations @ units, np.zeros(problem.n_relations))
    assert f"at {decimals} decimal" in capsys.readouterr().err


def test_full_precision_leaves_the_solver_table(fractional, tmp_path):
    values = released(fractional, tmp_path, "--precision", "full")
    assert not np.allclose(values * 100, np.round(values * 100))


def test_a_bad_precision_is_a_usage_error(fractional, capsys):
    with pytest.raises(SystemExit):
        main(["solve", str(fractional), "--precision", "many"])
    assert "not auto, full or a number of decimals" in capsys.readouterr().err
