"""What HiGHS keeps once per process (engine/solvers/_highs_process.py): its banner stays off
standard output, and runs asking for different numbers of threads all solve."""

import subprocess
import sys
from pathlib import Path

import highspy

from ctadesk.engine.generate import cox_table
from ctadesk.engine.methods import solve
from ctadesk.engine.result import SolveOptions
from ctadesk.engine.solvers import _highs_process

ROOT = Path(__file__).resolve().parents[3]


def test_runs_asking_for_other_thread_counts_one_after_another_all_solve():
    _, problem = cox_table((5, 6), seed=2)
    for threads in (None, 1, 2, None, 2, 1, 1):
        result = solve(problem, "lp", SolveOptions(threads=threads))
        assert result.protected, (threads, result.message)


def test_a_run_meeting_a_busy_pool_of_another_size_uses_it_as_it_is():
    _, problem = cox_table((5, 6), seed=3)
    solve(problem, "lp", SolveOptions(threads=1))      # the pool now has one thread
    busy = highspy.Highs()
    _highs_process.enter(busy, 1)                      # as a MIP still running in its thread
    try:
        result = solve(problem, "lp", SolveOptions(threads=2))
    finally:
        _highs_process.leave()
    assert result.protected, result.message
    assert solve(problem, "lp", SolveOptions(threads=2)).protected   # free again: resized


def test_the_command_line_prints_no_solver_banner():
    printed = subprocess.run([sys.executable, "-m", "ctadesk", "solve", str(ROOT / "sample_data" / "thesis_3x4.jj"),
                              "--method", "lp"], capture_output=True, text=True, cwd=ROOT, check=True).stdout
    assert printed.startswith("lp: ") and "HiGHS" not in printed, printed
