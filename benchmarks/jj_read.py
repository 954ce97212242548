"""Reading a JJ file of a million cells: seconds, MB/s and where the time goes (issue 34:
at least 100 MB/s, a million cells in at most 0.7 s).

The file is the 1000 x 1000 Cox-recipe table of benchmarks/scale.py written by write_jj
(1 002 001 cells, 2 002 relations, 55 MB), made once in the temporary directory unless a
path is given.  Each read is timed whole and by part: the bytes, the cell lines and the
relation lines (io/jj.py's bulk reading), the rest (additivity, the problem's checks), and
the CPU time of the whole read is printed beside the wall time.  The machine's load is
printed with the figures: on a shared machine the best of the runs is the one to compare.

With --solve the whole command the issue times, ``ctadesk solve FILE --senses-by fixed``
(fixed-sense L1), runs --runs times after the reads, each in a process of its own: its wall
and CPU seconds are printed beside the read's (target: at most 3 s end to end for a million
cells).  With --against DIR each run is paired with one of the same command from the source
tree DIR (a checkout of another commit, put first on PYTHONPATH), in turn, so that both see the
same load: on a shared machine a comparison is only fair that way.  A fresh process pays for
the memory it touches first, so these runs, not the reads in this process, are the figures.

    .venv/bin/python benchmarks/jj_read.py [FILE.jj] [--runs 5] [--solve [--against DIR]]
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


def make_file() -> Path:
    from ctadesk.engine.table.generate import cox_table
    from ctadesk.io.jj import write_jj

    path = Path(tempfile.gettempdir()) / "ctadesk-bench-1000x1000.jj"
    if not path.exists():
        write_jj(path, cox_table((1000, 1000), seed=1)[1])
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file", nargs="?", help="a JJ file (default: the 1000 x 1000 Cox table)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--solve", action="store_true", help="also time ctadesk solve FILE --senses-by fixed")
    parser.add_argument("--against", metavar="DIR", help="with --solve: pair each run with one from source tree DIR")
    args = parser.parse_args()
    from ctadesk.io import jj

    path = Path(args.file) if args.file else make_file()
    megabytes = path.stat().st_size / 1e6
    parts: dict[str, float] = {}

    def timed(name, function):
        def wrapper(*a, **k):
            began = time.perf_counter()
            try:
                return function(*a, **k)
            finally:
                parts[name] = parts.get(name, 0.0) + time.perf_counter() - began
        return wrapper

    jj.read_bytes = timed("bytes", jj.read_bytes)
    jj._bulk_cells = timed("cell lines", jj._bulk_cells)
    jj._bulk_relations = timed("relation lines", jj._bulk_relations)
    totals, cpu, split = [], [], []
    for _ in range(args.runs):
        parts.clear()
        began, cpu_began = time.perf_counter(), time.process_time()
        instance = jj.read_jj(path)
        totals.append(time.perf_counter() - began)
        cpu.append(time.process_time() - cpu_began)
        split.append(dict(parts))
    best = min(range(args.runs), key=totals.__getitem__)
    cells = instance.problem.n_cells
    print(f"{path.name}: {megabytes:.1f} MB, {cells} cells, {instance.problem.n_relations} relations; "
          f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"  read_jj best {totals[best]:.3f} s ({megabytes / totals[best]:.0f} MB/s), median "
          f"{statistics.median(totals):.3f} s over {args.runs} runs; target <= 0.7 s per million cells: "
          f"{totals[best] * 1e6 / cells:.3f} s")
    print(f"  CPU time of the read (this process): best {min(cpu):.3f} s ({megabytes / min(cpu):.0f} MB/s), "
          f"median {statistics.median(cpu):.3f} s")
    rest = totals[best] - sum(split[best].values())
    print("  best run by part: " + ", ".join(f"{name} {seconds:.3f} s" for name, seconds in split[best].items())
          + f", the rest {rest:.3f} s")
    if args.solve:
        trees = {"this tree": str(Path(__file__).resolve().parents[1])}
        if args.against:
            trees["against"] = str(Path(args.against).resolve())
        print(f"  ctadesk solve --senses-by fixed (target <= 3 s; the read's CPU here {min(cpu):.2f} s):")
        seconds: dict[str, list[tuple[float, float]]] = {name: [] for name in trees}
        for _ in range(args.runs):
            for name, tree in trees.items():
                seconds[name].append(_solve(path, name, tree))
        for name, runs in seconds.items():
            walls, cpus = [w for w, _ in runs], [c for _, c in runs]
            print(f"  {name}: best wall {min(walls):.2f} s, median {statistics.median(walls):.2f} s; "
                  f"best CPU {min(cpus):.2f} s, median {statistics.median(cpus):.2f} s")


def _solve(path: Path, name: str, tree: str) -> tuple[float, float]:
    """Time ``ctadesk solve path --senses-by fixed`` from source tree ``tree`` in a child process;
    print and return its wall and CPU seconds."""
    load = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "ctadesk", "solve", str(path), "--senses-by", "fixed"],
                          capture_output=True, text=True, check=False, cwd=tree,
                          env={**os.environ, "PYTHONPATH": tree})
    wall = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    last = (done.stdout.strip().splitlines() or [""])[-1]
    print(f"    {name}: wall {wall:.2f} s, CPU {cpu:.2f} s, load {load:.1f} before it; exit {done.returncode}: "
          f"{last[:90]}")
    return wall, cpu


if __name__ == "__main__":
    main()
