"""The one result type every CTA method returns, and the options every method takes."""

from __future__ import annotations

import dataclasses
import enum
import math
import threading
import types
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from ctadesk.engine.budget import Budget
from ctadesk.engine.errors import SolverError
from ctadesk.engine.publish.verify import Verification


class Status(str, enum.Enum):
    """How a solve ended.  A result is a protected table only when it carries
    values that passed verification (see CTAResult.protected)."""

    OPTIMAL = "optimal"            # proven optimal for the problem asked, within the reported gap
    FEASIBLE = "feasible"          # a protected table, optimality not proven
    INFEASIBLE = "infeasible"      # proven: no protected table exists for the problem asked
    NOT_FOUND = "not_found"        # no table found, and nothing proven (e.g. the senses a heuristic chose fail)
    TIME_LIMIT = "time_limit"      # stopped by the time limit (values: best table so far, if any)
    CANCELLED = "cancelled"        # stopped by the user (values: best table so far, if any)
    NOT_PROTECTED = "not_protected"  # a table came back but failed verification
    ERROR = "error"                # the solver failed


@dataclasses.dataclass(frozen=True)
class Progress:
    """A progress report during a solve (MILP incumbent/bound, IPM iterate)."""

    seconds: float
    objective: float = math.nan
    bound: float = math.nan
    gap: float = math.nan
    message: str = ""


@dataclasses.dataclass(frozen=True)
class SolveOptions:
    """Options common to every method.

    time_limit  seconds from the start of the solve (inf: none)
    gap         relative gap (objective - bound) / objective to stop at (relative_gap)
    threads     solver threads (None: solver default)
    on_log      called with each solver log line (from the solver thread)
    on_progress called with Progress reports (from the solver thread)
    stop        set it from any thread to cancel the solve promptly
    start_senses senses (s,) handed to the MILP as a start
    parameters  the method's own parameters by name (pseudo-Huber delta, BCD block size, ...),
                checked against its entry in ctadesk.engine.methods
    budget      the solve's deadline and stop (ctadesk.engine.budget): started from time_limit and
                stop when the method begins (begun); its parts run within children of it (within)
    """

    time_limit: float = math.inf
    gap: float = 1e-4
    threads: int | None = None
    on_log: Callable[[str], None] | None = None
    on_progress: Callable[[Progress], None] | None = None
    stop: threading.Event | None = None
    start_senses: np.ndarray | None = None
    parameters: Mapping[str, object] = dataclasses.field(default_factory=lambda: types.MappingProxyType({}))
    budget: Budget | None = None

    def begun(self) -> SolveOptions:
        """These options with their budget started now (time_limit from now), unless it has been
        (a copy of their fields: dataclasses.replace's __init__ took a few microseconds a solve)."""
        if self.budget is not None:
            return self
        return _copied(self, {"budget": Budget.start(self.time_limit, self.stop)})

    @property
    def started_budget(self) -> Budget:
        """The budget of options that have begun (begun, within): what a method and its parts run within."""
        if self.budget is None:
            raise RuntimeError("the solve's budget is read before SolveOptions.begun()")
        return self.budget

    def within(self, budget: Budget, **changes: Any) -> SolveOptions:
        """These options for a part of the solve that runs within ``budget`` (a child of theirs)."""
        return dataclasses.replace(self, budget=budget, **changes)

    def cancelled(self) -> bool:
        if self.budget is not None:
            return self.budget.cancelled()
        return self.stop is not None and self.stop.is_set()


#: a gap below this share of the objective is the rounding of two sums of one optimum (the table's
#: distance and the solver's bound differ by 1.7e-13 on 364), reported as 0
GAP_ROUNDING = 1e-12


def relative_gap(objective: float, bound: float) -> float:
    """(objective - bound) / |objective|, at least 0: how far a table of cost ``objective`` may be
    above the optimum that ``bound`` bounds from below (0 for a table of cost 0 and within
    GAP_ROUNDING; inf without a table, objective inf)."""
    if not math.isfinite(objective):
        return math.inf
    gap = max(0.0, objective - bound) / max(abs(objective), 1e-300)
    return 0.0 if gap <= GAP_ROUNDING else gap


@dataclasses.dataclass(frozen=True)
class CTAResult:
    """What a CTA method returns.

    values      adjusted cell values (n,), or None when no table was found
    senses      sense of each sensitive cell (+1 up / -1 down), or None
    objective   weighted L1 distance sum w_i |x_i - a_i| (for every method)
    model_objective the method's own objective (e.g. sum w x^2 for L2)
    bound       proven lower bound on the weighted L1 cost of any protected table of the
                problem (None when nothing valid is known); gap = relative_gap(objective, bound)
    verification what the verifier found (None only when values is None)
    """

    method: str
    status: Status
    message: str = ""
    values: np.ndarray | None = None
    senses: np.ndarray | None = None
    objective: float = math.nan
    model_objective: float = math.nan
    bound: float | None = None
    gap: float | None = None
    log: str = ""
    timings: Mapping[str, float] = dataclasses.field(default_factory=dict)
    verification: Verification | None = None
    info: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    @property
    def verified(self) -> bool:
        """True when a table came back and passed every check."""
        return self.values is not None and self.verification is not None and self.verification.ok

    @property
    def protected(self) -> bool:
        """True when this result is a protected table that may be released."""
        return self.verified and self.status in (Status.OPTIMAL, Status.FEASIBLE, Status.CANCELLED, Status.TIME_LIMIT)

    def table(self) -> np.ndarray:
        """The adjusted values of a result that has them; SolverError, naming how the solve
        ended, for one without a table."""
        if self.values is None:
            raise SolverError(f"{self.method} returned no table ({self.status.value}: {self.message})")
        return self.values

    def replace(self, **changes: Any) -> CTAResult:
        """This result with ``changes`` (field names), as dataclasses.replace gives it, without
        calling __init__ again: a solve's result is replaced three or four times on its way out
        (claims.honest, claims.to_table_units, Method.solve), 3-4 microseconds each that way."""
        return _copied(self, changes)


def _copied(instance: Any, changes: Mapping[str, Any]) -> Any:
    """A copy of the frozen dataclass ``instance`` (one without __post_init__ and without fields
    excluded from __init__) with ``changes``; TypeError naming a field it does not have, as
    dataclasses.replace raises."""
    fields = _FIELDS[type(instance)]
    if not fields.issuperset(changes):
        unknown = sorted(set(changes) - fields)[0]
        raise TypeError(f"{type(instance).__name__} has no field {unknown!r}")
    copy = object.__new__(type(instance))
    copy.__dict__.update(instance.__dict__)
    copy.__dict__.update(changes)
    return copy


#: the fields of the dataclasses _copied copies
_FIELDS: dict[type, frozenset[str]] = {kind: frozenset(field.name for field in dataclasses.fields(kind))
                                       for kind in (SolveOptions, CTAResult)}
