"""Controlled rounding to a base (ProtectionRequest.rounding_base, tau-argus's RND): for Cox-recipe
count tables of a few shapes and bases, the seconds of the whole run (CTA, then the rounding), the
cells changed, and whether the published table is zero-restricted (every cell not sensitive at its
value when a multiple of the base, else at one of the two multiples around it) or needed the free
integer program; beside it the same table published at 0 decimals, as without a base.

    .venv/bin/python benchmarks/rounding_base.py
    .venv/bin/python benchmarks/rounding_base.py --shapes 20x20 --bases 5 10 100 --seeds 5
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from ctadesk.app import ProtectionRequest, protect
from ctadesk.engine.table.generate import cox_table


def run(shape: tuple[int, ...], base: int | None, seed: int) -> tuple[float, bool, int, bool]:
    """(seconds, protected, cells changed, zero-restricted) of one run."""
    _, problem = cox_table(shape, seed=seed)
    problem = problem.replace(values=np.round(problem.values), lower=0.0, upper=np.inf)
    started = time.perf_counter()
    protection = protect(problem, ProtectionRequest(rounding_base=base, seed=seed, time_limit=60.0))
    seconds = time.perf_counter() - started
    zero_restricted = base is not None and "no zero-restricted rounding" not in protection.outcome.published.note
    return seconds, protection.result.protected, protection.outcome.cells_changed, zero_restricted


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shapes", nargs="+", default=["6x6", "10x10", "15x15"])
    parser.add_argument("--bases", nargs="+", type=int, default=[5, 10, 100])
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}")
    print(f"{'shape':>8} {'base':>5} {'seconds':>8} {'protected':>9} {'changed':>8} {'zero-restricted':>15}")
    for text in args.shapes:
        shape = tuple(int(n) for n in text.split("x"))
        for base in (None, *args.bases):
            runs = [run(shape, base, seed) for seed in range(args.seeds)]
            seconds = float(np.median([r[0] for r in runs]))
            protected = sum(r[1] for r in runs)
            changed = float(np.median([r[2] for r in runs]))
            zero = sum(r[3] for r in runs) if base is not None else "-"
            print(f"{text:>8} {base or '0 dec':>5} {seconds:8.2f} {protected:>5}/{args.seeds:<3} {changed:8.0f} "
                  f"{zero!s:>11}/{args.seeds:<3}")


if __name__ == "__main__":
    main()
