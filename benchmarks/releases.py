"""Timings of optimal tabular releases (Karr, Dobra & Sanil, undated slides; ctadesk.engine.releases),
medians of repeats.

    .venv/bin/python benchmarks/releases.py [--czech FILE] [--repeats N] [--alpha A]

1. LP bounds of all 64 cells of the Czech auto workers 2^6 table under the release of all six
   5-way margins (target < 1 s), with the dual and the primal simplex from the last basis.
2. Ordered marginals on a 2^10 table tabulated from synthetic microdata (target < 1 min).
3. The searches on the Czech table at --alpha: exact over all releases, decomposable, ordered.
"""

from __future__ import annotations

import argparse
import functools
import statistics
import time
from pathlib import Path

import numpy as np

from ctadesk.cli import build_parser
from ctadesk.cli.commands.releases import read_count_table
from ctadesk.engine.releases import (
    CountTable,
    Release,
    decomposable_release,
    lp_bounds,
    optimal_release,
    ordered_marginals,
)
from ctadesk.engine.releases import linear_bounds as bounds_module

CZECH = Path(__file__).resolve().parents[2] / "shared" / "data" / "czech_autoworkers.csv"
STRATEGIES = {"dual": 1, "primal": 4}


def timed(function, repeats: int) -> tuple[float, object]:
    """Median seconds of ``repeats`` calls and the last result."""
    seconds, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = function()
        seconds.append(time.perf_counter() - start)
    return statistics.median(seconds), result


def synthetic_table(n_axes: int, records: int, seed: int) -> CountTable:
    """Records of ``n_axes`` binary attributes, each depending on the one before (a chain with
    skewed margins, so some cells are small), tabulated into a 2^n_axes table."""
    rng = np.random.default_rng(seed)
    columns = [rng.random(records) < 0.3]
    for _ in range(1, n_axes):
        columns.append(np.where(columns[-1], rng.random(records) < 0.7, rng.random(records) < 0.2))
    codes = [c.astype(np.int64) for c in columns]
    return CountTable.from_cells([f"V{a}" for a in range(n_axes)], codes, [("0", "1")] * n_axes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--czech", type=Path, default=CZECH)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--alpha", type=float, default=7.0)
    parser.add_argument("--records", type=int, default=200000)
    parser.add_argument("--axes", type=int, default=10)
    args = parser.parse_args()

    table, _ = read_count_table(build_parser().parse_args(["releases", str(args.czech), "--alpha", str(args.alpha)]))
    fives = Release.of(table.n_axes, [set(range(table.n_axes)) - {a} for a in range(table.n_axes)])
    default_strategy = bounds_module.SIMPLEX_STRATEGY
    for name, strategy in STRATEGIES.items():
        bounds_module.SIMPLEX_STRATEGY = strategy
        seconds, bounds = timed(lambda: lp_bounds(table, fives), args.repeats)
        print(f"1. bounds of all {table.counts.size} cells under the six 5-way margins ({name} simplex): "
              f"{seconds:.3f} s median of {args.repeats}; widths {np.unique(bounds.width).tolist()}")
    bounds_module.SIMPLEX_STRATEGY = default_strategy

    big = synthetic_table(args.axes, args.records, seed=1)
    at_risk = big.at_risk(2).size
    for alpha in (1.0, 3.0):
        seconds, result = timed(functools.partial(ordered_marginals, big, alpha), 1)
        print(f"2. ordered marginals, 2^{args.axes} table of {args.records} records ({at_risk} cells at risk), "
              f"alpha {alpha:g}: {seconds:.2f} s; {len(result.release)} of {2 ** args.axes} sub-tables, "
              f"frontier of {len(result.release.frontier)}, "
              f"stopped at {big.subtable_name(result.refused[0]) if result.refused else 'nothing'}")

    searches = {
        "optimal (exact, all releases, LP)": lambda: optimal_release(table, args.alpha),
        "optimal (exact, all releases, MILP)": lambda: optimal_release(table, args.alpha, method="integer"),
        "decomposable (exact)": lambda: decomposable_release(table, args.alpha),
        "decomposable (annealing, 3000 moves)": lambda: decomposable_release(
            table, args.alpha, max_evaluations=1, iterations=3000, seed=0),
    }
    for name, search in searches.items():
        seconds, result = timed(search, args.repeats)
        frontiers = [" ".join(sorted(table.subtable_name(s) for s in r.frontier)) for r in result.releases]
        print(f"3. {name} on the Czech table, alpha {args.alpha:g}: {seconds:.3f} s, DU {result.utility:g}, "
              f"{result.evaluations} evaluations, {len(frontiers)} release(s): {frontiers[0]}")
    seconds, result = timed(lambda: ordered_marginals(table, args.alpha), args.repeats)
    print(f"3. ordered marginals on the Czech table, alpha {args.alpha:g}: {seconds:.3f} s, "
          f"{len(result.release)} sub-tables: "
          f"{' '.join(sorted(table.subtable_name(s) for s in result.release.frontier))}")


if __name__ == "__main__":
    main()
