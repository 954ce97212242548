"""Run one protection job (ctadesk.app.protect) off the GUI thread (superqt worker, STYLE.md §4) and feed its log and progress
to the GUI in batches.

The solver calls on_log/on_progress from its own thread thousands of times a
second; those only append to deques.  A QTimer on the GUI thread drains them
every 100 ms, so the window repaints at most ten times a second whatever the
solver prints (SOLVERS.md "highspy in a GUI worker").
"""

from __future__ import annotations

import collections
import os
import threading
import time

from PySide6.QtCore import QObject, QTimer, Signal
from superqt.utils import create_worker

from ctadesk.app import Protection, ProtectionRequest, protect
from ctadesk.app.job import Solve, engine_solve
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.result import Progress

DRAIN_INTERVAL_MS = 100
#: solver threads: every core but one, which stays with the window
SOLVER_THREADS = max(1, (os.cpu_count() or 2) - 1)


def available_methods() -> list[str]:
    """The methods of ctadesk.engine.methods.METHODS, in its order (empty while it is missing)."""
    try:
        from ctadesk.engine.methods import METHODS
    except ImportError:
        return []
    return list(METHODS)


class SolveRunner(QObject):
    """One solve at a time.  Signals arrive on the GUI thread:

    log_lines(list[str])      a batch of new log lines
    progress(list[Progress])  a batch of progress reports
    elapsed(float)            seconds since start, every drain
    finished(Protection)      the run's outcome (also after a cancel)
    failed(BaseException)     the solve raised
    """

    log_lines = Signal(list)
    progress = Signal(list)
    elapsed = Signal(float)
    finished = Signal(object)
    failed = Signal(object)

    def __init__(self, parent: QObject | None = None,
                 solve: Solve = engine_solve) -> None:
        super().__init__(parent)
        self._solve = solve
        self._lines: collections.deque[str] = collections.deque()
        self._reports: collections.deque[Progress] = collections.deque()
        self._stop = threading.Event()
        self._worker = None
        self._started = 0.0
        self._timer = QTimer(self)
        self._timer.setInterval(DRAIN_INTERVAL_MS)
        self._timer.timeout.connect(self._drain)

    @property
    def running(self) -> bool:
        return self._worker is not None

    def start(self, problem: CTAProblem, request: ProtectionRequest) -> None:
        """Run ``request`` on ``problem`` in the background (ctadesk.app.protect: widening,
        preserving relations, the method, the published precision)."""
        if self.running:
            raise RuntimeError("a solve is already running")
        self._stop = threading.Event()
        self._lines.clear()
        self._reports.clear()
        request = request.replace(threads=request.threads or SOLVER_THREADS)

        def run() -> Protection:
            return protect(problem, request, on_log=self._lines.append, on_progress=self._reports.append,
                           stop=self._stop, solve=self._solve)

        worker = create_worker(run, _start_thread=False, _ignore_errors=True)
        worker.returned.connect(self._returned)
        worker.errored.connect(self._errored)
        self._worker = worker
        self._started = time.perf_counter()
        self._timer.start()
        worker.start()

    def cancel(self) -> None:
        """Ask the solver to stop; finished still arrives, with the best table found so far."""
        self._stop.set()

    def _drain(self) -> None:
        if self._lines:
            batch = [self._lines.popleft() for _ in range(len(self._lines))]
            self.log_lines.emit(batch)
        if self._reports:
            self.progress.emit([self._reports.popleft() for _ in range(len(self._reports))])
        if self.running:
            self.elapsed.emit(time.perf_counter() - self._started)

    def _done(self) -> None:
        self._timer.stop()
        self._worker = None
        self._drain()

    def _returned(self, protection: Protection) -> None:
        self._done()
        self.finished.emit(protection)

    def _errored(self, error: BaseException) -> None:
        self._done()
        self.failed.emit(error)
