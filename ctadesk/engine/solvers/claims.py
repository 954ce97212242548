"""What a method's result may claim, decided in one place for every registered method (issue 10).

Each method of ctadesk.engine.methods runs on the problem restated in table units
(ctadesk.engine.table.units) and its answer passes through ``honest``, which judges it by the model
the method solves (ctadesk.engine.model):

- "protected / verified": the table is mapped back to the user's units exactly and verified
  there; a table that fails is NOT_PROTECTED, whatever the solver said.
- "bound": a lower bound on the weighted-L1 cost of every protected table of the problem as
  asked (any sense where the senses are free).  A MILP's bound counts, a fixed-sense model's
  objective does not (where the problem itself fixes every sense, the LP's safe dual bound does);
  solvers/lower_bound.py's certified bound is added for every method (and for an exact method
  given long enough, solvers/slice_bound.py's); a method that is not exact on a table of more than
  FULL_BOUND_CELLS cells gets its protection part alone (solvers/protection_bound.py).  A bound above a
  verified table's cost is wrong on its face and is dropped.
- "optimal": the reported gap is within the requested one.  A fixed-sense model optimal for
  senses a heuristic chose is FEASIBLE, with the model's optimality said in the message.
- "infeasible": only from an exact method whose answer survives a check (a fixed-sense LP
  finding a table refutes it: methods/runners.py), or from a fixed-sense model whose senses the
  problem fixes.
  Otherwise "not found", which proves nothing.
"""

from __future__ import annotations

import dataclasses
import math
import types
import weakref
from collections.abc import Callable, Collection

import numpy as np

from ctadesk.engine.model import Model, Senses
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.publish.verify import Verification, verify
from ctadesk.engine.result import CTAResult, Progress, SolveOptions, Status, relative_gap
from ctadesk.engine.solvers.finish import describe, distance_and_changes, verified_before
from ctadesk.engine.solvers.lower_bound import LowerBound, lower_bound
from ctadesk.engine.solvers.milp import relations_admit_a_table
from ctadesk.engine.solvers.protection_bound import protection_bound
from ctadesk.engine.solvers.slice_bound import with_slices
from ctadesk.engine.table.units import in_units, table_unit, weight_unit

Method = Callable[[CTAProblem, SolveOptions], CTAResult]

#: a bound may exceed a verified table's cost by this much (relative, with a floor of one unit
#: of the scaled table) before it is called wrong: the verifier's own tolerance
BOUND_SLACK = 1e-6
#: share of the time that the certified lower bound may take, before the method runs (so a method
#: that searches until its deadline still gets the bound's LP, not only its greedy part)
BOUND_SHARE = 0.2
#: above this many cells a method that is not exact reports the protection part of the bound alone
#: (solvers/protection_bound.py): the whole bound's propagation takes about 0.5 s a million cells
FULL_BOUND_CELLS = 100_000
#: the smallest normal and the largest finite floating-point number: a table with values below the
#: one (but 0) or above the other (or NaN) is verified again in the user's units (_verified_in_units)
_NORMAL = float(np.finfo(float).tiny)
_LARGEST = float(np.finfo(float).max)


def in_table_units(model: Model, method: Method, lengths: Collection[str] = ()) -> Method:
    """``method`` (which solves ``model``) solved in table units, its claims made honest.
    ``lengths`` names the parameters that are lengths in the user's units (restated with the table)."""
    def run(problem: CTAProblem, options: SolveOptions = SolveOptions()) -> CTAResult:
        options = options.begun()
        unit, weight, scaled = restated(problem)
        power = 2 if model.quadratic else 1
        scaled_options = _scaled_options(options, unit, power, weight, lengths)
        note = units_note(unit, power, weight)
        if note and options.on_log is not None:
            options.on_log(note)
        # first, within its share: kept for the problem, so the method's own claims find it too
        certified = (lower_bound(scaled, options.started_budget.child(fraction=BOUND_SHARE))
                     if model.exact or scaled.n_cells <= FULL_BOUND_CELLS else protection_bound(scaled))
        if model.exact:     # an exact method's long run: the slices' bound too, where time allows
            certified = with_slices(scaled, certified, options.started_budget)
        result = honest(scaled, model, method(scaled, scaled_options), options, certified)
        return to_table_units(problem, result, unit, power, weight, scaled, note)

    run.__name__ = getattr(method, "__name__", "run")
    run.__doc__ = method.__doc__
    return run


#: a problem -> its table unit, weight unit and restated problem, while the problem lives (restated)
_RESTATED: weakref.WeakKeyDictionary[CTAProblem, tuple[float, float, CTAProblem]] = weakref.WeakKeyDictionary()


def restated(problem: CTAProblem) -> tuple[float, float, CTAProblem]:
    """(table_unit, weight_unit, in_units(problem, those units)) of ``problem``, worked out once while
    the problem lives: all three are functions of an immutable problem alone, and a problem solved
    again (another method, other options, a benchmark's repeats) gets the same restated problem, so
    what is kept per restated problem (lower_bound's bound, the verifications of finish) is found
    again too.  Restating (the units' medians and CTAProblem.divided, which makes the checks a
    division can change) took about 50 of the 380 microseconds of a 60-cell table's first L2 solve."""
    if problem not in _RESTATED:
        unit, weight = table_unit(problem), weight_unit(problem)
        _RESTATED[problem] = (unit, weight, in_units(problem, unit, weight))
    return _RESTATED[problem]


def _model_cost(unit: float, power: int, weight: float) -> float:
    """What a unit of the model's objective costs in the table's: unit ** power * weight, inf (where
    float's ** raises OverflowError) for a table whose values are near the largest float."""
    return math.prod([unit] * power) * weight


def units_note(unit: float, power: int, weight: float) -> str:
    """The solver log's line on its units ("" when they are the table's): without it, a MILP log
    saying 23.53 beside a table at distance 12 047.6 (cox_20x20, units of 512) reads as wrong."""
    scale = _model_cost(unit, power, weight)
    if scale == 1.0:
        return ""
    return (f"the solver works with cells in units of {unit:g} and weights in units of {weight:g}: the "
            f"objective values in its log are the table's distances divided by {scale:g}")


def _scaled_options(options: SolveOptions, unit: float, power: int, weight: float,
                    lengths: Collection[str]) -> SolveOptions:
    """Options for the solve in table units: progress reported in the user's units, the
    parameters that are lengths (the pseudo-Huber delta) in the table's."""
    if (unit == 1.0 and weight == 1.0) or (options.on_progress is None and not set(lengths) & set(options.parameters)):
        return options
    on_progress = options.on_progress
    parameters = {name: value / unit if name in lengths and isinstance(value, (int, float)) else value
                  for name, value in options.parameters.items()}
    return dataclasses.replace(options, parameters=types.MappingProxyType(parameters),
                               on_progress=None if on_progress is None else
                               _scaled_progress(on_progress, _model_cost(unit, power, weight)))


def _scaled_progress(on_progress: Callable[[Progress], None], scale: float) -> Callable[[Progress], None]:
    """``on_progress`` told the objective and bound of a solve in table units in the user's (times ``scale``)."""

    def report(progress: Progress) -> None:
        on_progress(dataclasses.replace(progress, objective=progress.objective * scale,
                                        bound=progress.bound * scale))

    return report


def honest(problem: CTAProblem, model: Model, result: CTAResult, options: SolveOptions,
           certified: LowerBound | None = None) -> CTAResult:
    """``result`` of a method solving ``model`` with the status, bound and gap it can stand by
    (module docstring); ``certified``: lower_bound(problem), found within the options' budget
    when not given."""
    all_fixed = not problem.free_senses
    if not result.verified:
        return _without_table_claims(problem, model, result, all_fixed, options)
    notes: list[str] = []
    status = result.status
    if status in (Status.ERROR, Status.INFEASIBLE, Status.NOT_FOUND, Status.NOT_PROTECTED):
        notes.append(f"the solver ended '{status.value}', but its table verifies")
        status = Status.FEASIBLE
    fixed_sense = model.senses is Senses.FIXED
    own_bound = result.bound if model.exact else None
    if status is Status.OPTIMAL and not model.exact:
        if all_fixed and fixed_sense and model.l1_objective:
            own_bound = result.info.get("senses_bound")     # the senses are the problem's: a CTA bound
        elif not (all_fixed and fixed_sense):
            status = Status.FEASIBLE
            notes.append(f"optimal for the senses {_senses_origin(result)}; not proven optimal over all senses")
    certified_value = (certified or lower_bound(problem, options.begun().started_budget)).value
    candidates = [b for b in (own_bound, certified_value) if b is not None and math.isfinite(b)]
    slack = BOUND_SLACK * max(result.objective, 1.0)
    valid = [b for b in candidates if b <= result.objective + slack]
    if len(valid) < len(candidates):
        notes.append(f"a bound of {max(candidates):.10g}, above this verified table, was dropped")
        if status is Status.OPTIMAL:
            status = Status.FEASIBLE
    bound = min(max(valid), result.objective) if valid else None
    gap = None if bound is None else relative_gap(result.objective, bound)
    other_distance = fixed_sense and not model.l1_objective
    if status is Status.OPTIMAL and not other_distance and (gap is None or gap > options.gap * (1 + 1e-9)):
        status = Status.FEASIBLE
        notes.append("the solver's optimum is not within the requested gap of a valid bound")
    if status in (Status.FEASIBLE, Status.TIME_LIMIT) and gap is not None and gap <= options.gap:
        status, notes = Status.OPTIMAL, []
    info = dict(result.info)
    if bound is not None and bound == certified_value and bound != own_bound:
        info["bound_from"] = "protection levels and relation imbalances"
    message = result.message
    if status is not result.status or notes:
        message = "; ".join([describe(status), *notes])
    return result.replace(status=status, bound=bound, gap=gap, message=message, info=info)


def _without_table_claims(problem: CTAProblem, model: Model, result: CTAResult, all_fixed: bool,
                          options: SolveOptions) -> CTAResult:
    """A result without a verified table: "infeasible" only where it is proven."""
    if result.status is not Status.INFEASIBLE:
        return result.replace(bound=result.bound if model.exact else None, gap=None)
    proven = (model.exact and result.info.get("big_m_certified", True)) or all_fixed
    if not proven and not relations_admit_a_table(problem, options):
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


#: result.info entries that are weighted L1 distances (a portfolio's two tables, a heuristic's start,
#: the solver's own bound): restated with the objective
DISTANCE_INFO = ("milp_objective", "heuristic_objective", "start_objective", "solver_bound")


def to_table_units(problem: CTAProblem, result: CTAResult, unit: float, power: int, weight: float,
                   scaled: CTAProblem | None = None, note: str = "") -> CTAResult:
    """``result`` (found for ``scaled`` = in_units(problem, unit, weight), see units.in_units) in
    the user's units, verified there (_verified_in_units: by the verification of the same table in
    ``scaled`` where that one passed); ``note`` (units_note) heads its log where it has one."""
    cost = unit * weight
    log = f"{note}\n{result.log}" if note and result.log else result.log
    info = {key: value * cost if key in DISTANCE_INFO and isinstance(value, float) else value
            for key, value in result.info.items()}
    if result.values is None:
        return result.replace(objective=math.nan, bound=None if result.bound is None else result.bound * cost,
                              info=info, log=log)
    values = np.asarray(result.values, dtype=float) * unit
    verification = _verified_in_units(problem, scaled, result, values, unit) or verify(problem, values, result.senses)
    status, message = result.status, result.message
    if not verification.ok:         # said again in the user's units
        said = info.get("solver_said") or ("" if status is Status.NOT_PROTECTED else message)
        status = Status.NOT_PROTECTED
        message = verification.summary() + (f" (the solver said: {said})" if said else "")
    objective, changed = distance_and_changes(problem, values)
    return result.replace(values=values, status=status, message=message, verification=verification, log=log,
                          objective=objective,
                          model_objective=result.model_objective * _model_cost(unit, power, weight),
                          bound=None if result.bound is None else result.bound * cost,
                          info={**info, "table_unit": unit, "weight_unit": weight, "cells_changed": changed})


def _verified_in_units(problem: CTAProblem, scaled: CTAProblem | None, result: CTAResult, values: np.ndarray,
                       unit: float) -> Verification | None:
    """The passed verification of ``result``'s table in ``scaled`` (finish.verified_before), which
    is that of ``values`` in ``problem``: every check of the verifier compares sums, differences,
    products with the relations' coefficients and maxima of the table's values, right-hand sides,
    bounds and protection levels with tolerances in the table's unit and relative errors, and
    in_units divides all of these but the coefficients by the power of two ``unit``; a power of
    two moves exponents alone, so every rounding and every comparison comes out the same, and a
    passed verification says only ok and relative errors.  None where a premise fails (then the
    table is verified again): the units are not each other's ``unit`` multiple, a value is not
    finite or not a normal floating-point number in the user's units, or finish kept no passed
    verification of this very table."""
    if scaled is None or result.values is None:
        return None
    earlier = verified_before(scaled, result.values, result.senses)
    if earlier is None or not earlier.ok or table_unit(scaled) * unit != table_unit(problem):
        return None
    magnitudes = np.abs(values)
    if not (np.maximum.reduce(magnitudes, initial=0.0) <= _LARGEST
            and np.minimum.reduce(magnitudes, where=magnitudes > 0, initial=np.inf) >= _NORMAL):
        return None
    return earlier


__all__ = ["honest", "in_table_units", "restated", "to_table_units"]
