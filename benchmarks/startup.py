"""Command start and JJ reading (issue 34): wall and CPU seconds of whole processes, median of --runs.

Printed side by side: a bare interpreter, the numerical libraries a solve cannot start without
(numpy, scipy.sparse, highspy: the floor, once plainly and once as the `ctadesk` program imports
them, numpy.testing and numpy.f2py left to load on first use: ctadesk.cli.lazy_imports), `ctadesk --help`,
`ctadesk solve --help` and a 3x4 solve (`ctadesk solve sample_data/thesis_3x4.jj`), each as
overhead over the bare interpreter and, for the solve, over the seconds the solve itself reports
(target <= 0.3 s), with the machine's load average when measured; and a Cox-recipe JJ file
(cox_table(SHAPE, seed=1), written once to a temporary folder) read by read_jj, less a bare
`import ctadesk.io.jj`, in MB/s (target >= 100).

Each command runs twice over: from the source as this environment runs it (Python may be told
not to write bytecode, PYTHONDONTWRITEBYTECODE, and then compiles every ctadesk module at every
start), and as installed (a wheel's install compiles the bytecode once: here it is written to a
temporary folder, PYTHONPYCACHEPREFIX, by the run not counted).  The CPU seconds (user + system
of the child) barely move with the machine's load; the wall seconds of a shared machine do.

    .venv/bin/python benchmarks/startup.py                  # 1000x1000 (1 M cells, 55 MB)
    .venv/bin/python benchmarks/startup.py --shape 300x350 --runs 3
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_data" / "thesis_3x4.jj"
#: the width of the table's first column
NAME = 36


def wall(command: list[str], runs: int, env: dict[str, str] | None = None) -> float:
    """Median wall seconds of command run `runs` times (after one run not counted)."""
    return statistics.median(seconds for seconds, _, _ in timed(command, runs, env))


def timed(command: list[str], runs: int, env: dict[str, str] | None = None) -> list[tuple[float, float, str]]:
    """Wall seconds, CPU seconds (user + system) and standard output of each of `runs` runs of
    command (after one not counted) in the environment env (None: this one)."""
    runs_done = []
    for _ in range(runs + 1):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(command, check=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                              cwd=ROOT, env=env)
        seconds = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        runs_done.append((seconds, cpu, done.stdout))
    return runs_done[1:]


def medians(command: list[str], runs: int, env: dict[str, str] | None) -> tuple[float, float]:
    """Median wall and CPU seconds of command."""
    done = timed(command, runs, env)
    return statistics.median(w for w, _, _ in done), statistics.median(c for _, c, _ in done)


def start_up(python: str, runs: int, env: dict[str, str] | None) -> None:
    """The rows of the start-up table in the environment env."""
    bare, bare_cpu = medians([python, "-c", "pass"], runs, env)
    print(f"{'python -c pass':{NAME}s} {bare:8.3f} {'':11s} {bare_cpu:7.3f}")
    libraries = "import numpy, scipy.sparse, highspy"
    deferred = "from ctadesk.cli.lazy_imports import defer_numpy_tools; defer_numpy_tools(); "
    for name, command in ((libraries, ["-c", libraries]),
                          ("  the same, numpy's tools deferred", ["-c", deferred + libraries]),
                          ("ctadesk --help", ["-m", "ctadesk", "--help"]),
                          ("ctadesk solve --help", ["-m", "ctadesk", "solve", "--help"])):
        seconds, cpu = medians([python, *command], runs, env)
        print(f"{name:{NAME}s} {seconds:8.3f} {seconds - bare:11.3f} {cpu:7.3f} {cpu - bare_cpu:11.3f}")
    # the solve's own seconds end its summary line ("milp: optimal, ..., 0.12 s")
    solves = [(seconds, cpu, float(out.split()[-2]))
              for seconds, cpu, out in timed([python, "-m", "ctadesk", "solve", str(SAMPLE)], runs, env)]
    seconds, cpu, solving = (statistics.median(run[k] for run in solves) for k in range(3))
    print(f"{'ctadesk solve thesis_3x4.jj':{NAME}s} {seconds:8.3f} {seconds - bare:11.3f} {cpu:7.3f} "
          f"{cpu - bare_cpu:11.3f}   (the solve itself {solving:.3f} s: overhead over it "
          f"{seconds - bare - solving:.3f} s; target <= 0.3 s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shape", default="1000x1000", help="the JJ file's table (default 1000x1000)")
    parser.add_argument("--runs", type=int, default=5, help="runs of each command (default 5)")
    args = parser.parse_args()
    python = sys.executable
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; median of {args.runs} runs")
    with tempfile.TemporaryDirectory() as bytecode:
        installed = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
        installed["PYTHONPYCACHEPREFIX"] = bytecode
        for title, env in (("from the source, as this environment runs it", None),
                           ("as installed (bytecode compiled once)", installed)):
            print(f"{title}:\n{'':{NAME}s} {'wall s':>8s} {'overhead s':>11s} {'CPU s':>7s} {'overhead s':>11s}")
            start_up(python, args.runs, env)
    print(f"load average {os.getloadavg()[0]:.2f} after the start-up runs")

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
