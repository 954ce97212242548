"""The state of one audit worker process, built once by ``start`` (the pool's initializer):
its solver, the shared stop flag and the shared count of ends done."""

from __future__ import annotations

from multiprocessing.sharedctypes import Synchronized
from multiprocessing.synchronize import Event

import numpy as np

from ctadesk.engine.audit.ends import EndSettings, EndSolver
from ctadesk.engine.audit.model import AttackerModel

_solver: EndSolver | None = None
_halt: Event | None = None
_counter: Synchronized[int] | None = None


def start(model: AttackerModel, settings: EndSettings, halt: Event, counter: Synchronized[int]) -> None:
    """Build this process's solver; ``halt`` is a multiprocessing Event, ``counter`` a Value."""
    global _solver, _halt, _counter
    _solver, _halt, _counter = EndSolver(model, settings), halt, counter


def solve(columns: np.ndarray, sides: np.ndarray) -> tuple[np.ndarray, int, int]:
    """Ends of this process's share of the cells, LPs run, max-flow batches tried."""
    assert _solver is not None, "start() runs first in every worker"
    return _solver.solve(columns, sides, _halt, _count)


def _count(ends: int) -> None:
    assert _counter is not None, "start() runs first in every worker"
    with _counter.get_lock():
        _counter.value += ends
