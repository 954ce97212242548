"""The whole protection job checked as a statistician runs it: what each front end publishes,
with the defaults, against the independent checker of published numbers.

    .venv/bin/python benchmarks/jobcheck.py                   # 60 tables, every model, API + Session + CLI
    .venv/bin/python benchmarks/jobcheck.py --tables 200 --seed 7

Tables: tests/crosscheck/published.office_table (1-3 dimensions, sub-totals, 0-2 data decimals,
magnitudes 10-1e8, p%-like levels).  Each is protected with each model (distance x senses),
weights and precision drawn per run, widening on, through the Python API, the Session (and its
release workbook) and `ctadesk solve --json` in-process.  Per front end and model it prints:
runs, claimed protected, faults of the published numbers (off the grid, a relation off by a grid
step, a sensitive cell inside its ORIGINAL interval), L2 tables costing more than the L2 optimum
(SLSQP reference) with every cell one published unit further could (l2_off_grid), runs not at
the precision asked (each said in a note), and runs past their time limit.  All but the "not at
precision" column must be 0.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ctadesk.app import ProtectionRequest, protect
from ctadesk.app.session import Session
from ctadesk.cli import main as cli
from ctadesk.engine.errors import CTAError
from ctadesk.io.jj import write_jj
from ctadesk.io.project import Project
from tests.crosscheck.published import grid_units, l2_off_grid, office_table, published_faults

MODELS = (("l1", "optimal"), ("l1", "fixed"), ("l1", "heuristic"), ("l2", "fixed"), ("huber", "fixed"),
          ("soc", "fixed"))
COLUMNS = ("runs", "protected", "faults", "l2 > 1 unit", "not at precision", "over time")
TIME_LIMIT = 10.0


def _api(problem, structure, request, folder):
    return protect(problem, request)


def _session(problem, structure, request, folder):
    session = Session(Project.from_problem(problem, structure))
    protection = session.protect(request)
    if protection.result.protected:
        try:
            session.export("release", folder / "release.xlsx")
        except CTAError:
            if protection.decimals is not None or request.precision == "full":
                raise
    return protection


def run(tables: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    counts: dict[tuple[str, str], collections.Counter] = collections.defaultdict(collections.Counter)
    started = time.perf_counter()
    for index in range(tables):
        structure, problem = office_table(np.random.default_rng([seed, index]))
        for distance, senses in MODELS:
            precision = str(rng.choice(["auto", "auto", "0", "2", "full"]))
            request = ProtectionRequest(distance=distance, senses=senses, time_limit=TIME_LIMIT,
                                        weights=str(rng.choice(["table", "unit", "inverse"])),
                                        precision=int(precision) if precision.isdigit() else precision)
            model = f"{distance}/{senses}"
            with tempfile.TemporaryDirectory() as folder:
                for name, front in (("api", _api), ("session", _session)):
                    row = counts[(name, model)]
                    began = time.perf_counter()
                    protection = front(problem, structure, request, Path(folder))
                    row["runs"] += 1
                    row["over time"] += time.perf_counter() - began > TIME_LIMIT + 1
                    if not protection.result.protected:
                        continue
                    row["protected"] += 1
                    x = protection.result.values
                    row["faults"] += bool(published_faults(problem, x, protection.decimals))
                    row["not at precision"] += request.precision != "full" and protection.decimals is None
                    if distance == "l2" and protection.decimals is not None:
                        row["l2 > 1 unit"] += l2_off_grid(protection, x) > 0
                _cli(problem, request, Path(folder), counts[("cli", model)])
    print(f"jobcheck: seed {seed}, {tables} tables x {len(MODELS)} models x 3 front ends, "
          f"time limit {TIME_LIMIT:g} s, wall {time.perf_counter() - started:.0f} s\n")
    print(f"{'front end':10} {'model':14} " + " ".join(f"{c:>16}" for c in COLUMNS))
    total: collections.Counter = collections.Counter()
    for (front, model), row in sorted(counts.items()):
        total.update(row)
        print(f"{front:10} {model:14} " + " ".join(f"{row[c]:>16}" for c in COLUMNS))
    print(f"{'all':10} {'':14} " + " ".join(f"{total[c]:>16}" for c in COLUMNS))


def _cli(problem, request, folder: Path, row: collections.Counter) -> None:
    write_jj(folder / "t.jj", problem)
    argv = ["solve", str(folder / "t.jj"), "--json", str(folder / "out.json"), "--distance", request.distance,
            "--senses-by", request.senses, "--precision", str(request.precision), "--time-limit", str(TIME_LIMIT)]
    if request.weights != "table":
        argv += ["--weights", request.weights]
    began = time.perf_counter()
    row["runs"] += 1
    try:
        with open(os.devnull, "w") as quiet, contextlib.redirect_stderr(quiet), contextlib.redirect_stdout(quiet):
            cli(argv)
    except CTAError:
        row["not at precision"] += 1
        return
    finally:
        row["over time"] += time.perf_counter() - began > TIME_LIMIT + 1
    document = json.loads((folder / "out.json").read_text())
    if not document["protected"]:
        return
    row["protected"] += 1
    x = np.asarray(document["values"], float)
    decimals = document.get("decimals")
    if request.precision != "full" and decimals is None:
        row["not at precision"] += 1
    row["faults"] += bool(published_faults(problem, x, decimals))
    if decimals is not None and grid_units(x, decimals) is None:
        row["faults"] += 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=60)
    parser.add_argument("--seed", type=int, default=0)
    arguments = parser.parse_args()
    run(arguments.tables, arguments.seed)
