"""`ctadesk online --store senses.db --microdata FILE --table "Region x Size" --response VAR ...`:
one table of an on-line table server (Castro & González 2011, §4), protected consistently with every table
published from the same store before (ctadesk.app.online); the first call, with --init-store,
makes the store.

The published table (codes, values, public statuses) goes to -o (CSV or JSON) or stdout; what
the office alone may see (sensitive cells, new senses, anything the second stage relaxed) goes
to stderr.  The microdata and safety-rule options are those of `ctadesk rules`, with the input
given by --microdata and the table by --table; manual cells are not offered, as a table server
has no cell to point at before a table is asked for.
"""

from __future__ import annotations

import argparse
import re
import sys

from ctadesk.cli.table_options import add_microdata_arguments, add_rules_arguments
from ctadesk.engine.errors import CTAError
from ctadesk.engine.settings import FULL_TABLE_BUDGET, SENSE_CHOICES, TIME_BUDGET, VALUE_CHOICES

#: "Region x Size", "Region × Size": the spanning variables of --table
TABLE_SEPARATOR = re.compile(r"(?:^|\s+)[x×](?:\s+|$)")


def _spanning(text: str) -> tuple[str, ...]:
    names = tuple(name.strip() for name in TABLE_SEPARATOR.split(text.strip()))
    if not all(names):
        raise argparse.ArgumentTypeError(f"'{text}' is not a table such as \"Region x Size\"")
    return names


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "online", help="protect one table of an on-line table server consistently with the tables before it",
        description="Tabulate one table from microdata, apply the safety rules and protect it by two-stage "
                    "on-line CTA (Castro & González 2011, §4): senses stored for cells seen before are kept, "
                    "new ones recorded in the store.")
    data = add_store_arguments(parser, "microdata and table")
    data.add_argument("--table", dest="span", required=True, type=_spanning, metavar='"A x B"',
                      help='the table: its spanning variables, e.g. "Region x Size"; "Region:1 x Size" shows '
                           'Region down to level 1')
    data.add_argument("--span", dest="full_span", nargs="+", metavar="VAR",
                      help="every variable a table from this store may span: with --senses data (the default) "
                           "their full table gives the senses, which keeps every later table publishable "
                           "(default: the table's own variables)")
    add_microdata_arguments(data)
    add_rules_arguments(parser, manual=False)
    add_online_arguments(parser)
    parser.add_argument("-o", "--output", metavar="FILE", help="output .csv or .json (default: CSV on stdout)")
    parser.set_defaults(func=run)


def add_store_arguments(parser: argparse.ArgumentParser, title: str) -> argparse._ArgumentGroup:
    """--store and --init-store, and --microdata in a group named ``title`` (returned, for the
    table's options)."""
    parser.add_argument("--store", required=True, metavar="FILE|URL",
                        help="the sense store: an SQLite file, or a PostgreSQL database (postgresql://user@host/db, "
                             "the server-postgres extra) that several servers share")
    parser.add_argument("--init-store", action="store_true",
                        help="make the store, bound to this microdata, response and rules (refused when there is "
                             "one); without it a missing, empty or other store is refused")
    data = parser.add_argument_group(title)
    data.add_argument("--microdata", required=True, metavar="FILE",
                      help="microdata (.csv or .xlsx with a header line, .sav, .zsav, .dta, .sas7bdat, .xpt)")
    return data


def add_online_arguments(parser: argparse.ArgumentParser) -> None:
    """How new senses are chosen and cells weighted (OnlineService's options)."""
    online = parser.add_argument_group("on-line protection")
    online.add_argument("--senses", choices=SENSE_CHOICES, default="data",
                        help="new senses from the full table of every variable, protected once (data, default: "
                             "every later table then has a protected table), from the cell alone (local) or from "
                             "the table's exact MILP (table)")
    online.add_argument("--values", choices=VALUE_CHOICES,
                        help="with --senses data, every table read from the full table's protected values (full, "
                             "the default: a cell has one value in every table) or protected on its own with the "
                             "values published before held (table: closer to each table now, but a later table may "
                             "have to publish other values); other senses take table")
    online.add_argument("--time-budget", type=float, metavar="SECONDS",
                        help=f"time the full table's protection may take with --senses data (default "
                             f"{FULL_TABLE_BUDGET:g}, once per store), the table's MILP with --senses table "
                             f"(default {TIME_BUDGET:g})")
    online.add_argument("--cell-weights", choices=("unit", "inverse"), default="inverse",
                        help="cost of changing a cell: 1/|value| (default) or 1")


def run(args: argparse.Namespace) -> int:
    from ctadesk.app.online import OnlineService
    from ctadesk.app.online.levels import requested_level
    from ctadesk.cli.tables import read_microdata_for, safety_rules, write_records

    if not args.response:
        raise CTAError("--response VAR is required: the variable the table sums")
    variables = tuple(requested_level(item, ())[0] for item in args.span)
    if args.full_span:
        outside = [name for name in variables if name not in args.full_span]
        if outside:
            raise CTAError(f"--table spans {outside[0]}, which --span does not list")
        variables = tuple(args.full_span)
    microdata = read_microdata_for(args, args.microdata, variables)
    with OnlineService(args.store, microdata, safety_rules(args), measure=args.response, senses=args.senses,
                       values=args.values, time_budget=args.time_budget, weights=args.cell_weights,
                       init_store=args.init_store) as service:
        for line in service.prepare():
            print(line, file=sys.stderr)
        table = service.publish(args.span)
    write_records(table.records(), args.output)
    print(f"{' x '.join(table.spanning)}: {table.structure.n_cells} cells, published as table {table.table_id}",
          file=sys.stderr)
    for line in table.office.lines():
        print(f"  {line}", file=sys.stderr)
    return 1 if table.office.relaxation.broken else 0
