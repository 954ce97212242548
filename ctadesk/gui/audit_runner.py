"""Run a disclosure audit (Session.audit, ctadesk.engine.audit) off the GUI thread (superqt
worker, STYLE.md §4), cancellable through the engine's stop event, with its progress polled
every 100 ms (the engine reports from its own thread or process pool)."""

from __future__ import annotations

import threading
import time

from PySide6.QtCore import QObject, QTimer, Signal
from superqt.utils import create_worker

from ctadesk.app.session import Session
from ctadesk.engine.audit import AttackerKnowledge, AuditCancelled, AuditOptions, AuditResult

POLL_INTERVAL_MS = 100


class AuditRunner(QObject):
    """One audit at a time.  Signals arrive on the GUI thread:

    progress(int, int)      interval ends done, ends to do
    elapsed(float)          seconds since start, every poll
    finished(AuditResult)   the audit of the session's protected table
    cancelled()             the user's cancel reached the engine
    failed(BaseException)   the audit raised (the table is unchanged)
    """

    progress = Signal(int, int)
    elapsed = Signal(float)
    finished = Signal(object)
    cancelled = Signal()
    failed = Signal(object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._stop = threading.Event()
        self._done_total: tuple[int, int] | None = None
        self._worker = None
        self._started = 0.0
        self._timer = QTimer(self)
        self._timer.setInterval(POLL_INTERVAL_MS)
        self._timer.timeout.connect(self._poll)

    @property
    def running(self) -> bool:
        return self._worker is not None

    def start(self, session: Session, knowledge: AttackerKnowledge | None = None) -> None:
        """Audit the session's protected table in the background under ``knowledge`` (None: the
        assumptions of a CTA release).  The caller keeps the table unchanged until a signal comes."""
        if self.running:
            raise RuntimeError("an audit is already running")
        self._stop = threading.Event()
        self._done_total = None

        def report(done: int, total: int) -> None:
            self._done_total = (done, total)

        options = AuditOptions(stop=self._stop, on_progress=report)
        worker = create_worker(session.audit, knowledge, options, _start_thread=False, _ignore_errors=True)
        worker.returned.connect(self._returned)
        worker.errored.connect(self._errored)
        self._worker = worker
        self._started = time.perf_counter()
        self._timer.start()
        worker.start()

    def cancel(self) -> None:
        """Ask the engine to stop; cancelled arrives once it has."""
        self._stop.set()

    def _poll(self) -> None:
        if self._done_total is not None:
            self.progress.emit(*self._done_total)
        if self.running:
            self.elapsed.emit(time.perf_counter() - self._started)

    def _done(self) -> None:
        self._timer.stop()
        self._poll()
        self._worker = None

    def _returned(self, result: AuditResult) -> None:
        self._done()
        self.finished.emit(result)

    def _errored(self, error: BaseException) -> None:
        self._done()
        if isinstance(error, AuditCancelled):
            self.cancelled.emit()
        else:
            self.failed.emit(error)
