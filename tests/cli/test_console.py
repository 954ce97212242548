"""The ``ctadesk`` program's entry point, console(): it defers numpy's tools before the command
runs and freezes the garbage collector's objects before the process ends (issue 34)."""

from __future__ import annotations

import gc
import sys

import pytest

import ctadesk.app.process
import ctadesk.cli
from ctadesk.cli.lazy_imports import LazyFinder


def test_console_defers_numpy_tools_runs_and_freezes_before_ending(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(sys, "meta_path", [f for f in sys.meta_path if not isinstance(f, LazyFinder)])
    seen: dict[str, object] = {}

    def main() -> int:
        seen["deferred"] = isinstance(sys.meta_path[0], LazyFinder)
        seen["frozen while running"] = gc.get_freeze_count()
        return 3

    def end_process(code: int) -> None:
        seen["frozen at the end"] = gc.get_freeze_count()
        raise SystemExit(code)

    monkeypatch.setattr(ctadesk.cli, "main", main)
    monkeypatch.setattr(ctadesk.app.process, "end_process", end_process)
    gc.unfreeze()
    try:
        with pytest.raises(SystemExit) as ended:
            ctadesk.cli.console()
    finally:
        gc.unfreeze()
    assert ended.value.code == 3
    assert seen["deferred"] is True
    assert seen["frozen while running"] == 0
    assert seen["frozen at the end"] > 0
