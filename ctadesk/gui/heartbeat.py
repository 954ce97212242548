"""How long the GUI thread stops answering: a QTimer ticking every 10 ms on it, and the longest
gap between two ticks while an action runs.

A window is smooth when its event loop never waits long: work that holds the GUI thread over
~100 ms is felt as a freeze (a click, a repaint, a typed key waits for it).  The walkthrough
(docs/walkthrough.py) and the tests (tests/gui/test_stalls.py) measure each action with one:

    meter = StallMeter()
    with meter.action("open the 300 x 350 result"):
        window.open_path(path)        # waits in the event loop while the worker reads the file
    meter.stalls                       # {"open the 300 x 350 result": 0.043, ...} in seconds

The time an action's own call holds the thread counts: the gap runs from the last tick before
it to the first tick after it.

To find what holds the thread, pass ``trace`` (an open file): every tick arms faulthandler's
watchdog again, so when the thread misses ticks for ``trace_after`` seconds the watchdog (a C
thread, which needs no GIL) writes every thread's Python stack there, again each such period
while the stall lasts: the GUI thread's own work, or a worker's call that holds the GIL.
"""

from __future__ import annotations

import contextlib
import faulthandler
import time
from collections.abc import Iterator
from typing import TextIO

from PySide6.QtCore import QObject, Qt, QTimer

#: the heartbeat's period
TICK_MS = 10
#: the longest stall a window may have (the walkthrough's limit)
STALL_LIMIT = 0.100


class StallMeter(QObject):
    """A 10 ms heartbeat on the GUI thread; ``stalls`` maps each measured action to the longest
    time (s) the thread went without a tick while it ran."""

    def __init__(self, parent: QObject | None = None, tick_ms: int = TICK_MS, trace: TextIO | None = None,
                 trace_after: float = STALL_LIMIT / 2) -> None:
        super().__init__(parent)
        self._trace = trace
        self._trace_after = trace_after
        self.stalls: dict[str, float] = {}
        self._name = ""
        self._last = time.perf_counter()
        self._longest = 0.0
        self._timer = QTimer(self)
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.setInterval(tick_ms)
        self._timer.timeout.connect(self._tick)

    def _tick(self) -> None:
        now = time.perf_counter()
        self._longest = max(self._longest, now - self._last)
        self._last = now
        if self._trace is not None:
            faulthandler.dump_traceback_later(self._trace_after, repeat=True, file=self._trace)

    def begin(self, name: str) -> None:
        """Start measuring the action ``name`` (end() stops)."""
        self._name = name
        if self._trace is not None:
            self._trace.write(f"\n--- {name}\n")
            self._trace.flush()
        self._last = time.perf_counter()
        self._longest = 0.0
        self._timer.start()

    def end(self) -> float:
        """Stop measuring; the action's longest stall (s), also kept in ``stalls``."""
        self._tick()
        self._timer.stop()
        if self._trace is not None:
            faulthandler.cancel_dump_traceback_later()
        self.stalls[self._name] = max(self.stalls.get(self._name, 0.0), self._longest)
        return self._longest

    @contextlib.contextmanager
    def action(self, name: str) -> Iterator[None]:
        """Measure the longest stall while the block runs (the block waits in the event loop for
        what it started)."""
        self.begin(name)
        try:
            yield
        finally:
            self.end()

    def over(self, limit: float = STALL_LIMIT) -> dict[str, float]:
        """The actions whose longest stall exceeded ``limit`` seconds."""
        return {name: stall for name, stall in self.stalls.items() if stall > limit}
