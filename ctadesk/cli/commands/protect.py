"""`ctadesk protect MICRODATA ...`: microdata -> table -> safety rules -> CTA (protection levels
secretly widened unless --no-widen) -> the adjusted table (CSV or JSON), and on request the
result document (--json), release and internal workbooks, the project (--save-project) and a
tau-argus release .tab (--tab), so that nothing needs the app.  --span given once per table
protects several tables of the microdata together (ctadesk.cli.linked)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ctadesk.cli.protection_options import (
    add_bivariate_arguments,
    add_model_arguments,
    add_quality_arguments,
    add_record_arguments,
    add_release_arguments,
    add_solve_arguments,
)
from ctadesk.cli.table_options import add_table_arguments
from ctadesk.engine.errors import CTAError

if TYPE_CHECKING:
    from ctadesk.app import Protection
    from ctadesk.app.session import Session
    from ctadesk.engine.problem import CTAProblem
    from ctadesk.engine.rules.safety import RuleResult, SafetyRules
    from ctadesk.engine.table.statistics import CellStatistics
    from ctadesk.engine.table.structure import TableStructure


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "protect", help="build a table from microdata, apply safety rules and protect it by CTA",
        description="Microdata -> table -> safety rules -> controlled tabular adjustment -> adjusted table.")
    add_table_arguments(parser, several_tables=True)
    cta = parser.add_argument_group("controlled tabular adjustment")
    add_model_arguments(cta)
    cta.add_argument("--cell-weights", choices=("unit", "inverse"), default="inverse",
                     help="cost of changing a cell: 1/|value| (default: the change is spread in proportion to "
                          "the cells' sizes) or 1 (the total absolute change)")
    cta.add_argument("--allow-negative", action="store_true",
                     help="do not bound cells below by 0 (default: bounded when no cell is negative)")
    add_quality_arguments(cta)
    cta.add_argument("--round-to", type=int, metavar="BASE",
                     help="publish every cell as a multiple of BASE: a controlled rounding, additive and "
                          "protected (tau-argus's RND), zero-restricted where one exists; precision stays auto")
    add_bivariate_arguments(parser.add_argument_group("two response variables (--response A,B; Cox 2005, §4)"))
    add_solve_arguments(cta)
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="output .csv (a line per cell), or .json (the cells, then what --json writes); "
                             "default: CSV on stdout")
    add_record_arguments(parser)
    parser.add_argument("--tab", metavar="OUT.tab",
                        help="write the protected table as a tau-argus release .tab with its .rda (and .hrc "
                             "files for hierarchies), and OUT.provenance.json: the versions and the request")
    add_release_arguments(parser)
    parser.set_defaults(func=run, stoppable=True)     # SIGINT/SIGTERM: ctadesk.cli.interrupt


def run(args: argparse.Namespace) -> int:
    from ctadesk.app.formats import format_of, output_format
    from ctadesk.cli.bivariate import protect_two_variables
    from ctadesk.cli.linked import run_linked
    from ctadesk.cli.release import quality_terms, request_from, run_protection, write_json, write_workbooks
    from ctadesk.cli.tables import build_table, cell_records, responses, write_records
    from ctadesk.engine.rules.safety import to_problem

    if len(args.span) > 1:      # several tables of one microdata set, protected together
        return run_linked(args)
    args.span = args.span[0] if args.span else []
    if len(names := responses(args)) > 1:
        return protect_two_variables(args, names)
    request = request_from(args)
    structure, stats, rules, result = build_table(args)
    problem = to_problem(structure, stats, result, rules, weights=args.cell_weights,
                         nonnegative=False if args.allow_negative else None)
    request = request.replace(quality=quality_terms(args, problem, structure), quality_price=args.quality_price)
    protection = run_protection(problem, request, args)
    solved = protection.result
    if solved.values is None:
        raise CTAError(f"no protected table: {solved.message}")
    records = cell_records(structure, stats, rules, result)
    for record, original, adjusted in zip(records, problem.values, solved.values):
        record["original"] = record.pop("value")
        record["adjusted"] = float(adjusted)
        record["change"] = float(adjusted - original)
    if args.output and output_format(args.output).key == "json":  # the cells, then the run as --json has it
        write_json(args.output, {"cells": records, **protection.as_dict()})
    else:
        write_records(records, args.output)
    if args.json:
        write_json(args.json, protection.as_dict())
    write_workbooks(args, structure, protection, {"cell weights": args.cell_weights})
    from_tab = "tab" in (export.kind for export in format_of(args.microdata).exports)
    if args.save_project or (args.tab and from_tab):
        session = _session(args, problem, structure, stats, rules, result, protection)
        if args.save_project:
            session.save(args.save_project)
        if args.tab and from_tab:
            session.export("tab", args.tab)
    if args.tab and not from_tab:
        _write_tab(args, structure, protection)
    print(f"{structure.n_cells} cells, {problem.n_sensitive} unsafe, {protection.outcome.cells_changed} changed; "
          f"{solved.status.value}, weighted absolute change {solved.objective:g}"
          f"{'' if solved.protected else ' (NOT fully protected)'}", file=sys.stderr)
    return 0 if solved.protected else 1


def _write_tab(args: argparse.Namespace, structure: TableStructure, protection: Protection) -> None:
    """--tab for a table built from microdata: the release .tab, its .rda and the provenance
    sidecar (the versions and the request, never the seed), if the table may be released."""
    from ctadesk.app.provenance import write_release_provenance
    from ctadesk.engine.publish.precision import published_decimals
    from ctadesk.io.tauargus import write_table_tab

    values = protection.result.values
    if values is None or not protection.result.protected or not protection.precision_met:
        raise CTAError(f"--tab {args.tab} not written: the result is not a protected table at its precision")
    path = Path(args.tab)
    decimals = protection.decimals if protection.decimals is not None else published_decimals(values)
    write_table_tab(path, structure, values, args.response or "Freq", decimals)
    write_release_provenance(path, protection.request.options(), files=(path.with_suffix(".rda"),))


def _session(args: argparse.Namespace, problem: CTAProblem, structure: TableStructure, stats: CellStatistics,
             rules: SafetyRules, result: RuleResult, protection: Protection) -> Session:
    """The session the app would hold after this run: the table with its statistics, the rules and
    the cells they flagged, the request and the result; a .tab input is its source (for --tab)."""
    from ctadesk.app.formats import Answers, Holds, Totals, format_of, read_table
    from ctadesk.app.rules import flagged_names, rules_dict
    from ctadesk.app.session import Session
    from ctadesk.io.project import Project

    project = Project.from_problem(problem, structure)
    project.statistics = stats
    project.rules = rules_dict(rules)
    project.flagged_by = flagged_names(result)
    if Holds.MICRODATA not in format_of(args.microdata).holds:  # a table: exports in its layout need its source
        project.source = read_table(args.microdata, Answers(metadata=Path(args.rda) if args.rda else None,
                                                            totals=Totals.KEEP)).source
    session = Session(project)
    session.keep(protection)
    return session
