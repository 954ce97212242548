"""The `ctadesk` command line.  Every module in ctadesk/cli/commands/ with a
``register(subparsers)`` function adds one subcommand; with no subcommand the
desktop app opens."""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence

from ctadesk import __version__
from ctadesk.engine.errors import CTAError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ctadesk",
        description="Protect statistical tables by controlled tabular adjustment (CTA).")
    parser.add_argument("--version", action="version", version=f"ctadesk {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    from ctadesk.cli import commands

    for module_info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{commands.__name__}.{module_info.name}")
        if hasattr(module, "register"):
            module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        args = parser.parse_args(["gui"])
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
        return 130
