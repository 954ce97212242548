"""Linked tables from one microdata set (issue 31): the business sample's tables protected
together and one by one, side by side.

For each set of spans: cells, shared cells, unsafe cells, wall seconds of the linked run
(tabulation, rules and CTA) and of the tables protected one at a time, and how many shared cells
the one-at-a-time runs publish differently (the linked run publishes each once, by construction).

    .venv/bin/python benchmarks/linked_tables.py
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from ctadesk.app import ProtectionRequest, protect
from ctadesk.app.formats import read_hierarchy, read_microdata
from ctadesk.app.linked_tables import protect_linked, tabulate_linked
from ctadesk.engine.rules.safety import SafetyRules, apply_rules, to_problem
from ctadesk.engine.table.microdata import tabulate
from ctadesk.io.microdata import MicrodataSpec

SAMPLES = Path(__file__).resolve().parents[1] / "sample_data"
RULES = SafetyRules(min_frequency=3, frequency_safety_range=10, p_percent=(10,))
REQUEST = ProtectionRequest(seed=5)
SPAN_SETS = ((("region", "size_class"), ("region", "industry")),
             (("region", "size_class"), ("region", "industry"), ("industry", "size_class")))


def main() -> None:
    hierarchies = {"region": read_hierarchy(SAMPLES / "business_region.hrc", "region"),
                   "industry": read_hierarchy(SAMPLES / "business_industry.hrc", "industry")}
    spec = MicrodataSpec(spanning=("region", "industry", "size_class"), response="turnover", hierarchies=hierarchies)
    microdata = read_microdata(SAMPLES / "business_microdata.csv", spec)
    print(f"{'tables':<64} {'cells':>6} {'shared':>6} {'unsafe':>6} {'linked s':>9} {'one by one s':>13} "
          f"{'shared cells published differently one by one':>47}")
    for spans in SPAN_SETS:
        started = time.perf_counter()
        linked = protect_linked(tabulate_linked(microdata, spans), RULES, REQUEST)
        together = time.perf_counter() - started
        started = time.perf_counter()
        alone = []
        for span in spans:
            table = microdata.spanned_by(span)
            stats = tabulate(table)
            problem = to_problem(table.structure, stats, apply_rules(stats, RULES), RULES, weights="inverse")
            alone.append(protect(problem, REQUEST).result.values)
        apart = time.perf_counter() - started
        # each unique cell's published values over the tables holding it, one by one
        cell_maps = linked.linked.cell_maps
        cells, values = np.concatenate(cell_maps), np.concatenate(alone)
        order = np.argsort(cells, kind="stable")
        cells, values = cells[order], values[order]
        starts = np.r_[0, np.flatnonzero(np.diff(cells)) + 1]
        spread = np.maximum.reduceat(values, starts) - np.minimum.reduceat(values, starts)
        differing = int(np.count_nonzero(spread > 1e-9 * np.maximum(1, np.abs(values[starts]))))
        assert linked.protection.result.protected
        print(f"{' ; '.join(' x '.join(span) for span in spans):<64} {linked.linked.n_cells:>6} "
              f"{linked.linked.n_shared:>6} {linked.problem.n_sensitive:>6} {together:>9.2f} {apart:>13.2f} "
              f"{differing:>47}")


if __name__ == "__main__":
    main()
