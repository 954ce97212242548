"""A protection run's outcome (ctadesk.app.outcome) and its one JSON document (Protection.as_dict):
typed fields the front ends read, the same after a project file, and the JSON keys the command
line has always written."""

from __future__ import annotations

import json
import zipfile

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctadesk.app import Outcome, ProtectionRequest, Publication, protect
from ctadesk.app.session import Session
from ctadesk.engine.errors import CTAError
from ctadesk.engine.solvers.finish import cells_changed
from ctadesk.io.project import Project, load_project, save_project
from tests.app.test_job import _table

#: the keys `ctadesk solve/protect --json` wrote before Protection.as_dict
RESULT_KEYS = {"status", "verified", "protected", "method", "message", "objective", "model_objective", "bound",
               "gap", "values", "decimals", "senses", "seconds", "timings", "verification", "quality",
               "cells_changed", "quality_terms", "versions", "request"}

publications = st.builds(Publication, asked=st.sampled_from(["auto", "full", 0, 1, 2]),
                         decimals=st.none() | st.integers(0, 6), note=st.text(max_size=20))
outcomes = st.builds(Outcome, published=publications, cells_changed=st.integers(0, 10_000),
                     bound_from=st.none() | st.text(max_size=20),
                     terms=st.none() | st.fixed_dictionaries({"terms": st.lists(st.integers(), max_size=3)}))


@given(outcomes)
def test_an_outcome_comes_back_from_its_plain_form_and_json(outcome):
    assert Outcome.from_dict(json.loads(json.dumps(outcome.as_dict()))) == outcome


@given(publications)
def test_a_precision_is_met_when_full_or_reached(published):
    assert published.met == (published.asked == "full" or published.decimals is not None)
    assert published.rounded == (published.decimals is not None)


def test_the_json_document_keeps_the_old_keys_and_holds_the_outcome():
    protection = protect(_table(), ProtectionRequest(method="milp", seed=3))
    document = json.loads(json.dumps(protection.as_dict(), allow_nan=False))
    assert set(document) >= RESULT_KEYS
    assert document["decimals"] == protection.decimals == 0
    assert document["published"] == {"asked": "auto", "decimals": 0, "rounded": True, "met": True,
                                     "note": protection.outcome.published.note}
    assert document["cells_changed"] == cells_changed(protection.required, protection.result.values) > 0
    assert document["values"] == protection.result.values.tolist()
    assert document["request"]["widening_seed"] == 3
    assert document["bound_from"] is not None and protection.result.bound is not None


def test_a_precision_not_reached_is_said_in_the_outcome_not_in_the_results_diagnostics(tmp_path):
    # the variance term's coefficients are not whole numbers: no precision holds it exactly
    session = Session(Project.from_problem(_table()))
    protection = session.protect(ProtectionRequest(method="lp", widen=False, precision=0, preserve={"variance"}))
    published = protection.outcome.published
    assert protection.result.verified and not published.met and not protection.precision_met
    assert published.decimals is None and "not a whole number" in published.note
    assert "precision_note" not in protection.result.info
    assert protection.as_dict()["published"]["met"] is False
    with pytest.raises(CTAError, match="not a whole number"):
        session.export("release", tmp_path / "release.xlsx")


def test_a_project_keeps_the_outcome_with_its_result(tmp_path):
    session = Session(Project.from_problem(_table()))
    protection = session.protect(ProtectionRequest(method="lp", seed=1))
    session.save(tmp_path / "t.ctaproj")
    again = Session.open(tmp_path / "t.ctaproj")
    assert again.outcome == protection.outcome == session.outcome


def test_a_project_saved_before_outcomes_gets_one_from_its_result(tmp_path):
    project = Project.from_problem(_table())
    protection = protect(project.to_problem(), ProtectionRequest(method="lp", seed=1))
    project.result = protection.result.replace(info={**protection.result.info, "decimals": 0,
                                                     "precision_note": "", "cells_changed": 4})
    save_project(tmp_path / "old.ctaproj", project)
    # an older file: its project.json without "outcome"
    with zipfile.ZipFile(tmp_path / "old.ctaproj") as archive:
        files = {name: archive.read(name) for name in archive.namelist()}
    meta = json.loads(files["project.json"])
    del meta["outcome"]
    files["project.json"] = json.dumps(meta).encode()
    with zipfile.ZipFile(tmp_path / "old.ctaproj", "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    outcome = Outcome.from_dict(load_project(tmp_path / "old.ctaproj").outcome)
    assert outcome.published.decimals == 0 and outcome.published.met and outcome.cells_changed == 4


def test_a_rounding_base_is_kept_in_the_outcome():
    published = Publication("auto", 0, "protected table rounded to multiples of 5", base=5)
    assert published.as_dict()["base"] == 5
    assert Publication.from_dict(published.as_dict()) == published
    assert "base" not in Publication("auto", 0).as_dict()
