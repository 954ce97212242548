"""The user guide's commands are the command line's: every `ctadesk COMMAND` the guide names is a
registered command, every option it names exists, every command line it shows parses, and every
transcript in a ```console block is what ctadesk prints today (run on the sample files).

A console block holds `$ ctadesk ...` lines, each followed by the lines it prints (standard error
and standard output, in the order printed).  Run times are compared as `<seconds>`; `…` in a line
stands for any text and a line `...` for lines left out.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import shlex
from pathlib import Path

import pytest

from ctadesk.cli import COMMANDS, build_parser, main

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted((ROOT / "docs" / "user-guide").glob("*.md"))
_FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
_SECONDS = re.compile(r"\b\d+(\.\d+)? s\b")
#: a word in capitals stands for something to fill in (FILE, PROJECT, KIND, ...)
_PLACEHOLDER = re.compile(r"\b[A-Z]{2,}\b")


def subcommands() -> dict[str, argparse.ArgumentParser]:
    """Each command's parser, with its options (build_parser registers a command when named)."""
    parsers = {}
    for name in COMMANDS:
        action = next(a for a in build_parser([name])._actions if isinstance(a, argparse._SubParsersAction))
        parsers[name] = action.choices[name]
    return parsers


def command_lines(text: str) -> list[str]:
    """Every command line the page shows: code spans that start with `ctadesk `, and the `$ ctadesk`
    lines of code blocks (a line ending in a backslash continues on the next)."""
    lines = []
    for _kind, body in _FENCE.findall(text):
        joined = re.sub(r"\s*\\\n\s*", " ", body)
        lines += [line[2:].strip() for line in joined.splitlines() if line.startswith("$ ctadesk ")]
    prose = _FENCE.sub("", text)
    lines += [span.strip() for span in re.findall(r"`([^`\n]+)`", prose) if span.startswith("ctadesk ")]
    return lines


def console_blocks(text: str) -> list[list[tuple[str, list[str]]]]:
    """The transcripts of the page's console blocks: per block, (command, expected lines)."""
    blocks = []
    for kind, body in _FENCE.findall(text):
        if kind != "console":
            continue
        steps: list[tuple[str, list[str]]] = []
        for line in re.sub(r"\s*\\\n\s*", " ", body).splitlines():
            if line.startswith("$ "):
                steps.append((line[2:].strip(), []))
            else:
                assert steps, f"console block output before any command: {line!r}"
                steps[-1][1].append(line)
        blocks.append(steps)
    return blocks


def matches(expected: str, actual: str) -> bool:
    """A transcript line against a printed one: run times as <seconds>, `…` as any text."""
    expected, actual = _SECONDS.sub("<seconds>", expected.rstrip()), _SECONDS.sub("<seconds>", actual.rstrip())
    pattern = ".*".join(re.escape(part) for part in expected.split("…"))
    return re.fullmatch(pattern, actual) is not None


def in_order(expected: list[str], printed: list[str]) -> str | None:
    """None when the expected lines appear in printed in this order (`...` skips); else the first
    expected line not found."""
    position = 0
    for line in expected:
        if line.strip() == "...":
            continue
        while position < len(printed) and not matches(line, printed[position]):
            position += 1
        if position == len(printed):
            return line
        position += 1
    return None


def run(command: str) -> tuple[int, list[str]]:
    """ctadesk's exit status and what it printed (both streams, in the order printed)."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
        try:
            status = main(shlex.split(command)[1:])
        except SystemExit as stop:
            status = stop.code or 0
    return status, printed.getvalue().splitlines()


# ------------------------------------------------------------------ the checker
def test_the_transcript_checker_compares_lines_in_order_with_wildcards():
    printed = ["ctadesk: note", "milp: optimal, objective 20, 0.02 s", "done"]
    assert in_order(["milp: optimal, objective 20, 9.97 s"], printed) is None
    assert in_order(["...", "milp: optimal, objective …, 1 s", "done"], printed) is None
    assert in_order(["done", "ctadesk: note"], printed) == "ctadesk: note"
    assert in_order(["milp: feasible, objective 20, 0.02 s"], printed) is not None
    assert command_lines("`ctadesk solve x.jj` and\n```console\n$ ctadesk rules a.tab \\\n  --min-freq 3\nout\n```\n") \
        == ["ctadesk rules a.tab --min-freq 3", "ctadesk solve x.jj"]


# ------------------------------------------------------------------ the guide
def test_the_guide_shows_commands_and_transcripts():
    assert len({line.split()[1] for page in PAGES for line in command_lines(page.read_text())}) >= 9
    assert sum(len(console_blocks(page.read_text())) for page in PAGES) >= 10


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_command_the_guide_names_is_registered(page):
    registered = set(subcommands())
    named = set(re.findall(r"`(?:python -m )?ctadesk ([a-z][a-z-]*)", page.read_text()))
    named |= {line.split()[1] for line in command_lines(page.read_text()) if line.split()[1][0].islower()}
    assert named <= registered, f"{page.name} names commands ctadesk does not have: {sorted(named - registered)}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_option_the_guide_names_exists(page):
    known = {"--help", "--version"}
    for parser in subcommands().values():
        known |= {option for action in parser._actions for option in action.option_strings}
        known |= {f"--no-{option[2:]}" for action in parser._actions for option in action.option_strings
                  if isinstance(action, argparse.BooleanOptionalAction)}
    named = set(re.findall(r"(?<![\w-])--[a-z][a-z-]*[a-z]", page.read_text()))
    assert named <= known, f"{page.name} names options ctadesk does not have: {sorted(named - known)}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_command_line_in_the_guide_parses(page, capsys):
    for line in command_lines(page.read_text()):
        if _PLACEHOLDER.search(line) or len(shlex.split(line)) < 3:  # a form to fill in, or a command's name
            continue
        argv = shlex.split(line)[1:]
        try:
            build_parser(argv).parse_args(argv)
        except SystemExit as stop:
            assert stop.code == 0, f"{page.name}: `{line}` does not parse: {capsys.readouterr().err}"


@pytest.mark.parametrize("page", [p for p in PAGES if "```console" in p.read_text()], ids=lambda p: p.name)
def test_every_transcript_is_what_ctadesk_prints(page, tmp_path, monkeypatch):
    """A page's console blocks run in order in a fresh folder holding sample_data (a later block may
    read what an earlier one wrote)."""
    (tmp_path / "sample_data").symlink_to(ROOT / "sample_data", target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    for steps in console_blocks(page.read_text()):
        for command, expected in steps:
            _status, printed = run(command)
            missing = in_order(expected, printed)
            assert missing is None, (f"{page.name}: `{command}` no longer prints\n  {missing}\nit printed:\n  "
                                     + "\n  ".join(printed))
