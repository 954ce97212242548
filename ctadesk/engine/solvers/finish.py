"""The last step of every CTA method: objective, verification, status, timings."""

from __future__ import annotations

import math
import time
import weakref
from collections.abc import Mapping
from typing import Any

import numpy as np

from ctadesk.engine.array_memo import ArrayMemo
from ctadesk.engine.problem import SENSE_DOWN, SENSE_UP, CTAProblem
from ctadesk.engine.publish.verify import Verification, verify
from ctadesk.engine.result import CTAResult, Status

#: a cell is changed when it moves by more than this times max(1, |a_i|)
CHANGE_RTOL = 1e-9
#: a read-only table that finish verified -> (its problem, the senses it was verified with, what
#: the verifier found), while the table lives (verified_before)
_VERIFIED: ArrayMemo[tuple[weakref.ref, np.ndarray | None, Verification]] = ArrayMemo()


def weighted_sum(weights: np.ndarray, terms: np.ndarray) -> float:
    """sum w_i t_i without BLAS: numpy's dot product of more than 10 000 entries wakes a second
    OpenBLAS thread, which then spins for a while and takes a core the solve needs (on 2 cores, a
    14 160-cell L2 solve took 0.19 s instead of 0.085 s: benchmarks/l2_shapes.py)."""
    return float(np.add.reduce(weights * terms))


def weighted_l1(problem: CTAProblem, values: np.ndarray) -> float:
    """sum w_i |x_i - a_i| (Castro & González 2011, (2a))."""
    return weighted_sum(problem.weights, np.abs(values - problem.values))


def changed(problem: CTAProblem, deviations: np.ndarray) -> np.ndarray:
    """Which cells the deviations x - a change (CHANGE_RTOL)."""
    return np.abs(deviations) > CHANGE_RTOL * np.maximum(1.0, np.abs(problem.values))


def cells_changed(problem: CTAProblem, values: np.ndarray) -> int:
    """How many cells the table ``values`` changes (issue 11: the report says it)."""
    return int(np.count_nonzero(changed(problem, np.asarray(values, dtype=float) - problem.values)))


def distance_and_changes(problem: CTAProblem, values: np.ndarray) -> tuple[float, int]:
    """(weighted_l1, cells_changed) of the float table ``values``, from one |x - a|: the last steps
    of a solve report both (finish, claims.to_table_units)."""
    moved = np.abs(values - problem.values)
    return (weighted_sum(problem.weights, moved),
            int(np.count_nonzero(moved > CHANGE_RTOL * np.maximum(1.0, np.abs(problem.values)))))


def senses_of(problem: CTAProblem, values: np.ndarray) -> np.ndarray:
    """Senses read off the adjusted table: the sign of x_i - a_i per sensitive cell.

    An unchanged cell takes its required sense, else the side whose protection
    level is zero (up when both are).
    """
    deviation = values[problem.sensitive] - problem.values[problem.sensitive]
    unchanged = np.where(problem.effective_senses != 0, problem.effective_senses,
                         np.where(problem.upper_protection <= problem.lower_protection, SENSE_UP, SENSE_DOWN))
    return np.where(deviation > 0, SENSE_UP, np.where(deviation < 0, SENSE_DOWN, unchanged)).astype(np.int8)


def finish(problem: CTAProblem, method: str, status: Status, values: np.ndarray | None, *,
           started: float, build_seconds: float, solve_seconds: float,
           senses: np.ndarray | None = None, message: str = "", model_objective: float = math.nan,
           bound: float | None = None, gap: float | None = None, log: str = "",
           info: Mapping[str, Any] | None = None) -> CTAResult:
    """A verified CTAResult; ``started`` is the time.perf_counter() at the method's start.

    A table that fails verification gets status NOT_PROTECTED and the verifier's
    summary as its message; no table means no objective and no verification.
    info["cells_changed"] counts the cells a table changes.
    """
    verification = None
    objective = math.nan
    verify_seconds = 0.0
    info = dict(info or {})
    if values is not None:
        values = np.asarray(values, dtype=float)
        if senses is None:
            senses = senses_of(problem, values)
        began = time.perf_counter()
        verification = verify(problem, values, senses)
        verify_seconds = time.perf_counter() - began
        _remember(problem, values, senses, verification)
        objective, info["cells_changed"] = distance_and_changes(problem, values)
        if not verification.ok:
            status = Status.NOT_PROTECTED
            message = verification.summary() + (f" ({message})" if message else "")
        elif not message:
            message = describe(status)
            if status in (Status.TIME_LIMIT, Status.CANCELLED):
                message += "; best table found so far, verified"
    elif not message:
        message = describe(status)
    timings = {"build": build_seconds, "solve": solve_seconds, "verify": verify_seconds,
               "total": time.perf_counter() - started}
    return CTAResult(method=method, status=status, message=message, values=values, senses=senses,
                     objective=objective, model_objective=model_objective, bound=bound, gap=gap,
                     log=log, timings=timings, verification=verification, info=info)


def _remember(problem: CTAProblem, values: np.ndarray, senses: np.ndarray | None,
              verification: Verification) -> None:
    """Keep what the verifier found for ``values`` where no one can write to them any more: a
    read-only array that owns its data (a method that hands finish such a table asks for it)."""
    if values.base is None:     # a view's base could be written through another view
        _VERIFIED.keep(values, (weakref.ref(problem), None if senses is None else senses.copy(), verification))


def verified_before(problem: CTAProblem, values: np.ndarray, senses: np.ndarray | None) -> Verification | None:
    """What finish's verifier found for this very table of ``problem`` with ``senses``, where it
    kept it (_remember): the inputs of a verification the same objects, unchanged, and the
    verifier a function of them alone.  None where it did not."""
    if values not in _VERIFIED:
        return None
    owner, seen, verification = _VERIFIED[values]
    if owner() is not problem:
        return None
    if seen is None or senses is None:
        return verification if seen is None and senses is None else None
    return verification if np.array_equal(seen, senses) else None


def describe(status: Status) -> str:
    """The plain message of a status."""
    return _MESSAGES[status]


_MESSAGES = {
    Status.OPTIMAL: "optimal; verified",
    Status.FEASIBLE: "protected table found (optimality not proven); verified",
    Status.TIME_LIMIT: "time limit reached",
    Status.CANCELLED: "cancelled",
    Status.INFEASIBLE: "no table satisfies the relations, bounds and protection levels",
    Status.ERROR: "the solver failed",
    Status.NOT_FOUND: "no protected table found; that does not prove none exists",
    Status.NOT_PROTECTED: "the table failed verification",
}
