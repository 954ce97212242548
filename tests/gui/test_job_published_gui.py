"""The whole job through the window's worker (gui/jobs.py: a protection job in the JobRunner), with
what the window sends: the published table checked by the independent checker of published
numbers, as for the API, the Session and the command line (tests/app/test_job_published.py)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from ctadesk.gui.jobs import JobRunner, protection_job
from tests.crosscheck.published import check_claims, requests, runnable, tables


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(table=tables(), request=requests())
def test_what_the_app_publishes_is_right_at_its_precision_and_the_model_asked(qtbot, table, request):
    if not runnable(request):
        return
    _, problem = table
    runner = JobRunner()
    outcomes = []
    runner.finished.connect(outcomes.append)
    runner.failed.connect(outcomes.append)
    with qtbot.waitSignal(runner.finished, timeout=60_000):
        runner.start("protect", protection_job(problem, request))
    protection = outcomes[0]
    assert not isinstance(protection, BaseException), protection
    check_claims(problem, protection, request)
