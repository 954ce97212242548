"""What `ctadesk solve` and `ctadesk protect` do with their protection and publishing options
(ctadesk.cli.protection_options): the request they build (ctadesk.app), its run, and the
result document and the release and internal workbooks (default layout, any table).  Imported
when a command runs, not when its parser is built."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping

from ctadesk.app import PRESERVABLE, Protection, ProtectionRequest, protect
from ctadesk.app.provenance import request_text, version_settings
from ctadesk.engine.errors import CTAError
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.quality.terms import QualityTerm, parse_term
from ctadesk.engine.table.structure import TableStructure


def quality_terms(args: argparse.Namespace, problem: CTAProblem,
                  structure: TableStructure | None = None) -> tuple[QualityTerm, ...]:
    """The terms --quality names, their groups read off ``problem`` and ``structure``."""
    return tuple(parse_term(text, problem, structure) for text in args.quality)


def preserved_measures(text: str) -> set[str]:
    """The measures named in --preserve (comma-separated)."""
    chosen = {word.strip().lower() for word in text.split(",") if word.strip()}
    unknown = chosen - set(PRESERVABLE)
    if unknown:
        raise CTAError(f"--preserve: unknown measure '{sorted(unknown)[0]}'; choose from {', '.join(PRESERVABLE)}")
    return chosen


def request_from(args: argparse.Namespace, *, weights: str = "table",
                 preserve: frozenset[str] = frozenset()) -> ProtectionRequest:
    """The protection request the command line's options stand for."""
    return ProtectionRequest(distance=args.distance, senses=args.senses_by, method=args.method,
                             parameters=tuple(args.param), weights=weights, preserve=preserve,
                             time_limit=args.time_limit, gap=args.gap, threads=args.threads, widen=args.widen,
                             seed=args.seed,
                             widen_cost=args.widen_cost, precision=args.precision,
                             rounding_base=getattr(args, "round_to", None))


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
    if request.rounding_base is not None and not protection.precision_met and protection.result.verified \
            and not args.stop.is_set():
        raise CTAError(f"--round-to {request.rounding_base}: {protection.outcome.published.note}")
    return protection


def write_workbooks(args: argparse.Namespace, structure: TableStructure, protection: Protection,
                    settings: Mapping[str, object]) -> None:
    """The workbooks --internal and --release ask for, in the default layout; their export
    reports go to stderr (the Excel writer loaded only when one is asked for)."""
    wanted = [(path, internal) for path, internal in ((args.internal, True), (args.release, False)) if path]
    if not wanted:
        return
    from ctadesk.io.excel import ExportReport, export_table_workbook

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
