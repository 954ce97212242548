"""`ctadesk gui [FILE]`: open the desktop app (the default with no subcommand)."""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("gui", help="open the desktop application")
    parser.add_argument("file", nargs="?", help="a table or project file to open")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ctadesk.gui.app import run_app

    return run_app(args.file)
