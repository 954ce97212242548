"""Fixed-sense weighted L2 on generated office-like hierarchical tables: the method choose_method
picks against plain clarabel, timed in turns in one run (issue 34: at most 1/2 of clarabel's time
on tables nobody tuned for, never slower).

    .venv/bin/python benchmarks/l2_shapes.py                       # 24 shapes, 1e3..2e5 cells
    .venv/bin/python benchmarks/l2_shapes.py --count 40 --seed 3 --max-cells 1000000 --repeats 1
    .venv/bin/python benchmarks/l2_shapes.py --min-cells 20 --max-cells 250 --seed 0 1 --repeats 9   # small tables
    .venv/bin/python benchmarks/l2_shapes.py --qdldl                # the Newton method with QDLDL alone too
    .venv/bin/python benchmarks/l2_shapes.py --both --cox 100x100x5 300x300   # both methods; Cox tables too
    .venv/bin/python benchmarks/l2_shapes.py --min-cells 100 --max-cells 400 --dense-relations 0   # sparse systems only
    .venv/bin/python benchmarks/l2_shapes.py --min-cells 20 --max-cells 250 --seed 0 1 --repeats 9 --fresh

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
With --both, the Newton method (network-l2) and clarabel's method (l2) each through solve() too, and
at the end the choice against the one of the two that took fewer processor seconds, counted (a
confusion table: how often choose_method's rule picked the faster method).  --cox adds Cox-recipe
tables (Cox 2005b, §3) of the shapes given, senses from the ordering heuristic.  --dense-relations
sets the Newton method's newton_l2.DENSE_RELATIONS (its Newton systems of at most that many
relations dense; 0: every one sparse), to measure that threshold.  Every repeat solves the same
problem, so from the second on it finds what is kept per problem (claims.restated: the restated
problem and its certified bound; newton_l2._Relations): the ratios are those of a table solved
again.  With --fresh every repeat solves a new problem with copies of the table's arrays (made
before the timer starts), so nothing kept is found: the ratios of a first solve.
"""

from __future__ import annotations

import argparse
import copy
import math
import os
import statistics
import time

from castro_l2 import plain_clarabel, qdldl_alone, warm_up

from ctadesk.engine.methods import choose_method, solve
from ctadesk.engine.model import Distance, Senses
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.result import SolveOptions
from ctadesk.engine.senses.ordering import ordering_senses
from ctadesk.engine.solvers import newton_l2
from ctadesk.engine.table.generate import cox_table, office_shapes, office_table


def describe(dimensions) -> str:
    return " x ".join("(" + ",".join(map(str, d.fanouts)) + (f"|{d.alternative}" if d.alternative else "") + ")"
                      for d in dimensions)


def copied(problem: CTAProblem) -> CTAProblem:
    """A new problem with copies of ``problem``'s arrays: nothing kept for the one (claims.restated,
    newton_l2._Relations, the medians and verifications kept per array) is found for the other."""
    return CTAProblem(values=problem.values.copy(), relations=copy.deepcopy(problem.relations), rhs=problem.rhs.copy(),
                      lower=problem.lower.copy(), upper=problem.upper.copy(), weights=problem.weights.copy(),
                      sensitive=problem.sensitive.copy(), lower_protection=problem.lower_protection.copy(),
                      upper_protection=problem.upper_protection.copy(), fixed=problem.fixed.copy(),
                      senses=problem.senses.copy(), cell_label=problem.cell_label,
                      relation_label=problem.relation_label)


def timed(problem, method: str, parameters) -> tuple[float, float, object]:
    """(seconds, processor seconds, result) of solve(problem, method)."""
    began, cpu = time.perf_counter(), time.process_time()
    result = solve(problem, method, SolveOptions(parameters=parameters))
    return time.perf_counter() - began, time.process_time() - cpu, result


def tables(args):
    """(kind, shape, problem) of the office shapes asked for each seed, then of the Cox shapes."""
    for seed in args.seed:
        for number, (kind, dimensions) in enumerate(office_shapes(args.count, seed, args.min_cells, args.max_cells)):
            yield kind, describe(dimensions), office_table(dimensions, seed=seed * 1000 + number)
        for shape in args.cox:
            _, problem = cox_table(tuple(int(size) for size in shape.split("x")), seed=seed)
            yield "Cox", shape, problem.with_senses(ordering_senses(problem))


def confusion(rows: list[tuple[str, str]]) -> None:
    """The choices against the faster method, counted."""
    methods = sorted({method for pair in rows for method in pair})
    print(f"{'chosen / faster':>16} " + " ".join(f"{method:>10}" for method in methods))
    for chosen in methods:
        counts = " ".join(f"{sum(pair == (chosen, faster) for pair in rows):>10}" for faster in methods)
        print(f"{chosen:>16} {counts}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=24)
    parser.add_argument("--seed", type=int, nargs="+", default=[0], help="one set of tables per seed")
    parser.add_argument("--min-cells", type=int, default=1000)
    parser.add_argument("--max-cells", type=int, default=200_000)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--clarabel-limit", type=float, default=60.0)
    parser.add_argument("--qdldl", action="store_true", help="the Newton method with QDLDL alone too")
    parser.add_argument("--both", action="store_true", help="network-l2 and l2 through solve() too")
    parser.add_argument("--cox", nargs="*", default=[], help="Cox-recipe tables of these shapes too (10x10x10)")
    parser.add_argument("--fresh", action="store_true", help="every repeat a new problem: nothing kept is found")
    parser.add_argument("--dense-relations", type=int, default=newton_l2.DENSE_RELATIONS,
                        help="dense Newton systems up to this many relations (0: none)")
    args = parser.parse_args()
    newton_l2.DENSE_RELATIONS = args.dense_relations
    print(f"load average {' '.join(f'{load:.2f}' for load in os.getloadavg())}; dense Newton systems up to "
          f"{newton_l2.DENSE_RELATIONS} relations; {'a new problem every repeat' if args.fresh else 'one problem'}")
    print(f"{'kind':>10} {'shape':>34} {'cells':>7} {'rels':>6} {'method':>10} {'seconds':>8} {'qdldl s':>8} "
          f"{'clarabel s':>10} "
          f"{'ratio':>7} {'cpu':>7}" + (f" {'newton cpu':>10} {'l2 cpu':>8}" if args.both else "")
          + "  objective ours / clarabel")
    ratios, cpu_ratios, decisions = [], [], []
    warm_up()
    for kind, shape, problem in tables(args):
        choice = choose_method(problem, Distance.L2, Senses.FIXED)
        qdldl = args.qdldl and choice.method == "network-l2"
        ours, theirs, alone, cpu_ours, cpu_theirs = [], [], [], [], []
        for _ in range(args.repeats):
            solved = copied(problem) if args.fresh else problem
            began, cpu = time.perf_counter(), time.process_time()
            result = solve(solved, choice.method, SolveOptions(parameters=choice.parameters))
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
        both = ""
        if args.both:
            cpu = {method: timed(problem, method, choice.parameters if method == choice.method else {})[1]
                   for method in ("network-l2", "l2")}
            decisions.append((choice.method, min(cpu, key=cpu.__getitem__)))
            both = f" {cpu['network-l2']:>10.3f} {cpu['l2']:>8.3f}"
        column = (f"{'>' if not alone[-1][1] else ' '}{statistics.median(s for s, _ in alone):>7.4f}" if qdldl
                  else f"{'':>8}")
        print(f"{kind:>10} {shape:>34} {problem.n_cells:>7} {problem.n_relations:>6} "
              f"{choice.method:>10} "
              f"{mine:>8.4f} {column} {reference:>10.4f} {'<' if stopped else ' '}{ratios[-1]:>6.2f} "
              f"{'<' if stopped else ' '}{cpu_ratios[-1]:>6.2f}{both}  "
              f"{result.model_objective:.8g} / {theirs[-1][1]:.8g} {theirs[-1][2]}"
              f"{'' if result.verified else ' NOT VERIFIED'}{handed}", flush=True)
    print(f"ratio: geometric mean {math.exp(statistics.fmean(map(math.log, ratios))):.2f}, worst {max(ratios):.2f}, "
          f"{sum(ratio <= 0.5 for ratio in ratios)} of {len(ratios)} at most 1/2; of processor seconds: "
          f"{math.exp(statistics.fmean(map(math.log, cpu_ratios))):.2f}, worst {max(cpu_ratios):.2f}, "
          f"{sum(ratio <= 0.5 for ratio in cpu_ratios)} at most 1/2; "
          f"load average {' '.join(f'{load:.2f}' for load in os.getloadavg())}")
    if decisions:
        confusion(decisions)


if __name__ == "__main__":
    main()
