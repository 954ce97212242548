"""A guard against the reference counting of PySide6 6.12.0 on Python 3.11.

That build hands back ``None`` from every void method (``setText``, ``show``,
``processEvents``, …) and ``True`` from ``Signal.emit`` without taking a
reference, as if they were immortal (they are from Python 3.12 on).  On 3.11
each call lowers their count by one, and after some thousands of calls the
interpreter aborts with "none_dealloc: deallocating None" or "bool_dealloc".
guard_singleton_refcounts() measures whether this PySide6 does that and, if
so, gives None, True and False a reference count no run can use up — what
Python 3.12 does for them anyway.
"""

from __future__ import annotations

import ctypes
import sys

from PySide6.QtCore import QObject, Signal

#: references added to None, True and False (a run would need 2**40 calls to spend them)
RESERVE = 1 << 40


class _Probe(QObject):
    fired = Signal()


def pyside_drops_references() -> bool:
    """True when void methods or emit() of this PySide6 lower the count of None or True."""
    probe = _Probe()
    none_before, true_before = sys.getrefcount(None), sys.getrefcount(True)
    for _ in range(10):
        probe.setObjectName("probe")
        probe.fired.emit()
    dropped = sys.getrefcount(None) < none_before or sys.getrefcount(True) < true_before
    del probe
    return dropped


def guard_singleton_refcounts() -> bool:
    """Give None, True and False a huge reference count if PySide6 needs it; returns whether it did."""
    if sys.version_info >= (3, 12) or sys.getrefcount(None) > RESERVE or not pyside_drops_references():
        return False
    for singleton in (None, True, False):
        ctypes.c_ssize_t.from_address(id(singleton)).value += RESERVE
    return True
