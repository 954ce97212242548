"""Fixed-sense L1 (5.10): the interior point method with crossover against the dual simplex, and
the network solver where the table allows it, on tables of many shapes -- the measurement behind
choose_method's rule for fixed-sense L1 (issue 12).

    .venv/bin/python benchmarks/lp_choice.py                     # everything (a few minutes)
    .venv/bin/python benchmarks/lp_choice.py --cox 20x20x20 --castro nine5d --repeats 1

Per table: cells, relations, whether its relations form a network, the method choose_method picks,
and the seconds (median of --repeats, end to end through solve()) of lp (IPM + crossover), lp with
simplex=true, and network where its relations form one; the fastest is marked.  Senses: the
ordering heuristic's on Cox-recipe tables, the instance's own on J. Castro's.

--crossover prints, per table instead, what lp.IPM_SETTINGS's crossover costs and buys: the
solver's seconds (median) and the cells changed with and without crossover, and whether the
interior point alone gave a table that failed verification (lp then falls back to the simplex).

    .venv/bin/python benchmarks/lp_choice.py --crossover --cox 10x15 300x350 30x30x30 --castro
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import ctadesk.engine.solvers.lp as lp
from ctadesk.engine.methods import choose_method, solve
from ctadesk.engine.model import Distance, Senses
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.result import SolveOptions
from ctadesk.engine.senses.ordering import ordering_senses
from ctadesk.engine.solvers import cells_changed
from ctadesk.engine.solvers.network import network_form
from ctadesk.engine.table.generate import cox_table

sys.path.insert(0, str(Path(__file__).resolve().parent))
from castro_l2 import NAMES, load  # the instances' reader, shared with castro_l2.py

COX = ("60x60", "200x200", "300x350", "8x8x8", "10x10x10", "20x20x20", "30x30x30", "6x6x6x6", "10x10x10x10")


def cox(shape: str) -> CTAProblem:
    _, problem = cox_table(tuple(int(part) for part in shape.split("x")), 0)
    return problem.with_senses(ordering_senses(problem))


def seconds(problem: CTAProblem, name: str, parameters: dict, repeats: int) -> tuple[float, float]:
    runs = []
    for _ in range(repeats):
        began = time.perf_counter()
        result = solve(problem, name, SolveOptions(parameters=parameters))
        runs.append(time.perf_counter() - began)
    assert result.verified, f"{name} {parameters}: {result.message}"
    return statistics.median(runs), result.objective


def crossover(label: str, problem: CTAProblem, repeats: int) -> None:
    """One line: lp's solver seconds and cells changed with crossover (IPM_SETTINGS) and without."""
    figures = []
    for run_crossover in ("on", "off"):
        saved = lp.IPM_SETTINGS
        lp.IPM_SETTINGS = {**saved, "run_crossover": run_crossover}
        try:
            results = [solve(problem, "lp", SolveOptions(parameters={"fewest_changes": False}))
                       for _ in range(repeats)]
        finally:
            lp.IPM_SETTINGS = saved
        result = results[-1]
        changed = cells_changed(problem, result.values) if result.values is not None else 0
        fallback = " (simplex fallback)" if "ipm_status" in result.info else ""
        figures.append(f"{statistics.median(r.timings['solve'] for r in results):>8.2f} {changed:>9}{fallback:<19}")
    print(f"{label:>12} {problem.n_cells:>8} {figures[0]} {figures[1]}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cox", nargs="*", default=list(COX))
    parser.add_argument("--castro", nargs="*", default=list(NAMES), choices=NAMES)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--crossover", action="store_true",
                        help="the IPM with and without crossover: seconds and cells changed")
    args = parser.parse_args()
    tables = [(shape, lambda shape=shape: cox(shape)) for shape in args.cox]
    tables += [(name, lambda name=name: load(name)) for name in args.castro]
    if args.crossover:
        print(f"{'':>22}{'with crossover':<38}IPM alone")
        print(f"{'table':>12} {'cells':>8} {'solve s':>8} {'changed':>9}{'':<19} {'solve s':>8} {'changed':>9}")
        for label, make in tables:
            crossover(label, make(), args.repeats)
        return
    print(f"{'table':>12} {'cells':>8} {'relations':>9} {'network':>7} {'chosen':>8} {'ipm s':>7} {'simplex s':>9} "
          f"{'network s':>9}  fastest   objective")
    for label, make in tables:
        problem = make()
        is_network = network_form(problem) is not None
        choice = choose_method(problem, Distance.L1, Senses.FIXED)
        chosen = "simplex" if choice.parameters.get("simplex") else "ipm" if choice.method == "lp" else choice.method
        timed = {"ipm": seconds(problem, "lp", {"fewest_changes": False}, args.repeats),
                 "simplex": seconds(problem, "lp", {"fewest_changes": False, "simplex": True}, args.repeats)}
        if is_network:
            timed["network"] = seconds(problem, "network", {}, args.repeats)
        fastest = min(timed, key=lambda key: timed[key][0])
        network_s = f"{timed['network'][0]:>9.2f}" if is_network else f"{'-':>9}"
        print(f"{label:>12} {problem.n_cells:>8} {problem.n_relations:>9} {'yes' if is_network else 'no':>7} "
              f"{chosen:>8} {timed['ipm'][0]:>7.2f} {timed['simplex'][0]:>9.2f} {network_s}  {fastest:<8} "
              f"{timed[fastest][1]:.8g}", flush=True)


if __name__ == "__main__":
    main()
