"""Where the microseconds of a small fixed-sense L2 solve go: solve(problem, "network-l2") on
generated office tables, each stage's wall-clock time (time.perf_counter_ns around the functions
named below, inclusive of the stages under it), the mean over many repeats, beside clarabel's
whole time on the same QP (benchmarks/castro_l2.py's plain_clarabel).

    .venv/bin/python benchmarks/l2_stages.py                                  # 20-250 cells, seeds 0 1
    .venv/bin/python benchmarks/l2_stages.py --min-cells 20 --max-cells 80 --repeats 500
    .venv/bin/python benchmarks/l2_stages.py --fresh                          # first solves

The timers themselves add about half a microsecond a call; "rest" is the part of solve() that no
stage below covers (the registry, parameters, results' copies).  Issue 34 asks the Newton method
to take at most 1/2 of clarabel's time on every table; on tables of under 100 cells the stages
outside the method (the restated problem, the certified bound, the claims) weigh most.

Every repeat solves the same problems, so from the second on a solve finds what is kept per
problem (claims.restated's restated problem and its bound, newton_l2._Relations): the stages of a
table solved again.  With --fresh every repeat solves new problems with copies of the tables'
arrays (l2_shapes.copied, made before the timer), the stages of a first solve.  3-D office tables
have at least 147 cells, and not every draw reaches that: below 250, the tables are those of a draw up to 250
cells, of --min-cells to --max-cells cells.
"""

from __future__ import annotations

import argparse
import collections
import functools
import importlib
import os
import statistics
import time

from castro_l2 import plain_clarabel, warm_up
from l2_shapes import copied

from ctadesk.engine.methods import solve
from ctadesk.engine.table.generate import office_shapes, office_table

#: (module, attribute, depth): the stages, each wrapped where its caller looks it up
STAGES = (
    ("ctadesk.engine.solvers.claims", "restated", 1),
    ("ctadesk.engine.solvers.claims", "in_units", 2),
    ("ctadesk.engine.solvers.claims", "lower_bound", 1),
    ("ctadesk.engine.solvers.newton_l2", "solve_network_l2", 1),
    ("ctadesk.engine.solvers.newton_l2", "fixed_senses", 2),
    ("ctadesk.engine.solvers.newton_l2", "sense_bounds", 2),
    ("ctadesk.engine.solvers.newton_l2", "defining_relations", 2),
    ("ctadesk.engine.solvers.newton_l2", "gathered", 2),
    ("ctadesk.engine.solvers.newton_l2", "least_squares_deviations", 2),
    ("ctadesk.engine.solvers.newton_l2", "_dual_newton", 3),
    ("ctadesk.engine.solvers.newton_l2", "_NewtonSystems.__init__", 4),
    ("ctadesk.engine.solvers.newton_l2", "_NewtonSystems.step", 4),
    ("ctadesk.engine.solvers.newton_l2", "_line_search", 4),
    ("ctadesk.engine.solvers.newton_l2", "_polished", 4),
    ("ctadesk.engine.solvers.newton_l2", "finish", 2),
    ("ctadesk.engine.solvers.finish", "verify", 3),
    ("ctadesk.engine.solvers.claims", "honest", 1),
    ("ctadesk.engine.solvers.claims", "to_table_units", 1),
)


def timed_stages() -> collections.Counter:
    """Wrap every stage with a timer adding its nanoseconds to the counter returned."""
    spent: collections.Counter = collections.Counter()
    for module, name, _ in STAGES:
        owner = importlib.import_module(module)
        *path, attribute = name.split(".")
        for part in path:
            owner = getattr(owner, part)
        function = getattr(owner, attribute)

        def wrapper(*args, __function=function, __name=name, **kwargs):
            began = time.perf_counter_ns()
            try:
                return __function(*args, **kwargs)
            finally:
                spent[__name] += time.perf_counter_ns() - began

        setattr(owner, attribute, functools.wraps(function)(wrapper))
    return spent


def small_tables(seed: int, args: argparse.Namespace) -> list:
    """The office tables of ``seed`` of --min-cells to --max-cells cells (module docstring)."""
    try:
        shapes = office_shapes(args.count, seed, args.min_cells, args.max_cells)
    except ValueError:          # a kind (3-D) has no table so small
        shapes = office_shapes(args.count, seed, args.min_cells, max(args.max_cells, 250))
    tables = [office_table(dimensions, seed=seed * 1000 + number) for number, (_, dimensions) in enumerate(shapes)]
    return [table for table in tables if table.n_cells <= args.max_cells]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, nargs="+", default=[0, 1])
    parser.add_argument("--min-cells", type=int, default=20)
    parser.add_argument("--max-cells", type=int, default=250)
    parser.add_argument("--count", type=int, default=24)
    parser.add_argument("--repeats", type=int, default=200)
    parser.add_argument("--fresh", action="store_true", help="every repeat new problems: nothing kept is found")
    args = parser.parse_args()
    spent = timed_stages()          # before the first solve: the registry keeps the function it loads
    warm_up()
    problems = [problem for seed in args.seed for problem in small_tables(seed, args)]
    print(f"load average {' '.join(f'{load:.2f}' for load in os.getloadavg())}; {len(problems)} tables of "
          f"{min(p.n_cells for p in problems)}-{max(p.n_cells for p in problems)} cells, {args.repeats} repeats, "
          f"{'new problems every repeat' if args.fresh else 'the same problems'}")
    groups = collections.defaultdict(list)
    for problem in problems:
        groups[min(problem.n_cells // 100, 2)].append(problem)
    for _, members in sorted(groups.items()):
        spent.clear()
        elapsed = 0
        for _ in range(args.repeats):
            solved = [copied(problem) for problem in members] if args.fresh else members
            began = time.perf_counter_ns()
            for problem in solved:
                solve(problem, "network-l2")
            elapsed += time.perf_counter_ns() - began
        count = args.repeats * len(members)
        total = elapsed / count / 1000
        clarabel = statistics.fmean(statistics.median(plain_clarabel(problem)[0] for _ in range(15))
                                    for problem in members) * 1e6
        cells = [problem.n_cells for problem in members]
        print(f"\n{len(members)} tables of {min(cells)}-{max(cells)} cells: solve() {total:.0f} us, clarabel "
              f"{clarabel:.0f} us (ratio {total / clarabel:.2f})")
        covered = sum(spent[name] for _, name, depth in STAGES if depth == 1) / count / 1000
        for _, name, depth in STAGES:
            print(f"{'  ' * depth}{name:<{44 - 2 * depth}} {spent[name] / count / 1000:7.1f} us")
        print(f"  {'rest':<42} {total - covered:7.1f} us")


if __name__ == "__main__":
    main()
