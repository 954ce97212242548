"""`ctadesk audit ORIGINAL RELEASED`: what an attacker can learn about each sensitive cell.

ORIGINAL is the confidential table with its sensitive cells and protection levels (.jj, a
tau-argus .tab with its .rda, or any table or project ctadesk reads); RELEASED the published
table over the same cells (.jj with its suppressed cells marked u/m, RCTA .sol, tau-argus
.tab, a long .csv with the original's code columns and the value last, or an .xlsx release
workbook ctadesk wrote for the original, read back in its layout; a blank or a mark such as
'x' is a suppressed cell).  A release with suppressed cells publishes originals; for a CTA
release --capacity says how far the attacker knows a non-sensitive cell may have moved, and
--a-priori range how closely anyone knew each value beforehand (as the app's audit assumes
the safety rule's range).  Prints the summary; exit status 0 when every sensitive cell is
protected, 1 when some are at risk, 2 on an error.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

from ctadesk.engine.errors import CTAError

#: exit status when the audit finds cells at risk (errors exit with 2)
AT_RISK = 1
#: at-risk cells named on standard output (all of them go to the -o file)
LISTED = 10


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("audit", help="audit a released table: attacker intervals of the sensitive cells",
                                   description=__doc__.split("\n\n", 1)[1])
    parser.add_argument("original", help="the original table (.jj, or .tab with its .rda)")
    parser.add_argument("released", help="the published table (.jj, .sol, .tab, .csv, or a release .xlsx)")
    parser.add_argument("--capacity", nargs=2, metavar=("abs|rel", "VALUE"),
                        help="the attacker knows non-sensitive cells moved by at most VALUE (abs) or "
                             "VALUE times their value (rel, below 1)")
    parser.add_argument("--percentage-known", action="store_true",
                        help="the attacker knows each protection level as a share of its cell's value")
    parser.add_argument("--a-priori", choices=("problem", "sign", "range"), default="problem",
                        help="public bounds: the original's cell bounds (default), only that a table of "
                             "non-negative values has no negative cell, or each value to within "
                             "--a-priori-range of itself (what the safety rule assumes, as in the app)")
    parser.add_argument("--a-priori-range", type=float, metavar="PCT",
                        help="with --a-priori range: each original is known to within PCT %% of its value "
                             "(default 100, the p%% rule's; the q of a (p,q) rule)")
    parser.add_argument("--rda", help="metadata of an original .tab (default: same name, .rda)")
    parser.add_argument("--released-rda", help="metadata of a released .tab (default: same name, .rda)")
    parser.add_argument("--workers", type=int, help="processes for the LPs (default: the cores, for big tables)")
    parser.add_argument("-o", "--output", metavar="CELLS.csv", help="write one line per audited cell")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ctadesk.app.formats import Answers, read_release, read_table
    from ctadesk.engine.audit import APriori, AttackerKnowledge, AuditOptions, Release, audit

    if args.a_priori_range is not None and args.a_priori != "range":
        raise CTAError("--a-priori-range is the range of --a-priori range; give both")
    if args.a_priori_range is not None and not 0 <= args.a_priori_range < float("inf"):
        raise CTAError(f"--a-priori-range: {args.a_priori_range:g} is not a percentage >= 0")
    original = read_table(args.original, Answers(metadata=_path(args.rda)))
    problem, structure = original.to_problem(), original.structure
    released = read_release(args.released, structure, Answers(metadata=_path(args.released_rda)))
    for message in released.messages:
        print(f"ctadesk: {released.path.name}: {message}", file=sys.stderr)
    release = Release(released.published, released.missing)
    knowledge = AttackerKnowledge.for_release(release, a_priori=APriori(args.a_priori),
                                              capacity=_capacity(args.capacity),
                                              percentage_known=args.percentage_known,
                                              a_priori_range=(100.0 if args.a_priori_range is None
                                                              else args.a_priori_range) / 100)
    result = audit(problem, release, knowledge, AuditOptions(workers=args.workers))
    kind = "suppressed" if release.suppressed else "adjusted"
    print(f"{released.path.name} ({kind} release): {result.summary()}")
    at_risk = result.at_risk.nonzero()[0]
    for k in at_risk[:LISTED]:
        print(f"  {problem.describe_cell(int(result.cells[k]))}: [{result.lower[k]:.6g}, {result.upper[k]:.6g}], "
              f"{'; '.join(result.reasons(int(k)))}")
    if at_risk.size > LISTED:
        print(f"  ... and {at_risk.size - LISTED} more" + ("" if args.output else " (-o lists them all)"))
    if args.output:
        _write_cells(Path(args.output), problem, result)
    return AT_RISK if at_risk.size else 0


def _path(name: str | None) -> Path | None:
    return None if name is None else Path(name)


def _capacity(words: list[str] | None):
    """The Capacity --capacity names, or None."""
    from ctadesk.engine.audit import Capacity, CapacityKind

    if words is None:
        return None
    kind, text = words
    if kind not in ("abs", "rel"):
        raise CTAError(f"--capacity: '{kind}' must be abs or rel")
    try:
        value = float(text)
    except ValueError:
        raise CTAError(f"--capacity: '{text}' is not a number") from None
    return Capacity(CapacityKind(kind), value)


def _write_cells(path: Path, problem, result) -> None:
    """One line per audited cell: its label, values, interval, levels and verdict."""
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["cell", "label", "original", "published", "lower", "upper", "width", "relative_width",
                         "lower_protection", "upper_protection", "at_risk", "reasons"])
        at_risk = result.at_risk
        relative = result.relative_width
        for k, i in enumerate(result.cells.tolist()):
            label = problem.cell_label(i) if problem.cell_label is not None else ""
            writer.writerow([i, label, repr(float(result.original[k])), _number(result.published[k]),
                             _number(result.lower[k]), _number(result.upper[k]), _number(result.width[k]),
                             _number(relative[k]), repr(float(result.lower_protection[k])),
                             repr(float(result.upper_protection[k])), int(at_risk[k]),
                             "; ".join(result.reasons(k))])


def _number(value: float) -> str:
    """A number for the cells file: empty for a suppressed value, 'inf'/'-inf' for no bound."""
    return "" if value != value else repr(float(value))
