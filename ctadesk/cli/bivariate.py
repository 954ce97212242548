"""Two response variables protected together from the command line (Cox 2005, §4):
`ctadesk solve INSTANCE --second-values TABLE` and `ctadesk protect MICRODATA --response A,B`
share the options here and build one BivariateRequest, run by the app layer
(ctadesk.app.bivariate.protect_two).  The two tables are given unrounded and written as JSON
(BivariateProtection.as_dict()), not as workbooks or projects.  Their options are
ctadesk.cli.protection_options'; this module is imported when a command runs."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ctadesk.app.bivariate import BivariateProtection, BivariateRequest, protect_two
from ctadesk.app.formats import Holds, format_of, output_format, read_table
from ctadesk.cli.release import request_from, write_json
from ctadesk.cli.tables import build_table, cell_records, write_records
from ctadesk.engine.errors import CTAError
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.rules.safety import to_problem


def run_bivariate(first: CTAProblem, second: CTAProblem, names: tuple[str, str], args: argparse.Namespace,
                  weights: str = "table") -> BivariateProtection:
    """Both variables protected together as the arguments say (ctadesk.app.bivariate.protect_two):
    the solver log on stderr with --log, else the run's notes."""
    request = BivariateRequest(request_from(args, weights=weights), approach=args.approach,
                               variance_target=args.variance_target, covariance_target=args.covariance_target,
                               shared_senses=args.shared_senses)
    on_log = (lambda line: print(line, file=sys.stderr)) if args.log else None
    protection = protect_two(first, second, names, request, on_log=on_log, stop=args.stop)
    if on_log is None:
        for line in protection.notes:
            print(f"ctadesk: {line}", file=sys.stderr)
    return protection


def refuse(args: argparse.Namespace, options: tuple[str, ...]) -> None:
    """CTAError naming the first of ``options`` (argument names) that is given: it writes or takes
    what exists for one variable only."""
    for name in options:
        if getattr(args, name, None):
            raise CTAError(f"--{name.replace('_', '-')} is not available for two variables; the JSON output "
                           "(--json or -o) holds both tables")


def solve_two_variables(args: argparse.Namespace, first: CTAProblem, weights: str) -> int:
    """`ctadesk solve INSTANCE --second-values TABLE`: the second variable is a table file of the
    same table, in any format the registry reads a table from (a JJ file gives its own values,
    bounds, costs, sensitive cells and protection levels; a cell sensitive in either file is
    protected in that variable); both protected together, --json writes both."""
    refuse(args, ("senses", "save_project", "sol", "release", "internal", "widen_cost", "preserve", "quality"))
    if args.weights not in ("unit", "inverse", "file-costs"):
        raise CTAError("--weights FILE is not available for two variables: use unit, inverse or the files' costs")
    if format_of(args.second_values, Holds.PROJECT, Holds.TABLE).project:
        raise CTAError(f"{args.second_values}: --second-values reads a table file of the same table (JJ, CSV, Excel, "
                       ".tab): the second variable's values, bounds, costs, sensitive cells and protection levels")
    second = read_table(args.second_values).to_problem()
    protection = run_bivariate(first, second, (Path(args.instance).stem, Path(args.second_values).stem), args,
                               weights)
    if args.json:
        write_json(args.json, protection.as_dict())
    print(protection.summary())
    if not protection.result.protected:
        print(f"ctadesk: error: no protected table: {protection.result.message}", file=sys.stderr)
        return 1
    return 0


def protect_two_variables(args: argparse.Namespace, names: list[str]) -> int:
    """`ctadesk protect MICRODATA --response A,B`: the microdata tabulated once per response on one
    structure, the safety rules applied to each (a cell is sensitive in a variable when the rules
    flag it there, with that variable's levels), both protected together.  -o: CSV with each
    variable's columns named after it, or JSON with the cells and the bivariate document;
    --json: the bivariate document."""
    refuse(args, ("release", "internal", "save_project", "tab", "widen_cost", "quality"))
    if Holds.MICRODATA not in format_of(args.microdata).holds:
        raise CTAError(f"{args.microdata}: a table holds one response; two need microdata")
    tables = [build_table(argparse.Namespace(**{**vars(args), "response": name})) for name in names]
    structure = tables[0][0]
    problems = [to_problem(structure, stats, rules_result, rules, weights=args.cell_weights,
                           nonnegative=False if args.allow_negative else None)
                for _, stats, rules, rules_result in tables]
    protection = run_bivariate(problems[0], problems[1], (names[0], names[1]), args)
    problem, result = protection.required, protection.result
    records: list[dict[str, object]] = []
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
    if output_format(args.output).key == "json":
        write_json(args.output, {"cells": records, "bivariate": protection.as_dict()})
    else:
        write_records(records, args.output)
    if args.json:
        write_json(args.json, protection.as_dict())
    print(f"{structure.n_cells} cells, unsafe {problems[0].n_sensitive} ({problem.names[0]}) "
          f"{problems[1].n_sensitive} ({problem.names[1]}); {protection.summary()}", file=sys.stderr)
    return 0 if result.protected else 1
