"""A result's figures name what each measures: a least-squares or pseudo-Huber model's own
objective, and the bound and gap beside the weighted absolute change they are about."""

import math

from ctadesk.engine.methods import solve
from ctadesk.engine.methods.figures import figures
from ctadesk.engine.result import Status

from ..solvers.conftest import thesis_problem


def test_an_l1_result_shows_its_objective_bound_and_gap():
    result = solve(thesis_problem(), "milp")
    assert result.status is Status.OPTIMAL
    assert figures(result) == (f"objective {result.objective:.6g}, bound {result.bound:.6g} "
                               f"(gap {100 * result.gap:.3g} %)")


def test_a_least_squares_result_names_its_objective_and_puts_the_bound_with_the_absolute_change():
    result = solve(thesis_problem(), "l2")
    assert result.verified and result.bound is not None and result.gap is not None and result.gap > 0
    shown = figures(result)
    assert shown.startswith(f"weighted sum of squares {result.model_objective:.6g} (the model's objective), ")
    assert shown.endswith(f"absolute change {result.objective:.6g} (bound {result.bound:.6g}, "
                          f"gap {100 * result.gap:.3g} %)")
    assert math.isclose(result.model_objective, float((thesis_problem().weights
                                                       * (result.values - thesis_problem().values) ** 2).sum()))


def test_a_formatter_writes_every_number():
    result = solve(thesis_problem(), "huber")
    shown = figures(result, lambda value: "<n>")
    assert shown.startswith("pseudo-Huber distance <n> (the model's objective), absolute change <n>")
    assert not any(character.isdigit() for character in shown.split("gap")[0])


def test_a_least_squares_result_without_its_objective_still_names_the_absolute_change():
    result = solve(thesis_problem(), "l2").replace(model_objective=math.nan)
    assert figures(result).startswith(f"absolute change {result.objective:.6g} (bound ")
