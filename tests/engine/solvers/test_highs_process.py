"""What HiGHS keeps per process and per thread (engine/solvers/highs_process.py): its banner stays
off standard output, and runs asking for different numbers of threads all solve."""

import subprocess
import sys
import threading
from pathlib import Path

from ctadesk.engine.methods import solve
from ctadesk.engine.result import SolveOptions
from ctadesk.engine.table.generate import cox_table

ROOT = Path(__file__).resolve().parents[3]


def test_runs_asking_for_other_thread_counts_one_after_another_all_solve():
    _, problem = cox_table((5, 6), seed=2)
    for threads in (None, 1, 2, None, 2, 1, 1):
        result = solve(problem, "lp", SolveOptions(threads=threads))
        assert result.protected, (threads, result.message)


def test_threads_solving_side_by_side_with_other_thread_counts_all_solve():
    """Each calling thread has a pool of its own: restarting one never disturbs a run in another."""
    _, problem = cox_table((12, 14), seed=3)
    results: dict[int, list] = {1: [], 2: []}

    def solve_four_times(threads: int) -> None:
        for _ in range(4):
            results[threads].append(solve(problem, "lp", SolveOptions(threads=threads)))

    workers = [threading.Thread(target=solve_four_times, args=(threads,)) for threads in results]
    for worker in workers:
        worker.start()
    in_main = [solve(problem, "lp", SolveOptions(threads=threads)) for threads in (2, 1, 2)]
    for worker in workers:
        worker.join()
    for result in [*results[1], *results[2], *in_main]:
        assert result.protected, result.message


def test_the_command_line_prints_no_solver_banner():
    printed = subprocess.run([sys.executable, "-m", "ctadesk", "solve", str(ROOT / "sample_data" / "thesis_3x4.jj"),
                              "--method", "lp"], capture_output=True, text=True, cwd=ROOT, check=True).stdout
    assert printed.startswith("lp: ") and "HiGHS" not in printed, printed
