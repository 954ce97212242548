"""What the options of ctadesk.cli.table_options stand for: the microdata read, the table built
and the safety rules applied (ctadesk.app.formats, ctadesk.engine.rules.safety), and every
cell's status and protection levels written as CSV or JSON.  Imported when a command runs."""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from pathlib import Path

import numpy as np

from ctadesk.app.formats import Answers, Holds, Totals, format_of, output_format, read_table
from ctadesk.engine.errors import CTAError
from ctadesk.engine.rules.safety import RuleResult, SafetyRules, apply_rules
from ctadesk.engine.table.microdata import Microdata, tabulate
from ctadesk.engine.table.statistics import CellStatistics
from ctadesk.engine.table.structure import TableStructure


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
        chosen: dict[str, str] = {}
        for part in filter(None, spec.split(",")):
            name, _, code = part.partition("=")
            chosen[name.strip()] = code
        names = [d.name for d in structure.dimensions]
        unknown = set(chosen) - set(names)
        if unknown:
            raise CTAError(f"--manual '{spec}': no variable {sorted(unknown)[0]} (variables: {', '.join(names)})")
        position = []
        for dimension in structure.dimensions:
            wanted = chosen.get(dimension.name)
            position.append(dimension.index(wanted) if wanted is not None
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
    """CSV (default) or a JSON document (an output the format registry calls JSON) to ``output``
    or stdout."""
    if output and output_format(output).key == "json":
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
