"""Progress reports and cancelling an audit."""

import threading

import pytest

from ctadesk.engine.audit import AttackerKnowledge, AuditCancelled, AuditOptions, Capacity, Release, audit

from .tables import THESIS_L1, thesis_problem


def test_progress_ends_with_every_end_done():
    reports = []
    audit(thesis_problem(), Release.adjusted(THESIS_L1.reshape(-1)), AttackerKnowledge(capacity=Capacity("abs", 5)),
          AuditOptions(on_progress=lambda done, total: reports.append((done, total))))
    assert reports[-1] == (4, 4)


def test_a_set_stop_event_cancels_the_audit():
    stop = threading.Event()
    stop.set()
    with pytest.raises(AuditCancelled, match="cancelled"):
        audit(thesis_problem(), Release.adjusted(THESIS_L1.reshape(-1)), options=AuditOptions(stop=stop))
