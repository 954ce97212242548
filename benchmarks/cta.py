"""Seconds per CTA method on Cox-recipe tables (paper 004 §3), and MILP gaps after a time limit.

    .venv/bin/python benchmarks/cta.py                       # everything (slow: minutes)
    .venv/bin/python benchmarks/cta.py --sizes 1000x1000 --methods lp
    .venv/bin/python benchmarks/cta.py --sizes 100x120 --methods lp l2 soc huber --milp-sizes

Prints, per table and method: seconds to generate the table, to build the
model, to solve, to verify, end to end; the status and weighted L1 objective.
Then, per MILP size, the objective, bound and gap after --milp-time-limit.
"""

from __future__ import annotations

import argparse
import time

from ctadesk.engine.generate import cox_table
from ctadesk.engine.result import SolveOptions
from ctadesk.engine.solvers import METHODS, solve

FIXED_SENSE_METHODS = ("lp", "l2", "soc", "huber")


def shape_of(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.lower().split("x"))


def run_methods(sizes: list[str], methods: list[str], seed: int, time_limit: float) -> None:
    print(f"{'table':>12} {'cells':>9} {'method':>6} {'generate':>9} {'build':>7} {'solve':>8} "
          f"{'verify':>7} {'total':>8}  status        objective")
    for size in sizes:
        began = time.perf_counter()
        _, problem = cox_table(shape_of(size), seed)
        generate = time.perf_counter() - began
        for method in methods:
            result = solve(problem, method, SolveOptions(time_limit=time_limit))
            t = result.timings
            print(f"{size:>12} {problem.n_cells:>9} {method:>6} {generate:>9.2f} {t['build']:>7.2f} "
                  f"{t['solve']:>8.2f} {t['verify']:>7.2f} {t['total']:>8.2f}  "
                  f"{result.status.value:<13} {result.objective:.6g}", flush=True)


def run_milp_gaps(sizes: list[str], time_limit: float, seed: int) -> None:
    print(f"\nMILP after {time_limit:g} s")
    print(f"{'table':>12} {'binaries':>8} {'seconds':>8}  status       {'objective':>12} {'bound':>12} {'gap':>8} "
          f"{'lp objective':>13}")
    for size in sizes:
        _, problem = cox_table(shape_of(size), seed)
        result = solve(problem, "milp", SolveOptions(time_limit=time_limit))
        lp = solve(problem, "lp")
        gap = f"{100 * result.gap:.2f} %" if result.gap is not None else "-"
        print(f"{size:>12} {result.info.get('binaries', 0):>8} {result.timings['total']:>8.1f}  "
              f"{result.status.value:<12} {result.objective:>12.6g} {result.bound:>12.6g} {gap:>8} "
              f"{lp.objective:>13.6g}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", nargs="*", default=["100x120", "300x350", "1000x1000"])
    parser.add_argument("--methods", nargs="*", default=list(FIXED_SENSE_METHODS), choices=list(METHODS))
    parser.add_argument("--milp-sizes", nargs="*", default=["25x25", "10x10x10"])
    parser.add_argument("--milp-time-limit", type=float, default=60.0)
    parser.add_argument("--time-limit", type=float, default=600.0, help="per method and table")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.sizes and args.methods:
        run_methods(args.sizes, args.methods, args.seed, args.time_limit)
    if args.milp_sizes:
        run_milp_gaps(args.milp_sizes, args.milp_time_limit, args.seed)


if __name__ == "__main__":
    main()
