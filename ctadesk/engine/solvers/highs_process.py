"""What HiGHS keeps per process and per thread: the banner of its first object, its pools of threads.

- HiGHS 1.16 prints a banner on standard output when the process's first ``Highs`` is built,
  before any option can silence it; ctadesk's standard output may be a table (``-o -``) or a
  console transcript, so ``new_highs`` builds that first object with file descriptor 1 silenced.
- HiGHS runs a ``Highs`` on the pool of worker threads of the thread that calls ``run`` (one
  pool per calling thread, started by its first run); from 1.16 on, a run whose ``threads``
  option names another size than that pool's fails ("Not Set") instead of using it (the GUI's
  worker asks for one thread fewer than the machine has, after a default run started its pool
  with all of them).  ``use_threads`` restarts the calling thread's pool at the size asked for;
  it is free to, since that thread is not inside a run.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import sys
import threading

import highspy

_lock = threading.Lock()
_built = False
#: per calling thread: the size its pool was last started with (None: HiGHS's own default)
_pool = threading.local()


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
            _flush_c_stdout()
            os.dup2(saved, 1)
            os.close(saved)
            os.close(null)


def _flush_c_stdout() -> None:
    """The banner may still sit in C's buffer; where the C library cannot be loaded by name
    (Windows), there is nothing to flush through it."""
    with contextlib.suppress(OSError, TypeError, AttributeError):
        ctypes.CDLL(None).fflush(None)


def use_threads(h: highspy.Highs, threads: int | None) -> None:
    """Before ``h.run()`` in the calling thread: ``threads`` None runs on its pool as it is;
    another count restarts the pool at that size where it has another (module docstring)."""
    if threads is None:
        h.setOptionValue("threads", 0)
        return
    if getattr(_pool, "size", None) != threads:
        highspy.Highs.resetGlobalScheduler(True)    # the calling thread's pool only
        _pool.size = threads
    h.setOptionValue("threads", int(threads))
