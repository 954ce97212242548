"""`ctadesk convert IN OUT`: move a table between file formats.

Reads any table the format registry knows (ctadesk.app.formats): .xlsx (layout
detected; --sheet), .csv (long; --wide for a wide table), .tab (tau-argus, with
the .rda of the same name or --rda), .jj; writes a long .csv, or a .jj instance
(a .tab keeps its unsafe cells, protection levels and costs; other tables are
written with every cell safe).  What the reader left out or
decided (hidden rows, flag columns, footnote flags, cells taken as 0) is said on
standard error, and so is a table whose totals differ from their parts.  A
file the reader cannot read for sure (a decimal mark that could be either, a
confidential cell ':', a formula without a stored result) is refused naming
the cell.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ctadesk.engine.problem import CTAProblem


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("convert", help="convert a table between file formats",
                                   description=__doc__.split("\n\n", 1)[1])
    parser.add_argument("source", help="input table (.xlsx, .csv, .tab, .jj, ...)")
    parser.add_argument("target", help="output file (.csv long format, or .jj)")
    parser.add_argument("--sheet", help="sheet of an .xlsx workbook (default: the first visible one)")
    parser.add_argument("--wide", action="store_true", help="the input .csv is a wide table")
    mark = parser.add_mutually_exclusive_group()
    mark.add_argument("--decimal-comma", dest="decimal_comma", action="store_const", const=True,
                      help="numbers written as text use a decimal comma ('1.234' is 1234)")
    mark.add_argument("--decimal-point", dest="decimal_comma", action="store_const", const=False,
                      help="numbers written as text use a decimal point ('1,234' is 1234)")
    parser.add_argument("--include-hidden", action="store_true",
                        help="read hidden rows and columns of an .xlsx sheet as part of the table")
    parser.add_argument("--rda", help="metadata of a .tab file (default: same name, .rda)")
    parser.add_argument("--make-additive", action="store_true",
                        help="recompute totals from their parts when the input is not additive")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ctadesk.app.formats import Answers, Holds, Layout, Question, Totals, format_of, read_table, table_writer

    source, target = Path(args.source), Path(args.target)
    fmt = format_of(source, Holds.TABLE)
    write = table_writer(target)
    recompute = args.make_additive and Question.TOTALS in fmt.questions
    answers = Answers(sheet=args.sheet, include_hidden=args.include_hidden, decimal_comma=args.decimal_comma,
                      layout=Layout.WIDE if args.wide else Layout.LONG, metadata=Path(args.rda) if args.rda else None,
                      totals=Totals.RECOMPUTE if recompute else Totals.KEEP)
    project = read_table(source, answers)
    _say(line for line in project.log.splitlines() if line.strip())
    _warn_unless_additive(project.to_problem(), Question.TOTALS in fmt.questions)
    write(target, project)
    structure = project.structure
    print(f"{target}: {structure.n_cells} cells ({' x '.join(map(str, structure.shape))})")
    return 0


def _say(notes: Iterable[str]) -> None:
    for note in notes:
        print(f"ctadesk: {note}", file=sys.stderr)


def _warn_unless_additive(problem: CTAProblem, totals_asked: bool) -> None:
    """Say on standard error how many totals differ from the sum of their parts, naming one
    (ctadesk.io.additivity, the check every import makes)."""
    from ctadesk.io.additivity import non_additive

    broken = non_additive(problem.relations, problem.values, problem.describe_relation, problem.rhs)
    if broken:
        print(f"ctadesk: warning: {len(broken)} relation(s) do not add up, e.g. {broken[0].label} "
              f"(off by {broken[0].difference:g}){'; use --make-additive to recompute totals' if totals_asked else ''}",
              file=sys.stderr)
