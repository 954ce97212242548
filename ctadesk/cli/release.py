"""Protection and publishing options shared by `ctadesk solve` and `ctadesk protect`: the
request they build (ctadesk.app), secret widening, the published precision, and the release
and internal workbooks (default layout, any table)."""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Mapping

from ctadesk.app import Protection, ProtectionRequest, protect
from ctadesk.app.provenance import request_text, version_settings
from ctadesk.app.request import AUTO
from ctadesk.engine.errors import CTAError
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.publish.precision import MAX_DECIMALS
from ctadesk.engine.quality.terms import QualityTerm, parse_term
from ctadesk.engine.table.structure import TableStructure


def add_model_arguments(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """The model (--distance, --senses-by), the algorithm (--method: auto, or an expert's choice)
    and its parameters (--param)."""
    from ctadesk.engine.methods import METHODS
    from ctadesk.engine.model import Distance, Senses

    parser.add_argument("--distance", choices=[d.value for d in Distance], default=Distance.L1.value,
                        help="how change is measured: l1 (weighted absolute, default), l2 (least squares), "
                             "huber (pseudo-Huber, --param delta=D), soc (L1 as a cone program)")
    parser.add_argument("--senses-by", choices=[s.value for s in Senses], default=Senses.OPTIMAL.value,
                        help="which side each sensitive cell takes: optimal (exact MILP, default), fixed (given, "
                             "else the ordering heuristic), heuristic (searched), soft (may fall short, at a price)")
    parser.add_argument("--method", choices=[AUTO, *METHODS], default=AUTO,
                        help="the algorithm: auto (default: chosen from the model and the table, the reason "
                             "printed) or one of the registry's methods, overriding the choice")
    parser.add_argument("--param", action="append", type=_parameter, default=[], metavar="NAME=VALUE",
                        help="a parameter of the method (e.g. delta=0.5, block_size=80, cuts=true)")


def _parameter(text: str) -> tuple[str, float | int | bool]:
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise argparse.ArgumentTypeError(f"'{text}' is not NAME=VALUE")
    word = value.strip().lower()
    if word in ("true", "false", "yes", "no", "on", "off"):
        return name.strip(), word in ("true", "yes", "on")
    try:
        return name.strip(), int(word)
    except ValueError:
        pass
    try:
        return name.strip(), float(word)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}': {value!r} is not a number or true/false") from None


def add_solve_arguments(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """--time-limit, --gap, --threads and --log."""
    parser.add_argument("--time-limit", type=float, default=math.inf, metavar="S", help="seconds")
    parser.add_argument("--gap", type=float, default=1e-4, metavar="G", help="relative MIP gap (default 1e-4)")
    parser.add_argument("--threads", type=int, default=None, help="solver threads (default: the solver's)")
    parser.add_argument("--log", action="store_true", help="echo the solver log to stderr")


def add_quality_arguments(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """--quality SPEC (repeatable) and --quality-price: quality terms (Cox 2005a, §3)."""
    parser.add_argument("--quality", action="append", default=[], metavar="SPEC",
                        help="a quality term MEASURE[:MODE][:NUMBER][@GROUP], repeatable: MEASURE mean, L (the "
                             "variance/slope term L(y)) or correlation; MODE hard (kept exactly), bounded (|mean "
                             "change| <= NUMBER in table units, |L(y)| <= NUMBER, Corr >= NUMBER) or weighted (the "
                             "distance gains NUMBER x |term|); GROUP inner (default), all, size=LO..HI, "
                             "cells=I,J,... or DIM=CODE. E.g. 'L:bounded:0.001', 'mean:hard', 'correlation:0.999', "
                             "'L:weighted:1000', 'mean:bounded:5@R=3'")
    parser.add_argument("--quality-price", action="store_true",
                        help="also solve once without each quality term and report its price (extra distance)")


def quality_terms(args: argparse.Namespace, problem: CTAProblem,
                  structure: TableStructure | None = None) -> tuple[QualityTerm, ...]:
    """The terms --quality names, their groups read off ``problem`` and ``structure``."""
    return tuple(parse_term(text, problem, structure) for text in args.quality)


def add_record_arguments(parser: argparse.ArgumentParser) -> None:
    """--json and --save-project: the result document (Protection.as_dict()) and the project."""
    parser.add_argument("--json", metavar="OUT.json",
                        help="write the result as JSON, with the versions of ctadesk and the solvers and the "
                             "request (its widening seed included)")
    parser.add_argument("--save-project", metavar="OUT.ctaproj",
                        help="save the project: the table with its statuses, senses and rules, the options (the "
                             "widening seed) and the result; 'ctadesk solve' and the app open it")


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


def request_from(args: argparse.Namespace, *, weights: str = "table",
                 preserve: frozenset[str] = frozenset()) -> ProtectionRequest:
    """The protection request the command line's options stand for."""
    return ProtectionRequest(distance=args.distance, senses=args.senses_by, method=args.method,
                             parameters=tuple(args.param), weights=weights, preserve=preserve,
                             time_limit=args.time_limit, gap=args.gap, threads=args.threads, widen=args.widen,
                             seed=args.seed,
                             widen_cost=args.widen_cost, precision=args.precision)


def run_protection(problem: CTAProblem, request: ProtectionRequest, args: argparse.Namespace) -> Protection:
    """Run ``request`` (ctadesk.app.protect) until it ends or ``args.stop`` is set (a signal:
    ctadesk.cli.interrupt); the solver log on stderr with --log, the run's notes (widening without
    its seed, the precision reached) on stderr.  A precision asked for by number that cannot be
    met is an error, unless the run was stopped: then its best verified table is the output."""
    on_log = (lambda line: print(line, file=sys.stderr)) if args.log else None
    protection = protect(problem, request, on_log=on_log, stop=args.stop)
    if on_log is None:
        for line in protection.notes:
            print(f"ctadesk: {line}", file=sys.stderr)
    if request.precision not in ("auto", "full") and not protection.precision_met \
            and protection.result.verified and not args.stop.is_set():
        raise CTAError(f"--precision {request.precision}: {protection.outcome.published.note}")
    return protection


def write_workbooks(args: argparse.Namespace, structure: TableStructure, protection: Protection,
                    settings: Mapping[str, object]) -> None:
    """The workbooks --internal and --release ask for, in the default layout; their export
    reports go to stderr."""
    from ctadesk.io.excel import ExportReport, export_table_workbook

    wanted = [(path, internal) for path, internal in ((args.internal, True), (args.release, False)) if path]
    if not wanted:
        return
    result, problem = protection.result, protection.required
    if result.values is None:
        raise CTAError(f"no table to write to {', '.join(path for path, _ in wanted)}: {result.message}")
    widening = protection.widening
    report = ExportReport.from_result(
        result, problem.values, problem.sensitive,
        settings={**settings, "protection levels widened by a secret factor": "yes" if widening else "no",
                  **version_settings()},
        measures=protection.quality,
        internal_settings=(*(widening.settings() if widening else ()),
                           ("request", request_text(protection.request.options()))))
    for path, internal in wanted:
        if not internal and not result.protected:
            print(f"ctadesk: error: {path} not written: the result is not a protected table", file=sys.stderr)
            continue
        if not internal and not protection.precision_met:
            raise CTAError(f"{path} not written: {protection.outcome.published.note or 'no table at the precision'}; "
                           "publish at another precision (--precision N, or --precision full for no rounding)")
        outcome = export_table_workbook(path, structure, problem.values, result.values, problem.sensitive,
                                        internal=internal, report=report, decimals=protection.decimals)
        for line in outcome.lines():
            print(line, file=sys.stderr)


def write_json(path: str, document: Mapping[str, object]) -> None:
    """`--json OUT.json` (and a JSON -o): ``document`` (Protection.as_dict(), or a bivariate run's)."""
    try:
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(document, handle, indent=1)
    except OSError as error:
        raise CTAError(f"cannot write {path}: {error.strerror or error}") from None
