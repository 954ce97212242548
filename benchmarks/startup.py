"""Command start and JJ reading (issue 34): wall seconds of whole processes, median of --runs.

Printed side by side: a bare interpreter, `ctadesk --help`, `ctadesk solve --help` and a 3x4
solve (`ctadesk solve sample_data/thesis_3x4.jj`), each as overhead over the bare interpreter
and, for the solve, over the seconds the solve itself reports (target <= 0.3 s), with the
machine's load average when measured; and a Cox-recipe JJ file (cox_table(SHAPE, seed=1), written once to a
temporary folder) read by read_jj, less a bare `import ctadesk.io.jj`, in MB/s (target >= 100).

    .venv/bin/python benchmarks/startup.py                  # 1000x1000 (1 M cells, 55 MB)
    .venv/bin/python benchmarks/startup.py --shape 300x350 --runs 3
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_data" / "thesis_3x4.jj"


def wall(command: list[str], runs: int) -> float:
    """Median wall seconds of command run `runs` times (after one run not counted)."""
    return statistics.median(seconds for seconds, _ in timed(command, runs))


def timed(command: list[str], runs: int) -> list[tuple[float, str]]:
    """Wall seconds and standard output of each of `runs` runs of command (after one not counted)."""
    runs_done = []
    for _ in range(runs + 1):
        start = time.perf_counter()
        done = subprocess.run(command, check=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                              cwd=ROOT)
        runs_done.append((time.perf_counter() - start, done.stdout))
    return runs_done[1:]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shape", default="1000x1000", help="the JJ file's table (default 1000x1000)")
    parser.add_argument("--runs", type=int, default=5, help="runs of each command (default 5)")
    args = parser.parse_args()
    python = sys.executable
    bare = wall([python, "-c", "pass"], args.runs)
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; median of {args.runs} runs")
    print(f"{'':32s} {'wall s':>8s} {'overhead s':>11s}")
    print(f"{'python -c pass':32s} {bare:8.3f}")
    for name, command in (("ctadesk --help", ["--help"]), ("ctadesk solve --help", ["solve", "--help"])):
        seconds = wall([python, "-m", "ctadesk", *command], args.runs)
        print(f"{name:32s} {seconds:8.3f} {seconds - bare:11.3f}")
    # the solve's own seconds end its summary line ("milp: optimal, ..., 0.12 s")
    solves = [(seconds, float(out.split()[-2])) for seconds, out in timed([python, "-m", "ctadesk", "solve",
                                                                           str(SAMPLE)], args.runs)]
    seconds, solving = statistics.median(s for s, _ in solves), statistics.median(s for _, s in solves)
    print(f"{'ctadesk solve thesis_3x4.jj':32s} {seconds:8.3f} {seconds - bare:11.3f}   "
          f"(the solve itself {solving:.3f} s: overhead over it {seconds - bare - solving:.3f} s)")

    shape = tuple(int(size) for size in args.shape.lower().split("x"))
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "table.jj")
        subprocess.run([python, "-c", "import sys; from ctadesk.engine.table.generate import cox_table; "
                        "from ctadesk.io.jj import write_jj; "
                        f"write_jj(sys.argv[1], cox_table({shape!r}, seed=1)[1])", path], check=True, cwd=ROOT)
        size = os.path.getsize(path) / 1e6
        imported = wall([python, "-c", "import ctadesk.io.jj"], args.runs)
        read = wall([python, "-c", "import sys; from ctadesk.io.jj import read_jj; read_jj(sys.argv[1])", path],
                    args.runs)
    print(f"JJ {args.shape} ({size:.0f} MB): read_jj {read:.3f} s, import alone {imported:.3f} s, "
          f"reading {read - imported:.3f} s = {size / (read - imported):.0f} MB/s")


if __name__ == "__main__":
    main()
