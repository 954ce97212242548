"""Interval ends: settled by tables the attacker cannot rule out, else by one LP each.

model.py bounds every end from outside (implied bounds); any table consistent with the attacker's
knowledge bounds it from inside.  Where the two meet within the tolerance the end is settled
without an LP of its own.  Tables come from three places, cheapest first:

1. the original table itself;
2. batches of cells sharing no relation (batches.py), all of one side: where the relations form a
   network (2-D and 1H2D tables) a max flow finds a table with the whole batch at its outer
   bounds (flows.py: 30 ms for 300 cells of the 300 x 350 Cox table); elsewhere, or where the
   flow finds none, a batch LP (lp.BatchLP) optimises the sum over the batch (about a second
   there; without a network the sum over every open end of a side is tried first).  Upper ends
   go first: a table with one cell of a relation at its upper end has the relation's other cells
   at their lower ends, so on Cox tables the upper batches settle the lower ends too;
3. the optimal tables of the single-end LPs (lp.IntervalLP) run for the ends left.  Reading a
   table back from HiGHS costs about one LP on a 100 000-cell table, so it is read after an LP
   only while the last reading settled other ends, after twice as many LPs each time it did not.

Cells of a batch whose end the batch did not settle get their own LP.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from ctadesk.engine.audit.batches import independent_batch
from ctadesk.engine.audit.flows import FlowTables
from ctadesk.engine.audit.lp import BatchLP, IntervalLP
from ctadesk.engine.audit.model import AttackerModel
from ctadesk.engine.errors import CTAError

if TYPE_CHECKING:  # a worker process's stop flag (audit/_worker.py)
    from multiprocessing.synchronize import Event as ProcessEvent

LOG = logging.getLogger(__name__)
#: seconds between two progress reports
PROGRESS_INTERVAL = 0.25
#: a batch LP costs about as much as this many single-end LPs: smaller batches are not run
BATCH_MIN = 32
#: a batch is drawn from at most this many open ends per relation (batches.independent_batch)
BATCH_POOL = 20
LOWER, UPPER = -1, 1


class AuditCancelled(CTAError):
    """The caller's stop event was set during an audit."""


@dataclasses.dataclass(frozen=True)
class EndSettings:
    """warm_start: reuse the last basis; shortcuts: settle ends by known tables (module doc);
    network: find batch tables by max flow where the relations are a network (flows.py);
    tolerance: in table units (the model's); batch_min: the fewest ends a batch LP is run for."""

    warm_start: bool = True
    shortcuts: bool = True
    tolerance: float = 1e-6
    batch_min: int = BATCH_MIN
    network: bool = True


class _Progress:
    """Throttled reports of ends done, and the stop request."""

    def __init__(self, stop: threading.Event | ProcessEvent | None, report: Callable[[int], None] | None) -> None:
        self.stop, self.report = stop, report
        self.reported, self.last = 0, time.perf_counter()

    def tick(self, done: int, force: bool = False) -> None:
        if self.stop is not None and self.stop.is_set():
            raise AuditCancelled("the audit was cancelled")
        if self.report is not None and (force or time.perf_counter() - self.last > PROGRESS_INTERVAL):
            self.report(done - self.reported)
            self.reported, self.last = done, time.perf_counter()


class EndSolver:
    """Interval ends of one attacker model, remembering every table seen across calls."""

    def __init__(self, model: AttackerModel, settings: EndSettings) -> None:
        self.model = model
        self.settings = settings
        self.lp = IntervalLP(model, settings.warm_start)
        self.batch_lp: BatchLP | None = None
        self.flows = FlowTables.of(model) if settings.shortcuts and settings.network else None
        self.reached_low = model.truth.copy()
        self.reached_high = model.truth.copy()
        self.rng = np.random.default_rng(0)

    @property
    def runs(self) -> int:
        return self.lp.runs + (self.batch_lp.runs if self.batch_lp is not None else 0)

    @property
    def flow_runs(self) -> int:
        return self.flows.runs if self.flows is not None else 0

    def solve(self, columns: np.ndarray, sides: np.ndarray, stop: threading.Event | ProcessEvent | None = None,
              progress: Callable[[int], None] | None = None) -> tuple[np.ndarray, int, int]:
        """The ends (table units) of columns on sides (LOWER/UPPER), the number of LPs run and
        the number of max-flow batches tried."""
        values = np.full(columns.size, np.nan)
        done = np.zeros(columns.size, bool)
        runs_before, flows_before = self.runs, self.flow_runs
        ticker = _Progress(stop, progress)
        finished = self._settle(columns, sides, values, done)
        if self.settings.shortcuts:
            for side in (UPPER, LOWER):
                finished += self._batches(columns, sides, side, values, done, ticker)
        gap, since_reading = 1, 0
        LOG.debug("%d of %d ends settled before the single-end LPs", finished, columns.size)
        for t in np.flatnonzero(~done):
            ticker.tick(finished)
            if done[t]:
                continue
            began = time.perf_counter()
            values[t] = self.lp.end(int(columns[t]), int(sides[t]))
            LOG.debug("end of column %d (side %+d) by its own LP in %.3f s", columns[t], sides[t],
                      time.perf_counter() - began)
            done[t] = True
            finished += 1
            since_reading += 1
            if self.settings.shortcuts and since_reading >= gap:
                self._remember(self.lp.solution())
                settled = self._settle(columns, sides, values, done)
                finished += settled
                gap, since_reading = (1 if settled else 2 * gap), 0
        ticker.tick(columns.size, force=True)
        return values, self.runs - runs_before, self.flow_runs - flows_before

    def _batches(self, columns: np.ndarray, sides: np.ndarray, side: int, values: np.ndarray, done: np.ndarray,
                 ticker: _Progress) -> int:
        """Settle ends of one side by batches (module doc, 2): independent batches by max flow,
        else by batch LP, the LP first over all open ends at once; returns how many were settled."""
        open_ends = ~done & (sides == side)
        smallest = 1 if self.flows is not None else self.settings.batch_min
        if np.count_nonzero(open_ends) < smallest:
            return 0
        before = int(done.sum())
        candidate = np.zeros(self.model.n_columns, bool)
        candidate[columns[open_ends]] = True
        everything = self.flows is None
        pool = BATCH_POOL * self.model.n_rows
        batch = np.flatnonzero(candidate) if everything else independent_batch(
            self.model.matrix, np.flatnonzero(candidate), self.rng, pool)
        while batch.size >= smallest:
            began, settled = time.perf_counter(), int(done.sum())
            table, how = None, "max flow"
            if self.flows is not None and not everything:
                table = self.flows.table(batch, side)
            if table is None and batch.size >= self.settings.batch_min:
                if self.batch_lp is None:
                    self.batch_lp = BatchLP(self.model)
                table, how = self.batch_lp.table(batch, side), "batch LP"
            if table is not None:
                self._remember(table)
                self._settle(columns, sides, values, done)
            ticker.tick(int(done.sum()))
            LOG.debug("%s of %d cells (side %+d): %d ends settled in %.3f s", how, batch.size, side,
                      int(done.sum()) - settled, time.perf_counter() - began)
            still_open = np.zeros(self.model.n_columns, bool)
            still_open[columns[~done & (sides == side)]] = True
            if not everything:
                candidate[batch] = False
            candidate &= still_open
            batch = independent_batch(self.model.matrix, np.flatnonzero(candidate), self.rng, pool)
            everything = False
        return int(done.sum()) - before

    def _remember(self, table: np.ndarray) -> None:
        np.minimum(self.reached_low, table, out=self.reached_low)
        np.maximum(self.reached_high, table, out=self.reached_high)

    def _settle(self, columns: np.ndarray, sides: np.ndarray, values: np.ndarray, done: np.ndarray) -> int:
        """Mark the open ends a table seen attains to within the tolerance: their value is the
        outer bound (exact, where attained, up to the rounding of its sums); returns how many."""
        if not self.settings.shortcuts:
            return 0
        tol = self.settings.tolerance
        open_ends = np.flatnonzero(~done)
        cols, upper_side = columns[open_ends], sides[open_ends] == UPPER
        outer = np.where(upper_side, self.model.outer_upper[cols], self.model.outer_lower[cols])
        attained = np.where(upper_side, self.reached_high[cols] >= outer - tol, self.reached_low[cols] <= outer + tol)
        settled = open_ends[attained]
        values[settled] = outer[attained]
        done[settled] = True
        return int(settled.size)
