"""The options of the commands that protect a table (`ctadesk solve`, `ctadesk protect`): the
model and its method, the solver's limits, quality terms, the records written, publishing and
two variables.  Built from light modules only (the method registry names its methods without
loading a solver; the limits come from ctadesk.engine.settings), so a command's --help loads no
numerical library; the request these options stand for is built by ctadesk.cli.release."""

from __future__ import annotations

import argparse
import math

from ctadesk.engine.methods import AUTO, METHODS
from ctadesk.engine.model import Distance, Senses
from ctadesk.engine.settings import APPROACHES, MAX_DECIMALS


def add_model_arguments(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """The model (--distance, --senses-by), the algorithm (--method: auto, or an expert's choice)
    and its parameters (--param)."""
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


def _percent_or_none(text: str) -> float | None:
    if text.strip().lower() == "none":
        return None
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a percentage or 'none'") from None
    if not 0 < value < 100:
        raise argparse.ArgumentTypeError(f"{text} %: a target lies between 0 and 100")
    return value


def add_bivariate_arguments(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """--approach, --variance-target, --covariance-target, --shared-senses (for two variables)."""
    parser.add_argument("--approach", choices=APPROACHES, default="direct",
                        help="two variables: convex programs over both (direct, default: met every target "
                             "measured) or the paper's alternating LPs (alternating)")
    parser.add_argument("--variance-target", type=_percent_or_none, default=0.25, metavar="PCT|none",
                        help="two variables: largest change of each variable's variance over the inner cells, "
                             "%% (default 0.25)")
    parser.add_argument("--covariance-target", type=_percent_or_none, default=0.25, metavar="PCT|none",
                        help="two variables: largest change of their covariance, %% (default 0.25); the slope and "
                             "the correlation then move by at most about the two targets added")
    parser.add_argument("--shared-senses", action="store_true",
                        help="two variables: a cell sensitive in both moves the same way in both")
