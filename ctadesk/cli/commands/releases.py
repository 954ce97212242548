"""`ctadesk releases COUNTS.csv --threshold 2 --alpha 3`: which marginal sub-tables of a count
table may be released together (paper 001, Karr, Dobra & Sanil; ctadesk.engine.releases).

COUNTS is a long file (CSV, xlsx, or a statistical package's file) with one column per
variable and a count column; rows of the same cell are summed.  Without --variables the
variables are the columns other than the count, less any column holding a different value on
every row (a cell number, not a variable).  With --microdata FILE --span A B C the table counts
the records of a microdata file instead.  The search (decomposable by default, as the paper's
"Alternative 1"; `optimal` over all releases; `ordered` marginals) prints the released frontier,
DU, DR and the bounds of the at-risk cells under the release it chose; --export writes the
released sub-tables (a CSV each in a folder, or a sheet each of an .xlsx)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from ctadesk.cli.commands.rules import add_microdata_arguments, read_microdata_for
from ctadesk.engine.errors import CTAError
from ctadesk.engine.microdata import Microdata
from ctadesk.engine.releases import (DEFAULT_THRESHOLD, UTILITIES, CountTable, Release, decomposable_release,
                                     disclosure_risk, optimal_release, ordered_marginals)
from ctadesk.engine.releases.search import MAX_EVALUATIONS

SEARCHES = ("decomposable", "optimal", "ordered")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "releases", help="choose the marginal sub-tables of a count table that may be released",
        description="Find the largest release of marginal sub-tables whose at-risk cells (0 < count <= "
                    "threshold) stay bounded no tighter than alpha (Karr, Dobra & Sanil).")
    data = parser.add_argument_group("count table")
    data.add_argument("counts", nargs="?", metavar="COUNTS", help="long file: one column per variable and a count column")
    data.add_argument("--count", default="count", metavar="COLUMN", help="the count column of COUNTS (default: count)")
    data.add_argument("--variables", nargs="+", metavar="VAR", help="the variables of COUNTS, in table order")
    data.add_argument("--microdata", metavar="FILE", help="count the records of a microdata file instead")
    data.add_argument("--span", nargs="+", default=[], metavar="VAR", help="the variables of --microdata")
    add_microdata_arguments(data)
    search = parser.add_argument_group("risk and search (paper 001)")
    search.add_argument("--threshold", type=int, default=DEFAULT_THRESHOLD, metavar="N",
                        help=f"cells with 0 < count <= N are at risk (default {DEFAULT_THRESHOLD})")
    search.add_argument("--alpha", type=float, required=True, help="smallest bound width allowed on an at-risk cell")
    search.add_argument("--search", choices=SEARCHES, default="decomposable",
                        help="decomposable releases (default), all releases (exact best-first), or ordered marginals")
    search.add_argument("--integer", action="store_true", help="integer (MILP) bounds instead of LP bounds")
    search.add_argument("--utility", choices=sorted(UTILITIES), default="subtables",
                        help="DU: sub-tables released (default) or cells released")
    search.add_argument("--keep-going", action="store_true",
                        help="ordered marginals: skip a sub-table that breaks alpha instead of stopping")
    search.add_argument("--max-evaluations", type=int, default=MAX_EVALUATIONS, metavar="N",
                        help="releases an exact search may evaluate (then: simulated annealing, decomposable only)")
    search.add_argument("--seed", type=int, help="seed of the simulated annealing")
    parser.add_argument("-o", "--output", metavar="FILE", help="write the release as JSON")
    parser.add_argument("--export", metavar="DIR|FILE.xlsx",
                        help="write every released sub-table: as DIR/<sub-table>.csv, or as a sheet of FILE.xlsx")
    parser.set_defaults(func=run)


def _leaf_positions(microdata: Microdata) -> tuple[list[np.ndarray], list[tuple[str, ...]]]:
    """Per variable, each record's category among the variable's most detailed codes, and those codes."""
    codes, labels = [], []
    for dimension, column in zip(microdata.structure.dimensions, microdata.codes):
        leaves = np.flatnonzero(dimension.is_leaf)
        rank = np.full(dimension.size, -1)
        rank[leaves] = np.arange(leaves.size)
        codes.append(rank[column])
        labels.append(tuple(dimension.codes[i] for i in leaves))
    return codes, labels


def read_count_table(args: argparse.Namespace) -> tuple[CountTable, list[str]]:
    """The count table the arguments name, and notes for stderr."""
    if (args.counts is None) == (args.microdata is None):
        raise CTAError("give either a COUNTS file or --microdata FILE --span VAR ...")
    if args.microdata:
        if not args.span:
            raise CTAError("--microdata needs --span VAR ... (the records are counted; no response is needed)")
        args.response = None
        micro = read_microdata_for(args, args.microdata, tuple(args.span))
        codes, labels = _leaf_positions(micro)
        return CountTable.from_cells(args.span, codes, labels), []
    from ctadesk.io.microdata import microdata_columns

    columns = microdata_columns(args.counts)
    if args.count not in columns:
        raise CTAError(f"{args.counts}: no count column '{args.count}' (columns: {', '.join(columns)}); name it with --count")
    candidates = list(args.variables or [c for c in columns if c != args.count])
    args.response = args.count
    micro = read_microdata_for(args, args.counts, tuple(candidates))
    codes, labels = _leaf_positions(micro)
    notes = []
    keep = list(range(len(candidates)))
    if not args.variables and micro.response.size > 1:
        identifiers = [i for i, c in enumerate(codes) if np.unique(c).size == micro.response.size]
        if len(identifiers) < len(candidates):
            keep = [i for i in keep if i not in identifiers]
            if identifiers:
                notes.append("left out (a different value on every row: cell numbers, not variables): "
                             + ", ".join(candidates[i] for i in identifiers))
    return CountTable.from_cells([candidates[i] for i in keep], [codes[i] for i in keep],
                                 [labels[i] for i in keep], micro.response), notes


def _search(table: CountTable, args: argparse.Namespace) -> tuple[list[Release], dict]:
    """The releases the chosen search returns (best first) and what to say about the search."""
    utility = UTILITIES[args.utility]
    method = "integer" if args.integer else "lp"
    if args.search == "ordered":
        result = ordered_marginals(table, args.alpha, args.threshold, integer=args.integer, keep_going=args.keep_going)
        return [result.release], {"method": "ordered", "refused": [table.subtable_name(s) for s in result.refused]}
    if args.search == "optimal":
        found = optimal_release(table, args.alpha, args.threshold, utility, method, args.max_evaluations)
    else:
        found = decomposable_release(table, args.alpha, args.threshold, utility, args.max_evaluations, seed=args.seed)
    if not found.releases:
        raise CTAError(f"no release found within {args.max_evaluations} evaluations; raise --max-evaluations "
                       "or use --search decomposable or ordered")
    return list(found.releases), {"method": args.search, "exact": found.exact, "evaluations": found.evaluations}


def _report(table: CountTable, releases: list[Release], about: dict, args: argparse.Namespace) -> dict:
    release = releases[0]
    risk = disclosure_risk(table, release, args.threshold, "integer" if args.integer else "auto")
    counts = table.counts.reshape(-1)
    return {
        "variables": dict(zip(table.letters(), table.names)),
        "threshold": args.threshold, "alpha": args.alpha, "search": about,
        "frontier": sorted((table.subtable_name(s) for s in release.frontier), key=lambda n: (-len(n), n)),
        "du": UTILITIES[args.utility](table, release), "utility": args.utility,
        "subtables": len(release), "of": 2 ** table.n_axes,
        "dr": risk.risk, "bounds": risk.method,
        "at_risk": [{"cell": table.cell_labels(int(c)), "count": int(counts[c]), "lower": float(lo), "upper": float(up)}
                    for c, lo, up in zip(risk.bounds.cells, risk.bounds.lower, risk.bounds.upper)],
        "equally_good": [sorted(table.subtable_name(s) for s in other.frontier) for other in releases[1:]],
    }


def _print(report: dict) -> None:
    legend = ", ".join(f"{letter} = {name}" for letter, name in report["variables"].items())
    about = report["search"]
    how = f"{about['method']}" + (f", {'exact' if about['exact'] else 'not proven optimal'}, "
                                   f"{about['evaluations']} releases evaluated" if "exact" in about else "")
    print(f"variables: {legend}")
    print(f"search: {how}; {len(report['at_risk'])} cells at risk (0 < count <= {report['threshold']}), "
          f"alpha {report['alpha']:g}")
    print(f"released frontier: {' '.join(report['frontier'])}")
    print(f"DU = {report['du']:g} ({report['utility']}); {report['subtables']} of {report['of']} sub-tables released")
    print(f"DR = {report['dr']:g} ({report['bounds']} bounds)")
    for cell in report["at_risk"]:
        where = ", ".join(f"{k}={v}" for k, v in cell["cell"].items())
        print(f"  {where}: count {cell['count']}, bounds [{cell['lower']:g}, {cell['upper']:g}]")
    if report["equally_good"]:
        print(f"{len(report['equally_good'])} other release(s) as good: "
              + "; ".join(" ".join(f) for f in report["equally_good"]))


def run(args: argparse.Namespace) -> int:
    if args.threshold < 1:
        raise CTAError(f"--threshold {args.threshold}: cells at risk have 0 < count <= threshold, so it must be at least 1")
    table, notes = read_count_table(args)
    for note in notes:
        print(note, file=sys.stderr)
    releases, about = _search(table, args)
    report = _report(table, releases, about, args)
    _print(report)
    if args.output:
        Path(args.output).write_text(json.dumps(report, indent=1, default=float), encoding="utf-8")
    if args.export:
        from ctadesk.io.subtables import released_subtables, write_subtables

        write_subtables(table, releases[0], args.export)
        print(f"{len(released_subtables(releases[0]))} sub-tables written to {args.export}", file=sys.stderr)
    return 0
