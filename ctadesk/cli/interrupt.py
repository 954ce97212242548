"""Ctrl-C and SIGTERM during a command that runs a protection (issue 29).

A command that takes ``args.stop`` (it declares ``stoppable=True`` in its parser's defaults)
runs with SIGINT and SIGTERM handled here: the first signal sets ``args.stop``, the event the
protection run watches (ctadesk.app.job.protect), so the run ends with the best table it has
and the command writes it as usual; the command line then says in one line that it was
interrupted and exits with EXIT_INTERRUPTED.  A second signal raises KeyboardInterrupt, for a
user who will not wait for the outputs.  Other commands keep Python's own handling (Ctrl-C
raises KeyboardInterrupt, which ctadesk.cli.main reports).

A SIGINT ignored when the process started (a job started in the background by a shell
without job control) stays ignored.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType

#: the exit status of a run ended by a signal, as shells report Ctrl-C (128 + SIGINT)
EXIT_INTERRUPTED = 130
#: the signals that stop a run
SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interruption:
    """The stop event of one command and the name of the first signal that set it."""

    def __init__(self, stop: threading.Event) -> None:
        self.stop = stop
        self.signal: str | None = None

    def handle(self, number: int, frame: FrameType | None) -> None:
        """The signal handler: the first signal stops the run, a second one stops the program."""
        if self.signal is not None:
            raise KeyboardInterrupt
        self.signal = signal.Signals(number).name
        self.stop.set()


@contextlib.contextmanager
def interruptible(stop: threading.Event) -> Iterator[Interruption]:
    """SIGINT and SIGTERM set ``stop`` while the block runs (module docstring); the handlers
    before it are restored after it.  Only the main thread may install handlers: elsewhere (a
    command run from a worker thread) the signals keep their handlers and ``stop`` stays the
    caller's to set."""
    interruption = Interruption(stop)
    if threading.current_thread() is not threading.main_thread():
        yield interruption
        return
    # a handler not installed from Python (None) could not be put back: left as it is
    replaced = {number: handler for number in SIGNALS
                if (handler := signal.getsignal(number)) not in (signal.SIG_IGN, None)}
    for number in replaced:
        signal.signal(number, interruption.handle)
    try:
        yield interruption
    finally:
        for number, handler in replaced.items():
            signal.signal(number, handler)


__all__ = ["EXIT_INTERRUPTED", "Interruption", "interruptible"]
