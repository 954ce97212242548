"""The window keeps answering while a MILP runs in the worker.

The time limit on a Cox 25 x 25 table, which HiGHS does not finish in 60 s,
keeps the job running for all of it.  The default run checks behaviour only
(the window's event loop runs while the job does); how long the loop ever
waits is a wall-clock figure, checked under the ``timing`` marker
(``pytest -m timing``), which a loaded machine may miss.
"""

import time

import numpy as np
import pytest
from PySide6.QtCore import QTimer

from ctadesk.app.job import PUBLISH_SHARE
from ctadesk.engine.result import Status
from ctadesk.engine.table.generate import GeneratorSpec


def _start_milp(window, seconds: int) -> None:
    window.new_generated(GeneratorSpec(shape=(25, 25), seed=0))
    window.model_panel.method.setCurrentIndex(window.model_panel.method.findData("milp"))
    window.model_panel.time_limit.setValue(seconds)


def test_the_event_loop_runs_and_the_log_grows_while_a_milp_runs(qtbot, window):
    _start_milp(window, 5)
    seen: list[tuple[bool, int]] = []
    timer = QTimer()
    timer.setInterval(50)
    timer.timeout.connect(lambda: seen.append((window.runner.running, window.log_pane.blockCount())))
    timer.start()
    with qtbot.waitSignal(window.runner.finished, timeout=60_000):
        window.protect()
    timer.stop()
    during = [blocks for running, blocks in seen if running]
    assert len(during) >= 2, "the GUI thread did not run while the job did"
    assert during[-1] > during[0], "the log did not reach the window while the job ran"
    result = window.project.result
    assert result.status is Status.TIME_LIMIT and result.protected


@pytest.mark.timing
def test_a_10_ms_timer_never_waits_more_than_100_ms_during_a_20_second_milp(qtbot, window):
    _start_milp(window, 20)
    ticks: list[float] = []
    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    timer.start()
    with qtbot.waitSignal(window.runner.finished, timeout=40_000):
        window.protect()
    timer.stop()
    result = window.project.result
    assert result.status is Status.TIME_LIMIT and result.protected
    assert window.log_pane.blockCount() > 10 and window.progress_plot.points >= 1
    gaps = np.diff(ticks)
    # the whole job keeps to its 20 s; the MILP has all of it but the share kept for publication
    assert ticks[-1] - ticks[0] > 20 * (1 - PUBLISH_SHARE) - 0.5
    print(f"longest wait {1000 * gaps.max():.0f} ms over {ticks[-1] - ticks[0]:.1f} s")
    assert gaps.max() < 0.100, f"longest wait {1000 * gaps.max():.0f} ms"
