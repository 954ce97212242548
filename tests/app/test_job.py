"""The protection job (ctadesk.app.protect) against the independent checker of tests/crosscheck:
whatever the request, a table it calls protected is protected at the REQUIRED levels (widening
only adds), lies on the published grid and adds up there exactly."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctadesk.app import ProtectionRequest, RequestError, protect, weighted
from ctadesk.app.job import PUBLISH_SHARE
from ctadesk.engine.errors import ProblemError
from ctadesk.engine.problem import SENSE_DOWN, SENSE_UP, CTAProblem
from ctadesk.engine.table.structure import Dimension, TableStructure
from tests.crosscheck.checker import check_table
from tests.crosscheck.instances import build, specs

SAMPLES = Path(__file__).resolve().parents[2] / "sample_data"


def _table() -> CTAProblem:
    """A 3 x 4 count table with totals (the thesis's shape), two sensitive cells."""
    inner = np.array([[20, 24, 28], [38, 38, 40], [17, 12, 13]], float)
    rows = Dimension("r", ["1", "2", "3", "T"], np.array([3, 3, 3, -1]))
    cols = Dimension("c", ["1", "2", "3", "T"], np.array([3, 3, 3, -1]))
    structure = TableStructure((rows, cols))
    values = structure.aggregate(np.pad(inner, ((0, 1), (0, 1))))
    return CTAProblem(values=values, relations=structure.relations(), lower=0.0, sensitive=[0, 10],
                      lower_protection=[5.0, 4.0], upper_protection=[5.0, 4.0])


def test_widening_protects_the_required_levels_and_reports_its_seed_only_in_the_request():
    problem = _table()
    seed = 734_529_101
    protection = protect(problem, ProtectionRequest(method="milp", seed=seed))
    assert protection.request.seed == seed
    assert protection.widening is not None and protection.widening.seed == seed
    assert str(seed) not in protection.widening.summary()
    assert check_table(protection.required, protection.result.values).ok
    # widened levels are at least the required ones, and the solve used them
    assert np.all(protection.solved.lower_protection >= problem.lower_protection)
    assert protection.widening.widened > protection.widening.required


def test_a_fresh_seed_is_drawn_and_kept_when_none_is_given():
    protection = protect(_table(), ProtectionRequest(method="lp"))
    assert isinstance(protection.request.seed, int)
    again = protect(_table(), protection.request)
    np.testing.assert_array_equal(again.solved.upper_protection, protection.solved.upper_protection)


def test_count_table_is_published_in_whole_numbers():
    protection = protect(_table(), ProtectionRequest(method="lp", widen=False))
    values = protection.result.values
    assert protection.decimals == 0 and protection.precision_met
    np.testing.assert_array_equal(values, np.round(values))
    assert np.all(protection.required.relations @ values == 0)
    assert protection.outcome.cells_changed == np.count_nonzero(values != protection.required.values)


def test_preserving_the_mean_keeps_the_grand_total():
    protection = protect(_table(), ProtectionRequest(method="milp", preserve={"mean"}, widen=False,
                                                    precision="full"))
    assert protection.result.protected
    assert protection.result.values[15] == pytest.approx(protection.required.values[15], abs=1e-6)
    assert protection.quality["inner cells"].mean_change == pytest.approx(0, abs=1e-9)


def test_weights_choice_reaches_the_solver_and_quality_is_measured_on_the_required_table():
    seen = {}

    def solve(problem, method, options):
        from ctadesk.engine.methods import solve as engine

        seen["weights"] = problem.weights.copy()
        return engine(problem, method, options)

    protection = protect(_table(), ProtectionRequest(method="lp", weights="inverse", widen=False), solve=solve)
    np.testing.assert_allclose(seen["weights"], weighted(_table(), "inverse").weights)
    assert protection.quality is not None


@pytest.mark.parametrize("settings_", [{"gap": 1.5}, {"time_limit": 0}, {"weights": "cost"},
                                       {"preserve": {"median"}}, {"precision": 12}, {"precision": "some"}])
def test_a_request_that_cannot_run_is_refused_naming_the_setting(settings_):
    with pytest.raises(RequestError) as refused:
        ProtectionRequest(**settings_)
    assert next(iter(settings_)).split("_")[0] in str(refused.value).lower()


def test_project_options_round_trip():
    request = ProtectionRequest(method="lp", weights="unit", preserve={"mean"}, time_limit=30, gap=0.01,
                                widen=True, seed=11, precision=2)
    assert ProtectionRequest.from_options(request.options()) == request
    assert "seed" not in " ".join(request.public_settings())
    assert ProtectionRequest.from_options({}) == ProtectionRequest()
    assert ProtectionRequest.from_options({"time_limit": math.inf}).time_limit == math.inf


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec=specs(), method=st.sampled_from(["milp", "lp", "l2"]), widen=st.booleans(),
       precision=st.sampled_from(["auto", "full"]))
def test_what_the_job_calls_protected_the_checker_finds_protected(spec, method, widen, precision):
    """Differential: the job's 'protected' and its published grid, checked by the independent
    checker against the required (not widened) levels."""
    instance = build(spec)
    if instance.problem is None:
        return
    problem = instance.problem
    request = ProtectionRequest(method=method, widen=widen, seed=3, precision=precision, time_limit=20)
    senses, lower, upper = problem.effective_senses, problem.lower_protection, problem.upper_protection
    bare = (lower <= 0) & (upper <= 0) | (senses == SENSE_UP) & (upper <= 0) | (senses == SENSE_DOWN) & (lower <= 0)
    if bare.any():
        with pytest.raises(ProblemError, match="no protection level"):
            protect(problem, request)
        return
    protection = protect(problem, request)
    result = protection.result
    if not result.protected:
        return
    check = check_table(protection.required, result.values)
    assert check.ok, check.reasons
    if protection.decimals is not None:
        scale = 10.0 ** protection.decimals
        np.testing.assert_array_equal(result.values, np.round(result.values * scale) / scale)


@pytest.mark.parametrize("distance, senses, method, said", [
    ("l2", "fixed", "lp", True), ("l1", "fixed", "lp", False), ("l1", "optimal", "milp", False),
    ("l1", "optimal", "l2", True)])
def test_an_algorithm_chosen_by_hand_that_solves_another_model_is_named_in_the_log(distance, senses, method, said):
    protection = protect(_table(), ProtectionRequest(distance=distance, senses=senses, method=method, widen=False))
    assert any(f"algorithm '{method}' chosen by hand" in line for line in protection.notes) == said


def test_a_fixed_sense_l2_table_is_published_as_the_l2_table_on_the_grid():
    """Issue 29: thesis_10x15 with L2 published the L1 optimum (37 cells changed, cells up to 14
    units from the L2 table); now every cell is within one unit of the unrounded L2 table."""
    from ctadesk.io.jj import read_jj

    problem = read_jj(SAMPLES / "thesis_10x15.jj").problem
    request = ProtectionRequest(distance="l2", senses="fixed", widen=False)
    published = protect(problem, request)
    unrounded = protect(problem, request.replace(precision="full"))
    assert published.decimals == 0 and published.result.protected
    assert np.max(np.abs(published.result.values - unrounded.result.values)) < 1.0
    assert published.result.info["precision_from"] == "a controlled rounding of the l2 table"
    # its figures are the model's: the sum of squares of the published table, within 1 % of the optimum's
    assert published.result.model_objective == pytest.approx(
        float(problem.weights @ (published.result.values - problem.values) ** 2))
    assert published.result.model_objective <= 1.01 * unrounded.result.model_objective


def test_every_solve_of_a_job_runs_within_the_one_budget_started_with_it():
    """Issue 29: each solve of a job (the method, the widening cost, the rounding) restarted the
    time limit; now each gets a budget whose deadline is at most the job's."""
    deadlines = []

    def solve(problem, method, options):
        from ctadesk.engine.methods import solve as engine

        deadlines.append(options.budget.deadline)
        return engine(problem, method, options)

    import time as clock

    began = clock.perf_counter()
    protection = protect(_table(), ProtectionRequest(method="lp", widen_cost=True, seed=2, time_limit=30), solve=solve)
    assert len(deadlines) == 2 and protection.widening.extra_objective is not None
    assert all(deadline <= began + 30 for deadline in deadlines)
    # the method leaves a share for the widening cost's solve and the rounding
    assert deadlines[0] <= began + 30 * (1 - PUBLISH_SHARE) / 2 + 1


def test_a_sensitive_cell_without_protection_levels_is_refused_naming_it():
    problem = _table().replace(lower_protection=[5.0, 0.0], upper_protection=[5.0, 0.0])
    with pytest.raises(ProblemError, match=r"1 sensitive cell with no protection level.*cell 10"):
        protect(problem, ProtectionRequest(method="lp"))


def test_a_run_stopped_after_its_table_still_publishes_it_at_the_precision():
    """Ctrl-C or Cancel once a table exists: the budget is stopped, but the table is still put at
    the published precision (on a short budget of its own) so it can be released."""
    import threading

    stop = threading.Event()

    def solve(problem, method, options):
        from ctadesk.engine.methods import solve as engine

        result = engine(problem, method, options)
        stop.set()
        return result

    problem = _table().replace(values=_table().values * 1.37)
    protection = protect(problem, ProtectionRequest(method="lp", precision=0, widen=False), stop=stop, solve=solve)
    assert stop.is_set() and protection.decimals == 0
    np.testing.assert_array_equal(protection.result.values, np.round(protection.result.values))


def test_a_table_no_grid_of_the_data_can_protect_is_solved_and_published_at_one_it_can():
    """Cox's recipe on whole numbers (level = capacity = 20 % of the value): most sensitive cells'
    safe values are their bounds with one decimal, so no table at 0 decimals protects them.  The
    job solved for 0 decimals anyway (bounds moved in to it, such cells left as they were) and, on
    a 487 k-cell table, spent its whole time there; it now solves for the grid of 1 decimal from the
    start, publishes there and says why in one line."""
    from ctadesk.engine.publish.precision import roomless_cells
    from ctadesk.engine.table.generate import cox_table

    _, problem = cox_table((6, 7), seed=3)
    assert roomless_cells(problem, 1.0).size and not roomless_cells(problem, 0.1).size
    solved = []

    def solve(model, method, options):
        from ctadesk.engine.methods import solve as engine

        solved.append(model)
        return engine(model, method, options)

    protection = protect(problem, ProtectionRequest(widen=False, time_limit=20), solve=solve)
    assert protection.decimals == 1 and protection.result.verified
    # solved for 1 decimal: the data's bounds (with one decimal) not moved in to whole numbers
    assert all(np.allclose(model.lower, problem.lower, rtol=0, atol=1e-9)
               and np.allclose(model.upper, problem.upper, rtol=0, atol=1e-9) for model in solved)
    said = [note for note in protection.notes if "not rounded to 0 decimals" in note]
    assert len(said) == 1 and "sensitive cells have no value at 0 decimals" in said[0]
    assert check_table(problem, protection.result.values).ok
    # 0 decimals asked for by number: refused with the same reason, the table solved for 1 decimal kept
    solved.clear()
    asked = protect(problem, ProtectionRequest(widen=False, time_limit=20, precision=0), solve=solve)
    assert asked.decimals is None and not asked.precision_met and asked.result.verified
    assert "sensitive cells have no value at 0 decimals" in asked.outcome.published.note
    assert all(np.allclose(model.lower, problem.lower, rtol=0, atol=1e-9) for model in solved)


def test_levels_already_on_the_grid_are_not_solved_again_as_asked():
    """A first solve without a table is retried with the levels as asked only where the grid moved
    them: on the 1.25 M-cell 1H2D table the retry solved the same problem again, past the time."""
    import time as clock

    from ctadesk.engine.result import Status
    from ctadesk.engine.solvers.finish import finish
    from ctadesk.engine.table.generate import cox_table

    _, problem = cox_table((6, 7), seed=3)
    calls = []

    def solve(model, method, options):
        calls.append(model)
        return finish(model, method, Status.TIME_LIMIT, None, started=clock.perf_counter(), build_seconds=0.0,
                      solve_seconds=0.0, message="time limit reached")

    protection = protect(problem, ProtectionRequest(widen=False, time_limit=20), solve=solve)
    assert len(calls) == 1 and not protection.result.verified
    # whole numbers with levels of 5.5 and 4.5: moved out to 6 and 5 at 0 decimals, so the levels as asked are tried
    moved = _table().replace(lower_protection=[5.5, 4.5], upper_protection=[5.5, 4.5])
    calls.clear()
    protect(moved, ProtectionRequest(widen=False, time_limit=20), solve=solve)
    assert len(calls) == 2 and calls[0].lower_protection.tolist() == [6.0, 5.0]
    assert calls[1].lower_protection.tolist() == [5.5, 4.5]
