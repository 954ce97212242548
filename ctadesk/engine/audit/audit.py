"""``audit``: what an attacker can learn about every sensitive cell from a released table (issue 13).

For each sensitive cell the smallest and largest original value consistent with what the
attacker knows (knowledge.py) is found by two LPs (Petrenko 2017, §3.1, the tau-argus audit),
solved as model.py, flows.py, lp.py and ends.py describe, over several processes where the work is
large (parallel.py); verdicts.py judges the intervals.
"""

from __future__ import annotations

import dataclasses
import os
import threading
import time
from collections.abc import Callable

import numpy as np

from ctadesk.engine.audit.ends import BATCH_MIN, EndSettings
from ctadesk.engine.audit.flows import network_of
from ctadesk.engine.audit.knowledge import AttackerKnowledge, Release, attacker_box
from ctadesk.engine.audit.model import build_model
from ctadesk.engine.audit.parallel import solve_ends
from ctadesk.engine.audit.result import AuditResult
from ctadesk.engine.audit.verdicts import judge
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.table.units import table_unit

#: below this many (unknown cells x audited cells) one process does the work: starting workers
#: costs about a second
PARALLEL_MIN_WORK = 2e7
#: the same where batches are settled by max flow (flows.py): a process then needs about one
#: flow per cell of a row, and each worker builds the network again (300 x 350, 31 500 cells,
#: 3e9: one process 4-8 s, two 7-9 s; 1000 x 1000 sampled to 20 000 cells, 2e10: one 13 s,
#: two 27 s, on the loaded 2-core machine)
PARALLEL_MIN_WORK_NETWORK = 1e11


@dataclasses.dataclass(frozen=True)
class AuditOptions:
    """workers       processes for the LPs (None: the cores available, when the work is large)
    warm_start    reuse the last optimal basis for the next end
    shortcuts     skip the LP of an end a known table already attains (ends.py)
    network       find such tables by max flow where the relations form a network (flows.py)
    tolerance     widths and distances below this many table units count as zero
    batch_min     the fewest interval ends optimised together in one batch LP (ends.py)
    stop          set it from any thread to cancel (AuditCancelled is raised)
    on_progress   called with (ends done, ends to do) now and then
    """

    workers: int | None = None
    warm_start: bool = True
    shortcuts: bool = True
    network: bool = True
    tolerance: float = 1e-6
    batch_min: int = BATCH_MIN
    stop: threading.Event | None = None
    on_progress: Callable[[int, int], None] | None = None


def audit(problem: CTAProblem, release: Release, knowledge: AttackerKnowledge | None = None,
          options: AuditOptions = AuditOptions()) -> AuditResult:
    """The attacker's interval and the verdicts for every sensitive cell of ``problem`` given the
    published table ``release`` (the assumptions default to AttackerKnowledge.for_release)."""
    started = time.perf_counter()
    knowledge = AttackerKnowledge.for_release(release) if knowledge is None else knowledge
    tolerance = options.tolerance * table_unit(problem)
    lower, upper = attacker_box(problem, release, knowledge, tolerance)
    model = build_model(problem, lower, upper)
    cells = problem.sensitive
    low, high = lower[cells].copy(), upper[cells].copy()
    column = np.searchsorted(model.cells, cells)
    unknown = lower[cells] < upper[cells]
    columns = column[unknown]
    network = options.network and options.shortcuts and network_of(model) is not None
    workers = _workers(options.workers, model.n_columns * columns.size,
                       PARALLEL_MIN_WORK_NETWORK if network else PARALLEL_MIN_WORK)
    settings = EndSettings(options.warm_start, options.shortcuts, options.tolerance, options.batch_min,
                           options.network)
    done = [0]
    report = options.on_progress

    def progress(count: int) -> None:
        done[0] += count
        if report is not None:
            report(done[0], 2 * columns.size)

    ends_low, ends_high, lps, flows = solve_ends(model, columns, settings, workers, options.stop,
                                                 progress if report is not None else None)
    a = problem.values[cells]
    low[unknown] = np.minimum(ends_low * model.unit, a[unknown])
    high[unknown] = np.maximum(ends_high * model.unit, a[unknown])
    published = release.published[cells]
    verdicts = judge(a, published, low, high, problem.lower_protection, problem.upper_protection,
                     knowledge.percentage_known, tolerance, release.half_step())
    return AuditResult(cells.copy(), a.copy(), published.copy(), problem.lower_protection.copy(),
                       problem.upper_protection.copy(), verdicts, knowledge, tolerance,
                       time.perf_counter() - started, lps, flows)


def _workers(requested: int | None, work: float, least: float) -> int:
    """The processes to use: as requested, else every core available once the work is at least ``least``."""
    if requested is not None:
        return max(1, requested)
    if work < least:
        return 1
    available = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else range(os.cpu_count() or 1)
    return max(1, len(available))
