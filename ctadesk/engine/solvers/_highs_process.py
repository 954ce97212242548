"""What HiGHS keeps once per process: the banner of its first object and its pool of threads.

- HiGHS 1.16 prints a banner on standard output when the process's first ``Highs`` is built,
  before any option can silence it; ctadesk's standard output may be a table (``-o -``) or a
  console transcript, so ``new_highs`` builds that first object with file descriptor 1 silenced.
- HiGHS runs every object on one pool of worker threads per process, sized by the run that starts
  it; from 1.16 on a run whose ``threads`` option names another size fails ("Not Set") instead of
  using the pool (the GUI asks for one thread fewer than the machine has, after a default run
  sized the pool to all of them).  ``running`` resizes the pool only while no other run is inside
  HiGHS; a run that meets a busy pool of another size uses it as it is.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import sys
import threading
from collections.abc import Iterator

import highspy

_lock = threading.Lock()
_built = False
#: runs inside HiGHS now, and the pool size ctadesk asked for last (None: HiGHS's own default)
_active = 0
_size: int | None = None


def new_highs() -> highspy.Highs:
    """A fresh ``Highs``; the process's first is built with standard output silenced (module docstring)."""
    global _built
    with _lock:
        if _built:
            return highspy.Highs()
        _built = True
        sys.stdout.flush()
        saved = os.dup(1)
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, 1)
            return highspy.Highs()
        finally:
            ctypes.CDLL(None).fflush(None)   # the banner may still sit in C's buffer
            os.dup2(saved, 1)
            os.close(saved)
            os.close(null)


def enter(h: highspy.Highs, threads: int | None) -> None:
    """Before ``h.run()`` in a thread of its own: the pool sized for ``threads`` where it is free
    to change (module docstring), and the run counted until that thread calls ``leave``."""
    global _active, _size
    with _lock:
        if threads is not None and threads != _size and _active == 0:
            highspy.Highs.resetGlobalScheduler(True)
            _size = threads
        h.setOptionValue("threads", int(threads) if threads is not None and threads == _size else 0)
        _active += 1


def leave() -> None:
    """A run counted by ``enter`` has left HiGHS."""
    global _active
    with _lock:
        _active -= 1


@contextlib.contextmanager
def running(h: highspy.Highs, threads: int | None = None) -> Iterator[None]:
    """Around ``h.run()``: ``enter`` and ``leave``; ``threads`` None uses the pool as it is."""
    enter(h, threads)
    try:
        yield
    finally:
        leave()
