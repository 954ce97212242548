"""Interval ends over several processes, each with its own attacker LP.

HiGHS runs one LP at a time per model, so the cells are shared out over worker processes
(``spawn``: safe beside a Qt event loop and HiGHS's threads).  Each worker takes every
``workers``-th cell, so its cells lie in every row and column as the whole set does and its
batch LPs (ends.py) are as large as they would be in one process.  Workers count the ends they
settle in a shared counter and watch a shared stop flag, so progress is reported and a stop
request honoured while they run.
"""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import threading
from collections.abc import Callable

import numpy as np

from ctadesk.engine.audit import _worker
from ctadesk.engine.audit.ends import LOWER, PROGRESS_INTERVAL, UPPER, AuditCancelled, EndSettings, EndSolver
from ctadesk.engine.audit.model import AttackerModel


def solve_ends(model: AttackerModel, columns: np.ndarray, settings: EndSettings, workers: int,
               stop: threading.Event | None = None,
               progress: Callable[[int], None] | None = None) -> tuple[np.ndarray, np.ndarray, int, int]:
    """Lower and upper ends (table units) of the intervals of ``columns``, over ``workers``
    processes (1: in this one), the number of LPs run and of max-flow batches tried."""
    low, high = np.full(columns.size, np.nan), np.full(columns.size, np.nan)
    if workers <= 1 or columns.size < 2 * workers:
        values, runs, flows = EndSolver(model, settings).solve(*_tasks(columns), stop, progress)
        low[:], high[:] = values[:columns.size], values[columns.size:]
        return low, high, runs, flows
    context = multiprocessing.get_context("spawn")
    halt, counter = context.Event(), context.Value("q", 0)
    shares = [np.arange(start, columns.size, workers) for start in range(workers)]
    runs, flows, reported = 0, 0, 0
    with concurrent.futures.ProcessPoolExecutor(workers, mp_context=context, initializer=_worker.start,
                                                initargs=(model, settings, halt, counter)) as pool:
        pending = {pool.submit(_worker.solve, *_tasks(columns[share])): share for share in shares}
        try:
            while pending:
                finished, _ = concurrent.futures.wait(pending, PROGRESS_INTERVAL,
                                                      concurrent.futures.FIRST_COMPLETED)
                for future in finished:
                    share = pending.pop(future)
                    values, share_runs, share_flows = future.result()
                    low[share], high[share] = values[:share.size], values[share.size:]
                    runs += share_runs
                    flows += share_flows
                if progress is not None and counter.value > reported:
                    progress(counter.value - reported)
                    reported = counter.value
                if stop is not None and stop.is_set():
                    raise AuditCancelled("the audit was cancelled")
        except BaseException:
            halt.set()
            raise
    return low, high, runs, flows


def _tasks(columns: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every lower end, then every upper end: a run of lower ends barely moves the optimal table
    (most are the a-priori bound), a run of upper ends moves it from one cell to the next."""
    return np.concatenate([columns, columns]), np.repeat([LOWER, UPPER], columns.size)
