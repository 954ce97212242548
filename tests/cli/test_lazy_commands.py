"""Naming a command imports that command alone: the others' libraries (the desktop app's Qt,
the server's starlette, Excel's openpyxl, SPSS/Stata's pyreadstat) stay unloaded."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from ctadesk.cli import build_parser

HEAVY = ("PySide6", "starlette", "uvicorn", "pyreadstat", "openpyxl")


def _loaded_after(argv: list[str]) -> set[str]:
    """The HEAVY modules a fresh interpreter holds after build_parser(argv)."""
    code = (f"import sys, json; from ctadesk.cli import build_parser; build_parser({argv!r}); "
            f"print(json.dumps([name for name in {HEAVY!r} if name in sys.modules]))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(json.loads(done.stdout))


@pytest.mark.parametrize("command", ["solve", "convert", "audit", "gui"])
def test_a_named_command_loads_no_other_commands_libraries(command):
    assert _loaded_after([command, "--help"]) == set()


def test_only_the_named_command_is_registered():
    parser = build_parser(["solve", "x.jj"])
    assert parser.parse_args(["solve", "x.jj"]).command == "solve"
    with pytest.raises(SystemExit):
        parser.parse_args(["convert", "a", "b"])


def test_without_a_command_every_command_is_registered():
    parser = build_parser(["--version"])
    assert {"solve", "convert", "serve", "gui"} <= set(parser._subparsers._group_actions[0].choices)
