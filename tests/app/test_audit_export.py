"""The session's audit in the internal workbook (summary and per-cell intervals), and never in the
release workbook: a release must not single out its sensitive cells (issue 13)."""

from __future__ import annotations

import zipfile

import numpy as np
import openpyxl
import pytest

from ctadesk.app import ProtectionRequest
from ctadesk.app.session import Session
from ctadesk.engine.audit import AttackerKnowledge, Capacity
from ctadesk.io.project import Project
from tests.app.test_job import _table


@pytest.fixture(scope="module")
def audited(tmp_path_factory):
    """A protected, audited session with its internal and release workbooks written."""
    folder = tmp_path_factory.mktemp("audit")
    session = Session(Project.from_problem(_table()))
    session.protect(ProtectionRequest(method="milp", seed=2))
    result = session.audit(AttackerKnowledge(capacity=Capacity("rel", 0.5)))
    session.export("internal", folder / "internal.xlsx")
    session.export("release", folder / "release.xlsx")
    return session, result, folder


def audit_rows(path) -> list[tuple]:
    return list(openpyxl.load_workbook(path, read_only=True)["Audit"].iter_rows(values_only=True))


def test_the_internal_workbook_holds_the_audit_summary_and_every_cells_interval(audited):
    _, result, folder = audited
    rows = audit_rows(folder / "internal.xlsx")
    summary = {row[0]: row[1] for row in rows[:8] if row and row[0]}
    assert summary["cells audited"] == result.n_audited == 2
    assert summary["cells at risk"] == result.n_at_risk
    assert summary["smallest relative interval width"] == pytest.approx(result.smallest_relative_width()[0])
    assert summary["audit time (s)"] == pytest.approx(result.seconds, abs=1e-3)
    header = rows.index(next(row for row in rows if row and row[0] == "cell"))
    cells = rows[header + 1:]
    assert [row[0].split()[0] for row in cells] == [str(i) for i in result.cells]
    assert [row[3] for row in cells] == pytest.approx(result.lower.tolist())
    assert [row[4] for row in cells] == pytest.approx(result.upper.tolist())
    assert [row[9] for row in cells] == ["yes" if r else "no" for r in result.at_risk]


def test_the_release_workbook_holds_no_audit_data(audited):
    _, result, folder = audited
    with zipfile.ZipFile(folder / "release.xlsx") as archive:
        text = "".join(archive.read(name).decode("utf-8", "replace") for name in archive.namelist())
    assert "Audit" not in openpyxl.load_workbook(folder / "release.xlsx").sheetnames
    for word in ("audit", "attacker", "at risk", "relative interval width", "protection"):
        assert word not in text.lower()
    interval_ends = {repr(float(v)) for v in np.r_[result.lower, result.upper]} - {repr(float(v)) for v in
                                                                                     result.published}
    assert not any(end in text for end in interval_ends if end not in ("0.0", "inf"))


def test_an_internal_workbook_has_no_audit_sheet_without_a_current_audit(audited, tmp_path):
    session, _, _ = audited
    session.edit({"values": ([1], 25.0)}, "edit")      # the audit is stale now
    assert session.last_audit is None
    session.export("internal", tmp_path / "stale.xlsx")
    assert "Audit" not in openpyxl.load_workbook(tmp_path / "stale.xlsx").sheetnames
    session.undo()
    assert session.last_audit is not None
