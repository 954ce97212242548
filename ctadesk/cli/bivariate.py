"""Two response variables protected together from the command line (paper 002 §4; engine/methods/bivariate.py):
`ctadesk solve INSTANCE --second-values FILE.jj` and `ctadesk protect MICRODATA --response A,B`
share the options, the run and the JSON document here.

What the run does for each variable: the cell weights asked for, the protection levels widened
by the secret factor (the second variable's factors drawn from seed + 1), then both solved by
solve_bivariate.  The two tables are given unrounded (a published precision is not applied to two
variables), and written as JSON, not as workbooks or projects."""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
from pathlib import Path

from ctadesk.app import weighted
from ctadesk.engine.methods.bivariate import APPROACHES, BivariateProblem, BivariateResult, BivariateTargets, solve_bivariate
from ctadesk.engine.errors import CTAError
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.quality.measures import bivariate_report, quality_report
from ctadesk.engine.result import SolveOptions
from ctadesk.engine.solvers.finish import finish
from ctadesk.engine.publish.widening import new_seed, widen


def _percent_or_none(text: str) -> float | None:
    if text.strip().lower() == "none":
        return None
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a percentage or 'none'") from None
    if not 0 < value < 100:
        raise argparse.ArgumentTypeError(f"{text} %: a target lies between 0 and 100")
    return value


def add_bivariate_arguments(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """--approach, --variance-target, --covariance-target, --shared-senses (for two variables)."""
    parser.add_argument("--approach", choices=APPROACHES, default="direct",
                        help="two variables: convex programs over both (direct, default: met every target "
                             "measured) or the paper's alternating LPs (alternating)")
    parser.add_argument("--variance-target", type=_percent_or_none, default=0.25, metavar="PCT|none",
                        help="two variables: largest change of each variable's variance over the inner cells, "
                             "%% (default 0.25)")
    parser.add_argument("--covariance-target", type=_percent_or_none, default=0.25, metavar="PCT|none",
                        help="two variables: largest change of their covariance, %% (default 0.25); the slope and "
                             "the correlation then move by at most about the two targets added")
    parser.add_argument("--shared-senses", action="store_true",
                        help="two variables: a cell sensitive in both moves the same way in both")


def run_bivariate(first: CTAProblem, second: CTAProblem, names: tuple[str, str], args: argparse.Namespace,
                  weights: str = "table") -> tuple[BivariateProblem, BivariateResult]:
    """Both variables protected together as the arguments say (module docstring).  Returns the
    problem as required (weights, levels before widening) and the result."""
    from ctadesk.app.request import AUTO
    from ctadesk.engine.methods import choose_method
    from ctadesk.engine.model import Distance, Senses

    required = BivariateProblem(weighted(first, weights), weighted(second, weights), names)
    solved = required
    if args.widen:
        seed = new_seed() if args.seed is None else args.seed
        solved = BivariateProblem(widen(required.first, seed), widen(required.second, seed + 1), names)
    method, parameters = args.method, dict(args.param)
    if method == AUTO:
        method, reason, chosen = choose_method(solved.stacked, Distance(args.distance), Senses(args.senses_by),
                                               args.time_limit)
        parameters = {**chosen, **parameters}
        print(f"ctadesk: algorithm for the senses: '{method}': {reason}", file=sys.stderr)
    on_log = (lambda line: print(line, file=sys.stderr)) if args.log else None
    options = SolveOptions(time_limit=args.time_limit, gap=args.gap, threads=args.threads, on_log=on_log,
                           stop=args.stop, parameters=parameters)
    targets = BivariateTargets(variance=args.variance_target, covariance=args.covariance_target)
    result = solve_bivariate(solved, method, options, approach=args.approach, targets=targets,
                             shared_senses=args.shared_senses)
    if args.log:
        print(result.log, file=sys.stderr, end="")
    if args.precision != "full":
        print(f"ctadesk: --precision {args.precision}: the two tables are given unrounded (a published precision "
              "is applied to one variable only)", file=sys.stderr)
    return required, _against_required(required, result)


def _against_required(required: BivariateProblem, result: BivariateResult) -> BivariateResult:
    """The result with each table verified against the levels the rules require (it was solved at
    the widened ones, which lie beyond them)."""
    checked = [own if own.values is None else
               finish(problem, own.method, own.status, own.values, started=0.0, build_seconds=0.0,
                      solve_seconds=0.0, senses=own.senses, message=own.message).replace(timings=own.timings)
               for problem, own in ((required.first, result.first), (required.second, result.second))]
    return dataclasses.replace(result, first=checked[0], second=checked[1])


def bivariate_json(problem: BivariateProblem, result: BivariateResult) -> dict:
    """The JSON document of a bivariate run: status, the targets' changes, each variable's result
    (as `ctadesk solve --json` writes one) and the bivariate report per cell group."""
    from ctadesk.app.provenance import versions
    from ctadesk.cli.release import result_json

    def number(value):
        return None if value is None or not math.isfinite(value) else float(value)

    variables = {}
    for name, own, own_problem in zip(problem.names, (result.first, result.second), (problem.first, problem.second)):
        quality = None if own.values is None else quality_report(own_problem, own.values).as_dict()
        variables[name] = result_json(own, result.seconds, quality)
    report = None
    if result.first.values is not None and result.second.values is not None:
        report = bivariate_report(problem.first, problem.second, result.first.values, result.second.values,
                                  names=problem.names).as_dict()
    return {
        "status": result.status.value, "verified": result.verified, "protected": result.protected,
        "approach": result.approach, "method": result.method, "message": result.message,
        "targets_met": result.targets_met,
        "changes": {key: number(value) for key, value in result.changes.items()},
        "objective": number(result.objective), "seconds": result.seconds, "iterations": result.iterations,
        "senses_shared": result.senses_shared, "variables": variables, "bivariate": report,
        "versions": versions(),
    }


def summary(problem: BivariateProblem, result: BivariateResult) -> str:
    """One line for the terminal."""
    changes = ", ".join(f"{problem.statistic(key)} {value:+.3g} %" for key, value in result.changes.items())
    changed = [int(own.info.get("cells_changed", 0)) for own in (result.first, result.second)]
    return (f"{result.approach} ({result.method}): {result.status.value}, objective {result.objective:.6g}, "
            f"{'verified' if result.verified else 'NOT verified'}, cells changed {changed[0]} ({problem.names[0]}) "
            f"{changed[1]} ({problem.names[1]}); {changes}; "
            f"{'every target met' if result.targets_met else 'NOT every target met'}, {result.seconds:.2f} s")


def refuse(args: argparse.Namespace, options: tuple[str, ...]) -> None:
    """CTAError naming the first of ``options`` (argument names) that is given: it writes or takes
    what exists for one variable only."""
    for name in options:
        if getattr(args, name, None):
            raise CTAError(f"--{name.replace('_', '-')} is not available for two variables; the JSON output "
                           "(--json or -o) holds both tables")


def _names(first: str, second: str) -> tuple[str, str]:
    return (first, second) if first != second else (first, f"{second} (second)")


def write_json(path: str, document: dict) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(document, handle, indent=1)


def solve_two_variables(args: argparse.Namespace, first: CTAProblem, weights: str) -> int:
    """`ctadesk solve INSTANCE --second-values FILE.jj`: the second variable is a JJ file of the same
    table (its own values, bounds, costs, sensitive cells and protection levels; a cell sensitive in
    either file is protected in that variable); both protected together, --json writes both."""
    from ctadesk.io.jj import read_jj

    refuse(args, ("senses", "save_project", "sol", "release", "internal", "widen_cost", "preserve", "quality"))
    if args.weights not in ("unit", "inverse", "file-costs"):
        raise CTAError("--weights FILE is not available for two variables: use unit, inverse or the files' costs")
    if Path(args.second_values).suffix.lower() != ".jj":
        raise CTAError(f"{args.second_values}: --second-values reads a JJ file (.jj) of the same table: the second "
                       "variable's values, bounds, costs, sensitive cells and protection levels")
    second = read_jj(args.second_values).problem
    names = _names(Path(args.instance).stem, Path(args.second_values).stem)
    problem, result = run_bivariate(first, second, names, args, weights)
    if args.json:
        write_json(args.json, bivariate_json(problem, result))
    print(summary(problem, result))
    if not result.protected:
        print(f"ctadesk: error: no protected table: {result.message}", file=sys.stderr)
        return 1
    return 0


def protect_two_variables(args: argparse.Namespace, names: list[str]) -> int:
    """`ctadesk protect MICRODATA --response A,B`: the microdata tabulated once per response on one
    structure, the safety rules applied to each (a cell is sensitive in a variable when the rules
    flag it there, with that variable's levels), both protected together.  -o: CSV with each
    variable's columns named after it, or JSON with the cells and the bivariate document;
    --json: the bivariate document."""
    from ctadesk.app.formats import format_of
    from ctadesk.cli.commands.rules import build_table, cell_records, write_records
    from ctadesk.engine.rules.safety import to_problem

    refuse(args, ("release", "internal", "save_project", "tab", "widen_cost", "quality"))
    if format_of(args.microdata).key == "tab":
        raise CTAError(f"{args.microdata}: a tau-argus table holds one response; two need microdata")
    tables = [build_table(argparse.Namespace(**{**vars(args), "response": name})) for name in names]
    structure = tables[0][0]
    problems = [to_problem(structure, stats, rules_result, rules, weights=args.cell_weights,
                           nonnegative=False if args.allow_negative else None)
                for _, stats, rules, rules_result in tables]
    problem, result = run_bivariate(problems[0], problems[1], _names(*names), args)
    records = []
    for name, (_, stats, rules, rules_result), own in zip(problem.names, tables, (result.first, result.second)):
        for k, record in enumerate(cell_records(structure, stats, rules, rules_result)):
            if len(records) <= k:
                records.append({d.name: record[d.name] for d in structure.dimensions} | {"freq": record["freq"]})
            records[k].update({f"{name}_original": record["value"], f"{name}_status": record["status"],
                               f"{name}_rules": record["rules"],
                               f"{name}_lower_protection": record["lower_protection"],
                               f"{name}_upper_protection": record["upper_protection"]})
            if own.values is not None:
                records[k].update({f"{name}_adjusted": float(own.values[k]),
                                   f"{name}_change": float(own.values[k] - record["value"])})
    if args.output and Path(args.output).suffix.lower() == ".json":
        write_json(args.output, {"cells": records, "bivariate": bivariate_json(problem, result)})
    else:
        write_records(records, args.output)
    if args.json:
        write_json(args.json, bivariate_json(problem, result))
    print(f"{structure.n_cells} cells, unsafe {problems[0].n_sensitive} ({problem.names[0]}) "
          f"{problems[1].n_sensitive} ({problem.names[1]}); {summary(problem, result)}", file=sys.stderr)
    return 0 if result.protected else 1
