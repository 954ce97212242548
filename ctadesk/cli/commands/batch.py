"""`ctadesk batch FILE`: run a tau-argus batch file (.arb) -- its tables from microdata (.asc + .rda)
or tables (.tab + .rda), safety rules, a-priori files, protection by CTA and outputs -- or a
ctadesk job file (.toml: docs/batch.md), and write its logbook.  Independent jobs run side by
side with --jobs N, or on a Dask cluster with --scheduler.  A failing job does not stop the
others; the exit status is 0 when every job succeeded, 1 otherwise (2: the file itself cannot be
read).  --repeat LOGBOOK runs the jobs a logbook records again and says whether each publishes
the same tables (exit status 0 when all do)."""

from __future__ import annotations

import argparse
import math
import sys


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("batch", help="run a tau-argus batch file (.arb) or a job file (.toml)",
                                   description=__doc__.split(":", 1)[1].strip())
    parser.add_argument("file", metavar="FILE", nargs="?", help="tau-argus batch file (.arb) or job file (.toml)")
    parser.add_argument("--as-cta", action="store_true",
                        help="run tau-argus's suppression methods (GH, MOD, OPT, NET) as CTA (default: refused, "
                             "naming the line); RND runs as a controlled rounding to its base either way")
    parser.add_argument("--jobs", type=int, default=1, metavar="N",
                        help="run up to N independent jobs side by side in worker processes (default 1)")
    parser.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                        help="run the jobs on this Dask distributed cluster (needs ctadesk[dask])")
    parser.add_argument("--time-limit", type=float, metavar="SECONDS",
                        help="for the whole batch: a job starting late gets what is left (each job keeps its own)")
    parser.add_argument("--repeat", metavar="LOGBOOK", help="run again the jobs this logbook records")
    parser.add_argument("--job", type=int, metavar="N", help="with --repeat: only job N")
    talk = parser.add_mutually_exclusive_group()
    talk.add_argument("--quiet", action="store_true", help="print nothing but errors")
    talk.add_argument("--verbose", action="store_true", help="print every job's log as it ends")
    parser.set_defaults(func=run, stoppable=True)


def run(args: argparse.Namespace) -> int:
    from ctadesk.engine.errors import CTAError

    if args.repeat:
        return _repeat(args)
    if not args.file:
        raise CTAError("name a batch or job file, or a logbook with --repeat")
    if args.jobs < 1:
        raise CTAError(f"--jobs {args.jobs}: give at least 1")
    if args.time_limit is not None and not (args.time_limit > 0 and math.isfinite(args.time_limit)):
        raise CTAError(f"--time-limit {args.time_limit}: give a positive number of seconds")
    from ctadesk.app.batch import run_batch

    progress = _Progress(args.quiet, args.verbose)
    report = run_batch(args.file, as_cta=args.as_cta, workers=args.jobs, scheduler=args.scheduler,
                       time_limit=args.time_limit, stop=args.stop, on_plan=progress.plan, on_outcome=progress.done,
                       on_progress=None if args.quiet else progress.gap)
    progress.finish()
    if not args.quiet:
        done = sum(o.ok for o in report.outcomes)
        print(f"{done} of {report.planned} job(s) succeeded; logbook {report.logbook}", file=sys.stderr)
    return 0 if report.ok else 1


class _Progress:
    """Progress on stderr: 'jobs done/total', the running jobs' gaps, each job as it ends."""

    def __init__(self, quiet: bool, verbose: bool) -> None:
        self.quiet, self.verbose = quiet, verbose
        self.total = self.finished = 0
        self.gaps: dict[int, float] = {}
        self.live = sys.stderr.isatty()

    def plan(self, plan) -> None:
        self.total = len(plan.jobs)

    def gap(self, number: int, gap: float) -> None:
        self.gaps[number] = gap
        if self.live:
            running = ", ".join(f"job {n} gap {g:.2%}" if math.isfinite(g) else f"job {n}"
                                for n, g in sorted(self.gaps.items()))
            print(f"\r[{self.finished}/{self.total}] {running}"[:120].ljust(120), end="", file=sys.stderr)

    def done(self, outcome) -> None:
        self.finished += 1
        self.gaps.pop(outcome.job.number, None)
        if outcome.ok and self.quiet:
            return
        if self.live:
            print("\r" + " " * 120 + "\r", end="", file=sys.stderr)
        print(f"[{self.finished}/{self.total}] {outcome.job.title()}: {'ok' if outcome.ok else 'FAILED'} "
              f"({outcome.seconds:.1f} s)", file=sys.stderr)
        if self.verbose:
            for line in outcome.lines:
                print(f"  {line}", file=sys.stderr)
        if outcome.error:
            print(f"  error: {outcome.error}", file=sys.stderr)

    def finish(self) -> None:
        if self.live and self.gaps:
            print(file=sys.stderr)


def _repeat(args: argparse.Namespace) -> int:
    from ctadesk.app.batch import repeat_logged

    repeats = repeat_logged(args.repeat, args.job)
    for repeat in repeats:
        if repeat.identical and args.quiet:
            continue
        verdict = "identical" if repeat.identical else "DIFFERENT" if repeat.error is None else "FAILED"
        print(f"{repeat.title}: {verdict}{f' ({repeat.error})' if repeat.error else ''}", file=sys.stderr)
    return 0 if all(repeat.identical for repeat in repeats) else 1
