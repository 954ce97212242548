"""Naming a command imports that command alone: the others' libraries (the desktop app's Qt,
the server's starlette, Excel's openpyxl, SPSS/Stata's pyreadstat) stay unloaded; and building
any command's parser (its --help) loads no numerical library: the options come from light
modules (ctadesk.engine.settings, the method registry, ctadesk.cli.*_options), the numerical
work is imported when the command runs (issue 34)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ctadesk.cli import COMMANDS, build_parser

HEAVY = ("PySide6", "starlette", "uvicorn", "pyreadstat", "openpyxl")
NUMERICAL = ("numpy", "scipy", "highspy", "clarabel", "pandas")
SAMPLE = Path(__file__).resolve().parents[2] / "sample_data" / "thesis_3x4.jj"


def _loaded_after(argv: list[str], modules: tuple[str, ...] = HEAVY) -> set[str]:
    """The ``modules`` a fresh interpreter holds after build_parser(argv)."""
    code = (f"import sys, json; from ctadesk.cli import build_parser; build_parser({argv!r}); "
            f"print(json.dumps([name for name in {modules!r} if name in sys.modules]))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(json.loads(done.stdout))


@pytest.mark.parametrize("command", ["solve", "convert", "audit", "gui"])
def test_a_named_command_loads_no_other_commands_libraries(command):
    assert _loaded_after([command, "--help"]) == set()


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_commands_parser_loads_no_numerical_library(command):
    assert _loaded_after([command, "--help"], NUMERICAL) == set()


def test_running_a_command_loads_what_it_needs():
    """The test above can fail: a solve's run does load the numerical libraries."""
    code = ("import sys; from ctadesk.cli import build_parser; "
            "args = build_parser(['solve', 'x.jj']).parse_args(['solve', 'x.jj']); "
            "import ctadesk.cli.release; print('numpy' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "True"


def test_only_the_named_command_is_registered():
    parser = build_parser(["solve", "x.jj"])
    assert parser.parse_args(["solve", "x.jj"]).command == "solve"
    with pytest.raises(SystemExit):
        parser.parse_args(["convert", "a", "b"])


def test_without_a_command_every_command_is_registered():
    parser = build_parser(["--version"])
    assert {"solve", "convert", "serve", "gui"} <= set(parser._subparsers._group_actions[0].choices)


def _solve_loads(*options: str) -> dict[str, bool]:
    """Which of the rules' and the senses file's modules a whole `ctadesk solve` of the 3x4
    sample (with ``options``) has loaded when it ends."""
    watched = ("ctadesk.engine.rules.safety", "ctadesk.app.rules", "ctadesk.io.senses")
    code = ("import sys, json, ctadesk.cli as cli; "
            f"cli.main(['solve', {str(SAMPLE)!r}, '--time-limit', '20', *{list(options)!r}]); "
            f"print(json.dumps({{name: name in sys.modules for name in {watched!r}}}))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_jj_solve_loads_neither_the_safety_rules_nor_a_senses_reader(tmp_path):
    assert not any(_solve_loads().values())
    senses = tmp_path / "senses.txt"
    senses.write_text("")
    assert _solve_loads("--senses", str(senses))["ctadesk.io.senses"]     # the test above can fail
