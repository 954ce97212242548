"""The window's thread stays free while a table is read, generated or exported (issue 32).

The default run checks behaviour: the work runs in the job runner while the event loop goes on,
the start needs Qt alone, and the heartbeat meter sees a held thread.  How long the thread is
ever held is a wall-clock figure, checked under the ``timing`` marker (``pytest -m timing``):
the issue's actions one by one, and the whole walkthrough (docs/walkthrough.py).
"""

import gc
import subprocess
import sys
import time
from pathlib import Path

import pytest
from PySide6.QtCore import QTimer

from ctadesk.app import ProtectionRequest
from ctadesk.app.session import Session
from ctadesk.engine.table.generate import GeneratorSpec
from ctadesk.gui.heartbeat import STALL_LIMIT, StallMeter
from ctadesk.gui.jobs import generated_project
from ctadesk.gui.user_guide import show_user_guide

ROOT = Path(__file__).resolve().parents[2]
#: a table whose generation takes the worker a good while (about 0.5 s on a quiet machine)
LARGE = GeneratorSpec(shape=(600, 600), seed=5)


def _ticks_while_running(qtbot, window, start) -> list[bool]:
    """Start a job with ``start()``; whether it ran, at each 10 ms tick until it ended."""
    seen: list[bool] = []
    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(lambda: seen.append(window.runner.running))
    timer.start()
    with qtbot.waitSignal(window.runner.ended, timeout=120_000):
        assert start()
    timer.stop()
    return seen


def test_a_table_is_generated_in_the_worker_while_the_event_loop_runs(qtbot, window):
    before = window.project
    seen = _ticks_while_running(qtbot, window, lambda: window.new_generated(LARGE, wait=False))
    assert seen.count(True) >= 2, "the GUI thread did not run while the table was generated"
    assert window.project is not before and window.project.structure.shape == (601, 601)


def test_while_a_table_is_read_the_table_actions_wait_and_the_old_table_stays(qtbot, window, tmp_path):
    path = tmp_path / "large.ctaproj"
    Session(generated_project(LARGE)).save(path)
    before = window.project
    assert window.open_path(path, wait=False)
    assert window.runner.running and window.project is before
    assert not window.open_button.isEnabled() and not window.protect_button.isEnabled()
    assert not window.cancel_button.isEnabled()  # reading cannot be cancelled: Cancel is not offered
    assert not window.new_generated(wait=False)  # one job at a time: said on the status bar
    window.runner.wait()
    assert window.project is not before and window.path == path and window.open_button.isEnabled()


def test_an_export_is_written_in_the_worker_and_said_when_done(qtbot, window, tmp_path):
    window.new_generated(GeneratorSpec(shape=(30, 40), seed=2))
    path = tmp_path / "table.jj"
    assert window.export_to("jj", path, wait=False)
    assert window.runner.running and window.runner.name == "export" and not window.export_button.isEnabled()
    window.runner.wait()
    assert path.stat().st_size > 0 and window.export_button.isEnabled()
    assert str(path) in window.statusBar().currentMessage()


def test_a_result_shown_after_loading_keeps_the_quality_report_its_job_computed(qtbot, window, tmp_path):
    session = Session(generated_project(GeneratorSpec(shape=(12, 10), seed=4)))
    session.protect(ProtectionRequest(method="lp"))
    session.save(tmp_path / "protected.ctaproj")
    assert window.open_path(tmp_path / "protected.ctaproj")
    result, report = window._quality
    assert result is window.project.result and report is not None
    assert window.results.quality.report is report


def test_a_failed_read_keeps_the_table_and_says_why(qtbot, window, tmp_path):
    path = tmp_path / "broken.jj"
    path.write_text("not a JJ file\n")
    before = window.project
    assert not window.open_path(path)
    assert window.project is before and "broken.jj" not in window.windowTitle()
    assert window.last_error and window.open_button.isEnabled()


def test_the_start_needs_qt_alone_and_the_window_modules_load_later():
    """gui/app.py imports no numerical library: the start screen is up before they load."""
    probe = ("import sys, ctadesk.gui.app; "
             "print(sorted(m for m in ('numpy', 'scipy', 'ctadesk.gui.main_window', 'superqt') if m in sys.modules))")
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"


def test_the_window_built_a_part_at_a_time_is_the_window_built_at_once(qtbot, tmp_path):
    """run_app builds the window one part per turn of the event loop (MainWindow(in_steps=True)),
    so the start never holds the thread for the whole window: the parts add up to the same window."""
    from PySide6.QtCore import QObject, QSettings
    from PySide6.QtWidgets import QDockWidget

    from ctadesk.gui.main_window import MainWindow

    def names(window) -> list[str]:
        return sorted(child.objectName() for child in window.findChildren(QObject) if child.objectName())

    whole = MainWindow(QSettings(str(tmp_path / "whole.ini"), QSettings.Format.IniFormat))
    stepped = MainWindow(QSettings(str(tmp_path / "stepped.ini"), QSettings.Format.IniFormat), in_steps=True)
    qtbot.addWidget(whole)
    qtbot.addWidget(stepped)
    assert not stepped.findChildren(QDockWidget)
    steps = 0
    while stepped.build_step():
        steps += 1
    assert steps >= 3 and not stepped.build_step()
    assert names(stepped) == names(whole)
    whole.ask_before_closing = stepped.ask_before_closing = False


def test_the_meter_counts_a_held_thread_as_a_stall(qtbot):
    meter = StallMeter()
    with meter.action("held"):
        qtbot.wait(30)
        time.sleep(0.15)  # the GUI thread held: no tick can come
        qtbot.wait(30)
    assert meter.stalls["held"] >= 0.15
    assert meter.over(0.149) == {"held": meter.stalls["held"]}


def test_a_traced_stall_names_the_function_that_held_the_thread(qtbot, tmp_path):
    trace = (tmp_path / "stalls.txt").open("w")
    meter = StallMeter(trace=trace, trace_after=0.05)

    def holds_the_thread() -> None:
        time.sleep(0.2)

    with meter.action("held"):
        qtbot.wait(30)
        holds_the_thread()
        qtbot.wait(30)
    trace.close()
    text = (tmp_path / "stalls.txt").read_text()
    assert text.startswith("\n--- held\n") and "in holds_the_thread" in text  # the GUI thread's stack


def test_the_user_guide_is_on_screen_before_its_page_is_laid_out(qtbot, window):
    guide = show_user_guide(window, "protect.md")
    assert guide.isVisible() and guide.current_page() is None
    qtbot.waitUntil(lambda: guide.current_page() is not None)
    assert guide.current_page().path.name == "protect.md"


# ------------------------------------------------------------------ timing
@pytest.mark.timing
def test_the_issues_actions_never_hold_the_window_over_100_ms(qtbot, window, tmp_path):
    project = tmp_path / "t300x350.ctaproj"
    session = Session(generated_project(GeneratorSpec(shape=(300, 350), seed=2)))
    session.protect(ProtectionRequest(method="lp", time_limit=120))
    session.save(project)
    meter = StallMeter()
    gc.freeze()  # as run_app does once its window shows: full collections leave the start's objects out
    actions = {"generate 1000 x 1000": lambda: window.new_generated(GeneratorSpec(shape=(1000, 1000), seed=1)),
               "open the protected 300 x 350 project": lambda: window.open_path(project),
               "export its release": lambda: window.export_to("release", tmp_path / "release.xlsx"),
               "open the user guide": lambda: show_user_guide(window)}
    try:
        for name, action in actions.items():
            with meter.action(name):
                assert action()
                window.runner.wait()
                qtbot.wait(300)
    finally:
        gc.unfreeze()
    print({name: f"{1000 * stall:.0f} ms" for name, stall in meter.stalls.items()})
    assert not meter.over(STALL_LIMIT)


@pytest.mark.timing
def test_the_walkthrough_finds_no_stall_over_100_ms():
    run = subprocess.run([sys.executable, str(ROOT / "docs" / "walkthrough.py"), "--quick"], capture_output=True,
                         text=True, cwd=ROOT, timeout=1800)
    print(run.stdout)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
