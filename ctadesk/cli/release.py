"""Publishing options shared by `ctadesk solve` and `ctadesk protect`: secret widening of the
protection levels, the published precision, and the release and internal workbooks (default
layout, any table)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping

from ctadesk.engine.errors import CTAError
from ctadesk.engine.precision import MAX_DECIMALS, published_decimals, published_or_why
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.result import CTAResult, SolveOptions
from ctadesk.engine.structure import TableStructure
from ctadesk.engine.widening import WideningReport, new_seed, widen


def add_release_arguments(parser: argparse.ArgumentParser) -> None:
    """--release, --internal, --widen/--no-widen, --seed, --widen-cost and --precision."""
    group = parser.add_argument_group("publishing")
    group.add_argument("--release", metavar="OUT.xlsx",
                       help="write a release workbook: the protected table and nothing it protects "
                            "(no marks, original values, formulas or notes)")
    group.add_argument("--internal", metavar="OUT.xlsx",
                       help="write an internal workbook: sensitive cells marked, original values, "
                            "differences, the widening seed and the solver log")
    group.add_argument("--widen", action=argparse.BooleanOptionalAction, default=True,
                       help="widen each protection level by a secret random factor 1 + U(0, 0.25), so a "
                            "released value does not sit at exactly original ± a known share (default: on)")
    group.add_argument("--seed", type=int, metavar="N",
                       help="seed of the widening factors (default: a fresh secret one; it is kept only in "
                            "the internal workbook)")
    group.add_argument("--widen-cost", action="store_true",
                       help="also solve without widening and report how much more change widening costs")
    group.add_argument("--precision", type=_precision, default="auto", metavar="N|auto|full",
                       help="decimals the table is published with: it adds up exactly and stays protected at "
                            "that precision (default auto: as many as the data have, whole numbers for "
                            "counts; full: no rounding)")


def solve_published(problem: CTAProblem, method: str, options: SolveOptions,
                    args: argparse.Namespace) -> tuple[CTAResult, WideningReport | None]:
    """Solve `problem` with its protection levels secretly widened (unless --no-widen);
    the widening report, without the seed, goes to stderr."""
    from ctadesk.engine.solvers import solve

    if not args.widen:
        return published(problem, solve(problem, method, options), args, options), None
    seed = new_seed() if args.seed is None else args.seed
    widened = widen(problem, seed)
    report = WideningReport.of(problem, widened, seed)
    result = solve(widened, method, options)
    if args.widen_cost and result.values is not None:
        required = solve(problem, method, options)
        if required.values is not None:
            report = report.with_objectives(required.objective, result.objective)
    print(report.summary(), file=sys.stderr)
    return published(widened, result, args, options), report


def _precision(text: str) -> str | int:
    if text in ("auto", "full"):
        return text
    try:
        decimals = int(text)
    except ValueError:
        decimals = -1
    if not 0 <= decimals <= MAX_DECIMALS:
        raise argparse.ArgumentTypeError(f"'{text}' is not auto, full or a number of decimals 0..{MAX_DECIMALS}")
    return decimals


def published(problem: CTAProblem, result: CTAResult, args: argparse.Namespace,
              options: SolveOptions) -> CTAResult:
    """``result`` at the precision --precision asks for (engine/precision.py), the outcome on stderr.
    With auto, a table that cannot be put on the data's grid is kept unrounded, and said so."""
    if args.precision == "full" or not result.verified:
        return result
    decimals = published_decimals(problem.values) if args.precision == "auto" else args.precision
    rounded, why = published_or_why(problem, result, decimals, options)
    if rounded is not None:
        print(why, file=sys.stderr)
        return rounded
    if args.precision != "auto":
        raise CTAError(f"--precision {decimals}: {why}")
    print(f"ctadesk: note: the table is not rounded to {decimals} decimals: {why}", file=sys.stderr)
    return result


def write_workbooks(args: argparse.Namespace, structure: TableStructure, problem: CTAProblem,
                    result: CTAResult, widening: WideningReport | None,
                    settings: Mapping[str, object]) -> None:
    """The workbooks --internal and --release ask for, in the default layout; their export
    reports go to stderr.  `problem` holds the required (not widened) protection levels."""
    from ctadesk.engine.quality import quality_report
    from ctadesk.io.excel import ExportReport, export_table_workbook

    wanted = [(path, internal) for path, internal in ((args.internal, True), (args.release, False)) if path]
    if not wanted:
        return
    if result.values is None:
        raise CTAError(f"no table to write to {', '.join(path for path, _ in wanted)}: {result.message}")
    values = result.values      # at the published precision already (solve_published)
    report = ExportReport.from_result(
        result, problem.values, problem.sensitive,
        settings={**settings, "protection levels widened by a secret factor": "yes" if widening else "no"},
        measures=quality_report(problem, values), internal_settings=widening.settings() if widening else ())
    for path, internal in wanted:
        if not internal and not result.protected:
            print(f"ctadesk: error: {path} not written: the result is not a protected table", file=sys.stderr)
            continue
        outcome = export_table_workbook(path, structure, problem.values, values, problem.sensitive,
                                        internal=internal, report=report)
        for line in outcome.lines():
            print(line, file=sys.stderr)
