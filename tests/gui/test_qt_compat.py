import sys

from PySide6.QtCore import QObject, Signal


class Emitter(QObject):
    fired = Signal(object)


def test_void_calls_and_emits_cannot_use_up_the_references_of_none_and_true(qapp):
    import ctadesk.gui  # noqa: F401  (installs the guard when this PySide6 needs it)

    emitter = Emitter()
    emitter.fired.connect(lambda value: None)
    before = {name: sys.getrefcount(obj) for name, obj in (("None", None), ("True", True))}
    for _ in range(2000):
        emitter.setObjectName("x")
        emitter.fired.emit(1)
    for name, obj in (("None", None), ("True", True)):
        after = sys.getrefcount(obj)
        assert after >= before[name] or after > 10**9, f"{name}: {before[name]} -> {after} references"
