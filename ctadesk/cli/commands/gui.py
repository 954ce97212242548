"""`ctadesk gui [FILE]`: open the desktop app (the default with no subcommand);
`ctadesk gui --self-test`: check an installation (gui/app.py self_test)."""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("gui", help="open the desktop application")
    parser.add_argument("file", nargs="?", help="a table or project file to open")
    parser.add_argument("--self-test", action="store_true",
                        help="open a bundled sample in the window, protect it, write a release workbook to a "
                             "temporary folder, print the timings and exit (0: passed); QT_QPA_PLATFORM=offscreen "
                             "runs it without a display")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ctadesk.gui.app import run_app, self_test

    return self_test() if args.self_test else run_app(args.file)
