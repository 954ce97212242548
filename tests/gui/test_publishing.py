"""Publishing choices in the app: published precision and secret widening (issue 11)."""

import numpy as np

from tests.gui.conftest import solve_and_wait


def test_whole_numbers_add_up_and_stay_protected(qtbot, window):
    project = window.project                                  # a table with decimals
    project.values = project.values * 1.37
    project.values = project.recompute_totals()
    project.lower, project.upper = np.zeros_like(project.values), np.full_like(project.values, np.inf)
    panel = window.model_panel
    panel.precision.setCurrentIndex(panel.precision.findData(0))
    panel.widen.setChecked(False)
    result = solve_and_wait(qtbot, window, "lp")
    assert result.protected, result.message
    assert np.allclose(result.values, np.round(result.values), rtol=0, atol=1e-9)
    problem = window.project.to_problem()
    assert np.array_equal(problem.relations @ np.round(result.values), np.round(problem.rhs))
    assert "decimal" in result.message


def test_widening_keeps_a_secret_seed_in_the_project(qtbot, window):
    window.model_panel.widen.setChecked(True)
    result = solve_and_wait(qtbot, window, "lp")
    assert result.protected
    seed = window.project.options["widening_seed"]
    assert isinstance(seed, int)
    again = solve_and_wait(qtbot, window, "lp")       # the same project keeps its seed
    assert window.project.options["widening_seed"] == seed
    assert np.allclose(again.values, result.values)


def test_a_table_not_at_the_precision_asked_is_offered_another(qtbot, window):
    """Issue 29: a protected table that cannot be put at the precision asked cannot be released;
    the app says why and offers the finer precisions, and protects again at the one chosen."""
    from ctadesk.engine.problem import CTAProblem
    from ctadesk.engine.table.structure import Dimension, TableStructure
    from ctadesk.io.project import Project

    structure = TableStructure((Dimension.flat("R", ["a", "b"]), Dimension.flat("C", ["x", "y"])))
    values = structure.aggregate(np.pad(np.array([[10.4, 20.3], [30.2, 40.1]]), ((0, 1), (0, 1))))
    # the sensitive cell's bounds hold no whole number beyond either safe value: 10.4 +/- 0.3 within [10.05, 10.95]
    problem = CTAProblem(values=values, relations=structure.relations(), lower=0.0, sensitive=[0],
                         lower_protection=[0.3], upper_protection=[0.3])
    project = Project.from_problem(problem, structure)
    project.lower[0], project.upper[0] = 10.05, 10.95
    window.set_project(project)
    asked = []

    def choose(title, label, options, current):
        asked.append((title, label, options, current))
        return "full"

    window.choose = choose
    panel = window.model_panel
    panel.set_precision(0)
    panel.widen.setChecked(False)
    with qtbot.waitSignal(window.runner.finished, timeout=30_000):   # the run again, at the precision chosen
        solve_and_wait(qtbot, window, "lp")       # at 0 decimals: not releasable, so the app asks
    assert asked and asked[0][0] == "Publish at another precision" and "full" in asked[0][2]
    assert "0 decimals" in asked[0][1]
    assert window.project.result.protected and window.project.options["precision"] == "full"
    assert list(asked[0][2]) == [1, 2, 3, "full"] and asked[0][3] == 1     # the next finer first
