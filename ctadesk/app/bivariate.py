"""Two response variables protected together, the same for every front end (Cox 2005a
§4; engine/methods/bivariate.py): a BivariateRequest is a ProtectionRequest for two variables,
run by ``protect_two``.

    protection = protect_two(turnover, employment, ("turnover", "employment"),
                             BivariateRequest(ProtectionRequest(method="lp"), covariance_target=0.5))
    protection.result.targets_met     # the variances and the covariance within their targets
    protection.as_dict()              # what `ctadesk solve --second-values --json` writes

What the run does for each variable: the cell weights asked for, the protection levels widened by
the secret factor (the second variable's factors drawn from seed + 1), then both solved by
solve_bivariate, each table verified against the levels the rules require.  The two tables are
given unrounded: a published precision is applied to one variable only.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable
from typing import Any

from ctadesk.app.job import weighted
from ctadesk.app.outcome import json_number, result_record
from ctadesk.app.provenance import request_record, versions
from ctadesk.app.request import AUTO, ProtectionRequest, RequestError
from ctadesk.engine.methods import METHODS, choose_method
from ctadesk.engine.methods.bivariate import (
    APPROACHES,
    BivariateProblem,
    BivariateResult,
    BivariateTargets,
    solve_bivariate,
)
from ctadesk.engine.model import Distance, Senses
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.publish.widening import new_seed, widen
from ctadesk.engine.quality.measures import bivariate_report, quality_report
from ctadesk.engine.result import SolveOptions
from ctadesk.engine.solvers import cells_changed as count_changed
from ctadesk.engine.solvers.finish import finish

#: settings of a ProtectionRequest that exist for one variable only: (field, its default)
ONE_VARIABLE: tuple[tuple[str, object], ...] = (("preserve", frozenset()), ("quality", ()), ("quality_price", False),
                                                ("widen_cost", False))


@dataclasses.dataclass(frozen=True)
class BivariateRequest:
    """A protection run over two response variables of one table.

    base               the model, method, weights, time limit, gap, threads and widening, as for one
                       variable (its seed widens the first variable, seed + 1 the second); its
                       precision is not applied (the tables are given unrounded)
    approach           'direct' (convex programs over both, the default) or 'alternating' (the
                       paper's alternating LPs), engine/methods/bivariate.py
    variance_target    largest change of each variable's variance over the inner cells, % (None: not kept)
    covariance_target  largest change of their covariance, % (None: not kept)
    shared_senses      a cell sensitive in both variables moves the same way in both
    """

    base: ProtectionRequest = dataclasses.field(default_factory=ProtectionRequest)
    approach: str = "direct"
    variance_target: float | None = 0.25
    covariance_target: float | None = 0.25
    shared_senses: bool = False

    def __post_init__(self) -> None:
        if self.approach not in APPROACHES:
            raise RequestError(f"approach '{self.approach}': choose one of {', '.join(APPROACHES)}")
        for name, target in (("variance", self.variance_target), ("covariance", self.covariance_target)):
            if target is not None and not 0 < target < 100:
                raise RequestError(f"{name} target {target} %: a target lies between 0 and 100 (None: not kept)")
        for name, default in ONE_VARIABLE:
            if getattr(self.base, name) != default:
                raise RequestError(f"{name} is not available for two variables: the bivariate targets keep "
                                   "their variances and covariance")

    @property
    def targets(self) -> BivariateTargets:
        return BivariateTargets(variance=self.variance_target, covariance=self.covariance_target)

    def options(self) -> dict[str, Any]:
        """The plain dictionary of the request (ProtectionRequest.options() and the bivariate settings)."""
        return {**self.base.options(), "approach": self.approach, "variance_target": self.variance_target,
                "covariance_target": self.covariance_target, "shared_senses": self.shared_senses}


@dataclasses.dataclass(frozen=True)
class BivariateProtection:
    """What a run over two variables produced.

    request        the request as run (its seed filled in when widening drew a fresh one)
    required       both problems with the weights used and the levels the rules require
    result         the engine's result, each table verified against ``required``
    notes          lines for the log: the algorithm chosen and why, the precision not applied
    seconds        wall time of the whole run
    cells_changed  cells each published table changes (first, second)
    """

    request: BivariateRequest
    required: BivariateProblem
    result: BivariateResult
    notes: tuple[str, ...]
    seconds: float
    cells_changed: tuple[int, int]

    def as_dict(self) -> dict[str, Any]:
        """The run as one JSON document: status, the targets' changes, each variable's result (as
        outcome.result_record writes one, with its cells changed), the bivariate report per cell
        group, the versions and the request as run."""
        problem, result = self.required, self.result
        variables = {}
        for name, own, own_problem, changed in zip(problem.names, (result.first, result.second),
                                                   (problem.first, problem.second), self.cells_changed):
            quality = None if own.values is None else quality_report(own_problem, own.values).as_dict()
            variables[name] = {**result_record(own, result.seconds, quality), "cells_changed": changed}
        report = None
        if result.first.values is not None and result.second.values is not None:
            report = bivariate_report(problem.first, problem.second, result.first.values, result.second.values,
                                      names=problem.names).as_dict()
        return {
            "status": result.status.value, "verified": result.verified, "protected": result.protected,
            "approach": result.approach, "method": result.method, "message": result.message,
            "targets_met": result.targets_met,
            "changes": {key: json_number(value) for key, value in result.changes.items()},
            "objective": json_number(result.objective), "seconds": result.seconds, "iterations": result.iterations,
            "senses_shared": result.senses_shared, "variables": variables, "bivariate": report,
            "versions": versions(), "request": request_record(self.request.options()),
        }

    def summary(self) -> str:
        """One line for a terminal or a status bar."""
        problem, result = self.required, self.result
        changes = ", ".join(f"{problem.statistic(key)} {value:+.3g} %" for key, value in result.changes.items())
        first, second = self.cells_changed
        return (f"{result.approach} ({result.method}): {result.status.value}, objective {result.objective:.6g}, "
                f"{'verified' if result.verified else 'NOT verified'}, cells changed {first} ({problem.names[0]}) "
                f"{second} ({problem.names[1]}); {changes}; "
                f"{'every target met' if result.targets_met else 'NOT every target met'}, {result.seconds:.2f} s")


def protect_two(first: CTAProblem, second: CTAProblem, names: tuple[str, str], request: BivariateRequest, *,
                on_log: Callable[[str], None] | None = None,
                stop: threading.Event | None = None) -> BivariateProtection:
    """Run ``request`` on two variables of one table (module docstring); ``names`` are what reports
    call them (the same name twice: the second is marked '(second)').  on_log is called with the
    solver log's lines and the run's notes; setting ``stop`` ends the run with the best tables so far."""
    started = time.perf_counter()
    base = request.base
    notes: list[str] = []

    def note(line: str) -> None:
        notes.append(line)
        if on_log is not None:
            on_log(line)

    names = names if names[0] != names[1] else (names[0], f"{names[1]} (second)")
    required = BivariateProblem(weighted(first, base.weights), weighted(second, base.weights), names)
    solved = required
    if base.widen:
        seed = new_seed() if base.seed is None else base.seed
        request = dataclasses.replace(request, base=base.replace(seed=seed))
        solved = BivariateProblem(widen(required.first, seed), widen(required.second, seed + 1), names)
    method, parameters = base.method, dict(base.parameters)
    if method == AUTO:
        method, reason, chosen = choose_method(solved.stacked, Distance(base.distance), Senses(base.senses),
                                               base.time_limit)
        parameters = {**chosen, **parameters}
        note(f"algorithm for the senses: {METHODS[method].label} ('{method}'): {reason}")
    options = SolveOptions(time_limit=base.time_limit, gap=base.gap, threads=base.threads, on_log=on_log,
                           stop=stop, parameters=parameters)
    result = _against_required(required, solve_bivariate(solved, method, options, approach=request.approach,
                                                         targets=request.targets,
                                                         shared_senses=request.shared_senses))
    if base.precision != "full":
        note(f"precision {base.precision}: the two tables are given unrounded (a published precision is applied "
             "to one variable only)")
    changed = tuple(0 if own.values is None else count_changed(problem, own.values)
                    for problem, own in ((required.first, result.first), (required.second, result.second)))
    return BivariateProtection(request, required, result, tuple(notes), time.perf_counter() - started,
                               (changed[0], changed[1]))


def _against_required(required: BivariateProblem, result: BivariateResult) -> BivariateResult:
    """The result with each table verified against the levels the rules require (it was solved at
    the widened ones, which lie beyond them)."""
    checked = [own if own.values is None else
               finish(problem, own.method, own.status, own.values, started=0.0, build_seconds=0.0,
                      solve_seconds=0.0, senses=own.senses, message=own.message).replace(timings=own.timings)
               for problem, own in ((required.first, result.first), (required.second, result.second))]
    return dataclasses.replace(result, first=checked[0], second=checked[1])
