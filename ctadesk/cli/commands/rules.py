"""`ctadesk rules INPUT ...`: apply safety rules to a table built from microdata
(CSV, xlsx, SPSS, Stata, SAS) or read from a tau-argus .tab with its contributions,
and write every cell's status and protection levels (CSV or JSON).

A .tab is read as tau-argus reads it (ctadesk.io.tauargus): its shadow variable,
when it names one, is what the dominance and p%/(p,q) rules apply to.  A cell
several rules flag gets tau-argus's protection level unless --largest-level
(ctadesk.engine.rules.safety)."""

from __future__ import annotations

import argparse
import sys

from ctadesk.cli.table_options import add_table_arguments


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "rules", help="apply safety rules to a table built from microdata",
        description="Build a table from microdata, apply primary safety rules and write each cell's "
                    "status and protection levels.")
    add_table_arguments(parser)
    parser.add_argument("-o", "--output", metavar="FILE", help="output .csv or .json (default: CSV on stdout)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from ctadesk.cli.tables import build_table, cell_records, write_records

    structure, stats, rules, result = build_table(args)
    write_records(cell_records(structure, stats, rules, result), args.output)
    unsafe = int(np.count_nonzero(result.flags))
    print(f"{structure.n_cells} cells, {unsafe} unsafe", file=sys.stderr)
    return 0
