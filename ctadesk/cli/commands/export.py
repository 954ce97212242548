"""`ctadesk export PROJECT KIND OUT`: write what the desktop app's File > Export writes, from a
saved project: the release or internal workbook (in the default layout: a project file does not
keep the workbook its table came from), the adjusted table as CSV, the problem as JJ or the
adjusted values as RCTA .sol.  A result the table was edited after is not released."""

from __future__ import annotations

import argparse
import sys

from ctadesk.app.formats import export_of, exports


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("export", help="write a release, internal workbook or table from a project",
                                   description=__doc__.split(":", 1)[1].strip())
    parser.add_argument("project", help="ctadesk project (.ctaproj) holding a protected table")
    parser.add_argument("kind", choices=list(exports()), help="what to write")
    parser.add_argument("output", help="file to write")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ctadesk.app.session import Session
    from ctadesk.io.excel import ExportOutcome  # openpyxl: loaded by the export of a workbook

    written = Session.open(args.project).export(args.kind, args.output)
    if isinstance(written, ExportOutcome):
        for line in written.lines():
            print(line, file=sys.stderr)
    print(f"{args.output}: {export_of(args.kind).menu.rstrip('…').lower()}")
    return 0
