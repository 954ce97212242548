"""Sense heuristics against plain HiGHS MILP on Cox-recipe tables (Cox 2005b, §3).

For each table and method: objective, seconds, and gap to the best bound found
on that table: the bounds of the MILP runs (plain MILP and the *-milp methods)
and the certified bound of solvers/lower_bound.py (printed, with its seconds).  Targets at
60 s on 2 cores: 25x25 <= 0.5 %, 10x10x10 and 20x20x20 <= 2 %, never worse than
plain MILP in the same time.

    .venv/bin/python benchmarks/heuristics.py                 # 60 s, every table and method
    .venv/bin/python benchmarks/heuristics.py 20 25x25 10x10x10 --methods milp,bcd-milp
"""

from __future__ import annotations

import argparse
import math
import time

from ctadesk.engine.methods import METHODS
from ctadesk.engine.result import SolveOptions
from ctadesk.engine.senses.feasible_start import starting_senses
from ctadesk.engine.solvers.lower_bound import lower_bound
from ctadesk.engine.solvers.milp import solve_milp
from ctadesk.engine.table.generate import cox_table

TABLES = ["4x4", "10x10", "15x15", "20x20", "25x25", "10x10x10", "20x20x20", "10x10x20"]
DEFAULT_METHODS = ["milp", "random", "hybrid-swaps", "bcd", "scatter", "learning",
                   "hybrid-milp", "bcd-milp", "learning-milp"]
#: the *-milp methods are portfolios: MILP for the whole time, the heuristic beside it handing it tables


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("seconds", nargs="?", type=float, default=60.0)
    parser.add_argument("tables", nargs="*", default=TABLES)
    parser.add_argument("--methods", default=",".join(DEFAULT_METHODS))
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    # "milp" is plain HiGHS: its own bound and gap, without ctadesk's certified bound
    methods = {name: method.solve for name, method in METHODS.items()}
    methods["milp"] = lambda problem, options: solve_milp(problem, options, certify=False, starts=starting_senses)
    for table in args.tables:
        shape = tuple(int(k) for k in table.split("x"))
        _, problem = cox_table(shape, seed=args.seed)
        rows = []
        for name in args.methods.split(","):
            began = time.perf_counter()
            result = methods[name](problem, SolveOptions(time_limit=args.seconds))
            rows.append((name, result, time.perf_counter() - began))
        began = time.perf_counter()
        certified = lower_bound(problem).value
        certified_seconds = time.perf_counter() - began
        bounds = [r.bound for _, r, _ in rows if r.bound is not None and math.isfinite(r.bound)]
        best_bound = max([*bounds, certified])
        plain = next((r.objective for n, r, _ in rows if n == "milp"), math.nan)
        print(f"\n{table}: {problem.n_cells} cells, {problem.n_sensitive} sensitive, {args.seconds:g} s, "
              f"best bound {best_bound:.10g} (lower_bound {certified:.10g} in {certified_seconds:.2f}s)")
        for name, result, seconds in rows:
            gap = (result.objective - best_bound) / result.objective if result.verified else math.nan
            versus = ("" if name == "milp" else
                      "  <= milp" if result.objective <= plain + 1e-6 else "  WORSE than milp")
            own = f"own gap {100 * result.gap:6.2f} %" if result.gap is not None else ""
            portfolio = (f"  from {result.info['source']}, {result.info['handed_to_milp']} handed to the MILP"
                         if "handed_to_milp" in result.info else "")
            print(f"  {name:14s} {result.objective:14.6f} {seconds:7.1f}s  gap {100 * gap:6.2f} %  {own}  "
                  f"{result.status.value:10s} verified={result.verified}{versus}{portfolio}", flush=True)


if __name__ == "__main__":
    main()
