"""An on-line table put at the precision it is published at: the data's decimals."""

from __future__ import annotations

import math
import time

import numpy as np

from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.publish.precision import at_precision
from ctadesk.engine.result import SolveOptions, Status
from ctadesk.engine.solvers.finish import finish


def on_grid(problem: CTAProblem, senses: np.ndarray, values: np.ndarray, decimals: int,
            time_limit: float = math.inf) -> np.ndarray | None:
    """The protected table ``values`` of ``problem`` with ``senses`` put at 10^-decimals, every
    relation exact there and every sensitive cell beyond its level on the side of its sense
    (ctadesk.engine.publish.precision.at_precision, the weighted-L1 table on the grid); None when none is found
    in ``time_limit`` or it would need another sense."""
    fixed = problem.with_senses(senses)
    began = time.perf_counter()
    start = finish(fixed, "online", Status.FEASIBLE, values, started=began, build_seconds=0.0, solve_seconds=0.0,
                   senses=senses)
    if not start.verified:
        return None
    published = at_precision(fixed, start, decimals, SolveOptions(time_limit=time_limit))
    if not published.verified or published.senses is None or not np.array_equal(published.senses, senses):
        return None
    return np.asarray(published.values, dtype=float)

