"""Disclosure audit (issue 13) of CTA releases of Cox-recipe tables: time and rate.

Each table (Cox 2005b, §3: values 1..1000, 10 % zeros, 30 % of inner cells sensitive with
protection levels and capacities of 20 %) is protected by the network method, and the release
is audited with the attacker knowing that the table is non-negative, the solve's relative
capacity 0.2 for the non-sensitive cells and the rule's percentage.  A case with --sample N
audits N sensitive cells drawn at random (spread over every row and column, as the whole set
is) and extrapolates to all of them, saying so.  Most of an audit's time goes to its batches
of ends (engine/audit/ends.py), each one max-flow table holding at most one cell of each
relation, so the whole set needs at least as many batches as the most sensitive cells any
relation holds: a second sample of half the size separates the time per batch from the fixed
time (model, bounds, network form), and the estimate is the fixed time plus that many batches.
The linear extrapolation in the cells audited is printed too (it overstates: a batch of the
whole set holds more cells).  Batches of a sample hold fewer cells than those of the whole set
(one per relation either way, but fewer relations of a sample have one), so the sampled case
also times TABLES max-flow tables of full-size batches, drawn from all sensitive cells as the
whole audit draws them, and estimates the whole audit's CPU time as the model's plus that
many tables times the needed batches (the bookkeeping between batches, a few per cent, left out).

    .venv/bin/python benchmarks/audit.py                       # 300x350 in full, 1000x1000 sampled
    .venv/bin/python benchmarks/audit.py --shape 300x350 --sample 2000 --workers 1
"""

from __future__ import annotations

import argparse
import os
import resource
import time

import numpy as np

CAPACITY = 0.2
#: full-size batches timed in a sampled case
TABLES = 8
DEFAULT_CASES = (("300x350", None), ("1000x1000", 20000))


def run(shape: tuple[int, ...], sample: int | None, workers: int | None) -> None:
    from ctadesk.engine.methods import solve
    from ctadesk.engine.table.generate import cox_table

    began = time.perf_counter()
    _, problem = cox_table(shape, seed=1)
    release = solve(problem, "network")
    prepared = time.perf_counter() - began
    total = problem.n_sensitive
    label = "x".join(map(str, shape))
    print(f"{label}: {problem.n_cells} cells, {total} sensitive; table and release {prepared:.1f} s; "
          f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    if sample is None or sample >= total:
        _audit(problem, release.values, None, workers)
        return
    full = _audit(problem, release.values, sample, workers)
    half = _audit(problem, release.values, sample // 2, workers)
    needed = int(np.bincount(problem.relations[:, problem.sensitive].tocoo().row).max())
    _full_batches(problem, release.values, needed)
    for what, k in (("wall", 0), ("CPU", 1)):
        per_batch = (full[k] - half[k]) / max(full[2] - half[2], 1)
        fixed = max(full[k] - per_batch * full[2], 0.0)
        print(f"  EXTRAPOLATED from the samples ({what} time): all {total} cells in about "
              f"{fixed + per_batch * needed:.0f} s ({fixed:.1f} s fixed + {per_batch:.2f} s per batch x at least "
              f"{needed} batches, the most sensitive cells of one relation); linearly in the cells "
              f"{total * full[k] / sample:.0f} s")


def _full_batches(problem, published: np.ndarray, needed: int) -> None:
    """Time TABLES max-flow tables of batches drawn from all sensitive cells (CPU time), and the
    attacker model they need; print the estimate of the whole audit from them."""
    from ctadesk.engine.audit import APriori, AttackerKnowledge, Capacity, Release
    from ctadesk.engine.audit.batches import independent_batch
    from ctadesk.engine.audit.ends import BATCH_POOL
    from ctadesk.engine.audit.flows import FlowTables
    from ctadesk.engine.audit.knowledge import attacker_box
    from ctadesk.engine.audit.model import build_model
    from ctadesk.engine.table.units import table_unit

    began = time.process_time()
    knowledge = AttackerKnowledge(a_priori=APriori.SIGN, capacity=Capacity("rel", CAPACITY), percentage_known=True)
    lower, upper = attacker_box(problem, Release.adjusted(published), knowledge, 1e-6 * table_unit(problem))
    model = build_model(problem, lower, upper)
    flows = FlowTables.of(model)
    model_seconds = time.process_time() - began
    if flows is None:
        return
    rng = np.random.default_rng(0)
    open_columns = np.searchsorted(model.cells, problem.sensitive)
    seconds, sizes = [], []
    for _ in range(TABLES):
        batch = independent_batch(model.matrix, open_columns, rng, BATCH_POOL * model.n_rows)
        began = time.process_time()
        if flows.table(batch, +1) is None:
            print("  a full-size batch found no max-flow table: no estimate from full-size batches")
            return
        seconds.append(time.process_time() - began)
        sizes.append(batch.size)
        open_columns = np.setdiff1d(open_columns, batch, assume_unique=True)
    per_table = float(np.median(seconds))
    print(f"  {TABLES} max-flow tables of full-size batches ({min(sizes)}-{max(sizes)} upper ends): CPU "
          f"{min(seconds):.3f}-{max(seconds):.3f} s, median {per_table:.3f} s; attacker model and network "
          f"{model_seconds:.1f} s (the network form cached by the audits above); ESTIMATED CPU of the whole audit "
          f"{model_seconds + per_table * needed:.0f} s "
          f"({needed} batches; over w free cores about 1/w of it)")


def _audit(problem, published: np.ndarray, sample: int | None, workers: int | None) -> tuple[float, float, int]:
    """Audit ``sample`` sensitive cells drawn at random (None: all), print the figures, return
    the wall and CPU seconds and the max-flow batches."""
    from ctadesk.engine.audit import APriori, AttackerKnowledge, AuditOptions, Capacity, Release, audit

    audited = problem
    if sample is not None:
        drawn = np.sort(np.random.default_rng(0).choice(problem.n_sensitive, sample, replace=False))
        audited = problem.replace(sensitive=problem.sensitive[drawn], lower_protection=problem.lower_protection[drawn],
                                  upper_protection=problem.upper_protection[drawn], senses=None)
    knowledge = AttackerKnowledge(a_priori=APriori.SIGN, capacity=Capacity("rel", CAPACITY), percentage_known=True)
    cpu_before = _cpu_seconds()
    result = audit(audited, Release.adjusted(published), knowledge, AuditOptions(workers=workers))
    cpu = _cpu_seconds() - cpu_before
    rate = result.n_audited / result.seconds
    print(f"  audited {result.n_audited} cells in {result.seconds:.1f} s ({rate:.0f} cells/s, {result.lps} LPs, "
          f"{result.flows} max-flow batches); "
          f"{result.n_at_risk} at risk; smallest relative width {result.smallest_relative_width()[0]:.3g}; "
          f"CPU time, all processes: {cpu:.1f} s; load {os.getloadavg()[0]:.1f}")
    return result.seconds, cpu, result.flows


def _cpu_seconds() -> float:
    """User and system time of this process and of its finished children (the audit's workers)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shape", help="e.g. 300x350 (default: the two cases of issue 13)")
    parser.add_argument("--sample", type=int, help="audit N sensitive cells drawn at random and extrapolate")
    parser.add_argument("--workers", type=int, help="processes (default: the cores available)")
    args = parser.parse_args()
    cases = DEFAULT_CASES if args.shape is None else ((args.shape, args.sample),)
    for shape, sample in cases:
        run(tuple(int(side) for side in shape.split("x")), sample, args.workers)


if __name__ == "__main__":
    main()
