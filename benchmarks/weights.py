"""Fixed-sense L1 CTA with weighted cells against unit weights (issue 29: a weighted table solves as
fast as a unit-weight one), end to end by the method choose_method picks.

Tables: Cox-recipe 2-D tables (300x350, 500x500, 1000x1000), benchmarks/scale.py's 1H2D table
(487 411 cells) and a 30x30x30 table; weights: unit, the table's own, 1/|value| (the default for
tabulated microdata, ctadesk.engine.quality.weights.inverse_weights), |value| (large cells dear) and
random (log-uniform over 1e-6..1 per cell, uncorrelated with the values).  Senses by the
ordering heuristic.  Per case: the method, its status, seconds, whether the table verified, the
objective and the sifting LP's note (pricing rounds, simplex iterations) or the fallback's reason.

    .venv/bin/python benchmarks/weights.py                        # every table, seeds 1 and 2
    .venv/bin/python benchmarks/weights.py 1000x1000 --seeds 1 --weights unit,inverse
    .venv/bin/python benchmarks/weights.py 500x500 --weights value --method lp   # another method
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scale import table as scale_table

from ctadesk.engine.methods import choose_method, solve
from ctadesk.engine.model import Distance, Senses
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.quality.weights import inverse_weights
from ctadesk.engine.result import SolveOptions
from ctadesk.engine.table.generate import cox_table

TABLES = ["300x350", "500x500", "1000x1000", "1h2d", "30x30x30"]
WEIGHTS = ["unit", "table", "inverse", "value", "random"]


def table(name: str, seed: int) -> CTAProblem:
    """The named table: a Cox-recipe table of that shape, or scale.py's 1H2D table (one, seed 1)."""
    if name == "1h2d":
        return scale_table("1h2d")
    return cox_table(tuple(int(k) for k in name.split("x")), seed=seed)[1]


def weighted(problem: CTAProblem, kind: str, seed: int) -> CTAProblem:
    weights = {"unit": lambda: np.ones(problem.n_cells), "table": lambda: problem.weights,
               "inverse": lambda: inverse_weights(problem.values),
               "value": lambda: np.maximum(np.abs(problem.values), 1.0),
               "random": lambda: 10.0 ** np.random.default_rng(seed).uniform(-6.0, 0.0, problem.n_cells)}[kind]()
    return problem.replace(weights=weights)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tables", nargs="*", default=TABLES)
    parser.add_argument("--seeds", default="1,2")
    parser.add_argument("--weights", default=",".join(WEIGHTS))
    parser.add_argument("--time-limit", type=float, default=300.0)
    parser.add_argument("--method", help="this method instead of choose_method's (e.g. lp, to compare)")
    args = parser.parse_args()
    print(f"{'table':>10} {'seed':>4} {'weights':>8} {'method':>8} {'status':>10} {'seconds':>8} verified  "
          "objective  note")
    for name in args.tables:
        for seed in ([1] if name == "1h2d" else [int(s) for s in args.seeds.split(",")]):
            base = table(name, seed)
            for kind in args.weights.split(","):
                problem = weighted(base, kind, seed)
                method = args.method or choose_method(problem, Distance.L1, Senses.FIXED).method
                lines: list[str] = []
                began = time.perf_counter()
                result = solve(problem, method, SolveOptions(time_limit=args.time_limit, on_log=lines.append))
                seconds = time.perf_counter() - began
                note = next((line for line in lines if "sifting" in line or "general LP" in line), "")
                print(f"{name:>10} {seed:>4} {kind:>8} {method:>8} {result.status.value:>10} {seconds:>8.2f} "
                      f"{result.verified!s:>8}  {result.objective:.10g}  {note[:110]}", flush=True)


if __name__ == "__main__":
    main()
