"""The options that describe microdata, the table built from them and its safety rules, shared by
`ctadesk rules`, `protect`, `releases`, `online` and `serve`.  Light: building a parser loads no
numerical library; the table these options stand for is built by ctadesk.cli.tables."""

from __future__ import annotations

import argparse


def _pair(text: str) -> tuple[float, float]:
    try:
        first, second = (float(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not two numbers 'A,B'") from None
    return first, second


def _assignment(text: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"'{text}' is not VARIABLE=VALUE")
    return name, value


def add_table_arguments(parser: argparse.ArgumentParser, several_tables: bool = False) -> None:
    """Options that describe the microdata, the table and the safety rules; with ``several_tables``
    --span may be given once per table (args.span is then a list of lists)."""
    data = parser.add_argument_group("microdata and table")
    data.add_argument("microdata", metavar="INPUT",
                      help="microdata (.csv or .xlsx with a header line, .sav, .zsav, .dta, .sas7bdat, .xpt) "
                           "or a tau-argus table (.tab, with --rda)")
    data.add_argument("--rda", metavar="FILE", help="metadata of a .tab input (default: the .tab name with .rda)")
    if several_tables:
        data.add_argument("--span", nargs="+", action="append", default=[], metavar="VAR",
                          help="spanning variables, in table order (microdata only); once per table: "
                               "the tables are linked and protected together")
    else:
        data.add_argument("--span", nargs="+", default=[], metavar="VAR",
                          help="spanning variables, in table order (microdata only)")
    add_microdata_arguments(data)
    add_rules_arguments(parser)


def add_microdata_arguments(data: argparse._ArgumentGroup) -> None:
    """How the microdata are read: response, weight, holding, request, hierarchies, missing codes,
    decimal mark and sheet (read_microdata_for)."""
    data.add_argument("--response", metavar="VAR", help="numeric response variable (microdata only); "
                      "'protect' takes two, A,B, and protects both together (bivariate CTA)")
    data.add_argument("--weight", metavar="VAR", help="sampling weight variable")
    data.add_argument("--holding", metavar="VAR", help="holding (enterprise group) variable")
    data.add_argument("--request", metavar="VAR", help="request-for-protection variable")
    data.add_argument("--request-codes", nargs=2, default=("1", "2"), metavar=("C1", "C2"))
    data.add_argument("--hierarchy", action="append", type=_assignment, default=[], metavar="VAR=FILE",
                      help="hierarchy of VAR: a tau-argus .hrc file or a CSV of level markers and codes")
    data.add_argument("--hierlevels", action="append", type=_assignment, default=[], metavar="VAR=3,1,1",
                      help="digit-position hierarchy of VAR (tau-argus <HIERLEVELS>)")
    data.add_argument("--lead", default="@", help="level marker of hierarchy files (default @)")
    data.add_argument("--missing", action="append", type=_assignment, default=[], metavar="VAR=CODE",
                      help="a code of VAR that means missing")
    data.add_argument("--decimal-comma", action="store_true", help="numbers are written 12,5")
    data.add_argument("--sheet", help="xlsx sheet (default: the first)")


def add_rules_arguments(parser: argparse.ArgumentParser, manual: bool = True) -> None:
    """The safety rules (safety_rules); ``manual``: cells declared unsafe by hand (--manual)."""
    rules = parser.add_argument_group("safety rules (Petrenko 2017, Tables 3.1-3.2)")
    rules.add_argument("--min-freq", type=int, default=0, metavar="N", help="unsafe when fewer than N contributors")
    rules.add_argument("--freq-range", type=float, default=0.0, metavar="PCT",
                       help="frequency safety range, %% of the cell")
    rules.add_argument("--dominance", action="append", type=_pair, default=[], metavar="N,K",
                       help="(n,k)-dominance; up to two")
    rules.add_argument("--p-percent", action="append", type=float, default=[], metavar="P", help="p%%-rule; up to two")
    rules.add_argument("--pq", action="append", type=_pair, default=[], metavar="P,Q", help="(p,q)-rule; up to two")
    rules.add_argument("--holding-min-freq", type=int, default=0, metavar="N")
    rules.add_argument("--holding-freq-range", type=float, default=0.0, metavar="PCT")
    rules.add_argument("--holding-dominance", action="append", type=_pair, default=[], metavar="N,K")
    rules.add_argument("--holding-p-percent", action="append", type=float, default=[], metavar="P")
    rules.add_argument("--holding-pq", action="append", type=_pair, default=[], metavar="P,Q")
    rules.add_argument("--zero-unsafe", action="store_true", help="cells with contributors and value 0 are unsafe")
    rules.add_argument("--zero-range", type=float, default=0.0, metavar="X", help="zero safety range (absolute)")
    rules.add_argument("--request-percent", type=_pair, metavar="P1,P2", help="request rule thresholds, %%")
    rules.add_argument("--request-range", type=float, default=0.0, metavar="PCT")
    if manual:
        rules.add_argument("--manual", action="append", default=[], metavar="VAR=CODE,...",
                           help="a cell declared unsafe, e.g. 'Region=Nr,Size=1' (unnamed variables: their total)")
    rules.add_argument("--manual-range", type=float, default=0.0, metavar="PCT",
                       help="manual safety range, %% of the cell")
    rules.add_argument("--lower-ratio", type=float, default=1.0, metavar="R",
                       help="lower protection = R x upper (default 1: symmetric)")
    rules.add_argument("--unweighted-rules", action="store_true", help="ignore sampling weights in the rules")
    rules.add_argument("--largest-level", action="store_true",
                       help="a cell several rules flag gets the largest of their protection levels (default: "
                            "tau-argus's, the dominance/p%% level, a safety range only where that is 0)")
