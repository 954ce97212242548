"""Background jobs: one runner for every job the windows start (a protection run, an audit, a
release search, reading or generating a table, writing an export), in superqt's worker pattern:
the function runs in Qt's thread pool, its return or exception comes back as a signal on the GUI
thread.  (The pattern takes a dozen lines here: importing superqt for it took 0.8 s at start,
qtpy loading PySide6.QtOpenGL and every name of QtWidgets.)

A job is a function of a ``Feed``: it reads ``feed.stop`` to end early and reports through
``feed.log``, ``feed.report`` and ``feed.count``.  Those are called from the job's thread, often
thousands of times a second (a solver's log); they only append to deques or store a pair.  A
QTimer on the GUI thread drains them every 100 ms, so a window repaints at most ten times a
second whatever the job reports.
"""

from __future__ import annotations

import collections
import dataclasses
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from PySide6.QtCore import QEventLoop, QObject, QRunnable, QThreadPool, QTimer, Signal

from ctadesk.app import Protection, ProtectionRequest, files, protect
from ctadesk.app.formats import export_of
from ctadesk.app.job import Solve, engine_solve
from ctadesk.app.session import Session
from ctadesk.app.weight_advice import WeightAdvice, before_run
from ctadesk.engine.audit import AttackerKnowledge, AuditCancelled, AuditOptions, AuditResult
from ctadesk.engine.methods import METHODS
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.quality.measures import QualityReport
from ctadesk.engine.result import CTAResult, Progress
from ctadesk.engine.table.generate import GeneratorSpec, generate_table
from ctadesk.io.project import Project

DRAIN_INTERVAL_MS = 100
#: solver threads: every core but one, which stays with the window
SOLVER_THREADS = max(1, (os.cpu_count() or 2) - 1)


class Feed:
    """What a running job reports through, from its own thread, and the event it stops on."""

    def __init__(self) -> None:
        self.stop = threading.Event()
        self.lines: collections.deque[str] = collections.deque()
        self.reports: collections.deque[Progress] = collections.deque()
        self.counted: tuple[int, int] | None = None

    def log(self, line: str) -> None:
        self.lines.append(line)

    def report(self, progress: Progress) -> None:
        self.reports.append(progress)

    def count(self, done: int, total: int) -> None:
        """``done`` of ``total`` steps are done (the latest pair is shown)."""
        self.counted = (done, total)


Job = Callable[[Feed], Any]


class _Ended(QObject):
    """What a task says when it ends; made on the GUI thread, so its signals arrive there."""

    returned = Signal(object)
    errored = Signal(object)


class _Task(QRunnable):
    """``job(feed)`` run once in Qt's thread pool."""

    def __init__(self, job: Job, feed: Feed) -> None:
        super().__init__()
        self.setAutoDelete(False)  # the runner holds the task until its end is signalled
        self.job, self.feed = job, feed
        self.ended = _Ended()

    def run(self) -> None:
        try:
            value = self.job(self.feed)
        except BaseException as error:  # handed to the GUI thread: failed or cancelled
            self.ended.errored.emit(error)
        else:
            self.ended.returned.emit(value)


class JobRunner(QObject):
    """One job at a time; ``name`` says which runs (or ran last).  Signals arrive on the GUI thread:

    log_lines(list[str])      a batch of new log lines
    progress(list[Progress])  a batch of progress reports
    counted(int, int)         steps done, steps to do
    elapsed(float)            seconds since start, every drain
    finished(object)          what the job returned (a protection run also returns after a cancel)
    cancelled()               the job raised one of the exceptions it is cancelled by
    failed(BaseException)     the job raised anything else
    ended()                   after any of the three, once their slots have run
    """

    log_lines = Signal(list)
    progress = Signal(list)
    counted = Signal(int, int)
    elapsed = Signal(float)
    finished = Signal(object)
    cancelled = Signal()
    failed = Signal(object)
    ended = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.name = ""
        self._feed = Feed()
        self._cancelled_by: tuple[type[BaseException], ...] = ()
        self._worker: _Task | None = None
        self._started = 0.0
        self._timer = QTimer(self)
        self._timer.setInterval(DRAIN_INTERVAL_MS)
        self._timer.timeout.connect(self._drain)

    @property
    def running(self) -> bool:
        return self._worker is not None

    def start(self, name: str, job: Job, cancelled_by: tuple[type[BaseException], ...] = ()) -> None:
        """Run ``job(feed)`` in the background; an exception of a type in ``cancelled_by`` ends it
        as cancelled rather than failed."""
        if self.running:
            raise RuntimeError(f"a job ({self.name}) is already running")
        self.name = name
        self._feed = feed = Feed()
        self._cancelled_by = cancelled_by
        task = _Task(job, feed)
        task.ended.returned.connect(self._returned)
        task.ended.errored.connect(self._errored)
        self._worker = task
        self._started = time.perf_counter()
        self._timer.start()
        QThreadPool.globalInstance().start(task)

    def wait(self) -> None:
        """Run the event loop until the job (and any job its end starts) has ended: a caller that
        needs the outcome (a script, a test, the self-test) waits without freezing the window."""
        while self.running:
            loop = QEventLoop()
            self.ended.connect(loop.quit)
            loop.exec()
            self.ended.disconnect(loop.quit)

    def cancel(self) -> None:
        """Ask the job to stop; finished or cancelled arrives once it has."""
        self._feed.stop.set()

    def _drain(self) -> None:
        feed = self._feed
        if feed.lines:
            self.log_lines.emit([feed.lines.popleft() for _ in range(len(feed.lines))])
        if feed.reports:
            self.progress.emit([feed.reports.popleft() for _ in range(len(feed.reports))])
        if feed.counted is not None:
            self.counted.emit(*feed.counted)
        if self.running:
            self.elapsed.emit(time.perf_counter() - self._started)

    def _done(self) -> None:
        self._timer.stop()
        self._worker = None
        self._drain()

    def _returned(self, value: Any) -> None:
        self._done()
        self.finished.emit(value)
        self.ended.emit()

    def _errored(self, error: BaseException) -> None:
        self._done()
        if isinstance(error, self._cancelled_by):
            self.cancelled.emit()
        else:
            self.failed.emit(error)
        self.ended.emit()


def protection_job(problem: CTAProblem, request: ProtectionRequest, solve: Solve = engine_solve) -> Job:
    """Run ``request`` on ``problem`` (ctadesk.app.protect: widening, preserving relations, the
    method, the published precision) with every core but one unless the request names a number;
    returns the Protection, also after a cancel (the best table found so far)."""
    request = request.replace(threads=request.threads or SOLVER_THREADS)

    def run(feed: Feed) -> Protection:
        return protect(problem, request, on_log=feed.log, on_progress=feed.report, stop=feed.stop, solve=solve)

    return run


def audit_job(session: Session, knowledge: AttackerKnowledge | None = None) -> Job:
    """Audit the session's protected table under ``knowledge`` (None: the assumptions of a CTA
    release, Session.audit); counts interval ends; cancelled by AuditCancelled.  The caller
    keeps the table unchanged until the runner signals."""

    def run(feed: Feed) -> AuditResult:
        return session.audit(knowledge, AuditOptions(stop=feed.stop, on_progress=feed.count))

    return run


#: reads (or makes) a project, in the job's thread
Reader = Callable[[], Project]
#: given why reading failed, what reads again once the user has answered a question (None: it failed)
Retry = Callable[[BaseException], Reader | None]


@dataclasses.dataclass(frozen=True)
class Loading:
    """A table being read or made in the background (or what comes before it: the columns of a
    microdata file): what the window says meanwhile (``doing``) and on failure (``failure``),
    what reads, what shows what was read on the GUI thread (``place``) and what may read again
    after a failure (``retry``)."""

    doing: str
    failure: str
    read: Callable[[], Any]
    place: Callable[[Any], None]
    retry: Retry | None = None


def generated_project(spec: GeneratorSpec) -> Project:
    """The project of a generated table (ctadesk.engine.table.generate), its sensitive cells
    flagged by the generator."""
    structure, problem = generate_table(spec)
    project = Project.from_problem(problem, structure)
    project.flagged_by[project.sensitive] = "generator"
    return project


def export_job(session: Session, kind: str, path: str | Path) -> Job:
    """Write export ``kind`` (ctadesk.app.formats.exports) of the session's project to ``path``;
    the internal workbook with the session's audit, if one was run on this result.  The caller
    keeps the table unchanged until the runner signals."""
    project, audit = session.project, session.last_audit

    def run(feed: Feed) -> Any:
        if kind == "internal":
            return files.export_excel(path, project, internal=True, audit=audit)
        return export_of(kind).writer()(path, project)

    return run


def with_quality(job: Job, measured: Callable[[Any], tuple[Project, CTAResult | None]],
                 keep: Callable[[CTAResult, QualityReport | None], None]) -> Job:
    """``job``, which also computes the quality report of the result it came to: ``measured(value)``
    names the project and the result (ctadesk.app.files.project_quality), and ``keep(result,
    report)`` is called with them in the job's thread before it returns what ``job`` returned
    (the runner's finished signal comes after).  About a second on a 300 x 350 table, which the
    window would otherwise spend showing the result."""

    def run(feed: Feed) -> Any:
        value = job(feed)
        project, result = measured(value)
        if result is not None:
            keep(result, files.project_quality(project, result))
        return value

    return run


#: the weights a table's advice before a run is worked out for: the table's own, or one weight for all
#: (unit weights, and any choice other than the table's or 1/value)
TABLE_WEIGHTS, UNIT_WEIGHTS = "table", "unit"


def weight_advice(project: Project) -> dict[str, WeightAdvice | None]:
    """The advice before a run on ``project`` (ctadesk.app.weight_advice.before_run) under its own
    weights and under unit weights, whichever the model panel comes to show: worked out in a
    load job's thread (on a 1000 x 1000 table a few tens of milliseconds the window would hold)."""
    label = project.structure.cell_label
    return {TABLE_WEIGHTS: before_run(project.values, project.weights, label),
            UNIT_WEIGHTS: before_run(project.values, np.ones(1), label)}


def with_advice(job: Job, keep: Callable[[Project, dict[str, WeightAdvice | None]], None]) -> Job:
    """``job``, which also works out the weight advice (weight_advice) of the project it read or
    made, if it is one, and hands it to ``keep`` in the job's thread before returning."""

    def run(feed: Feed) -> Any:
        value = job(feed)
        if isinstance(value, Project) and value.result is None:
            keep(value, weight_advice(value))
        return value

    return run


#: what an audit job is cancelled by (JobRunner.start's cancelled_by)
AUDIT_CANCELLED = (AuditCancelled,)


def available_methods() -> list[str]:
    """The methods a protection job can run: ctadesk.engine.methods.METHODS, in its order."""
    return list(METHODS)
