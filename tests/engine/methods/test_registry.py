"""One method registry above the solvers and the sense heuristics (issue 12): every method with its
model, label, parameters and reports; parameters checked and handed to the method."""

import inspect
import subprocess
import sys
import time

import pytest

import ctadesk.engine.solvers.newton_l2 as newton_l2
from ctadesk.engine.errors import MethodError
from ctadesk.engine.methods import METHODS, method, solve
from ctadesk.engine.model import Distance, Senses
from ctadesk.engine.result import SolveOptions
from ctadesk.engine.table.generate import cox_table


def test_the_solvers_import_neither_the_sense_heuristics_nor_the_registry():
    code = ("import pkgutil, importlib, sys, ctadesk.engine.solvers as s\n"
            "for m in pkgutil.iter_modules(s.__path__): importlib.import_module(f'ctadesk.engine.solvers.{m.name}')\n"
            "print(sorted(n for n in sys.modules\n"
            "             if n.startswith(('ctadesk.engine.senses', 'ctadesk.engine.methods'))))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_registry_names_its_methods_without_loading_a_solver():
    code = ("import sys, ctadesk.engine.methods as m\n"
            "assert len(m.METHODS) > 10\n"
            "print(sorted(n for n in ('numpy', 'scipy', 'highspy', 'clarabel') if n in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize("name", list(METHODS))
def test_every_method_says_what_it_solves_and_takes(name):
    entry = METHODS[name]
    assert entry.name == name and entry.label and entry.summary
    assert isinstance(entry.model.distance, Distance) and isinstance(entry.model.senses, Senses)
    keywords = inspect.signature(entry.function.load()).parameters      # a Runner: imported here
    for parameter in entry.parameters:
        assert parameter.name in keywords, (name, parameter.name)
        assert isinstance(keywords[parameter.name].default, parameter.kind)
        assert parameter.checked(parameter.default, name) == parameter.default


def test_network_and_soft_lp_are_solvers_not_heuristics():
    assert METHODS["network"].model.senses is Senses.FIXED and METHODS["network"].model.distance is Distance.L1
    assert METHODS["network-l2"].model.distance is Distance.L2
    assert METHODS["soft-lp"].model.senses is Senses.SOFT
    assert {name for name, m in METHODS.items() if m.model.senses is Senses.HEURISTIC} == \
        {"random", "hybrid", "hybrid-swaps", "sat-lp", "bcd", "scatter", "learning"}


def test_exact_methods_report_their_bound_and_a_progress_plot():
    exact = {name for name, m in METHODS.items() if m.model.senses is Senses.OPTIMAL}
    assert exact == {"milp", "milp-cuts", "hybrid-milp", "bcd-milp", "learning-milp"}
    assert all(METHODS[name].reports.solver_bound and METHODS[name].reports.progress_plot for name in exact)
    assert not METHODS["lp"].reports.solver_bound and not METHODS["lp"].reports.progress_plot


def test_parameters_are_checked_naming_method_parameter_and_range():
    bcd = METHODS["bcd"]
    assert bcd.validated({"block_size": "80"})["block_size"] == 80
    assert bcd.validated({})["block_size"] == bcd.parameter("block_size").default
    with pytest.raises(MethodError, match=r"'bcd'.*'block_size'.*whole number >= 1"):
        bcd.validated({"block_size": 0})
    with pytest.raises(MethodError, match=r"'bcd'.*'block_size'"):
        bcd.validated({"block_size": 2.5})
    with pytest.raises(MethodError, match=r"'huber'.*'delta'.*> 0"):
        METHODS["huber"].validated({"delta": 0})
    with pytest.raises(MethodError, match=r"no parameter 'groups'.*block_size"):
        bcd.validated({"groups": 3})
    assert METHODS["bcd"].validated({"by_relations": "yes"})["by_relations"] is True
    with pytest.raises(MethodError, match="unknown method 'simplex'"):
        method("simplex")


def test_a_parameter_reaches_its_method():
    _, problem = cox_table((6, 7), seed=2)
    result = solve(problem, "bcd", SolveOptions(time_limit=5, parameters={"block_size": 500}))
    assert result.verified and result.info["block_size"] >= 500
    with pytest.raises(MethodError):
        solve(problem, "lp", SolveOptions(parameters={"block_size": 5}))


def test_a_length_parameter_is_restated_with_the_table():
    _, problem = cox_table((5, 6), seed=1)
    factor = 2.0 ** 20
    big = problem.replace(values=problem.values * factor, lower=problem.lower * factor,
                          upper=problem.upper * factor, lower_protection=problem.lower_protection * factor,
                          upper_protection=problem.upper_protection * factor)
    plain = solve(problem, "huber", SolveOptions(parameters={"delta": 5.0}))
    scaled = solve(big, "huber", SolveOptions(parameters={"delta": 5.0 * factor}))
    assert scaled.model_objective == pytest.approx(plain.model_objective * factor, rel=1e-5)


def test_a_method_that_falls_back_reports_the_whole_time(monkeypatch):
    """network-l2 that does not converge hands the QP to clarabel: its timings count the failed
    attempt too, not only clarabel's seconds."""
    def slow_failure(*args):
        time.sleep(0.3)
        return None, "did not converge"

    monkeypatch.setattr(newton_l2, "least_squares_deviations", slow_failure)
    _, problem = cox_table((6, 7), 0)
    result = solve(problem, "network-l2")
    assert result.verified and "did not converge" in result.info["network"]
    assert result.timings["total"] >= 0.3 and result.timings["solve"] >= 0.3 - result.timings["build"]
    assert result.timings["total"] == pytest.approx(
        result.timings["build"] + result.timings["solve"] + result.timings["verify"])
