"""`ctadesk protect MICRODATA --span A B --span A C ...`: several tables of one microdata set,
linked and protected together (ctadesk.app.linked_tables), so a cell two tables share (every
A x Total cell here) is published with one value.

The outputs are those of one table, for all the tables: -o (CSV or JSON) one line per cell of
each table, named by a 'table' column and a column per variable ('' for a variable the table
does not span), a JSON -o followed by what --json writes; --release/--internal one workbook
with a sheet per table; --json the run over the unique cells with each table's published
values; --save-project the linked project."""

from __future__ import annotations

import argparse
import sys

import numpy as np

from ctadesk.app.formats import Holds, format_of, output_format
from ctadesk.app.linked_tables import (
    COSTS,
    LinkedProtection,
    export_linked_workbook,
    linked_problem,
    linked_project,
    manual_cells,
    tabulate_linked,
)
from ctadesk.cli.release import quality_terms, request_from, run_protection, write_json
from ctadesk.cli.tables import cell_records, read_microdata_for, responses, safety_rules, write_records
from ctadesk.engine.errors import CTAError
from ctadesk.engine.rules.safety import RuleResult, SafetyRules


def spans_of(args: argparse.Namespace) -> list[tuple[str, ...]]:
    """The tables --span names (one --span per table), refused where a table cannot be linked."""
    spans = [tuple(span) for span in args.span]
    if Holds.MICRODATA not in format_of(args.microdata).holds:
        raise CTAError(f"--span is given {len(spans)} times: several tables are tabulated from microdata, "
                       f"{args.microdata} holds a table")
    if len(responses(args)) > 1:
        raise CTAError(f"--response {args.response}: several tables are protected for one response variable")
    if not args.response:
        raise CTAError("microdata input needs --response VAR")
    if args.tab:
        raise CTAError("--tab is written for one table read from a .tab; several tables go to --release")
    if args.cell_weights not in COSTS:
        raise CTAError(f"--cell-weights {args.cell_weights}: linked tables take {', '.join(COSTS)}")
    return spans


def _manual(specs: list[str]) -> list[dict[str, str]]:
    """--manual 'Region=Nr,Size=1' as {variable: code}."""
    cells = []
    for spec in specs:
        pairs = [part.partition("=") for part in spec.split(",") if part]
        if any(not sep or not name.strip() for name, sep, _ in pairs):
            raise CTAError(f"--manual '{spec}': write VAR=CODE,VAR=CODE")
        cells.append({name.strip(): code for name, _, code in pairs})
    return cells


def run_linked(args: argparse.Namespace) -> int:
    """Read the microdata once (every variable of every span), tabulate and link the tables,
    apply the rules once per cell, protect, and write what the options ask for."""
    spans = spans_of(args)
    variables = tuple(dict.fromkeys(name for span in spans for name in span))
    rules = safety_rules(args)
    microdata = read_microdata_for(args, args.microdata, variables)
    tabulation = tabulate_linked(microdata, spans, top_k=max(rules.contributions_needed(), 2),
                                 holding_top_k=max(rules.contributions_needed(holding=True), 2))
    problem, result = linked_problem(tabulation, rules, manual=manual_cells(tabulation, _manual(args.manual)),
                                     cost=args.cell_weights, nonnegative=False if args.allow_negative else None)
    request = request_from(args).replace(quality=quality_terms(args, problem), quality_price=args.quality_price)
    linked = LinkedProtection(tabulation, result, problem, run_protection(problem, request, args))
    solved = linked.protection.result
    published = linked.published()
    if published is None:
        raise CTAError(f"no protected table: {solved.message}")
    records = _records(linked, published, rules, variables)
    document = {**linked.protection.as_dict(), "tables": [{"span": list(span), "values": values.tolist()}
                                                          for span, values in zip(spans, published)]}
    if args.output and output_format(args.output).key == "json":  # the cells, then what --json writes
        write_json(args.output, {"cells": records, **document})
    else:
        write_records(records, args.output)
    if args.json:
        write_json(args.json, document)
    for path, internal in ((args.internal, True), (args.release, False)):
        if path:
            outcome = export_linked_workbook(path, linked, internal=internal,
                                             settings={"cell weights": args.cell_weights})
            for line in outcome.lines():
                print(line, file=sys.stderr)
    if args.save_project:
        from ctadesk.app.session import Session

        session = Session(linked_project(tabulation, rules, problem, result))
        session.keep(linked.protection)
        session.save(args.save_project)
    print(f"ctadesk: {linked.summary()}, weighted absolute change {solved.objective:g}", file=sys.stderr)
    return 0 if solved.protected else 1


def _records(linked: LinkedProtection, published: list[np.ndarray], rules: SafetyRules,
             variables: tuple[str, ...]) -> list[dict]:
    """One record per cell of each table (cell_records) with its ``published`` value, its table
    and every variable."""
    tabulation, verdict = linked.tabulation, linked.rules
    records = []
    for t, (structure, statistics, cell_map, values) in enumerate(zip(
            tabulation.structures, tabulation.statistics, tabulation.linked.cell_maps, published)):
        table_verdict = RuleResult(verdict.flags[cell_map], verdict.upper_protection[cell_map],
                                   verdict.lower_protection[cell_map], verdict.empty[cell_map])
        for record, adjusted in zip(cell_records(structure, statistics, rules, table_verdict), values):
            original = record.pop("value")
            records.append({"table": tabulation.title(t), **{name: record.pop(name, "") for name in variables},
                            **record, "original": original, "adjusted": float(adjusted),
                            "change": float(adjusted - original)})
    return records
