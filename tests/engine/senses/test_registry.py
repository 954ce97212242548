"""The sense heuristics are methods of the solvers' dispatcher, so the GUI and CLI offer them."""

import subprocess
import sys

from ctadesk.engine.generate import cox_table
from ctadesk.engine.result import SolveOptions
from ctadesk.engine.solvers import HEURISTIC_METHODS, METHODS, solve


def test_every_heuristic_is_a_solver_method():
    from ctadesk.engine.heuristics import METHODS as heuristics

    assert set(HEURISTIC_METHODS) == set(heuristics)
    assert set(heuristics) <= set(METHODS)


def test_a_heuristic_solves_through_the_dispatcher():
    _, problem = cox_table((5, 6), seed=4)
    result = solve(problem, "bcd", SolveOptions(time_limit=2))
    assert result.verified and result.method == "bcd"


def test_the_heuristics_module_imports_first_without_a_cycle():
    code = "import ctadesk.engine.heuristics, ctadesk.engine.solvers as s; print(len(s.METHODS))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) == len(METHODS)
