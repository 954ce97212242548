"""Cross-check every CTA method on random instances against an independent checker.

    .venv/bin/python benchmarks/crosscheck.py                          # 400 instances, every method
    .venv/bin/python benchmarks/crosscheck.py --instances 80 --jobs 2
    .venv/bin/python benchmarks/crosscheck.py --methods milp,lp,network --instances 200
    .venv/bin/python benchmarks/crosscheck.py --only 0:17              # one instance, in detail

Instance k of a run is tests.crosscheck.instances.instance(seed, k): 1-4 dimensions,
hierarchies, magnitudes 1e-3..1e7, bounds finite / 1e9 / 1e20 / inf, nonzero
right-hand sides, protection asymmetry, given senses, fixed cells, weights, ~5 %
infeasible by construction.  Each is solved by every method (exceptions caught),
its tables checked by tests/crosscheck/checker.py, and the reference optimum found by
enumerating the senses of up to --max-free free sensitive cells (a fixed-sense LP
each).  The claims and how they are judged: tests/crosscheck/claims.py.

Per method it prints: runs, claimed protected, truly protected, false claims
(protected but the checker rejects the table), false optimal (and, for fixed-sense
methods, optimal above the optimum of their own senses), invalid bounds (above the
reference optimum or a valid table's objective), wrong infeasible (and, for
fixed-sense methods, infeasible although their own senses admit a table), failures
(exceptions escaping solve plus ERROR statuses), seconds.  Then the first offending
instances, to be rerun with --only SEED:INDEX.

Measured on 2 cores, every method, time limit 10 s: --instances 40 --jobs 2 took 92 s,
--instances 100 --jobs 2 from 3.3 to 4.6 min (the portfolios *-milp and scatter take most of it).
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import dataclasses
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ctadesk.engine.methods import METHODS
from tests.crosscheck.checker import reference
from tests.crosscheck.claims import (
    ERROR,
    EXCEPTION,
    FALSE_OPTIMAL,
    FALSE_OPTIMAL_OWN,
    FALSE_PROTECTED,
    INVALID_BOUND,
    REFERENCE,
    REFERENCE_CHEAPER,
    TOLERANCE_AMBIGUOUS,
    WRONG_INFEASIBLE,
    WRONG_INFEASIBLE_OWN,
    judge,
    run_method,
)
from tests.crosscheck.instances import instance


@dataclasses.dataclass
class MethodRecord:
    method: str
    status: str
    claimed: bool
    valid: bool
    objective: float
    bound: float | None
    seconds: float
    message: str
    kinds: tuple[str, ...]
    details: tuple[str, ...]


@dataclasses.dataclass
class InstanceRecord:
    seed: int
    index: int
    spec: str
    cells: int
    refusal: str | None
    reference: str
    optimum: float
    free: int
    methods: list[MethodRecord]
    reference_notes: list[tuple[str, str]]
    seconds: float


def evaluate(seed: int, index: int, methods: list[str], time_limit: float, max_free: int,
             max_sensitive: int, threads: int | None) -> InstanceRecord:
    began = time.perf_counter()
    case = instance(seed, index, max_sensitive)
    spec = case.spec.code()
    if case.problem is None:
        return InstanceRecord(seed, index, spec, 0, case.refusal, "-", math.nan, 0, [], [],
                              time.perf_counter() - began)
    problem = case.problem
    ref = reference(problem, max_free=max_free)
    runs = [run_method(problem, method, time_limit=time_limit, threads=threads) for method in methods]
    findings = judge(problem, runs, ref)
    records = []
    for run in runs:
        mine = [f for f in findings if f.method == run.method]
        result = run.result
        records.append(MethodRecord(
            run.method, run.status, bool(result is not None and result.protected), run.valid,
            float(result.objective) if result is not None else math.nan,
            None if result is None or result.bound is None else float(result.bound), run.seconds,
            (run.exception or result.message or "").splitlines()[0][:200] if (run.exception or result.message) else "",
            tuple(f.kind for f in mine), tuple(f.detail for f in mine)))
    notes = [(f.kind, f.detail) for f in findings if f.method == REFERENCE]
    return InstanceRecord(seed, index, spec, problem.n_cells, None, ref.status, ref.objective, ref.free, records,
                          notes, time.perf_counter() - began)


COLUMNS = ("runs", "claimed prot", "truly prot", "false claims", "false opt", "opt>own", "invalid bound",
           "wrong infeas", "infeas own", "failures", "exc", "seconds")


def tabulate(records: list[InstanceRecord], methods: list[str]) -> str:
    rows = {m: collections.Counter() for m in methods}
    for record in records:
        for r in record.methods:
            row = rows[r.method]
            row["runs"] += 1
            row["claimed prot"] += r.claimed
            row["truly prot"] += r.claimed and r.valid
            row["false claims"] += FALSE_PROTECTED in r.kinds
            row["false opt"] += FALSE_OPTIMAL in r.kinds
            row["opt>own"] += FALSE_OPTIMAL_OWN in r.kinds
            row["invalid bound"] += INVALID_BOUND in r.kinds
            row["wrong infeas"] += WRONG_INFEASIBLE in r.kinds
            row["infeas own"] += WRONG_INFEASIBLE_OWN in r.kinds
            row["failures"] += EXCEPTION in r.kinds or ERROR in r.kinds
            row["exc"] += EXCEPTION in r.kinds
            row["seconds"] += r.seconds
    width = max(len(m) for m in methods) + 1
    cell = {c: max(len(c), 5) + 2 for c in COLUMNS}
    lines = [f"{'method':<{width}}" + "".join(f"{c:>{cell[c]}}" for c in COLUMNS)]
    total = collections.Counter()
    for method in methods:
        row = rows[method]
        total.update(row)
        lines.append(f"{method:<{width}}" + "".join(
            f"{row[c]:>{cell[c]}.1f}" if c == "seconds" else f"{row[c]:>{cell[c]}d}" for c in COLUMNS))
    lines.append(f"{'all':<{width}}" + "".join(
        f"{total[c]:>{cell[c]}.1f}" if c == "seconds" else f"{total[c]:>{cell[c]}d}" for c in COLUMNS))
    return "\n".join(lines)


def offenders(records: list[InstanceRecord], limit: int) -> list[str]:
    """The first few offending runs of each kind (so rare kinds are not crowded out)."""
    by_kind: dict[str, list[str]] = collections.defaultdict(list)
    for record in records:
        for r in record.methods:
            for kind, text in zip(r.kinds, r.details):
                by_kind[kind].append(f"{record.seed}:{record.index:<5} {record.cells:>4} cells  "
                                     f"{r.method:<14} {kind}: {text}"[:260])
    per_kind = max(2, limit // max(1, len(by_kind)))
    return [line for kind in by_kind for line in by_kind[kind][:per_kind]]


def detail(record: InstanceRecord) -> str:
    lines = [f"instance {record.seed}:{record.index}: {record.cells} cells, {record.spec}",
             f"  from tests.crosscheck.instances import instance; "
             f"problem = instance({record.seed}, {record.index}).problem",
             f"  reference: {record.reference} {record.optimum:.10g} ({record.free} free sensitive cells)"]
    if record.refusal:
        lines.append(f"  refused by CTAProblem: {record.refusal}")
    lines += [f"  reference: {kind}: {text}" for kind, text in record.reference_notes]
    for r in record.methods:
        bound = "-" if r.bound is None else f"{r.bound:.10g}"
        lines.append(f"  {r.method:<14} {r.status:<13} checker {'ok ' if r.valid else 'NO '} "
                     f"objective {r.objective:<16.10g} bound {bound:<16} {r.seconds:6.2f} s  {r.message[:90]}")
        for kind, text in zip(r.kinds, r.details):
            lines.append(f"      -> {kind}: {text}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--instances", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--methods", default=",".join(METHODS),
                        help="comma-separated (default: every method of ctadesk.engine.methods.METHODS)")
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--jobs", type=int, default=1, help="instances solved in parallel (processes)")
    parser.add_argument("--threads", type=int, default=None, help="solver threads per method (default: solver's)")
    parser.add_argument("--max-free", type=int, default=10, help="largest number of free sensitive cells the "
                        "reference enumerates (2^k fixed-sense LPs)")
    parser.add_argument("--max-sensitive", type=int, default=12, help="sensitive cells per instance at most")
    parser.add_argument("--only", default=None, metavar="SEED:INDEX", help="one instance, in detail")
    parser.add_argument("--show", type=int, default=25, help="offending runs listed")
    args = parser.parse_args()
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    unknown = [m for m in methods if m not in METHODS]
    if unknown:
        parser.error(f"unknown methods {unknown}; choose from {', '.join(METHODS)}")

    if args.only:
        seed, index = (int(part) for part in args.only.split(":"))
        print(detail(evaluate(seed, index, methods, args.time_limit, args.max_free, args.max_sensitive,
                              args.threads)))
        return

    began = time.perf_counter()
    tasks = [(args.seed, k, methods, args.time_limit, args.max_free, args.max_sensitive, args.threads)
             for k in range(args.instances)]
    records: list[InstanceRecord] = []
    if args.jobs > 1:
        with concurrent.futures.ProcessPoolExecutor(args.jobs) as pool:
            futures = [pool.submit(evaluate, *task) for task in tasks]
            for done, future in enumerate(concurrent.futures.as_completed(futures), 1):
                records.append(future.result())
                if done % 10 == 0:
                    print(f"  {done}/{len(tasks)} instances, {time.perf_counter() - began:.0f} s", file=sys.stderr,
                          flush=True)
    else:
        for done, task in enumerate(tasks, 1):
            records.append(evaluate(*task))
            if done % 10 == 0:
                print(f"  {done}/{len(tasks)} instances, {time.perf_counter() - began:.0f} s", file=sys.stderr,
                      flush=True)
    records.sort(key=lambda r: r.index)
    wall = time.perf_counter() - began

    built = [r for r in records if r.refusal is None]
    refs = collections.Counter(r.reference for r in built)
    print(f"crosscheck: seed {args.seed}, {len(records)} instances ({len(records) - len(built)} refused by "
          f"CTAProblem), {len(methods)} methods, time limit {args.time_limit:g} s, wall {wall:.0f} s")
    print(f"cells: {min((r.cells for r in built), default=0)}-{max((r.cells for r in built), default=0)}; "
          f"reference: " + ", ".join(f"{k} {v}" for k, v in sorted(refs.items())))
    for kind in (REFERENCE_CHEAPER, TOLERANCE_AMBIGUOUS):
        where = [f"{r.seed}:{r.index}" for r in built if any(k == kind for k, _ in r.reference_notes)]
        if where:
            meaning = ("a valid table beats the reference" if kind == REFERENCE_CHEAPER
                       else "exact LP infeasible, a table passes the tolerances")
            print(f"{kind} ({meaning}): {', '.join(where)}")
    print()
    print(tabulate(built, methods))
    bad = offenders(built, args.show)
    if bad:
        print("\nfirst offending runs of each kind (rerun with --only SEED:INDEX):")
        print("\n".join("  " + line for line in bad))


if __name__ == "__main__":
    main()
