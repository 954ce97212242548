"""A guard against a reference-count bug of PySide6 6.12.0 on Python < 3.12.

There ``SignalInstance.emit()`` returns ``True`` without taking a reference,
so every signal emitted from Python (ours and pyqtgraph's, which emits on every
redraw and mouse move) lowers the reference count of ``True`` by one; after a
few thousand emissions the interpreter aborts with "bool_dealloc: deallocating
True or False".  guard_signal_emit() measures whether this PySide6 has the
bug and, if so, wraps ``emit`` to add the missing reference.
"""

from __future__ import annotations

import ctypes
import sys

from PySide6.QtCore import QObject, Signal, SignalInstance


class _Probe(QObject):
    fired = Signal()


def emit_loses_a_reference() -> bool:
    """True when emitting a signal from Python lowers the reference count of its return value."""
    probe = _Probe()
    before = sys.getrefcount(True)
    for _ in range(10):
        probe.fired.emit()
    return sys.getrefcount(True) < before


def guard_signal_emit() -> bool:
    """Wrap SignalInstance.emit when this PySide6 needs it; returns whether it did."""
    if getattr(SignalInstance.emit, "_ctadesk_guard", False) or not emit_loses_a_reference():
        return False
    emit = SignalInstance.emit
    add_reference = ctypes.pythonapi.Py_IncRef
    add_reference.argtypes = [ctypes.py_object]

    def guarded_emit(self, *args):
        result = emit(self, *args)
        add_reference(result)
        return result

    guarded_emit._ctadesk_guard = True
    SignalInstance.emit = guarded_emit
    # give back the references the probe took
    for _ in range(10):
        add_reference(True)
    return True
