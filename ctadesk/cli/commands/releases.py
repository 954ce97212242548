"""`ctadesk releases COUNTS.csv --threshold 2 --alpha 3`: which marginal sub-tables of a count
table may be released together (Karr, Dobra & Sanil (undated); ctadesk.engine.releases).

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

from ctadesk.cli.table_options import add_microdata_arguments
from ctadesk.engine.errors import CTAError
from ctadesk.engine.settings import DEFAULT_THRESHOLD, MAX_EVALUATIONS, SEARCH_NAMES, UTILITY_NAMES


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "releases", help="choose the marginal sub-tables of a count table that may be released",
        description="Find the largest release of marginal sub-tables whose at-risk cells (0 < count <= "
                    "threshold) stay bounded no tighter than alpha (Karr, Dobra & Sanil).")
    data = parser.add_argument_group("count table")
    data.add_argument("counts", nargs="?", metavar="COUNTS",
                      help="long file: one column per variable and a count column")
    data.add_argument("--count", default="count", metavar="COLUMN", help="the count column of COUNTS (default: count)")
    data.add_argument("--variables", nargs="+", metavar="VAR", help="the variables of COUNTS, in table order")
    data.add_argument("--microdata", metavar="FILE", help="count the records of a microdata file instead")
    data.add_argument("--span", nargs="+", default=[], metavar="VAR", help="the variables of --microdata")
    add_microdata_arguments(data)
    search = parser.add_argument_group("risk and search (Karr, Dobra & Sanil, undated)")
    search.add_argument("--threshold", type=int, default=DEFAULT_THRESHOLD, metavar="N",
                        help=f"cells with 0 < count <= N are at risk (default {DEFAULT_THRESHOLD})")
    search.add_argument("--alpha", type=float, required=True, help="smallest bound width allowed on an at-risk cell")
    search.add_argument("--search", choices=SEARCH_NAMES, default="decomposable",
                        help="decomposable releases (default), all releases (exact best-first), or ordered marginals")
    search.add_argument("--integer", action="store_true", help="integer (MILP) bounds instead of LP bounds")
    search.add_argument("--utility", choices=UTILITY_NAMES, default="subtables",
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
    from ctadesk.app.count_releases import search_releases
    from ctadesk.cli.count_tables import read_count_table, report

    if args.threshold < 1:
        raise CTAError(f"--threshold {args.threshold}: cells at risk have 0 < count <= threshold, so it must be at "
                       "least 1")
    table, notes = read_count_table(args)
    for note in notes:
        print(note, file=sys.stderr)
    found = search_releases(table, args.alpha, args.threshold, args.search, args.integer, args.utility,
                            args.max_evaluations, args.seed, args.keep_going)
    about = ({"method": "ordered", "refused": [table.subtable_name(s) for s in found.refused]}
             if args.search == "ordered" else
             {"method": args.search, "exact": found.exact, "evaluations": found.evaluations})
    releases = list(found.releases)
    document = report(table, releases, about, args)
    _print(document)
    if args.output:
        Path(args.output).write_text(json.dumps(document, indent=1, default=float), encoding="utf-8")
    if args.export:
        from ctadesk.app.count_releases import write_subtables
        from ctadesk.io.subtables import released_subtables

        write_subtables(table, releases[0], args.export)
        print(f"{len(released_subtables(releases[0]))} sub-tables written to {args.export}", file=sys.stderr)
    return 0
