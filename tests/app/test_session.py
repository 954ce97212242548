"""A session: edits as data (undo/redo), stale results, the safety rules, protection runs kept
with their seed, exports and project files."""

from __future__ import annotations

import numpy as np
import pytest

from ctadesk.app import ProtectionRequest, files
from ctadesk.app.session import Session
from ctadesk.engine.errors import CTAError
from ctadesk.engine.rules.safety import SafetyRules
from ctadesk.io.project import Project
from tests.app.test_job import _table

MICRODATA = "Region;Size;Turnover\nA;x;7\nA;y;100\nA;y;1\nA;y;1\nB;x;10\nB;x;10\nB;x;10\nB;x;10\nB;y;50\nB;y;40\n"


def session() -> Session:
    return Session(Project.from_problem(_table()))


def test_edits_undo_and_redo_as_data():
    s = session()
    before = s.project.values.copy()
    s.edit({"values": ([0, 3], [21.0, 73.0])}, "two values")
    s.edit({"sensitive": ([5], True)}, "mark")
    assert s.project.values[0] == 21 and s.project.sensitive[5]
    assert s.undo().text == "mark" and not s.project.sensitive[5]
    assert s.undo().text == "two values"
    np.testing.assert_array_equal(s.project.values, before)
    assert s.undo() is None
    assert s.redo().text == "two values" and s.project.values[3] == 73
    s.edit({"fixed": ([1], True)}, "fix")       # drops the redo of "mark"
    assert s.redo() is None and not s.project.sensitive[5]


@pytest.mark.parametrize("changes, word", [({"relations": ([0], 1)}, "relations"), ({"values": ([99], 1.0)}, "99")])
def test_an_edit_that_cannot_be_is_refused_and_changes_nothing(changes, word):
    s = session()
    values = s.project.values.copy()
    with pytest.raises(CTAError, match=word):
        s.edit(changes, "bad")
    np.testing.assert_array_equal(s.project.values, values)
    assert s.history == []


def test_a_result_goes_stale_with_an_edit_and_fresh_again_with_its_undo():
    s = session()
    protection = s.protect(ProtectionRequest(method="lp", seed=5))
    assert s.project.result is protection.result and not s.stale
    s.edit({"values": ([1], 25.0)}, "edit")
    assert s.stale and s.project.result_stale
    with pytest.raises(CTAError, match="protect it again"):
        s.export("release", "never-written.xlsx")
    s.undo()
    assert not s.stale


def test_the_seed_is_kept_in_the_project_and_reused(tmp_path):
    s = session()
    first = s.protect(s.request(method="lp"))
    seed = first.request.seed
    path = s.save(tmp_path / "t.ctaproj")
    reopened = Session.open(path)
    assert reopened.widening_seed == seed and not reopened.modified
    again = reopened.protect(reopened.request())
    assert again.request.seed == seed and again.request.method == "lp"
    np.testing.assert_array_equal(again.solved.upper_protection, first.solved.upper_protection)


def test_rules_then_protect_then_release(tmp_path):
    path = tmp_path / "m.csv"
    path.write_text(MICRODATA, encoding="utf-8")
    s = Session(files.read_microdata_file(path, ["Region", "Size"], "Turnover"))
    result = s.apply_rules(SafetyRules(min_frequency=3, frequency_safety_range=10))
    assert np.count_nonzero(result.flags) == int(s.project.sensitive.sum()) > 0
    assert s.project.rules["min_frequency"] == 3
    s.undo()
    assert not s.project.sensitive.any()
    s.redo()
    protection = s.protect(ProtectionRequest(method="milp"))
    assert protection.result.protected
    outcome = s.export("release", tmp_path / "release.xlsx")
    assert (tmp_path / "release.xlsx").exists() and outcome is not None


def test_tabulated_microdata_weigh_relative_change(tmp_path):
    path = tmp_path / "m.csv"
    path.write_text(MICRODATA, encoding="utf-8")
    project = files.read_microdata_file(path, ["Region", "Size"], "Turnover")
    np.testing.assert_allclose(project.weights, 1 / np.maximum(np.abs(project.values), 1))


def test_the_session_audits_its_release_and_refuses_a_stale_one():
    from ctadesk.engine.audit import AttackerKnowledge, Capacity

    s = session()
    with pytest.raises(CTAError, match="protect the table first"):
        s.audit()
    s.protect(ProtectionRequest(method="milp", seed=2))
    result = s.audit(AttackerKnowledge(capacity=Capacity("rel", 0.5)))
    assert result.n_audited == 2 and "audited" in result.summary()
    s.edit({"values": ([1], 25.0)}, "edit")
    with pytest.raises(CTAError, match="protect it again"):
        s.audit()


def test_a_release_names_quality_terms_without_their_cells(tmp_path):
    """A term over the sensitive cells must not list them in the release (it would single them out)."""
    import zipfile

    from ctadesk.engine.quality.terms import QualityTerm

    s = session()
    sensitive = tuple(int(i) for i in np.flatnonzero(s.project.sensitive))
    term = QualityTerm("mean", "weighted", weight=1.0, cells=sensitive, group="sensitive cells")
    protection = s.protect(ProtectionRequest(method="milp", quality=(term,)))
    assert protection.result.protected
    s.export("release", tmp_path / "release.xlsx")
    with zipfile.ZipFile(tmp_path / "release.xlsx") as book:
        text = " ".join(book.read(name).decode("utf-8", "replace") for name in book.namelist())
    assert "sensitive cells" in text                       # the term is named ...
    assert "'cells'" not in text and "cells&quot;" not in text and str(list(sensitive)) not in text   # ... not listed
