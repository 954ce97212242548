"""What a method's result may claim, decided in one place for every registered method (issue 10).

Each METHODS entry runs its method on the problem restated in table units
(ctadesk.engine.units) and passes the answer through ``honest``:

- "protected / verified": the table is mapped back to the user's units exactly and verified
  there; a table that fails is NOT_PROTECTED, whatever the solver said.
- "bound": a lower bound on the weighted-L1 cost of every protected table of the problem as
  asked (any sense where the senses are free).  A MILP's bound counts, a fixed-sense model's
  objective does not (where the problem itself fixes every sense, the LP's safe dual bound does);
  solvers/lower_bound.py's certified bound is added for every method.  A bound above a
  verified table's cost is wrong on its face and is dropped.
- "optimal": the reported gap is within the requested one.  A fixed-sense model optimal for
  senses a heuristic chose is FEASIBLE, with the model's optimality said in the message.
- "infeasible": only from an exact method whose answer survives a check (a fixed-sense LP
  finding a table refutes it), or from a fixed-sense model whose senses the problem fixes.
  Otherwise "not found", which proves nothing.
- an exact method that ends without a verified table still returns the fixed-sense LP's
  table when that one verifies.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

import numpy as np

from ctadesk.engine.problem import SENSE_FREE, CTAProblem
from ctadesk.engine.result import CTAResult, Progress, SolveOptions, Status
from ctadesk.engine.solvers._finish import describe, weighted_l1
from ctadesk.engine.solvers.lower_bound import lower_bound
from ctadesk.engine.solvers.lp import solve_lp
from ctadesk.engine.solvers.milp import relations_admit_a_table
from ctadesk.engine.units import in_units, table_unit, weight_unit
from ctadesk.engine.verify import verify

Method = Callable[[CTAProblem, SolveOptions], CTAResult]

#: methods whose solver proves optimality and bounds for the CTA problem with free senses
EXACT = frozenset({"milp", "milp-cuts", "hybrid-milp", "bcd-milp", "learning-milp"})
#: fixed-sense methods whose own objective is the weighted L1 distance
FIXED_SENSE_L1 = frozenset({"lp", "soc", "network"})
#: fixed-sense methods minimising another distance (their optimum is not an L1 optimum)
FIXED_SENSE_OTHER = frozenset({"l2", "huber", "network-l2"})
#: methods whose model objective is quadratic in the table's unit
QUADRATIC = frozenset({"l2", "network-l2"})
#: a bound may exceed a verified table's cost by this much (relative, with a floor of one unit
#: of the scaled table) before it is called wrong: the verifier's own tolerance
BOUND_SLACK = 1e-6


def in_table_units(name: str, method: Method) -> Method:
    """The METHODS entry for ``method``: solved in table units, its claims made honest."""
    def run(problem: CTAProblem, options: SolveOptions = SolveOptions()) -> CTAResult:
        unit, weight = table_unit(problem), weight_unit(problem)
        scaled = in_units(problem, unit, weight)
        power = 2 if name in QUADRATIC else 1
        scaled_options = _scaled_options(options, unit, power, weight)
        result = method(scaled, scaled_options)
        if name in FIXED_SENSE_OTHER and result.status is Status.OPTIMAL and result.verified:
            result = _checked_distance(scaled, name, result, scaled_options)
        result = honest(scaled, name, result, options)
        return to_table_units(problem, result, unit, power, weight)

    run.__name__ = getattr(method, "__name__", name)
    run.__doc__ = method.__doc__
    return run


def _scaled_options(options: SolveOptions, unit: float, power: int, weight: float) -> SolveOptions:
    """Options for the solve in table units: progress reported in the user's units, the
    pseudo-Huber delta (a length) in the table's."""
    if unit == 1.0 and weight == 1.0:
        return options
    on_progress = options.on_progress
    scale = unit ** power * weight

    def report(progress: Progress) -> None:
        on_progress(dataclasses.replace(progress, objective=progress.objective * scale,
                                        bound=progress.bound * scale))

    return dataclasses.replace(options, on_progress=None if on_progress is None else report,
                               huber_delta=options.huber_delta / unit)


def honest(problem: CTAProblem, name: str, result: CTAResult, options: SolveOptions) -> CTAResult:
    """``result`` of method ``name`` with the status, bound and gap it can stand by (module docstring)."""
    all_fixed = bool(np.all(problem.effective_senses != SENSE_FREE))
    if name in EXACT and not result.verified and not options.cancelled():
        result = _rescued(problem, result, options)
    if not result.verified:
        return _without_table_claims(problem, name, result, all_fixed)
    notes: list[str] = []
    status = result.status
    if status in (Status.ERROR, Status.INFEASIBLE, Status.NOT_FOUND, Status.NOT_PROTECTED):
        notes.append(f"the solver ended '{status.value}', but its table verifies")
        status = Status.FEASIBLE
    own_bound = result.bound if name in EXACT else None
    if status is Status.OPTIMAL and name not in EXACT:
        if all_fixed and name in FIXED_SENSE_L1:
            own_bound = result.info.get("senses_bound")     # the senses are the problem's: a CTA bound
        elif not (all_fixed and name in FIXED_SENSE_OTHER):
            status = Status.FEASIBLE
            notes.append(f"optimal for the senses {_senses_origin(result)}; not proven optimal over all senses")
    certified = lower_bound(problem).value
    candidates = [b for b in (own_bound, certified) if b is not None and math.isfinite(b)]
    slack = BOUND_SLACK * max(result.objective, 1.0)
    valid = [b for b in candidates if b <= result.objective + slack]
    if len(valid) < len(candidates):
        notes.append(f"a bound of {max(candidates):.10g}, above this verified table, was dropped")
        if status is Status.OPTIMAL:
            status = Status.FEASIBLE
    bound = min(max(valid), result.objective) if valid else None
    gap = None if bound is None else max(0.0, result.objective - bound) / max(result.objective, 1e-300)
    if status is Status.OPTIMAL and name not in FIXED_SENSE_OTHER and (gap is None or gap > options.gap * (1 + 1e-9)):
        status = Status.FEASIBLE
        notes.append("the solver's optimum is not within the requested gap of a valid bound")
    if status in (Status.FEASIBLE, Status.TIME_LIMIT) and gap is not None and gap <= options.gap:
        status, notes = Status.OPTIMAL, []
    info = dict(result.info)
    if bound is not None and bound == certified and bound != own_bound:
        info["bound_from"] = "protection levels and relation imbalances"
    message = result.message
    if status is not result.status or notes:
        message = "; ".join([describe(status)] + notes)
    return result.replace(status=status, bound=bound, gap=gap, message=message, info=info)


def _checked_distance(problem: CTAProblem, name: str, result: CTAResult, options: SolveOptions) -> CTAResult:
    """An "optimal" least-squares or pseudo-Huber table checked against the fixed-sense L1 LP's
    table with the same senses: where that one is closer in the method's own distance, the
    interior point method stopped early (tables of mixed magnitudes) and "optimal" is withdrawn."""
    checked = solve_lp(problem, dataclasses.replace(options, on_progress=None, on_log=None), senses=result.senses)
    if not checked.verified:
        return result
    z = checked.values - problem.values
    delta = options.huber_delta
    distance = float(problem.weights @ (z * z)) if name in QUADRATIC else \
        float(problem.weights @ (np.sqrt(z * z + delta * delta) - delta))
    if distance >= result.model_objective * (1 - 1e-6):
        return result
    return result.replace(status=Status.FEASIBLE, message=f"{describe(Status.FEASIBLE)}; the solver's answer is not "
                          f"optimal: the L1 table with the same senses is closer in {name}'s own distance")


def _without_table_claims(problem: CTAProblem, name: str, result: CTAResult, all_fixed: bool) -> CTAResult:
    """A result without a verified table: "infeasible" only where it is proven."""
    if result.status is not Status.INFEASIBLE:
        return result.replace(bound=result.bound if name in EXACT else None, gap=None)
    proven = (name in EXACT and result.info.get("big_m_certified", True)) or all_fixed
    if not proven and not relations_admit_a_table(problem):
        return result.replace(bound=None, gap=None, message="no table satisfies the relations and bounds, "
                                                            "protection aside; " + result.message)
    if proven:
        return result.replace(bound=None, gap=None)
    why = result.message or describe(Status.INFEASIBLE)
    return result.replace(status=Status.NOT_FOUND, bound=None, gap=None,
                          message=f"{describe(Status.NOT_FOUND)}: {why}")


def _senses_origin(result: CTAResult) -> str:
    origin = result.info.get("senses_from")
    return f"from the {origin}" if origin and origin not in ("given", "problem") else "used"


def _rescued(problem: CTAProblem, result: CTAResult, options: SolveOptions) -> CTAResult:
    """An exact method's result without a verified table, or the fixed-sense LP's table (ordering
    senses) when that one verifies: a wrong "infeasible" is refuted, a failure still gives a table."""
    fallback = solve_lp(problem, dataclasses.replace(options, on_progress=None))
    if not fallback.verified:
        return result
    said = result.message or describe(result.status)
    status = Status.TIME_LIMIT if result.status is Status.TIME_LIMIT else Status.FEASIBLE
    return fallback.replace(method=result.method, status=status, bound=None, gap=None, log=result.log + fallback.log,
                            message=f"the exact solver gave no protected table ({said}); "
                                    "this is the fixed-sense LP's table with the ordering senses",
                            info={**result.info, "rescued_by_lp": True, "solver_said": said})


def to_table_units(problem: CTAProblem, result: CTAResult, unit: float, power: int, weight: float) -> CTAResult:
    """``result`` (found for ``problem`` in units of ``unit`` and ``weight``, see units.in_units) in
    the user's units, verified there."""
    cost = unit * weight
    if result.values is None:
        return result.replace(objective=math.nan, bound=None if result.bound is None else result.bound * cost)
    values = np.asarray(result.values, dtype=float) * unit
    verification = verify(problem, values, result.senses)
    status, message = result.status, result.message
    if not verification.ok:         # said again in the user's units
        said = result.info.get("solver_said") or ("" if status is Status.NOT_PROTECTED else message)
        status = Status.NOT_PROTECTED
        message = verification.summary() + (f" (the solver said: {said})" if said else "")
    return result.replace(values=values, status=status, message=message, verification=verification,
                          objective=weighted_l1(problem, values),
                          model_objective=result.model_objective * unit ** power * weight,
                          bound=None if result.bound is None else result.bound * cost,
                          info={**result.info, "table_unit": unit, "weight_unit": weight})


__all__ = ["EXACT", "FIXED_SENSE_L1", "FIXED_SENSE_OTHER", "honest", "in_table_units", "to_table_units"]
