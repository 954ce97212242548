"""Fixed-sense weighted L2 CTA on J. Castro's instances (../shared/instances/castro-l2): ctadesk
against clarabel given the same quadratic program.

    .venv/bin/python benchmarks/castro_l2.py                   # all nine, 3 repeats
    .venv/bin/python benchmarks/castro_l2.py --instances hier133a table3 --repeats 5
    .venv/bin/python benchmarks/castro_l2.py --method l2         # one method on every instance
    .venv/bin/python benchmarks/castro_l2.py --sif DIR/NINE12.SIF DIR/NINENEW.SIF   # CUTEst's SIF files too
    .venv/bin/python benchmarks/castro_l2.py --qdldl            # the Newton method with QDLDL alone too

--sif reads J. Castro's tables as the CUTEst collection publishes them (SIF, the quadratic model over
the deviations z with the senses in the bounds, weights on the diagonal of QMATRIX): the SIF files hold
no cell values, so a stand-in with the magnitudes of the published ones is used (half of -lower where
a cell may decrease, ten times the protection level of a sensitive cell: the ratios of the nine JJ
conversions), with right-hand sides A a so that the deviations' model is the SIF's exactly.

Per instance: the method choose_method picks for (L2, fixed senses), its end-to-end seconds through
solve() (build, solve, verify; median of --repeats) and objective; plain clarabel's seconds on the
same model (min sum w (x - a)^2 over the deviations, relations, bounds and the senses' safe sides,
its default settings, matrix building included) and objective; the ratio (issues 12 and 34: at
most 1/2 on every instance), the ratio of the processor seconds the two took (every thread's: the
other processes of a loaded machine disturb it less than the clock) and the best known objective
of the instance README.  With --qdldl,
where the choice is the Newton method, the same method with QDLDL as its only factoriser
(newton_l2.FACTORISER), in the same turns, stopped at 3 times clarabel's seconds (marked >).
"""

from __future__ import annotations

import argparse
import math
import os
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
from ctadesk.engine.senses.ordering import ordering_senses
from ctadesk.engine.solvers import newton_l2
from ctadesk.engine.solvers.finish import weighted_sum
from ctadesk.engine.solvers.network import sense_bounds
from ctadesk.engine.table.generate import cox_table, office_shapes, office_table
from ctadesk.io.jj import read_jj

INSTANCES = Path(__file__).resolve().parents[2] / "shared" / "instances" / "castro-l2"
NAMES = ("table3", "table6", "hier133a", "hier163a", "hier133d", "jjtabel3", "toysarah", "nine5d", "hie1327d")


def load(name: str) -> CTAProblem:
    problem = read_jj(INSTANCES / f"{name}.jj").problem
    senses = np.loadtxt(INSTANCES / f"{name}.senses", dtype=np.int8, ndmin=1)   # one per sensitive cell
    return problem.with_senses(senses)


def load_sif(path: Path) -> CTAProblem:
    """A CUTEst SIF file of J. Castro's fixed-sense L2 model as a problem (module docstring)."""
    section, cells, relations, entries = "", {}, {}, []
    lows, highs, weights = {}, {}, {}
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip() or line.startswith("*"):
            continue
        if not line[0].isspace():
            section = line.split()[0]
            continue
        fields = line.split()
        if section == "ROWS" and fields[0] == "E":
            relations[fields[1]] = len(relations)
        elif section == "COLUMNS":
            cell = cells.setdefault(fields[0], len(cells))
            entries += [(relations[row], cell, float(value)) for row, value in zip(fields[1::2], fields[2::2])
                        if row in relations]
        elif section == "BOUNDS" and fields[0] in ("LO", "UP"):
            (lows if fields[0] == "LO" else highs)[fields[2]] = float(fields[3])
        elif section == "QMATRIX" and fields[0] == fields[1]:
            weights[fields[0]] = float(fields[2])
        elif section in ("RHS", "RANGES", "BOUNDS", "QMATRIX"):
            raise ValueError(f"{path}, line {number}: '{line.strip()}' is not part of the fixed-sense L2 model")
    names = list(cells)
    low = np.array([lows.get(name, 0.0) for name in names])
    high = np.array([highs.get(name, np.inf) for name in names])
    row, col, data = (np.array(part) for part in zip(*entries))
    A = sp.csr_array((data, (row.astype(int), col.astype(int))), shape=(len(relations), len(names)))
    values = np.where(low < 0, -0.5 * low, 10.0 * low)
    values[values == 0] = np.median(values[values > 0])
    up, down = np.flatnonzero(low > 0), np.flatnonzero(high < 0)
    sensitive = np.concatenate([up, down])
    order = np.argsort(sensitive)
    return CTAProblem(values=values, relations=A, rhs=A @ values, lower=values + np.minimum(low, 0.0),
                      upper=values + np.maximum(high, 0.0), weights=[weights[name] for name in names],
                      sensitive=sensitive[order],
                      upper_protection=np.concatenate([low[up], np.zeros(down.size)])[order],
                      lower_protection=np.concatenate([np.zeros(up.size), -high[down]])[order],
                      senses=np.concatenate([np.ones(up.size), -np.ones(down.size)]).astype(np.int8)[order])


def plain_clarabel(problem: CTAProblem, time_limit: float = math.inf) -> tuple[float, float, str]:
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
    settings.verbose = bool(os.environ.get("CLARABEL_VERBOSE"))
    settings.time_limit = time_limit
    solution = clarabel.DefaultSolver(P, np.zeros(n), rows, rhs, cones, settings).solve()
    z = np.asarray(solution.x)
    return time.perf_counter() - began, weighted_sum(problem.weights, z * z), str(solution.status)


def best_known() -> dict[str, float]:
    table = {}
    for line in (INSTANCES / "README.md").read_text().splitlines():
        parts = [part.strip() for part in line.strip("|").split("|")]
        if len(parts) == 5 and parts[0] in NAMES:
            table[parts[0]] = float(parts[4])
    return table


def compare(name: str, problem: CTAProblem, repeats: int, method: str | None, known: float,
            qdldl: bool = False) -> tuple[float, float]:
    """One line of the table: ours and clarabel's (and QDLDL's), timed in turns; the ratios of their
    medians, of seconds and of processor seconds."""
    method, _, parameters = ((method, "", {}) if method
                             else choose_method(problem, Distance.L2, Senses.FIXED, float("inf")))
    qdldl = qdldl and method == newton_l2.METHOD_L2
    seconds, reference, alone, cpu_ours, cpu_theirs = [], [], [], [], []
    for _ in range(repeats):
        began, cpu = time.perf_counter(), time.process_time()
        result = solve(problem, method, SolveOptions(parameters=parameters))
        seconds.append(time.perf_counter() - began)
        cpu_ours.append(time.process_time() - cpu)
        cpu = time.process_time()
        reference.append(plain_clarabel(problem))
        cpu_theirs.append(time.process_time() - cpu)
        if qdldl:
            alone.append(qdldl_alone(problem, parameters, 3 * reference[-1][0]))
    ours = statistics.median(seconds)
    theirs = statistics.median(seconds for seconds, _, _ in reference)
    column = (f"{'>' if not alone[-1][1] else ' '}{statistics.median(s for s, _ in alone):>7.2f}" if qdldl
              else f"{'':>8}")
    print(f"{name:>9} {problem.n_cells:>6} {problem.n_relations:>6} {method:>10} {ours:>8.2f} {column} "
          f"{result.model_objective:>14.8g} {theirs:>10.2f} {reference[-1][1]:>14.8g} {ours / theirs:>6.2f} "
          f"{statistics.median(cpu_ours) / statistics.median(cpu_theirs):>6.2f} "
          f"{known:>14.8g}  {result.status.value}{'' if result.verified else ' NOT VERIFIED'}"
          f"{' (clarabel)' if 'network' in result.info else ''} / clarabel {reference[-1][2]}", flush=True)
    return ours / theirs, statistics.median(cpu_ours) / statistics.median(cpu_theirs)


def qdldl_alone(problem: CTAProblem, parameters: dict, time_limit: float) -> tuple[float, bool]:
    """(seconds, whether it finished) of the Newton method with QDLDL as its only factoriser."""
    factoriser, newton_l2.FACTORISER = newton_l2.FACTORISER, "qdldl"
    try:
        began = time.perf_counter()
        result = solve(problem, newton_l2.METHOD_L2, SolveOptions(time_limit=time_limit, parameters=parameters))
        return time.perf_counter() - began, result.verified
    finally:
        newton_l2.FACTORISER = factoriser


def warm_up() -> None:
    """A solve by each method and factorisation path first, not timed: the first loads the solvers'
    modules (benchmarks/startup.py times that), and the first dense factorisation scipy.linalg's
    (a Cox 100x100 table's first Newton solve took 0.44 s of processor time, its next 0.12 s)."""
    warm = office_table(office_shapes(1, 0, 100, 300)[0][1])
    _, dense = cox_table((10, 10))
    for problem in (warm, dense.with_senses(ordering_senses(dense))):
        for method in (newton_l2.METHOD_L2, "l2"):
            solve(problem, method)
        plain_clarabel(problem)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--instances", nargs="*", default=list(NAMES), choices=NAMES)
    parser.add_argument("--sif", nargs="*", type=Path, default=[], help="CUTEst SIF files of the same model")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--method", choices=list(METHODS), help="this method instead of choose_method's")
    parser.add_argument("--qdldl", action="store_true", help="the Newton method with QDLDL alone too")
    args = parser.parse_args()
    known = best_known()
    warm_up()
    print(f"load average {' '.join(f'{load:.2f}' for load in os.getloadavg())}")
    print(f"{'instance':>9} {'cells':>6} {'rels':>6} {'method':>10} {'seconds':>8} {'qdldl s':>8} {'objective':>14} "
          f"{'clarabel s':>10} {'clarabel obj':>14} {'ratio':>6} {'cpu':>6} {'best known':>14}  status")
    ratios = [compare(name, load(name), args.repeats, args.method, known.get(name, float("nan")), args.qdldl)
              for name in args.instances]
    ratios += [compare(path.stem.lower(), load_sif(path), args.repeats, args.method, float("nan"), args.qdldl)
               for path in args.sif]
    for label, column in (("ratio", [wall for wall, _ in ratios]),
                          ("of processor seconds", [cpu for _, cpu in ratios])):
        print(f"{label}: geometric mean {math.exp(statistics.fmean(map(math.log, column))):.2f}, worst "
              f"{max(column):.2f}, {sum(ratio <= 0.5 for ratio in column)} of {len(column)} at most 1/2")
    print(f"load average {' '.join(f'{load:.2f}' for load in os.getloadavg())}")


if __name__ == "__main__":
    main()
