"""Run a tau-argus batch file: plan its jobs (ctadesk.app.batch.jobs), run each -- a failing job
never stops the others --, and write the logbook: the versions of ctadesk, HiGHS and Clarabel
(ctadesk.app.provenance), then each job's outcome, notes and error."""

from __future__ import annotations

import dataclasses
import datetime
import threading
from collections.abc import Callable
from pathlib import Path

from ctadesk.app.batch.jobs import BatchJob, JobOutcome, plan_jobs
from ctadesk.app.provenance import versions
from ctadesk.app.request import ProtectionRequest
from ctadesk.io.tauargus_batch import FileCommand, read_batch


@dataclasses.dataclass(frozen=True)
class BatchReport:
    """A batch run: its jobs' outcomes, the notes on other commands, and the logbook written."""

    path: Path
    outcomes: tuple[JobOutcome, ...]
    notes: tuple[str, ...]
    logbook: Path | None

    @property
    def ok(self) -> bool:
        return all(outcome.ok for outcome in self.outcomes)

    def lines(self) -> list[str]:
        """The logbook's lines (without time stamps)."""
        found = versions()
        lines = [f"ctadesk batch {self.path}", "versions: " + ", ".join(f"{k} {v}" for k, v in found.items())]
        lines += self.notes
        for outcome in self.outcomes:
            state = "ok" if outcome.ok else "FAILED"
            lines.append(f"{outcome.job.title()}: {state} ({outcome.seconds:.2f} s)")
            lines += [f"  {line}" for line in outcome.lines]
            if outcome.error:
                lines.append(f"  error: {outcome.error}")
        done = sum(outcome.ok for outcome in self.outcomes)
        lines.append(f"{done} of {len(self.outcomes)} job(s) succeeded")
        return lines


def run_batch(path: str | Path, *, as_cta: bool = False, request: ProtectionRequest | None = None,
              jobs: list[BatchJob] | None = None, stop: threading.Event | None = None,
              on_outcome: Callable[[JobOutcome], None] | None = None,
              on_log: Callable[[str], None] | None = None) -> BatchReport:
    """Run every job of the batch file ``path`` (or the ``jobs`` given, planned from it) one after
    another and write its `<LOGBOOK>` (default: the batch file's name with .log beside it)."""
    path = Path(path)
    batch = read_batch(path)
    planned, notes = plan_jobs(batch, request or ProtectionRequest(), as_cta)
    outcomes = []
    for job in planned if jobs is None else jobs:
        if stop is not None and stop.is_set():
            break
        outcome = job.run(stop, on_log)
        outcomes.append(outcome)
        if on_outcome is not None:
            on_outcome(outcome)
    logbook = next((c.path for c in batch.commands if isinstance(c, FileCommand) and c.keyword == "LOGBOOK"),
                   path.with_suffix(".log"))
    report = BatchReport(path, tuple(outcomes), tuple(notes), logbook)
    stamp = datetime.datetime.now().isoformat(timespec="seconds")
    logbook.write_text("".join(f"{stamp} {line}\n" for line in report.lines()), encoding="utf-8")
    for command in batch.commands:
        if isinstance(command, FileCommand) and command.keyword == "VERSIONINFO":
            command.path.write_text("".join(f"{k} {v}\n" for k, v in versions().items()), encoding="utf-8")
    return report
