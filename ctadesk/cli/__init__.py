"""The `ctadesk` command line.  Every module in ctadesk/cli/commands/ with a
``register(subparsers)`` function adds one subcommand; with no subcommand the
desktop app opens."""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
import threading
from collections.abc import Sequence
from typing import NoReturn

from ctadesk import __version__
from ctadesk.cli.interrupt import EXIT_INTERRUPTED, interruptible
from ctadesk.engine.errors import CTAError


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The command line's parser.  Given the arguments argv, and their first names a command,
    only that command is registered: its module alone is imported (each command's module
    imports the parts of the engine, the app and the file formats it uses, a second or so
    for all of them); otherwise every command is."""
    parser = argparse.ArgumentParser(
        prog="ctadesk",
        description="Protect statistical tables by controlled tabular adjustment (CTA).")
    parser.add_argument("--version", action="version", version=f"ctadesk {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    from ctadesk.cli import commands

    names = sorted(module_info.name for module_info in pkgutil.iter_modules(commands.__path__))
    if argv and argv[0] in names:
        names = [argv[0]]
    for name in names:
        module = importlib.import_module(f"{commands.__name__}.{name}")
        if hasattr(module, "register"):
            module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status.  A command that runs a protection
    (``stoppable`` in its defaults) ends at SIGINT or SIGTERM with the best table found so far,
    written as usual, and EXIT_INTERRUPTED (ctadesk.cli.interrupt)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    if args.command is None:
        args = parser.parse_args(["gui"])
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
    Ctrl-C while the commands load (seconds: the solvers' libraries) is reported as in a command."""
    try:
        code = main()
    except KeyboardInterrupt:
        print("ctadesk: interrupted", file=sys.stderr)
        code = EXIT_INTERRUPTED
    from ctadesk.engine.solvers.highs import end_process

    end_process(code)
