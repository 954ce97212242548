"""The time and the stop signal of one solve, shared by all its parts (issue 12).

A solve's time limit counts from the moment its method starts (SolveOptions.begun); every part
of it (a reference LP for the big-M, the MILP, the polishing LP, the certified bound, the
explanation of an infeasible model, a heuristic's sub-solves) runs within a child of that budget:
a share of the time left, never past the solve's own deadline, stopped by the same event.
"""

from __future__ import annotations

import dataclasses
import math
import threading
import time


@dataclasses.dataclass(frozen=True)
class Budget:
    """deadline: the time.perf_counter() at which the time is up (inf: never); stop: set it from
    any thread to end the solve and all its parts."""

    deadline: float = math.inf
    stop: threading.Event | None = None

    @classmethod
    def start(cls, seconds: float = math.inf, stop: threading.Event | None = None) -> Budget:
        """A budget of ``seconds`` from now."""
        return cls(time.perf_counter() + max(0.0, float(seconds)), stop)

    def remaining(self) -> float:
        """Seconds left (0 once the deadline has passed, inf without one)."""
        if math.isinf(self.deadline):
            return math.inf
        return max(0.0, self.deadline - time.perf_counter())

    def cancelled(self) -> bool:
        return self.stop is not None and self.stop.is_set()

    def over(self) -> bool:
        """Whether the part running within this budget must end now."""
        return self.cancelled() or self.remaining() <= 0.0

    def child(self, *, fraction: float | None = None, seconds: float | None = None) -> Budget:
        """The budget of a part: ``fraction`` of the time left and/or at most ``seconds`` (the
        smaller when both are given), never past this budget's deadline; the same stop.  A share of
        no time limit is no time limit."""
        left = self.remaining()
        allowed = left
        if fraction is not None:
            allowed = min(allowed, fraction * left if math.isfinite(left) else math.inf)
        if seconds is not None:
            allowed = min(allowed, seconds)
        if math.isinf(allowed):
            return self
        return Budget(min(self.deadline, time.perf_counter() + allowed), self.stop)


__all__ = ["Budget"]
