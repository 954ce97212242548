"""A MIP run the caller stops waiting for (engine/solvers/highs.py): a KeyboardInterrupt while
waiting ends it at HiGHS's next poll, and a program ending through end_process does not wait
for one still running."""

import _thread
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ctadesk.engine.table.generate import cox_table
from ctadesk.engine.result import SolveOptions
from ctadesk.engine.solvers import highs
from ctadesk.engine.solvers.milp import milp_model

ROOT = Path(__file__).resolve().parents[3]
#: hang guard only: a run nobody interrupts goes on for hours
HANG_GUARD = 60.0


def test_a_keyboard_interrupt_while_waiting_for_a_mip_interrupts_the_run():
    """Before, the run went on in its thread to its time limit (here none), and the interpreter
    waited for it at exit."""
    _, problem = cox_table((20, 20, 20), seed=1)
    model, _, _ = milp_model(problem, SolveOptions())
    interrupted: list[bool] = []

    def interrupt_the_caller(progress) -> None:
        if not interrupted:
            interrupted.append(True)
            _thread.interrupt_main()

    left_before = set(highs._LEFT_RUNNING)
    with pytest.raises(KeyboardInterrupt):
        highs.solve_model(model, SolveOptions(threads=1, on_progress=interrupt_the_caller))
    left = set(highs._LEFT_RUNNING) - left_before
    assert len(left) == 1
    run = left.pop()
    run.join(HANG_GUARD)
    assert not run.is_alive()


def test_end_process_does_not_wait_for_a_run_left_running():
    """A thread left running (as a MIP inside a long cut-separation round is) would hold the
    interpreter at exit for EXIT_WAIT; end_process leaves at once with the status and the output."""
    script = textwrap.dedent("""
        import threading, time
        from ctadesk.engine.solvers import highs
        run = threading.Thread(target=time.sleep, args=(3600,), daemon=True)
        run.start()
        highs._LEFT_RUNNING.add(run)
        print("the table", end="")
        highs.end_process(3)
    """)
    finished = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT,
                              timeout=HANG_GUARD)
    assert finished.returncode == 3, finished.stderr
    assert finished.stdout == "the table"
