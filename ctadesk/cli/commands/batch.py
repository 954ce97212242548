"""`ctadesk batch FILE.arb`: run a tau-argus batch file -- its tables from microdata (.asc + .rda)
or tables (.tab + .rda), safety rules, a-priori files, protection by CTA and outputs -- and write
its logbook.  A failing job does not stop the others; the exit status is 0 when every job
succeeded, 1 otherwise (2: the batch file itself cannot be read)."""

from __future__ import annotations

import argparse
import sys


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("batch", help="run a tau-argus batch file (.arb) with CTA",
                                   description=__doc__.split(":", 1)[1].strip())
    parser.add_argument("file", metavar="FILE.arb", help="tau-argus batch file")
    parser.add_argument("--as-cta", action="store_true",
                        help="run tau-argus's suppression methods (GH, MOD, OPT, NET) and rounding (RND) as CTA "
                             "(default: refused, naming the line)")
    talk = parser.add_mutually_exclusive_group()
    talk.add_argument("--quiet", action="store_true", help="print nothing but errors")
    talk.add_argument("--verbose", action="store_true", help="print every job's log as it runs")
    parser.set_defaults(func=run, stoppable=True)


def run(args: argparse.Namespace) -> int:
    from ctadesk.app.batch import run_batch

    def outcome(done) -> None:
        if done.ok and args.quiet:
            return
        print(f"{done.job.title()}: {'ok' if done.ok else 'FAILED'}", file=sys.stderr)
        if args.verbose:
            for line in done.lines:
                print(f"  {line}", file=sys.stderr)
        if done.error:
            print(f"  error: {done.error}", file=sys.stderr)

    report = run_batch(args.file, as_cta=args.as_cta, stop=args.stop, on_outcome=outcome)
    if not args.quiet:
        done = sum(o.ok for o in report.outcomes)
        print(f"{done} of {len(report.outcomes)} job(s) succeeded; logbook {report.logbook}", file=sys.stderr)
    return 0 if report.ok else 1
