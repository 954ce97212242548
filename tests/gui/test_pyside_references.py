"""The installed PySide6 keeps the reference counts of None and True.

PySide6 6.12.0 on Python 3.11 returns None from void methods and True from
Signal.emit without taking a reference; after some thousands of calls the
interpreter aborts ("none_dealloc").  pyproject excludes that release; this test
fails if such a build is installed.  It runs in a child interpreter so an abort
cannot take the test run down with it.
"""

import subprocess
import sys
import textwrap

PROBE = textwrap.dedent("""
    import sys
    from PySide6.QtCore import QCoreApplication, QObject, Signal

    class Probe(QObject):
        fired = Signal()

    app = QCoreApplication([])
    probe = Probe()
    probe.fired.connect(lambda: None)
    none_before, true_before = sys.getrefcount(None), sys.getrefcount(True)
    for _ in range(1000):
        probe.setObjectName("probe")
        probe.fired.emit()
    print(sys.getrefcount(None) - none_before, sys.getrefcount(True) - true_before)
""")


def test_a_thousand_void_calls_and_emits_do_not_drop_references_to_none_or_true():
    run = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, f"the probe interpreter died: {run.stderr[-500:]}"
    none_change, true_change = (int(word) for word in run.stdout.split())
    # a build with the bug loses 1000 references to each; normal churn is a few
    assert none_change > -100, f"None lost {-none_change} references"
    assert true_change > -100, f"True lost {-true_change} references"
