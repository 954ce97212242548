"""Running a batch or job file and writing its logbook; repeating a logged job.

The logbook names the file run, the ctadesk, HiGHS and Clarabel versions, and for each job its
outcome, its log, its error if it failed, and its record: the request as run (the widening seed
with it) and a digest of the tables it published.  ``repeat_logged`` plans the file again, runs
each logged job with its logged request, and says whether it publishes the same tables.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import threading
import time
from collections.abc import Callable
from pathlib import Path

from ctadesk.app.batch.execute import OnProgress, execute
from ctadesk.app.batch.jobs import JobOutcome
from ctadesk.app.batch.plan import BatchPlan, plan_batch
from ctadesk.app.provenance import versions
from ctadesk.app.request import ProtectionRequest
from ctadesk.engine.errors import CTAError

#: the word before a job's record in the logbook
RECORD = "record "


@dataclasses.dataclass(frozen=True)
class BatchReport:
    """A batch run: its jobs' outcomes, the notes on other commands, and the logbook written."""

    path: Path
    outcomes: tuple[JobOutcome, ...]
    notes: tuple[str, ...]
    logbook: Path | None
    planned: int = 0

    @property
    def ok(self) -> bool:
        return all(outcome.ok for outcome in self.outcomes) and len(self.outcomes) == self.planned

    def lines(self) -> list[str]:
        """The logbook's lines (without time stamps)."""
        found = versions()
        lines = [f"ctadesk batch {self.path.resolve()}",
                 "versions: " + ", ".join(f"{k} {v}" for k, v in found.items())]
        lines += self.notes
        for outcome in self.outcomes:
            state = "ok" if outcome.ok else "FAILED"
            lines.append(f"{outcome.job.title()}: {state} ({outcome.seconds:.2f} s)")
            lines += [f"  {line}" for line in outcome.lines]
            if outcome.error:
                lines.append(f"  error: {outcome.error}")
            if outcome.record is not None:
                lines.append(f"  {RECORD}" + json.dumps({"job": outcome.job.number, **outcome.record}, sort_keys=True))
        done = sum(outcome.ok for outcome in self.outcomes)
        if len(self.outcomes) < self.planned:
            lines.append(f"stopped: {self.planned - len(self.outcomes)} job(s) not run")
        lines.append(f"{done} of {self.planned} job(s) succeeded")
        return lines


def run_batch(path: str | Path, *, as_cta: bool = False, request: ProtectionRequest | None = None,
              workers: int = 1, scheduler: str | None = None, time_limit: float | None = None,
              stop: threading.Event | None = None, on_outcome: Callable[[JobOutcome], None] | None = None,
              on_progress: OnProgress | None = None, on_plan: Callable[[BatchPlan], None] | None = None) -> BatchReport:
    """Run every job of the batch or job file ``path`` (ctadesk.app.batch.execute: ``workers``
    processes, or the Dask ``scheduler``; ``time_limit`` seconds for the whole batch) and write
    its logbook."""
    deadline = time.time() + time_limit if time_limit is not None else None
    plan = plan_batch(path, request, as_cta)
    if on_plan is not None:
        on_plan(plan)
    outcomes = execute(plan.jobs, workers=workers, scheduler=scheduler, deadline=deadline, stop=stop,
                       on_outcome=on_outcome, on_progress=on_progress)
    report = BatchReport(plan.path, tuple(outcomes), plan.notes, plan.logbook, len(plan.jobs))
    stamp = datetime.datetime.now().isoformat(timespec="seconds")
    plan.logbook.write_text("".join(f"{stamp} {line}\n" for line in report.lines()), encoding="utf-8")
    for file in plan.version_files:
        file.write_text("".join(f"{k} {v}\n" for k, v in versions().items()), encoding="utf-8")
    return report


@dataclasses.dataclass(frozen=True)
class Repeat:
    """A logged job run again: whether it published the same tables as logged."""

    number: int
    title: str
    identical: bool
    error: str | None = None


def repeat_logged(logbook: str | Path, job: int | None = None) -> list[Repeat]:
    """Run again every job the logbook records (or job ``job`` only) with its logged request,
    writing nothing, and compare what it publishes with the logged digest."""
    logbook = Path(logbook)
    try:
        text = logbook.read_text(encoding="utf-8").splitlines()
    except OSError as error:
        raise CTAError(f"cannot read the logbook {logbook}: {error.strerror or error}") from None
    lines = [line.split(" ", 1)[1] if " " in line else line for line in text]
    batch = next((line.removeprefix("ctadesk batch ") for line in lines if line.startswith("ctadesk batch ")), None)
    if batch is None:
        raise CTAError(f"{logbook}: not a ctadesk batch logbook (no 'ctadesk batch FILE' line)")
    records = {}
    for row, line in enumerate(lines, start=1):
        if line.strip().startswith(RECORD):
            try:
                record = json.loads(line.strip().removeprefix(RECORD))
                records[int(record["job"])] = record
            except (ValueError, KeyError, TypeError) as error:
                raise CTAError(f"{logbook}, line {row}: a damaged job record ({error})") from None
    if job is not None:
        if job not in records:
            raise CTAError(f"{logbook}: no record of job {job} (recorded: {', '.join(map(str, records)) or 'none'})")
        records = {job: records[job]}
    if not records:
        raise CTAError(f"{logbook}: no job record to repeat (only jobs that protected a table are recorded)")
    plan = plan_batch(batch)
    jobs = {planned.number: planned for planned in plan.jobs}
    repeats = []
    for number, record in sorted(records.items()):
        if number not in jobs:
            raise CTAError(f"{batch} has no job {number} any more; the logbook records it")
        rerun = dataclasses.replace(jobs[number], request=ProtectionRequest.from_options(record["request"]))
        outcome = rerun.run(write=False)
        same = outcome.record is not None and outcome.record["published"] == record["published"]
        repeats.append(Repeat(number, rerun.title(), same, outcome.error))
    return repeats
