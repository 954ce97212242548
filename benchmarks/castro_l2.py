"""Fixed-sense weighted L2 CTA on J. Castro's instances (../shared/instances/castro-l2): ctadesk
against clarabel given the same quadratic program.

    .venv/bin/python benchmarks/castro_l2.py                   # all nine, 3 repeats
    .venv/bin/python benchmarks/castro_l2.py --instances hier133a table3 --repeats 5
    .venv/bin/python benchmarks/castro_l2.py --method l2         # one method on every instance

Per instance: the method choose_method picks for (L2, fixed senses), its end-to-end seconds through
solve() (build, solve, verify; median of --repeats) and objective; plain clarabel's seconds on the
same model (min sum w (x - a)^2 over the deviations, relations, bounds and the senses' safe sides,
its default settings, matrix building included) and objective; the ratio (issue 12's target: at
most 1/2 on every instance) and the best known objective of the instance README.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import clarabel
import numpy as np
import scipy.sparse as sp

from ctadesk.engine.methods import METHODS, choose_method, solve
from ctadesk.engine.model import Distance, Senses
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.result import SolveOptions
from ctadesk.engine.solvers.network import sense_bounds
from ctadesk.io.jj import read_jj

INSTANCES = Path(__file__).resolve().parents[2] / "shared" / "instances" / "castro-l2"
NAMES = ("table3", "table6", "hier133a", "hier163a", "hier133d", "jjtabel3", "toysarah", "nine5d", "hie1327d")


def load(name: str) -> CTAProblem:
    problem = read_jj(INSTANCES / f"{name}.jj").problem
    senses = np.loadtxt(INSTANCES / f"{name}.senses", dtype=np.int8, ndmin=1)   # one per sensitive cell
    return problem.with_senses(senses)


def plain_clarabel(problem: CTAProblem) -> tuple[float, float, str]:
    """clarabel with default settings on min sum w z^2, A z = b - A a, sense bounds on z."""
    began = time.perf_counter()
    lower, upper = sense_bounds(problem, problem.senses)
    n = problem.n_cells
    A = sp.csc_matrix(problem.relations)
    finite_low, finite_high = np.flatnonzero(np.isfinite(lower)), np.flatnonzero(np.isfinite(upper))
    identity = sp.identity(n, format="csr")
    rows = sp.vstack([A, -identity[finite_low], identity[finite_high]], format="csc")
    rhs = np.concatenate([problem.deviation_rhs, -lower[finite_low], upper[finite_high]])
    cones = [clarabel.ZeroConeT(A.shape[0]), clarabel.NonnegativeConeT(finite_low.size + finite_high.size)]
    P = sp.diags(2.0 * problem.weights, format="csc")
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    solution = clarabel.DefaultSolver(P, np.zeros(n), rows, rhs, cones, settings).solve()
    z = np.asarray(solution.x)
    return time.perf_counter() - began, float(problem.weights @ z**2), str(solution.status)


def best_known() -> dict[str, float]:
    table = {}
    for line in (INSTANCES / "README.md").read_text().splitlines():
        parts = [part.strip() for part in line.strip("|").split("|")]
        if len(parts) == 5 and parts[0] in NAMES:
            table[parts[0]] = float(parts[4])
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--instances", nargs="*", default=list(NAMES), choices=NAMES)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--method", choices=list(METHODS), help="this method instead of choose_method's")
    args = parser.parse_args()
    known = best_known()
    print(f"{'instance':>9} {'cells':>6} {'method':>10} {'seconds':>8} {'objective':>14} {'clarabel s':>10} "
          f"{'clarabel obj':>14} {'ratio':>6} {'best known':>14}  status")
    for name in args.instances:
        problem = load(name)
        method, _, parameters = ((args.method, "", {}) if args.method
                                 else choose_method(problem, Distance.L2, Senses.FIXED, float("inf")))
        runs, seconds = [], []
        for _ in range(args.repeats):
            began = time.perf_counter()
            runs.append(solve(problem, method, SolveOptions(parameters=parameters)))
            seconds.append(time.perf_counter() - began)
        ours = statistics.median(seconds)
        reference = [plain_clarabel(problem) for _ in range(args.repeats)]
        theirs = statistics.median(seconds for seconds, _, _ in reference)
        result = runs[-1]
        print(f"{name:>9} {problem.n_cells:>6} {method:>10} {ours:>8.2f} {result.model_objective:>14.8g} "
              f"{theirs:>10.2f} {reference[-1][1]:>14.8g} {ours / theirs:>6.2f} {known.get(name, float('nan')):>14.8g}"
              f"  {result.status.value}{'' if result.verified else ' NOT VERIFIED'} / clarabel {reference[-1][2]}",
              flush=True)
    print(f"methods available: {', '.join(METHODS)}")


if __name__ == "__main__":
    main()
