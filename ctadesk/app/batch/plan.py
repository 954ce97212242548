"""A batch file of any kind as a plan: its jobs, the notes on commands that make no job, where
its logbook goes and which files want the versions.  The format registry says which planner reads
a file (Holds.BATCH): a tau-argus batch file (``plan_arb``) or ctadesk's job file
(ctadesk.app.batch.toml_jobs)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from ctadesk.app.request import ProtectionRequest


@dataclasses.dataclass(frozen=True)
class BatchPlan:
    """jobs: each has number, title(), request and run(stop, on_log, on_progress, write) -> JobOutcome."""

    path: Path
    jobs: tuple[Any, ...]
    notes: tuple[str, ...]
    logbook: Path
    version_files: tuple[Path, ...] = ()


def plan_batch(path: str | Path, request: ProtectionRequest | None = None, as_cta: bool = False) -> BatchPlan:
    """The plan of the batch or job file ``path``, by its format."""
    from ctadesk.app.formats import Holds, format_of

    path = Path(path)
    return format_of(path, Holds.BATCH).reader(Holds.BATCH)(path, request, as_cta)


def plan_arb(path: str | Path, request: ProtectionRequest | None = None, as_cta: bool = False) -> BatchPlan:
    """A tau-argus batch file's jobs (ctadesk.app.batch.jobs), its `<LOGBOOK>` (default: the
    batch file's name with .log) and its `<VERSIONINFO>` files."""
    from ctadesk.app.batch.jobs import plan_jobs
    from ctadesk.io.tauargus_batch import FileCommand, read_batch

    path = Path(path)
    batch = read_batch(path)
    jobs, notes = plan_jobs(batch, request or ProtectionRequest(), as_cta)
    files = [command for command in batch.commands if isinstance(command, FileCommand)]
    logbook = next((c.path for c in files if c.keyword == "LOGBOOK"), path.with_suffix(".log"))
    return BatchPlan(path, tuple(jobs), tuple(notes), logbook,
                     tuple(c.path for c in files if c.keyword == "VERSIONINFO"))
