"""`ctadesk --help` lists the commands from COMMANDS without importing them; the table must
name every command module and show the help its register() gives."""

from __future__ import annotations

import argparse
import importlib
import json
import pkgutil
import subprocess
import sys

from ctadesk.cli import COMMANDS, build_parser, commands


def _registered_help(name: str) -> str:
    subparsers = argparse.ArgumentParser().add_subparsers()
    importlib.import_module(f"{commands.__name__}.{name}").register(subparsers)
    (action,) = subparsers._choices_actions
    assert action.dest == name
    return action.help


def test_the_table_names_every_command_module_with_its_help():
    modules = sorted(info.name for info in pkgutil.iter_modules(commands.__path__))
    assert sorted(COMMANDS) == modules
    assert {name: _registered_help(name) for name in modules} == COMMANDS


def test_the_listing_imports_no_command_and_no_numerical_library():
    code = ("import sys, json; from ctadesk.cli import build_parser; build_parser(['--help']); "
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith(('ctadesk.cli.commands.', "
            "'numpy', 'scipy', 'highspy')))))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == []


def test_no_command_opens_the_desktop_app_parser():
    assert build_parser([]).parse_args([]).command is None
    assert build_parser(["gui"]).parse_args(["gui"]).command == "gui"
