"""The `ctadesk` command line.  Every module in ctadesk/cli/commands/ with a
``register(subparsers)`` function adds one subcommand, listed in COMMANDS; with no
subcommand the desktop app opens."""

from __future__ import annotations

import argparse
import gc
import importlib
import sys
import threading
from collections.abc import Sequence
from typing import NoReturn

from ctadesk import __version__
from ctadesk.cli.interrupt import EXIT_INTERRUPTED, interruptible
from ctadesk.cli.lazy_imports import defer_numpy_tools
from ctadesk.engine.errors import CTAError

#: every command's module name in ctadesk/cli/commands/ and the line ``ctadesk --help`` shows for
#: it (the help its register() gives, checked by tests/cli/test_command_table.py): the listing
#: needs no command module, so ``ctadesk --help`` loads none of the numerical libraries
COMMANDS: dict[str, str] = {
    "audit": "audit a released table: attacker intervals of the sensitive cells",
    "batch": "run a tau-argus batch file (.arb) or a job file (.toml)",
    "convert": "convert a table between file formats",
    "export": "write a release, internal workbook or table from a project",
    "gui": "open the desktop application",
    "online": "protect one table of an on-line table server consistently with the tables before it",
    "protect": "build a table from microdata, apply safety rules and protect it by CTA",
    "releases": "choose the marginal sub-tables of a count table that may be released",
    "rules": "apply safety rules to a table built from microdata",
    "serve": "serve protected tables over HTTP (on-line CTA, loopback only by default)",
    "solve": "protect a JJ instance or a project by controlled tabular adjustment",
}


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The command line's parser.  Given the arguments argv, and their first names a command,
    only that command is registered: its module alone is imported (each command's module
    imports the parts of the engine, the app and the file formats it uses).  Otherwise every
    command is listed by its COMMANDS line, and none is imported: naming one parses again."""
    parser = argparse.ArgumentParser(
        prog="ctadesk",
        description="Protect statistical tables by controlled tabular adjustment (CTA).")
    parser.add_argument("--version", action="version", version=f"ctadesk {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    if argv and argv[0] in COMMANDS:
        importlib.import_module(f"ctadesk.cli.commands.{argv[0]}").register(subparsers)
    else:
        for name, line in COMMANDS.items():
            subparsers.add_parser(name, help=line, add_help=False)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status.  A command that runs a protection
    (``stoppable`` in its defaults) ends at SIGINT or SIGTERM with the best table found so far,
    written as usual, and EXIT_INTERRUPTED (ctadesk.cli.interrupt)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    args = build_parser(argv).parse_args(argv)
    if args.command is None:
        args = build_parser(["gui"]).parse_args(["gui"])
    args.stop = threading.Event()
    if not getattr(args, "stoppable", False):
        return _run(args)
    with interruptible(args.stop) as interruption:
        code = _run(args)
    if interruption.signal is None or code == EXIT_INTERRUPTED:    # not stopped, or said so already
        return code
    print(f"ctadesk: interrupted by {interruption.signal}: the run stopped early "
          "(its best table so far, if any, is written)", file=sys.stderr)
    return EXIT_INTERRUPTED


def _run(args: argparse.Namespace) -> int:
    """The command's exit status; its errors reported in one line."""
    try:
        return int(args.func(args) or 0)
    except CTAError as error:
        print(f"ctadesk: error: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        name = f" {error.filename}" if getattr(error, "filename", None) else ""
        print(f"ctadesk: error:{name}: {error.strerror or error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("ctadesk: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def console() -> NoReturn:
    """The ``ctadesk`` program (and ``python -m ctadesk``): main(), then the process ends with
    its status without waiting for a solver run left behind (solvers/highs.py end_process).
    Ctrl-C while the commands load (seconds: the solvers' libraries) is reported as in a command.
    numpy's testing and Fortran tools, which SciPy's import would load, load only if used
    (ctadesk.cli.lazy_imports).  Before the exit every object is frozen out of the garbage
    collector's reach (gc.freeze): the interpreter's teardown would otherwise search the tens of
    thousands of objects the numerical libraries hold for cycles (about 0.03 s after a 3x4 solve),
    to free memory the process is about to give back whole."""
    defer_numpy_tools()
    try:
        code = main()
    except KeyboardInterrupt:
        print("ctadesk: interrupted", file=sys.stderr)
        code = EXIT_INTERRUPTED
    from ctadesk.app.process import end_process

    gc.freeze()
    end_process(code)
