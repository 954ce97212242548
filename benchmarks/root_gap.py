"""How far the proven optimum lies above the certified root bound, on Cox-recipe tables small
enough for HiGHS to prove optimality (Cox 2005b, §3 recipe).

The gap any method can certify in a given time is (table - bound) / table.  Where the optimum
itself is p % above the bound available at the root (solvers/lower_bound.py, equal to the
root bound of the MILP with imbalance cuts), no table can be certified closer than p % until
branch and bound raises the bound.  Prints, per table: the optimum, HiGHS's final bound, the
root bound, the optimum's distance to it and the seconds to prove optimality.

    .venv/bin/python benchmarks/root_gap.py                    # 2-D 12x12..18x18, 3-D 5x5x5..5x5x8
    .venv/bin/python benchmarks/root_gap.py 7x7x7 --seconds 600
"""

from __future__ import annotations

import argparse
import time

from ctadesk.engine.result import SolveOptions
from ctadesk.engine.senses.feasible_start import starting_senses
from ctadesk.engine.solvers.lower_bound import lower_bound
from ctadesk.engine.solvers.milp import solve_milp
from ctadesk.engine.table.generate import cox_table

TABLES = ["12x12", "15x15", "18x18", "5x5x5", "6x6x6", "5x5x8"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("tables", nargs="*", default=TABLES)
    parser.add_argument("--seconds", type=float, default=300.0, help="time limit of each exact MILP")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"{'table':9s} {'optimum':>12s} {'MILP bound':>12s} {'root bound':>12s} {'optimum above root':>19s}"
          f" {'seconds':>8s}  status")
    for table in args.tables:
        shape = tuple(int(k) for k in table.split("x"))
        _, problem = cox_table(shape, seed=args.seed)
        root = lower_bound(problem).value
        began = time.perf_counter()
        result = solve_milp(problem, SolveOptions(time_limit=args.seconds), cuts=True, certify=False,
                            starts=starting_senses)
        seconds = time.perf_counter() - began
        above = 100 * (result.objective - root) / result.objective
        print(f"{table:9s} {result.objective:12.1f} {result.bound:12.1f} {root:12.1f} {above:17.2f} % "
              f"{seconds:8.1f}  {result.status.value}", flush=True)


if __name__ == "__main__":
    main()
