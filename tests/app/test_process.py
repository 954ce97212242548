"""A front end's process ends with its status, through the solvers' runner only where one ran."""

import sys

import pytest

from ctadesk.app.process import end_process


def test_without_a_solver_loaded_the_process_exits_with_its_status(monkeypatch):
    monkeypatch.delitem(sys.modules, "ctadesk.engine.solvers.highs", raising=False)
    with pytest.raises(SystemExit) as ended:
        end_process(3)
    assert ended.value.code == 3
    assert "ctadesk.engine.solvers.highs" not in sys.modules


def test_with_a_solver_loaded_the_runner_ends_it(monkeypatch):
    import ctadesk.engine.solvers.highs as highs

    asked = []

    def runner_end(code: int) -> None:
        asked.append(code)
        raise SystemExit(code)

    monkeypatch.setattr(highs, "end_process", runner_end)
    with pytest.raises(SystemExit):
        end_process(130)
    assert asked == [130]
