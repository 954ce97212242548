"""`ctadesk rules INPUT ...`: apply safety rules to a table built from microdata
(CSV, xlsx, SPSS, Stata, SAS) or read from a tau-argus .tab with its contributions,
and write every cell's status and protection levels (CSV or JSON).

A .tab is read as tau-argus reads it (ctadesk.io.tauargus): its shadow variable,
when it names one, is what the dominance and p%/(p,q) rules apply to.  A cell
several rules flag gets tau-argus's protection level unless --largest-level
(ctadesk.engine.rules.safety)."""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from pathlib import Path

import numpy as np

from ctadesk.app.formats import Answers, Holds, Totals, format_of, read_table
from ctadesk.engine.errors import CTAError
from ctadesk.engine.table.microdata import Microdata, tabulate
from ctadesk.engine.rules.safety import RuleResult, SafetyRules, apply_rules
from ctadesk.engine.table.structure import TableStructure
from ctadesk.engine.table.statistics import CellStatistics


def _pair(text: str) -> tuple[float, float]:
    try:
        first, second = (float(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not two numbers 'A,B'") from None
    return first, second


def _assignment(text: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"'{text}' is not VARIABLE=VALUE")
    return name, value


def add_table_arguments(parser: argparse.ArgumentParser, several_tables: bool = False) -> None:
    """Options that describe the microdata, the table and the safety rules; with ``several_tables``
    --span may be given once per table (args.span is then a list of lists)."""
    data = parser.add_argument_group("microdata and table")
    data.add_argument("microdata", metavar="INPUT",
                      help="microdata (.csv or .xlsx with a header line, .sav, .zsav, .dta, .sas7bdat, .xpt) "
                           "or a tau-argus table (.tab, with --rda)")
    data.add_argument("--rda", metavar="FILE", help="metadata of a .tab input (default: the .tab name with .rda)")
    if several_tables:
        data.add_argument("--span", nargs="+", action="append", default=[], metavar="VAR",
                          help="spanning variables, in table order (microdata only); once per table: "
                               "the tables are linked and protected together")
    else:
        data.add_argument("--span", nargs="+", default=[], metavar="VAR",
                          help="spanning variables, in table order (microdata only)")
    add_microdata_arguments(data)
    add_rules_arguments(parser)


def add_microdata_arguments(data: argparse._ArgumentGroup) -> None:
    """How the microdata are read: response, weight, holding, request, hierarchies, missing codes,
    decimal mark and sheet (read_microdata_for)."""
    data.add_argument("--response", metavar="VAR", help="numeric response variable (microdata only); "
                      "'protect' takes two, A,B, and protects both together (bivariate CTA)")
    data.add_argument("--weight", metavar="VAR", help="sampling weight variable")
    data.add_argument("--holding", metavar="VAR", help="holding (enterprise group) variable")
    data.add_argument("--request", metavar="VAR", help="request-for-protection variable")
    data.add_argument("--request-codes", nargs=2, default=("1", "2"), metavar=("C1", "C2"))
    data.add_argument("--hierarchy", action="append", type=_assignment, default=[], metavar="VAR=FILE",
                      help="hierarchy of VAR: a tau-argus .hrc file or a CSV of level markers and codes")
    data.add_argument("--hierlevels", action="append", type=_assignment, default=[], metavar="VAR=3,1,1",
                      help="digit-position hierarchy of VAR (tau-argus <HIERLEVELS>)")
    data.add_argument("--lead", default="@", help="level marker of hierarchy files (default @)")
    data.add_argument("--missing", action="append", type=_assignment, default=[], metavar="VAR=CODE",
                      help="a code of VAR that means missing")
    data.add_argument("--decimal-comma", action="store_true", help="numbers are written 12,5")
    data.add_argument("--sheet", help="xlsx sheet (default: the first)")


def add_rules_arguments(parser: argparse.ArgumentParser, manual: bool = True) -> None:
    """The safety rules (safety_rules); ``manual``: cells declared unsafe by hand (--manual)."""
    rules = parser.add_argument_group("safety rules (paper 003 Tables 3.1-3.2)")
    rules.add_argument("--min-freq", type=int, default=0, metavar="N", help="unsafe when fewer than N contributors")
    rules.add_argument("--freq-range", type=float, default=0.0, metavar="PCT", help="frequency safety range, %% of the cell")
    rules.add_argument("--dominance", action="append", type=_pair, default=[], metavar="N,K", help="(n,k)-dominance; up to two")
    rules.add_argument("--p-percent", action="append", type=float, default=[], metavar="P", help="p%%-rule; up to two")
    rules.add_argument("--pq", action="append", type=_pair, default=[], metavar="P,Q", help="(p,q)-rule; up to two")
    rules.add_argument("--holding-min-freq", type=int, default=0, metavar="N")
    rules.add_argument("--holding-freq-range", type=float, default=0.0, metavar="PCT")
    rules.add_argument("--holding-dominance", action="append", type=_pair, default=[], metavar="N,K")
    rules.add_argument("--holding-p-percent", action="append", type=float, default=[], metavar="P")
    rules.add_argument("--holding-pq", action="append", type=_pair, default=[], metavar="P,Q")
    rules.add_argument("--zero-unsafe", action="store_true", help="cells with contributors and value 0 are unsafe")
    rules.add_argument("--zero-range", type=float, default=0.0, metavar="X", help="zero safety range (absolute)")
    rules.add_argument("--request-percent", type=_pair, metavar="P1,P2", help="request rule thresholds, %%")
    rules.add_argument("--request-range", type=float, default=0.0, metavar="PCT")
    if manual:
        rules.add_argument("--manual", action="append", default=[], metavar="VAR=CODE,...",
                           help="a cell declared unsafe, e.g. 'Region=Nr,Size=1' (unnamed variables: their total)")
    rules.add_argument("--manual-range", type=float, default=0.0, metavar="PCT", help="manual safety range, %% of the cell")
    rules.add_argument("--lower-ratio", type=float, default=1.0, metavar="R",
                       help="lower protection = R x upper (default 1: symmetric)")
    rules.add_argument("--unweighted-rules", action="store_true", help="ignore sampling weights in the rules")
    rules.add_argument("--largest-level", action="store_true",
                       help="a cell several rules flag gets the largest of their protection levels (default: "
                            "tau-argus's, the dominance/p%% level, a safety range only where that is 0)")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "rules", help="apply safety rules to a table built from microdata",
        description="Build a table from microdata, apply primary safety rules and write each cell's "
                    "status and protection levels.")
    add_table_arguments(parser)
    parser.add_argument("-o", "--output", metavar="FILE", help="output .csv or .json (default: CSV on stdout)")
    parser.set_defaults(func=run)


def safety_rules(args: argparse.Namespace) -> SafetyRules:
    return SafetyRules(
        min_frequency=args.min_freq, frequency_safety_range=args.freq_range,
        dominance=tuple(args.dominance), p_percent=tuple(args.p_percent), pq=tuple(args.pq),
        holding_min_frequency=args.holding_min_freq, holding_frequency_safety_range=args.holding_freq_range,
        holding_dominance=tuple(args.holding_dominance), holding_p_percent=tuple(args.holding_p_percent),
        holding_pq=tuple(args.holding_pq), zero_unsafe=args.zero_unsafe, zero_safety_range=args.zero_range,
        request_percent=args.request_percent, request_safety_range=args.request_range,
        manual_safety_range=args.manual_range, apply_weights=not args.unweighted_rules,
        lower_ratio=args.lower_ratio, level_combination="largest" if args.largest_level else "tau-argus")


def _manual_cells(structure: TableStructure, specs: list[str]) -> list[int]:
    cells = []
    for spec in specs:
        chosen = {}
        for part in filter(None, spec.split(",")):
            name, _, code = part.partition("=")
            chosen[name.strip()] = code
        names = [d.name for d in structure.dimensions]
        unknown = set(chosen) - set(names)
        if unknown:
            raise CTAError(f"--manual '{spec}': no variable {sorted(unknown)[0]} (variables: {', '.join(names)})")
        position = []
        for dimension in structure.dimensions:
            code = chosen.get(dimension.name)
            position.append(dimension.index(code) if code is not None
                            else int(np.flatnonzero(dimension.parents < 0)[0]))
        cells.append(int(np.ravel_multi_index(position, structure.shape)))
    return cells


def build_table(args: argparse.Namespace) -> tuple[TableStructure, CellStatistics, SafetyRules, RuleResult]:
    """Read the input (microdata, or a table with its contributions such as a .tab), tabulate it
    and apply the rules the arguments describe."""
    rules = safety_rules(args)
    if Holds.MICRODATA not in format_of(args.microdata, Holds.MICRODATA, Holds.TABLE).holds:
        table = read_table(args.microdata, Answers(metadata=Path(args.rda) if args.rda else None, totals=Totals.KEEP))
        structure, stats = table.structure, table.statistics
        if stats is None:
            raise CTAError(f"{args.microdata}: the table holds no contributions for the rules to read")
        needed = max(rules.contributions_needed(), rules.contributions_needed(holding=True))
        if needed > stats.top.shape[1] and (rules.dominance or rules.p_percent or rules.pq):
            raise CTAError(f"{args.microdata}: the rules need the {needed} largest contributions per cell "
                           f"but the file holds {stats.top.shape[1]}")
        return structure, stats, rules, apply_rules(stats, rules, manual=_manual_cells(structure, args.manual))
    if len(responses(args)) > 1:
        raise CTAError(f"--response {args.response}: one variable here; 'ctadesk protect' takes two")
    if not args.span or not args.response:
        raise CTAError("microdata input needs --span VAR ... and --response VAR")
    micro = read_microdata_for(args, args.microdata, tuple(args.span))
    stats = tabulate(micro, top_k=max(rules.contributions_needed(), 2),
                     holding_top_k=max(rules.contributions_needed(holding=True), 2))
    result = apply_rules(stats, rules, manual=_manual_cells(micro.structure, args.manual))
    return micro.structure, stats, rules, result


def responses(args: argparse.Namespace) -> list[str]:
    """The response variables --response names, comma-separated."""
    return [name.strip() for name in (args.response or "").split(",") if name.strip()]


def read_microdata_for(args: argparse.Namespace, path: str, spanning: tuple[str, ...]) -> Microdata:
    """The microdata of ``path`` spanned by ``spanning``, read as add_microdata_arguments' options say."""
    from ctadesk.app.formats import read_hierarchy, read_microdata
    from ctadesk.io.microdata import MicrodataSpec

    format_of(path, Holds.MICRODATA)  # a file that cannot hold microdata is refused, naming those that can
    hierarchies: dict = {name: read_hierarchy(file, name, args.lead) for name, file in args.hierarchy}
    for name, widths in args.hierlevels:
        try:
            hierarchies[name] = tuple(int(w) for w in widths.replace(" ", ",").split(",") if w)
        except ValueError:
            raise CTAError(f"--hierlevels {name}={widths}: widths must be whole numbers") from None
    missing: dict[str, list[str]] = {}
    for name, code in args.missing:
        missing.setdefault(name, []).append(code)
    spec = MicrodataSpec(spanning=spanning, response=args.response, weight=args.weight,
                         holding=args.holding, request=args.request, request_codes=tuple(args.request_codes),
                         hierarchies=hierarchies, missing=missing, decimal_comma=args.decimal_comma)
    return read_microdata(path, spec, Answers(sheet=args.sheet))


def cell_records(structure: TableStructure, stats: CellStatistics, rules: SafetyRules,
                 result: RuleResult) -> list[dict]:
    """One dict per cell: its codes, value, frequency, status, rules and protection levels."""
    values = stats.total(rules.apply_weights)
    coordinates = np.unravel_index(np.arange(structure.n_cells), structure.shape)
    records = []
    for i in range(structure.n_cells):
        record = {d.name: d.codes[coordinates[j][i]] for j, d in enumerate(structure.dimensions)}
        flagged = bool(result.flags[i])
        record.update(value=float(values[i]), freq=int(stats.freq[i]),
                      status="unsafe" if flagged else ("empty" if result.empty[i] else "safe"),
                      rules=";".join(result.rule_names(i)),
                      lower_protection=float(result.lower_protection[i]),
                      upper_protection=float(result.upper_protection[i]))
        records.append(record)
    return records


def write_records(records: list[dict], output: str | None) -> None:
    """CSV (default, or .csv) or JSON (.json) to ``output`` or stdout."""
    if output and Path(output).suffix.lower() == ".json":
        Path(output).write_text(json.dumps({"cells": records}, indent=1), encoding="utf-8")
        return
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(records[0]) if records else [], lineterminator="\n")
    writer.writeheader()
    writer.writerows(records)
    if output:
        Path(output).write_text(buffer.getvalue(), encoding="utf-8")
    else:
        sys.stdout.write(buffer.getvalue())


def run(args: argparse.Namespace) -> int:
    structure, stats, rules, result = build_table(args)
    write_records(cell_records(structure, stats, rules, result), args.output)
    unsafe = int(np.count_nonzero(result.flags))
    print(f"{structure.n_cells} cells, {unsafe} unsafe", file=sys.stderr)
    return 0
