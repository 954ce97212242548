"""Fixed-sense L1 and L2 CTA on million-cell tables, end to end, with peak memory.

Tables: a 1000 x 1000 Cox-recipe 2-D table (1 M cells, 300 k sensitive) and a
1H2D table of about 490 k cells (a 3-level hierarchy of 811 codes x 600
columns + total), senses by the ordering heuristic.  "1h2d-big" is the same hierarchy with
1 540 columns (1 249 751 cells, 171 862 relations), issue 34's memory case.  The "job" case
writes the table as a JJ file (write_jj; kept in the temporary folder for the next run) and runs
the whole job a statistician runs, ``ctadesk solve FILE --time-limit T`` with the defaults
(optimal senses, widening, the data's precision), as one process: its wall-clock time, exit
status, summary line, the precision published and the peak memory of its largest process (the
job's own, the heuristic's or LEMON's: getrusage's children maximum).  Each other case runs in its
own process so the peak resident memory printed is that case's (and, apart, that of the child
process LEMON's flow runs in on large tables, solvers/lemon.py).  The L1 cases also
print the certified lower bound of solvers/lower_bound.py: how far at most the
ordering heuristic's table is from the optimum over all senses.  The "network" L1 case prints
the min-cost flow's note (LEMON's arcs and seconds, solvers/min_cost_flow.py) and the sifting
LP's (pricing rounds, simplex iterations): 0 iterations means LEMON's basis was optimal as it
stood.  ("lp" runs the IPM over all columns on the same table, for comparison.)

    .venv/bin/python benchmarks/scale.py            # all cases
    .venv/bin/python benchmarks/scale.py 2d network  # one case
    .venv/bin/python benchmarks/scale.py 1h2d-big network
    .venv/bin/python benchmarks/scale.py 1h2d-big job 120   # the CLI job, 120-s time limit
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np

CASES = [("2d", "network"), ("2d", "network-l2"), ("2d", "lp"), ("1h2d", "network"), ("1h2d", "network-l2")]


#: columns of each 1H2D table: about 490 k cells, and the 1.25 M cells of issue 34's memory target
COLUMNS_1H2D = {"1h2d": 600, "1h2d-big": 1540}


def table(kind: str):
    from ctadesk.engine.problem import CTAProblem
    from ctadesk.engine.table.generate import cox_table
    from ctadesk.engine.table.structure import Dimension, TableStructure

    if kind == "2d":
        return cox_table((1000, 1000), seed=1)[1]
    levels = [level for _ in range(10) for level in [1] + ([2] + [3] * 7) * 10]
    codes = [f"h{i}" for i in range(len(levels))]
    structure = TableStructure((Dimension.from_levels("H", levels, codes),
                                Dimension.flat("C", [str(j) for j in range(COLUMNS_1H2D[kind])])))
    rng = np.random.default_rng(1)
    inner_mask = structure.inner_mask()
    inner = np.flatnonzero(inner_mask)
    raw = np.zeros(structure.n_cells)
    raw[inner] = rng.integers(1, 1001, inner.size)
    raw[rng.choice(inner, inner.size // 10, replace=False)] = 0.0
    values = structure.aggregate(raw)
    candidates = inner[values[inner] > 0]
    sensitive = np.sort(rng.choice(candidates, int(0.3 * inner.size), replace=False))
    return CTAProblem(values=values, relations=structure.relations(), lower=0.8 * values, upper=1.2 * values,
                      sensitive=sensitive, lower_protection=0.2 * values[sensitive],
                      upper_protection=0.2 * values[sensitive])


def run_case(kind: str, method: str) -> None:
    from ctadesk.engine.senses.ordering import ordering_senses
    from ctadesk.engine.solvers.lower_bound import lower_bound
    from ctadesk.engine.solvers.lp import solve_lp
    from ctadesk.engine.solvers.network_l1 import solve_network_l1
    from ctadesk.engine.solvers.newton_l2 import solve_network_l2

    began = time.perf_counter()
    problem = table(kind)
    made = time.perf_counter() - began
    started = time.perf_counter()
    senses = ordering_senses(problem)
    senses_seconds = time.perf_counter() - started
    solver = {"network": solve_network_l1, "network-l2": solve_network_l2, "lp": solve_lp}[method]
    result = solver(problem, senses=senses)
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    child_peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024     # LEMON's process, if any
    print(f"{kind:5s} {method:11s} cells {problem.n_cells:8d} sensitive {problem.n_sensitive:7d} "
          f"relations {problem.n_relations:6d} | table {made:5.2f}s  solve {seconds:6.2f}s  "
          f"L1 {result.objective:.10g}  {result.status.value} verified={result.verified}  "
          f"peak {peak:6.0f} MiB" + (f" (child process {child_peak:.0f} MiB)" if child_peak else ""), flush=True)
    if result.log:
        print("      " + result.log.strip().splitlines()[-1][:300], flush=True)
    print("      " + "  ".join(f"{k} {v:.2f}s" for k, v in result.timings.items())
          + f"  (senses {senses_seconds:.2f}s)", flush=True)
    if method != "network-l2":
        started = time.perf_counter()
        bound = lower_bound(problem)
        print(f"      certified lower bound {bound.value:.10g} ({bound.relations} relations with an imbalance) "
              f"in {time.perf_counter() - started:.2f}s: ordering senses within "
              f"{100 * (result.objective - bound.value) / result.objective:.2f} % of the optimum", flush=True)


def run_job(kind: str, time_limit: float) -> None:
    """The CLI's job on the ``kind`` table's JJ file, as one process (module docstring)."""
    from ctadesk.io.jj import write_jj

    path = os.path.join(tempfile.gettempdir(), f"ctadesk-bench-{kind}.jj")
    if not os.path.exists(path):
        write_jj(path, table(kind))
    out = os.path.join(tempfile.gettempdir(), f"ctadesk-bench-{kind}.json")
    command = [os.path.join(os.path.dirname(sys.executable), "ctadesk"), "solve", path,
               "--time-limit", f"{time_limit:g}", "--json", out]
    began = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - began
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"{kind:5s} job  time limit {time_limit:g}s | wall {seconds:6.1f}s  exit {done.returncode}  "
          f"peak of one process {peak:6.0f} MiB", flush=True)
    print("      " + (done.stdout.strip().splitlines() or [""])[-1][:300])
    for line in done.stderr.strip().splitlines()[-3:]:
        print("      " + line[:300])
    if done.returncode == 0 and os.path.exists(out):
        with open(out, encoding="utf-8") as file:
            record = json.load(file)
        print(f"      published: {record.get('published')}", flush=True)


def main() -> None:
    if len(sys.argv) == 4 and sys.argv[2] == "job":
        run_job(sys.argv[1], float(sys.argv[3]))
        return
    if len(sys.argv) == 3:
        run_case(sys.argv[1], sys.argv[2])
        return
    for kind, method in CASES:
        subprocess.run([sys.executable, __file__, kind, method], check=False)


if __name__ == "__main__":
    main()
