"""Run CTA methods and judge the claims of their results against checker.py.

The claims and how each is judged (``judge``):

false protected   result.protected but check_table rejects the table.
false optimal     status optimal and
                  * weighted-L1 methods (every method but l2, network-l2, huber): the objective
                    sum w |x - a| exceeds the reference optimum * (1 + gap) + tol (else, without a
                    reference, the least objective of a checker-valid table any method returned);
                  * l2 / network-l2 / huber (whose own objective is sum w z^2 resp. pseudo-Huber):
                    the model objective of the table, recomputed here, exceeds that of another
                    checker-valid table on the same sides as the result's senses (the reference LP
                    table of those senses, or another method's table).
false optimal (own senses)
                  fixed-sense L1 methods (lp, soc, network, soft-lp): the objective exceeds the
                  optimum of the fixed-sense LP of the senses the result reports.  ("false
                  optimal" above also applies to them: an optimal claim for senses the method
                  chose itself is checked against the problem's true optimum.)
invalid bound     result.bound above the reference optimum + tol, or above the objective of a
                  checker-valid table (any method) + a looser tol.
wrong infeasible  status infeasible while the reference found a table, or (unless the reference found
                  the instance infeasible) some method returned a checker-valid table.
wrong infeasible (own senses)
                  fixed-sense methods: infeasible while the fixed-sense LP of its senses has a table.
failure           an exception escaped solve (counted, also reported), or status error.

Findings about the reference itself (method "(reference)"): a checker-valid table cheaper than
the reference optimum by more than the loose tolerance (the reference is then not used for that
instance), and "tolerance-ambiguous" instances: the exact LP is infeasible for every sense vector
but a table passes the checker's tolerances (a tiny sensitive cell in a relation of huge cells:
the relation tolerance exceeds its protection).  An infeasible claim is not judged wrong there.

Tolerances: tight = 1e-6 * (|optimum| + unit * sum w), for comparisons with the reference LP;
loose = tight + 1e-6 * sum_i w_i max(|a_i|, unit), for comparisons with other methods' tables,
which the checker lets be that much cheaper than any exactly protected table.
"""

from __future__ import annotations

import dataclasses
import math
import time
import traceback

import numpy as np

from ctadesk.engine.methods import METHODS
from ctadesk.engine.model import Distance, Senses
from tests.crosscheck.checker import (
    RTOL,
    Check,
    Reference,
    check_table,
    pseudo_huber,
    senses_agree,
    solve_fixed_senses,
    table_senses,
    table_unit,
    weighted_l1,
    weighted_l2,
)

#: methods that fix the senses first (given, forced, else an ordering heuristic) and solve one model
FIXED_SENSE = frozenset(name for name, method in METHODS.items() if method.model.senses in (Senses.FIXED, Senses.SOFT))
#: methods whose own objective is not weighted L1
MODEL_COST = {name: method.model.distance.value for name, method in METHODS.items()
              if method.model.distance in (Distance.L2, Distance.HUBER)}

FALSE_PROTECTED = "false protected"
FALSE_OPTIMAL = "false optimal"
FALSE_OPTIMAL_OWN = "false optimal (own senses)"
INVALID_BOUND = "invalid bound"
WRONG_INFEASIBLE = "wrong infeasible"
WRONG_INFEASIBLE_OWN = "wrong infeasible (own senses)"
EXCEPTION = "exception"
ERROR = "error status"
#: findings about the reference, not a method ("method" REFERENCE)
REFERENCE = "(reference)"
REFERENCE_CHEAPER = "reference disagreement"
TOLERANCE_AMBIGUOUS = "tolerance-ambiguous infeasible"
KINDS = (FALSE_PROTECTED, FALSE_OPTIMAL, FALSE_OPTIMAL_OWN, INVALID_BOUND, WRONG_INFEASIBLE,
         WRONG_INFEASIBLE_OWN, EXCEPTION, ERROR)


@dataclasses.dataclass
class Run:
    """One method on one problem: its result (or the exception) and the checker's verdict."""

    method: str
    result: object | None
    exception: str | None
    seconds: float
    check: Check | None
    options: object | None = None

    @property
    def status(self) -> str:
        return "exception" if self.result is None else self.result.status.value

    @property
    def valid(self) -> bool:
        return self.check is not None and self.check.ok


@dataclasses.dataclass(frozen=True)
class Finding:
    method: str
    kind: str
    detail: str


def run_method(problem, method: str, time_limit: float = 5.0, gap: float = 1e-4,
               threads: int | None = None) -> Run:
    """solve(problem, method) with every exception caught, and the table checked."""
    from ctadesk.engine.methods import solve
    from ctadesk.engine.result import SolveOptions

    options = SolveOptions(time_limit=time_limit, gap=gap, threads=threads)
    began = time.perf_counter()
    try:
        result = solve(problem, method, options)
    except Exception as error:  # an escaping exception is itself a finding
        lines = traceback.format_exception(error)
        return Run(method, None, f"{type(error).__name__}: {error}\n{''.join(lines[-4:])}",
                   time.perf_counter() - began, None, options)
    seconds = time.perf_counter() - began
    check = check_table(problem, result.values) if result.values is not None else None
    return Run(method, result, None, seconds, check, options)


def tolerances(problem, optimum: float) -> tuple[float, float]:
    """(tight, loose) absolute tolerances of objective comparisons (module docstring)."""
    a = np.asarray(problem.values, dtype=float)
    w = np.asarray(problem.weights, dtype=float)
    unit = table_unit(a)
    tight = RTOL * (abs(optimum) + unit * float(w.sum()))
    loose = tight + RTOL * float(w @ np.maximum(np.abs(a), unit))
    return tight, loose


def model_cost(problem, method: str, values, huber_delta: float) -> float:
    if MODEL_COST.get(method) == "l2":
        return weighted_l2(problem, values)
    return pseudo_huber(problem, values, huber_delta)


def _reported_senses(problem, run: Run) -> np.ndarray | None:
    """The +-1 senses the result reports, else those its table shows, else the problem's own."""
    senses = getattr(run.result, "senses", None)
    if senses is not None and np.asarray(senses).shape == (problem.n_sensitive,) and \
            np.all(np.abs(np.asarray(senses)) == 1):
        return np.asarray(senses, dtype=int)
    if run.result is not None and run.result.values is not None:
        shown = table_senses(problem, run.result.values)
        if np.all(shown != 0):
            return shown.astype(int)
    if np.all(np.asarray(problem.senses) != 0):
        return np.asarray(problem.senses, dtype=int)
    return None


def _own_senses_solution(problem, reference: Reference | None, senses, cache: dict):
    key = tuple(int(v) for v in senses)
    if key not in cache:
        solution = reference.for_senses(key) if reference is not None else None
        cache[key] = solution if solution is not None else solve_fixed_senses(problem, key)
    return cache[key]


def judge(problem, runs: list[Run], reference: Reference | None, gap: float = 1e-4,
          sense_cache: dict | None = None) -> list[Finding]:
    """Every false claim among runs (module docstring); other runs' tables count as evidence."""
    findings: list[Finding] = []
    sense_cache = {} if sense_cache is None else sense_cache
    valid = [run for run in runs if run.valid]
    best_valid = min((weighted_l1(problem, run.result.values) for run in valid), default=math.inf)
    best_valid_method = min(valid, key=lambda run: weighted_l1(problem, run.result.values)).method if valid else ""
    ref_status = reference.status if reference is not None else "skipped"
    ref_optimum = reference.objective if ref_status == "optimal" else math.nan
    tight, loose = tolerances(problem, ref_optimum if math.isfinite(ref_optimum) else
                              (best_valid if math.isfinite(best_valid) else 0.0))
    if math.isfinite(ref_optimum) and best_valid < ref_optimum - loose:
        findings.append(Finding(REFERENCE, REFERENCE_CHEAPER, f"{best_valid_method}'s valid table costs "
                                f"{best_valid:.10g} < reference optimum {ref_optimum:.10g}: reference not used"))
        ref_optimum = math.nan
    if ref_status == "infeasible" and valid:
        findings.append(Finding(REFERENCE, TOLERANCE_AMBIGUOUS, f"{best_valid_method}'s table ({best_valid:.10g}) "
                                "passes the checker's tolerances, the exact LP of every sense vector is infeasible"))

    for run in runs:
        add = lambda kind, detail, run=run: findings.append(Finding(run.method, kind, detail))  # noqa: E731
        if run.result is None:
            add(EXCEPTION, run.exception.splitlines()[0])
            continue
        result = run.result
        status = result.status.value
        if status == "error":
            add(ERROR, result.message[:200])
        if result.protected and not run.valid:
            add(FALSE_PROTECTED, f"{status}, claimed verified: {run.check}"[:400])

        objective = weighted_l1(problem, result.values) if result.values is not None else math.nan
        if status == "optimal" and run.valid:
            if run.method in MODEL_COST:
                _judge_model_optimal(problem, run, reference, valid, sense_cache, add)
            else:
                if math.isfinite(ref_optimum):
                    if objective > ref_optimum * (1 + gap) + tight:
                        add(FALSE_OPTIMAL, f"objective {objective:.10g} > reference optimum {ref_optimum:.10g}")
                elif objective > best_valid * (1 + gap) + loose:
                    add(FALSE_OPTIMAL,
                        f"objective {objective:.10g} > {best_valid_method}'s valid table {best_valid:.10g}")
                if run.method in FIXED_SENSE:
                    senses = _reported_senses(problem, run)
                    own = _own_senses_solution(problem, reference, senses, sense_cache) if senses is not None else None
                    if own is not None and own.status == "optimal" and \
                            objective > own.objective * (1 + gap) + tolerances(problem, own.objective)[0]:
                        add(FALSE_OPTIMAL_OWN, f"objective {objective:.10g} > {own.objective:.10g}, the optimum "
                                               f"for its own senses {_senses_text(senses)}")

        bound = result.bound
        if bound is not None and not math.isnan(bound):
            if math.isfinite(ref_optimum) and bound > ref_optimum + tight:
                add(INVALID_BOUND, f"bound {bound:.10g} > reference optimum {ref_optimum:.10g} (status {status})")
            elif bound > best_valid + loose:
                add(INVALID_BOUND, f"bound {bound:.10g} > {best_valid_method}'s valid table {best_valid:.10g} "
                                   f"(status {status})")

        if status == "infeasible":
            if math.isfinite(ref_optimum) or (valid and ref_status != "infeasible"):
                evidence = (f"reference optimum {ref_optimum:.10g}" if math.isfinite(ref_optimum)
                            else f"{best_valid_method} found a valid table ({best_valid:.10g})")
                add(WRONG_INFEASIBLE, evidence)
            if run.method in FIXED_SENSE:
                senses = _reported_senses(problem, run)
                own = _own_senses_solution(problem, reference, senses, sense_cache) if senses is not None else None
                if own is not None and own.status == "optimal":
                    add(WRONG_INFEASIBLE_OWN,
                        f"its senses {_senses_text(senses)} admit a table of cost {own.objective:.10g}")
    return findings


def _judge_model_optimal(problem, run: Run, reference, valid: list[Run], sense_cache: dict, add) -> None:
    """l2 / huber: optimal for its senses means no valid table on the same sides costs less."""
    delta = float(run.options.parameters.get("delta", METHODS["huber"].parameter("delta").default))
    senses = _reported_senses(problem, run)
    if senses is None:
        return
    cost = model_cost(problem, run.method, run.result.values, delta)
    rivals = []
    own = _own_senses_solution(problem, reference, senses, sense_cache)
    if own is not None and own.status == "optimal":
        rivals.append(("the reference LP table of its senses", own.values))
    rivals += [(other.method, other.result.values) for other in valid if other is not run
               and senses_agree(table_senses(problem, other.result.values), senses)]
    unit = table_unit(problem.values)
    floor = 1e-9 * float(np.sum(problem.weights)) * (unit * unit if MODEL_COST[run.method] == "l2" else unit)
    for name, values in rivals:
        rival = model_cost(problem, run.method, values, delta)
        if cost > rival + RTOL * abs(rival) + floor:
            add(FALSE_OPTIMAL, f"model objective {cost:.10g} > {rival:.10g} of {name} (same senses)")
            return


def summary_line(finding: Finding) -> str:
    return f"{finding.method}: {finding.kind}: {finding.detail}"


def _senses_text(senses) -> str:
    return "".join("+" if int(v) > 0 else "-" for v in senses)
