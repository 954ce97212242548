"""Python's cyclic garbage collector paused while a reader builds the records of a large file.

A million-line CSV file becomes a million lists of fields, and CPython's collector runs a
collection every 700 new containers, a full one whenever the objects it has seen have grown by
a quarter (gc.get_threshold; the CPython developer's guide, "Garbage collector design"): here
the collections find nothing to free (lists of strings hold no cycles) and took 4.4 of the 5.7
s csv_kind spent on such a file, 3.9 of read_long_csv's 7.7 s (benchmarks/csv_read.py).  The collector is the
process's, so a reader that paused it leaves it enabled only if it was before it started.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic collector for the block (or the decorated function), then enable it again
    unless it was disabled before."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
