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
