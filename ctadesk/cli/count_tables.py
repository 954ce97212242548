"""What `ctadesk releases` reads and reports: the count table its options name (a long file of
counts, or microdata counted) and the document of a release found (Karr, Dobra & Sanil: the
released frontier, its utility DU and disclosure risk DR with the at-risk cells' bounds).
Imported when the command runs."""

from __future__ import annotations

import argparse

from ctadesk.app.count_releases import count_table, count_variables
from ctadesk.cli.tables import read_microdata_for
from ctadesk.engine.errors import CTAError
from ctadesk.engine.releases import UTILITIES, CountTable, Release, disclosure_risk


def read_count_table(args: argparse.Namespace) -> tuple[CountTable, list[str]]:
    """The count table the arguments name, and notes for stderr."""
    if (args.counts is None) == (args.microdata is None):
        raise CTAError("give either a COUNTS file or --microdata FILE --span VAR ...")
    if args.microdata:
        if not args.span:
            raise CTAError("--microdata needs --span VAR ... (the records are counted; no response is needed)")
        args.response = None
        return count_table(read_microdata_for(args, args.microdata, tuple(args.span)))
    args.response = args.count
    candidates = count_variables(args.counts, args.count, args.variables)
    return count_table(read_microdata_for(args, args.counts, tuple(candidates)), drop_identifiers=not args.variables)


def report(table: CountTable, releases: list[Release], about: dict, args: argparse.Namespace) -> dict:
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
