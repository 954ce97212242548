"""`ctadesk protect` writes what the app writes: the project, the result document (--json) and a
tau-argus release .tab, each recording the versions and the request that made it."""

import csv
import json
from pathlib import Path

import numpy as np
import pytest

from ctadesk.app import ProtectionRequest
from ctadesk.app.provenance import versions
from ctadesk.app.session import Session
from ctadesk.cli import main
from ctadesk.io.tauargus import read_tab
from tests.cli.test_release_cli import method_sheet
from tests.cli.test_rules_cli import FIRMS, RULES

PP = Path("/work/shared/formats/tauargus-examples/pp.tab")
PP_RULES = ["--min-freq", "3", "--freq-range", "10", "--seed", "5"]


@pytest.fixture
def firms(tmp_path) -> Path:
    data = tmp_path / "firms.csv"
    data.write_text(FIRMS)
    return data


def test_protect_saves_a_project_that_loads_back_with_its_result_and_request(firms, tmp_path):
    # was: protect had no --save-project; a project could be written only from the app or by 'solve'
    project_path, out = tmp_path / "firms.ctaproj", tmp_path / "result.json"
    assert main(["protect", str(firms), *RULES, "--seed", "77", "--json", str(out),
                 "--save-project", str(project_path)]) == 0
    document = json.loads(out.read_text())
    session = Session.open(project_path)
    project = session.project
    np.testing.assert_allclose(project.result.values, document["values"], rtol=0, atol=0)
    assert project.result.protected and not session.stale
    request = ProtectionRequest.from_options(project.options)
    assert request == ProtectionRequest.from_options(document["request"])
    assert request.seed == session.widening_seed == 77
    assert project.versions == versions()
    assert project.statistics is not None and project.rules["min_frequency"] == 2
    assert all(project.flagged_by[project.sensitive]) and not any(project.flagged_by[~project.sensitive])
    # the project is a job the solver can repeat: the same seed, the same table
    again = tmp_path / "again.json"
    assert main(["solve", str(project_path), "--json", str(again)]) == 0
    assert json.loads(again.read_text())["values"] == document["values"]


def test_protect_json_is_the_result_document_with_versions_and_request(firms, tmp_path):
    out = tmp_path / "result.json"
    assert main(["protect", str(firms), *RULES, "--seed", "12", "--json", str(out)]) == 0
    document = json.loads(out.read_text())
    assert document["protected"] and document["verified"] and document["status"]
    assert len(document["values"]) == 12 and document["cells_changed"] > 0
    assert document["versions"] == versions() and set(versions()) == {"ctadesk", "highspy", "clarabel"}
    assert document["request"]["widening_seed"] == 12 and document["request"]["time_limit"] is None


def test_protect_json_output_is_the_cells_then_the_result_document(firms, tmp_path):
    # was: -o x.json wrote its own small document: the cells, and quality_terms only with terms
    out, run = tmp_path / "cells.json", tmp_path / "run.json"
    assert main(["protect", str(firms), *RULES, "--seed", "12", "-o", str(out), "--json", str(run)]) == 0
    document, whole = json.loads(out.read_text()), json.loads(run.read_text())
    assert list(document) == ["cells", *whole]
    assert {key: value for key, value in document.items() if key != "cells"} == whole
    assert {"status", "protected", "verified", "values", "quality_terms", "cells_changed", "published", "versions",
            "request"} <= set(whole)
    assert [cell["adjusted"] for cell in document["cells"]] == whole["values"] and len(whole["values"]) == 12


@pytest.mark.skipif(not PP.exists(), reason="tau-argus examples missing")
def test_protect_writes_a_release_tab_the_tauargus_reader_reads_back(tmp_path):
    # was: a .tab release could be written only from the app
    out, tab = tmp_path / "result.json", tmp_path / "release.tab"
    assert main(["protect", str(PP), *PP_RULES, "--json", str(out), "--tab", str(tab)]) == 0
    published = np.array(json.loads(out.read_text())["values"])
    released = read_tab(tab)
    np.testing.assert_allclose(released.values, published, rtol=0, atol=5e-9 * np.abs(published).max())
    assert [v.name for v in released.metadata.variables] == ["Size", "Region", "Var2"]
    assert not (published == read_tab(PP).values).all()
    sidecar = json.loads((tmp_path / "release.provenance.json").read_text())
    assert sidecar["versions"] == versions() and "widening_seed" not in sidecar["request"]


def test_tab_of_microdata_is_the_release_tab_with_its_provenance(firms, tmp_path):
    # was: refused, a release .tab was written only for a table read from a .tab
    out, tab = tmp_path / "cells.csv", tmp_path / "release.tab"
    assert main(["protect", str(firms), *RULES, "--seed", "918273645", "-o", str(out), "--tab", str(tab)]) == 0
    with open(out, newline="") as handle:
        adjusted = {(row["Region"].strip(), row["Size"].strip()): float(row["adjusted"])
                    for row in csv.DictReader(handle)}
    released = read_tab(tab)
    assert [v.name for v in released.metadata.variables] == ["Region", "Size", "Turnover"]
    shape = released.structure.shape
    dims = released.structure.dimensions
    written = {tuple(d.codes[k] for d, k in zip(dims, np.unravel_index(cell, shape))): value
               for cell, value in enumerate(released.values)}
    assert written.keys() == adjusted.keys()
    assert all(written[key] == pytest.approx(adjusted[key], abs=1e-9) for key in adjusted)
    sidecar = json.loads((tmp_path / "release.provenance.json").read_text())
    assert sidecar["versions"] == versions() and sidecar["release"] == ["release.tab", "release.rda"]
    assert sidecar["request"]["distance"] == "l1" and "widening_seed" not in sidecar["request"]
    assert "918273645" not in (tmp_path / "release.provenance.json").read_text()


def test_workbooks_name_the_versions_and_only_the_internal_one_the_seed(firms, tmp_path):
    release, internal = tmp_path / "release.xlsx", tmp_path / "internal.xlsx"
    assert main(["protect", str(firms), *RULES, "--seed", "918273645", "--release", str(release),
                 "--internal", str(internal)]) == 0
    public, secret = method_sheet(release), method_sheet(internal)
    for name, value in versions().items():
        label = {"ctadesk": "ctadesk", "highspy": "HiGHS (highspy)", "clarabel": "Clarabel"}[name]
        assert public[f"{label} version"] == secret[f"{label} version"] == value
    assert not any("seed" in str(key) or "918273645" in str(value) for key, value in public.items())
    assert "request" not in public
    request = json.loads(secret["request"])
    assert request["widening_seed"] == 918273645 and request["distance"] == "l1"


def test_solve_json_records_versions_and_request(firms, tmp_path):
    project_path, out = tmp_path / "firms.ctaproj", tmp_path / "solve.json"
    assert main(["protect", str(firms), *RULES, "--seed", "3", "--save-project", str(project_path)]) == 0
    assert main(["solve", str(project_path), "--method", "milp", "--json", str(out)]) == 0
    document = json.loads(out.read_text())
    assert document["versions"] == versions()
    assert document["request"]["method"] == "milp" and document["request"]["widening_seed"] == 3


@pytest.mark.parametrize("command", ["protect", "solve"])
def test_round_to_publishes_multiples_of_the_base_and_says_it(command, firms, tmp_path):
    out = tmp_path / "result.json"
    source = [str(firms), *RULES] if command == "protect" else ["sample_data/thesis_10x15.jj"]
    assert main([command, *source, "--seed", "4", "--round-to", "5", "--json", str(out)]) == 0
    document = json.loads(out.read_text())
    values = np.array(document["values"])
    assert document["protected"] and np.array_equal(values, 5 * np.round(values / 5))
    assert document["published"]["base"] == 5 and document["request"]["rounding_base"] == 5


def test_round_to_with_a_precision_is_refused(firms, capsys):
    assert main(["protect", str(firms), *RULES, "--round-to", "5", "--precision", "1"]) == 2
    assert "rounding base 5 with precision '1'" in capsys.readouterr().err
