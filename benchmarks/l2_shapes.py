"""Fixed-sense weighted L2 on generated office-like hierarchical tables: the method choose_method
picks against plain clarabel, timed in turns in one run (issue 34: at most 1/2 of clarabel's time
on tables nobody tuned for, never slower).

    .venv/bin/python benchmarks/l2_shapes.py                       # 24 shapes, 1e3..2e5 cells
    .venv/bin/python benchmarks/l2_shapes.py --count 40 --seed 3 --max-cells 1000000 --repeats 1
    .venv/bin/python benchmarks/l2_shapes.py --qdldl                # the Newton method with QDLDL alone too

Shapes from engine/table/generate.py's office_shapes (nested 2-D, 1H2D, 3-D with hierarchies,
every fourth with a non-nested second breakdown), tables from office_table.  Per table: the
choice, its end-to-end seconds through solve() (build, solve, verify), clarabel's on the same QP
(benchmarks/castro_l2.py's plain_clarabel, stopped at --clarabel-limit seconds: the ratio is
then an upper bound, marked <), their ratio, the ratio of the processor seconds the two took
(every thread's, which the other processes of a loaded machine disturb less than the clock), and
whether the Newton method handed the QP to clarabel.  The closing line gives the ratios'
geometric mean and worst, and the load average.
With --qdldl, the Newton method with QDLDL as its only factoriser too, in the same turns
(castro_l2.py's qdldl_alone, stopped at 3 times clarabel's seconds: marked >).
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import time

from castro_l2 import plain_clarabel, qdldl_alone

from ctadesk.engine.methods import choose_method, solve
from ctadesk.engine.model import Distance, Senses
from ctadesk.engine.result import SolveOptions
from ctadesk.engine.table.generate import office_shapes, office_table


def describe(dimensions) -> str:
    return " x ".join("(" + ",".join(map(str, d.fanouts)) + (f"|{d.alternative}" if d.alternative else "") + ")"
                      for d in dimensions)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=24)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--min-cells", type=int, default=1000)
    parser.add_argument("--max-cells", type=int, default=200_000)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--clarabel-limit", type=float, default=60.0)
    parser.add_argument("--qdldl", action="store_true", help="the Newton method with QDLDL alone too")
    args = parser.parse_args()
    print(f"load average {' '.join(f'{load:.2f}' for load in os.getloadavg())}")
    print(f"{'kind':>10} {'shape':>34} {'cells':>7} {'rels':>6} {'method':>10} {'seconds':>8} {'qdldl s':>8} "
          f"{'clarabel s':>10} "
          f"{'ratio':>7} {'cpu':>7}  objective ours / clarabel")
    ratios, cpu_ratios = [], []
    # the first solve() loads the solvers' modules (benchmarks/startup.py times that): not in a ratio
    warm = office_table(office_shapes(1, 0, 100, 300)[0][1])
    solve(warm, choose_method(warm, Distance.L2, Senses.FIXED).method)
    plain_clarabel(warm)
    for number, (kind, dimensions) in enumerate(office_shapes(args.count, args.seed, args.min_cells, args.max_cells)):
        problem = office_table(dimensions, seed=args.seed * 1000 + number)
        choice = choose_method(problem, Distance.L2, Senses.FIXED)
        qdldl = args.qdldl and choice.method == "network-l2"
        ours, theirs, alone, cpu_ours, cpu_theirs = [], [], [], [], []
        for _ in range(args.repeats):
            began, cpu = time.perf_counter(), time.process_time()
            result = solve(problem, choice.method, SolveOptions(parameters=choice.parameters))
            ours.append(time.perf_counter() - began)
            cpu_ours.append(time.process_time() - cpu)
            cpu = time.process_time()
            theirs.append(plain_clarabel(problem, args.clarabel_limit))
            cpu_theirs.append(time.process_time() - cpu)
            if qdldl:
                alone.append(qdldl_alone(problem, choice.parameters, 3 * theirs[-1][0]))
        mine, reference = statistics.median(ours), statistics.median(seconds for seconds, _, _ in theirs)
        stopped = theirs[-1][2] != "Solved"
        ratios.append(mine / reference)
        cpu_ratios.append(statistics.median(cpu_ours) / statistics.median(cpu_theirs))
        handed = " (handed to clarabel)" if "network" in result.info else ""
        column = (f"{'>' if not alone[-1][1] else ' '}{statistics.median(s for s, _ in alone):>7.2f}" if qdldl
                  else f"{'':>8}")
        print(f"{kind:>10} {describe(dimensions):>34} {problem.n_cells:>7} {problem.n_relations:>6} "
              f"{choice.method:>10} "
              f"{mine:>8.2f} {column} {reference:>10.2f} {'<' if stopped else ' '}{ratios[-1]:>6.2f} "
              f"{'<' if stopped else ' '}{cpu_ratios[-1]:>6.2f}  "
              f"{result.model_objective:.8g} / {theirs[-1][1]:.8g} {theirs[-1][2]}"
              f"{'' if result.verified else ' NOT VERIFIED'}{handed}", flush=True)
    print(f"ratio: geometric mean {math.exp(statistics.fmean(map(math.log, ratios))):.2f}, worst {max(ratios):.2f}; "
          f"of processor seconds: {math.exp(statistics.fmean(map(math.log, cpu_ratios))):.2f}, worst "
          f"{max(cpu_ratios):.2f}; load average {' '.join(f'{load:.2f}' for load in os.getloadavg())}")


if __name__ == "__main__":
    main()
