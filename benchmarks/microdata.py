"""Records per second for tabulating a 3-D hierarchical table from synthetic microdata.

One record in ten belongs to an enterprise group (about five records per group).

    .venv/bin/python benchmarks/microdata.py [records] [top_k]
"""

from __future__ import annotations

import sys
import time

import numpy as np

from ctadesk.engine.table.microdata import Microdata, tabulate
from ctadesk.engine.table.structure import Dimension, TableStructure


def digit_dimension(name: str, branching: tuple[int, ...]) -> Dimension:
    """A balanced hierarchy: codes '1', '11', '111', ... with the given fan-out per level."""
    levels, codes = [], []

    def walk(prefix: str, depth: int) -> None:
        for child in range(1, branching[depth] + 1):
            code = prefix + str(child)
            levels.append(depth + 1)
            codes.append(code)
            if depth + 1 < len(branching):
                walk(code, depth + 1)

    walk("", 0)
    return Dimension.from_levels(name, levels, codes)


def main() -> None:
    records = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    top_k = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    structure = TableStructure((digit_dimension("Region", (5, 8)), digit_dimension("Sector", (9, 5, 4)),
                                Dimension.flat("Size", [str(s) for s in range(1, 7)])))
    rng = np.random.default_rng(0)
    codes = tuple(rng.choice(np.flatnonzero(d.is_leaf), records) for d in structure.dimensions)
    micro = Microdata(structure, codes, rng.lognormal(3, 1.5, records), weight=rng.uniform(1, 5, records),
                      holding=np.where(rng.random(records) < 0.1, rng.integers(0, records // 50, records), -1))
    print(f"table {structure.shape} = {structure.n_cells} cells, {records} records, top {top_k}")
    for holdings in (False, True):
        data = micro if holdings else Microdata(structure, codes, micro.response, weight=micro.weight)
        start = time.perf_counter()
        tabulate(data, top_k=top_k)
        seconds = time.perf_counter() - start
        label = "with holdings" if holdings else "weights only "
        print(f"{label}: {seconds:6.2f} s  {records / seconds:12,.0f} records/s")


if __name__ == "__main__":
    main()
