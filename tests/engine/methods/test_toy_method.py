"""Adding a method is its module and one registry entry (issue 33): the toy method of
toy_method.py, registered by a fixture, is offered and run by the app layer and the command line
like any other, and its claims are judged, not believed -- the original table it returns is
reported not protected, never protected."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctadesk.app import ProtectionRequest, protect
from ctadesk.cli import main
from ctadesk.engine.methods import method
from ctadesk.engine.result import Status
from ctadesk.engine.table.generate import cox_table
from ctadesk.io.jj import write_jj
from tests.engine.methods.toy_method import TOY, toy_method  # noqa: F401  (a fixture)

REQUEST = ProtectionRequest(method="toy", distance="l1", senses="fixed", widen=False, precision="full")


@pytest.mark.usefixtures("toy_method")
def test_the_registry_offers_the_toy_method_by_its_one_entry():
    assert method("toy") is TOY


@pytest.mark.usefixtures("toy_method")
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.integers(2, 5), columns=st.integers(2, 5), seed=st.integers(0, 1000))
def test_the_app_layer_reports_the_original_table_not_protected(rows, columns, seed):
    _, problem = cox_table((rows, columns), seed=seed)
    protection = protect(problem, REQUEST)
    result = protection.result
    assert result.method == "toy"
    np.testing.assert_array_equal(result.values, problem.values)
    assert not result.verified and not result.protected
    assert result.status is Status.NOT_PROTECTED
    assert protection.as_dict()["protected"] is False


@pytest.mark.usefixtures("toy_method")
@pytest.mark.parametrize("options", [[], ["--precision", "full", "--no-widen"]])
def test_the_command_line_runs_the_toy_method_and_reports_no_protected_table(tmp_path, capsys, options):
    _, problem = cox_table((3, 4), seed=7)
    path, document = tmp_path / "t.jj", tmp_path / "run.json"
    write_jj(path, problem)
    code = main(["solve", str(path), "--method", "toy", *options, "--json", str(document)])
    out, err = capsys.readouterr()
    assert code != 0
    assert out.startswith("toy: not_protected") and "NOT verified" in out
    assert "no protected table" in err and "protected table at" not in err
    run = json.loads(document.read_text(encoding="utf-8"))
    assert run["method"] == "toy" and run["protected"] is False


def test_without_its_entry_the_command_line_does_not_know_the_toy_method(tmp_path, capsys):
    _, problem = cox_table((3, 4), seed=7)
    write_jj(tmp_path / "t.jj", problem)
    with pytest.raises(SystemExit):
        main(["solve", str(tmp_path / "t.jj"), "--method", "toy"])
    assert "invalid choice: 'toy'" in capsys.readouterr().err
