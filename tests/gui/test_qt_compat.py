import sys

from PySide6.QtCore import QObject, Signal

import ctadesk.gui  # noqa: F401  (installs the guard)


class Emitter(QObject):
    fired = Signal(object)


def test_emitting_signals_from_python_keeps_the_reference_count_of_true(qapp):
    emitter = Emitter()
    emitter.fired.connect(lambda value: None)
    before = sys.getrefcount(True)
    for _ in range(5000):
        emitter.fired.emit(1)
    assert sys.getrefcount(True) >= before
