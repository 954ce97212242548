"""`ctadesk convert IN OUT`: move a table between file formats.

Reads .xlsx (layout detected; --sheet), .csv (long; --wide for a wide table),
.tab (tau-argus, with the .rda of the same name or --rda); writes a long .csv,
or a .jj instance (a .tab keeps its unsafe cells, protection levels and costs;
other tables are written with every cell safe).  What the reader left out or
decided (hidden rows, flag columns, footnote flags, cells taken as 0) is said on
standard error, and so is a table whose totals differ from their parts.  A
file the reader cannot read for sure (a decimal mark that could be either, a
confidential cell ':', a formula without a stored result) is refused naming
the cell.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ctadesk.engine.errors import CTAError
from ctadesk.engine.problem import CTAProblem


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("convert", help="convert a table between file formats",
                                   description=__doc__.split("\n\n", 1)[1])
    parser.add_argument("source", help="input table (.xlsx, .csv, .tab)")
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
    source, target = Path(args.source), Path(args.target)
    suffix = source.suffix.lower()
    problem = None
    if suffix in (".xlsx", ".xlsm"):
        from ctadesk.io.excel import import_table

        table = import_table(source, args.sheet, decimal_comma=args.decimal_comma,
                             include_hidden=args.include_hidden)
        structure, values = table.structure, table.values
        _say(table.notes)
    elif suffix == ".csv":
        from ctadesk.io.csv_table import read_long_csv, read_wide_csv

        if args.wide:
            table = read_wide_csv(source, decimal_comma=args.decimal_comma)
            _say(table.notes)
        else:
            table = read_long_csv(source, decimal_comma=args.decimal_comma)
            _say(table.messages)
        structure, values = table.structure, table.values
    elif suffix == ".tab":
        from ctadesk.io.tauargus import read_tab

        table = read_tab(source, args.rda)
        for message in table.messages:
            print(f"ctadesk: {message}", file=sys.stderr)
        broken = table.non_additive()
        if broken and args.make_additive:
            table, changed = table.make_additive()
            print(f"ctadesk: {len(changed)} total(s) recomputed from their parts", file=sys.stderr)
        elif broken:
            worst = broken[0]
            print(f"ctadesk: warning: {len(broken)} relation(s) do not add up, e.g. {worst.label} "
                  f"(off by {worst.difference:g}); use --make-additive to recompute totals", file=sys.stderr)
        structure, values = table.structure, table.values
        problem = table.problem() if not broken or args.make_additive else None
    else:
        raise CTAError(f"{source.name}: cannot read '{suffix}' tables (use .xlsx, .csv or .tab)")

    if suffix != ".tab":
        _warn_unless_additive(structure, values)
    if target.suffix.lower() == ".csv":
        from ctadesk.io.csv_table import write_long_csv

        write_long_csv(target, structure, values)
    elif target.suffix.lower() == ".jj":
        from ctadesk.io.jj import write_jj

        if problem is None:
            if _broken(structure, values):
                raise CTAError(f"{source.name}: the table does not add up; a .jj needs an additive table "
                               "(use --make-additive for .tab input)")
            problem = CTAProblem(values, structure.relations(), cell_label=structure.cell_label,
                                 relation_label=structure.relation_label)
        write_jj(target, problem)
    else:
        raise CTAError(f"{target.name}: cannot write '{target.suffix}' (use .csv or .jj)")
    print(f"{target}: {structure.n_cells} cells ({' x '.join(map(str, structure.shape))})")
    return 0


def _say(notes) -> None:
    for note in notes:
        print(f"ctadesk: {note}", file=sys.stderr)


def _broken(structure, values) -> list:
    """The relations of the table its values break (ctadesk.io.additivity, the check every import
    makes), largest difference first."""
    from ctadesk.io.additivity import non_additive

    return non_additive(structure.relations(), values, structure.relation_label)


def _warn_unless_additive(structure, values) -> None:
    """Say on standard error how many totals differ from the sum of their parts, naming one."""
    broken = _broken(structure, values)
    if broken:
        print(f"ctadesk: warning: {len(broken)} relation(s) do not add up, e.g. {broken[0].label} "
              f"(off by {broken[0].difference:g})", file=sys.stderr)
