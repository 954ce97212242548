"""Quality-preserving CTA on Cox-recipe tables (Cox 2005a, §3-5): what keeping the statistics costs.

Univariate, per table (Cox 2005b, §3 recipe): plain CTA and CTA with the mean and L(y) = 0 kept
exactly (quality.preserve): weighted L1 distance, percent change of the inner cells' variance,
of Corr(a, x) and of the slope of x on a, seconds.

Bivariate, per pair: a the Cox table, b = a x lognormal(0, 0.5) noise rounded (Corr(a, b) about
0.7), 30 % of b's non-zero inner cells sensitive independently of a's, both with protection levels
and capacities of 20 % (Cox 2005a, §5's capacities).  Plain (the stacked problem, no target) against
ctadesk.engine.methods.bivariate's alternating and direct approaches with every target at --target %
(given three times --seconds: they solve the stacked problem three times for their senses):
distance (and its excess over plain), percent change of Var(a), Var(b), Cov(a, b), Corr(a, b) and
the slope of b on a over the inner cells, whether every target was met, seconds.

    .venv/bin/python benchmarks/quality.py                        # 8x8, 10x10; 2 seeds; about 2 min
    .venv/bin/python benchmarks/quality.py 10x10 --seeds 5 --method lp --target 0.5
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from ctadesk.engine.methods import solve
from ctadesk.engine.methods.bivariate import APPROACHES, BivariateProblem, BivariateTargets, solve_bivariate
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.quality.measures import inner_cells, preserve, quality_report
from ctadesk.engine.result import SolveOptions
from ctadesk.engine.table.generate import cox_table

TABLES = ["8x8", "10x10"]


def cox_pair(shape: tuple[int, ...], seed: int) -> BivariateProblem:
    """The pair of the module docstring."""
    structure, first = cox_table(shape, seed=seed)
    rng = np.random.default_rng(seed + 10_000)
    inner = np.flatnonzero(structure.inner_mask())
    raw = np.zeros(structure.n_cells)
    raw[inner] = np.round(first.values[inner] * rng.lognormal(0.0, 0.5, inner.size))
    values = structure.aggregate(raw)
    candidates = inner[values[inner] > 0]
    sensitive = np.sort(rng.choice(candidates, size=min(candidates.size, round(0.3 * inner.size)), replace=False))
    levels = 0.2 * values[sensitive]
    room = 0.2 * np.abs(values)
    room[sensitive] = np.maximum(room[sensitive], levels)
    second = CTAProblem(values=values, relations=structure.relations(), lower=values - room, upper=values + room,
                        sensitive=sensitive, lower_protection=levels, upper_protection=levels,
                        cell_label=structure.cell_label, relation_label=structure.relation_label)
    return BivariateProblem(first, second, ("A", "B"))


def univariate(problem: CTAProblem, method: str, seconds: float) -> None:
    cells = {"inner": inner_cells(problem)}
    for label, solved in (("none", problem), ("mean+L hard", preserve(problem, mean=True, variance=True))):
        began = time.perf_counter()
        result = solve(solved, method, SolveOptions(time_limit=seconds))
        took = time.perf_counter() - began
        if not result.verified:
            print(f"    {label:12s} no table: {result.message}")
            continue
        inner = quality_report(problem, result.values, cells)["inner"]
        print(f"    {label:12s} distance {result.objective:12.6g}  var {inner.variance_change:+7.3f} %  "
              f"corr {inner.correlation_change:+7.3f} %  slope {inner.slope_change:+7.3f} %  {took:6.2f} s")


def bivariate(pair: BivariateProblem, method: str, seconds: float, target: float, shared: bool) -> None:
    began = time.perf_counter()
    plain = solve(pair.stacked, method, SolveOptions(time_limit=seconds))
    took = time.perf_counter() - began
    if not plain.verified:
        print(f"    plain        no table: {plain.message}")
        return
    x_a, x_b = pair.split(plain.values)
    rows = [("plain", plain.objective, pair.quality(x_a, x_b), None, took)]
    for approach in APPROACHES:
        result = solve_bivariate(pair, method, SolveOptions(time_limit=3 * seconds), approach=approach,
                                 targets=BivariateTargets(variance=target, covariance=target), shared_senses=shared)
        rows.append((approach, result.objective, result.quality, result.targets_met, result.seconds))
    for label, distance, q, met, took in rows:
        if q is None:
            print(f"    {label:12s} no table")
            continue
        extra = 100 * (distance - plain.objective) / plain.objective
        said = "" if met is None else ("  met" if met else "  MISSED")
        print(f"    {label:12s} distance {distance:12.6g} ({extra:+6.2f} %)  var A {q.first.variance_change:+7.3f}  "
              f"var B {q.second.variance_change:+7.3f}  cov {q.covariance_change:+7.3f}  "
              f"corr {q.correlation_change:+7.3f}  slope {q.slope_change:+7.3f} %  {took:6.2f} s{said}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("tables", nargs="*", default=TABLES)
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--method", default="milp", help="the method for the senses (default milp)")
    parser.add_argument("--seconds", type=float, default=4.0, help="time limit of each solve (default 4)")
    parser.add_argument("--target", type=float, default=0.25, help="largest change of each variance and "
                                                                   "of the covariance, %% (default 0.25)")
    parser.add_argument("--shared-senses", action="store_true", help="one sense per cell sensitive in both")
    args = parser.parse_args()
    for table in args.tables:
        shape = tuple(int(k) for k in table.split("x"))
        for seed in range(args.seeds):
            pair = cox_pair(shape, seed)
            q = pair.quality(pair.first.values, pair.second.values)
            print(f"\n{table} seed {seed}: {pair.n_cells} cells, sensitive {pair.first.n_sensitive} (A) "
                  f"{pair.second.n_sensitive} (B), Corr(A, B) {q.correlation_original:.3f}")
            print("  univariate (A):")
            univariate(pair.first, args.method, args.seconds)
            print(f"  bivariate, targets {args.target:g} %:")
            bivariate(pair, args.method, args.seconds, args.target, args.shared_senses)


if __name__ == "__main__":
    main()
