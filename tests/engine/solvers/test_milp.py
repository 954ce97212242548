import dataclasses
import threading
import time

import highspy
import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from ctadesk.engine.methods import solve
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.result import SolveOptions, Status
from ctadesk.engine.senses import ordering_senses
from ctadesk.engine.senses.feasible_start import starting_senses
from ctadesk.engine.solvers.highs import run_outcome, solve_model
from ctadesk.engine.solvers.lp import solve_lp
from ctadesk.engine.solvers.milp import milp_model, solve_milp
from ctadesk.engine.solvers.propagation import propagated_deviation_bounds
from ctadesk.engine.table.generate import cox_table
from tests.timing import timed

from .conftest import locked_problem, thesis_problem


def test_thesis_example_with_free_senses_is_at_most_20():
    problem = thesis_problem(senses=None, lower_protection=[3, 5])
    result = solve(problem, "milp")
    assert result.status is Status.OPTIMAL and result.verified
    assert result.objective <= 20 + 1e-6
    assert result.bound == pytest.approx(result.objective, rel=1e-4)


def test_thesis_example_with_fixed_senses_is_20(thesis):
    result = solve_milp(thesis)
    assert result.verified and result.objective == pytest.approx(20, abs=1e-6)
    assert result.info["binaries"] == 0


@pytest.mark.parametrize("shape", [(6, 7), (4, 5, 3)])
@pytest.mark.parametrize("seed", [0, 1])
def test_milp_is_verified_and_never_worse_than_the_fixed_sense_lp(shape, seed):
    _, problem = cox_table(shape, seed)
    milp = solve_milp(problem)
    lp = solve_lp(problem, senses=ordering_senses(problem))
    assert milp.status is Status.OPTIMAL and milp.verified, milp.message
    assert milp.objective <= lp.objective + 1e-6
    assert milp.bound <= milp.objective + 1e-6 and milp.gap <= 1e-4


def test_senses_are_read_from_the_table():
    _, problem = cox_table((6, 7), 2)
    result = solve_milp(problem)
    moved = result.values[problem.sensitive] - problem.values[problem.sensitive]
    np.testing.assert_array_equal(result.senses, np.sign(moved))


def test_big_m_comes_from_the_table_not_from_infinite_bounds(thesis):
    assert thesis.upper[0] == np.inf
    lower, upper = propagated_deviation_bounds(thesis)
    # cell (1,1) can grow at most by what the rest of its row or column can give up
    assert upper[0] == pytest.approx(min(15 + 11 + 9, 8 + 10), rel=1e-6)
    assert lower[0] == pytest.approx(-10, rel=1e-6)


def test_unbounded_cells_still_get_a_finite_big_m():
    structure_problem = thesis_problem(senses=None, lower_protection=[3, 5], lower=None)
    result = solve_milp(structure_problem, starts=starting_senses)
    assert result.verified and result.objective <= 20 + 1e-6
    assert "LP" in result.info["big_m_from"]


def test_mip_start_from_given_senses_is_used():
    _, problem = cox_table((10, 10), 0)
    result = solve_milp(problem, SolveOptions(start_senses=ordering_senses(problem)))
    assert "MIP start solution is feasible" in result.log
    assert result.verified


def test_time_limit_returns_the_incumbent_with_bound_and_gap():
    _, problem = cox_table((25, 25), 0)
    result = solve_milp(problem, SolveOptions(time_limit=1.0))
    assert result.status is Status.TIME_LIMIT and result.protected
    assert 0 < result.bound < result.objective and result.gap > 1e-4


@timed
def test_stop_from_another_thread_returns_promptly_with_the_incumbent(timed):
    _, problem = cox_table((25, 25), 0)
    stop = threading.Event()
    progress = []
    threading.Timer(0.5, stop.set).start()
    began = time.perf_counter()
    result = solve_milp(problem, SolveOptions(stop=stop, on_progress=progress.append))
    assert not timed or time.perf_counter() - began < 2.5
    assert result.status is Status.CANCELLED and result.protected
    assert any(np.isfinite(p.bound) and np.isfinite(p.objective) for p in progress)


def test_infeasible_problem_gives_infeasible_status_and_no_table():
    result = solve_milp(locked_problem())
    assert result.status is Status.INFEASIBLE and result.values is None and not result.protected
    assert "no table" in result.message


def test_infeasibility_names_the_cell_in_conflict():
    from ctadesk.engine.table.structure import TableStructure

    structure = TableStructure.flat(3, 4)
    problem = locked_problem().replace(cell_label=structure.cell_label, relation_label=structure.relation_label)
    message = solve_milp(problem).message
    assert "conflict among cell 0 (R=1, C=1)" in message


def test_senses_that_only_fail_together_are_explained():
    import numpy as np
    import scipy.sparse as sp


    # x0 + x1 = x2 with x2 fixed at 2 and x0 = x1: both must move by 1, in opposite senses for the
    # sum and in the same sense for the equality, so no sense vector works; the LP relaxation
    # (y = 1/2) is feasible, so no small conflict exists to name.
    relations = sp.csr_array(np.array([[1.0, 1.0, -1.0], [1.0, -1.0, 0.0]]))
    problem = CTAProblem(values=[1.0, 1.0, 2.0], relations=relations, lower=[0, 0, 2], upper=[2, 2, 2],
                         sensitive=[0, 1], lower_protection=[1, 1], upper_protection=[1, 1])
    result = solve_milp(problem)
    assert result.status is Status.INFEASIBLE and result.values is None
    assert "not all of them at once" in result.message


def test_unknown_method_is_a_clear_error(thesis):
    from ctadesk.engine.errors import MethodError
    with pytest.raises(MethodError, match="unknown method 'simplex'"):
        solve(thesis, "simplex")



def test_an_interrupt_is_a_time_limit_unless_the_user_cancelled():
    stop = threading.Event()
    options = SolveOptions(stop=stop)
    assert run_outcome(highspy.HighsModelStatus.kInterrupt, options) is Status.TIME_LIMIT
    stop.set()
    assert run_outcome(highspy.HighsModelStatus.kInterrupt, options) is Status.CANCELLED
    assert run_outcome(highspy.HighsModelStatus.kOptimal, options) is Status.OPTIMAL


@timed
def test_the_deadline_interrupts_a_run_that_outlives_its_time_limit(timed):
    _, problem = cox_table((8, 8, 8), seed=1)
    model, _, _ = milp_model(problem, SolveOptions())
    # HiGHS's own limit is far away; only the deadline callback can stop the run (at 0.5 s)
    outcome = solve_model(model, SolveOptions(time_limit=0.3), {"time_limit": 1e6})
    assert outcome.status is Status.TIME_LIMIT
    assert not timed or outcome.seconds < 1.5


@timed
def test_a_cancel_inside_a_long_cut_round_returns_at_once(timed):
    # HiGHS spends 20 s and more in one root separation round of this table without polling
    # its callbacks; the caller must not wait for the round to end
    _, problem = cox_table((20, 20, 20), seed=1)
    stop = threading.Event()
    threading.Timer(8.0, stop.set).start()
    began = time.perf_counter()
    result = solve_milp(problem, SolveOptions(stop=stop))
    assert not timed or time.perf_counter() - began < 8.0 + 2.0
    assert result.status is Status.CANCELLED


@pytest.mark.parametrize("radius", [0, 1, 3])
def test_a_search_near_a_table_changes_at_most_radius_senses_and_claims_no_bound(radius):
    """solve_milp(radius=k) from start senses: a table whose free senses differ from the start's in
    at most k cells, no worse than the start's, with no bound and no "optimal" (both would be of
    the neighbourhood, not of the problem)."""
    _, problem = cox_table((8, 8), seed=3)
    start = ordering_senses(problem)
    start_table = solve_lp(problem, senses=start)
    assert start_table.verified
    result = solve_milp(problem, SolveOptions(time_limit=20, start_senses=start), certify=False,
                        starts=starting_senses, radius=radius)
    assert result.verified and result.status is Status.FEASIBLE
    assert result.bound is None and result.gap is None
    free = problem.effective_senses == 0
    assert np.count_nonzero(np.asarray(result.senses)[free] != start[free]) <= radius
    assert result.objective <= start_table.objective * (1 + 1e-9)
    if radius == 0:
        assert result.objective == pytest.approx(start_table.objective, rel=1e-9)


# ------------------------------------------------------------------ big-M and claims, against enumeration
def _in_table_units(problem: CTAProblem) -> CTAProblem:
    from ctadesk.engine.table.units import in_units, table_unit, weight_unit

    return in_units(problem, table_unit(problem), weight_unit(problem))


def _claims_hold(problem: CTAProblem, cuts: bool) -> None:
    """solve_milp as the heuristics call it (no reference table for the big-M, no certified bound)
    claims no bound above the optimum found by enumerating the senses, and "optimal" only within
    the gap of it."""
    from tests.crosscheck.checker import reference

    found = reference(problem, max_free=7)
    if found.status != "optimal":
        return
    tolerance = 1e-6 * (abs(found.objective) + float(problem.weights.sum()))
    result = solve_milp(problem, SolveOptions(time_limit=10, threads=1), cuts=cuts, certify=False)
    assert result.bound is None or result.bound <= found.objective + tolerance, (result.bound, found.objective)
    if result.status is Status.OPTIMAL:
        assert result.objective <= found.objective * (1 + 1e-4) + tolerance, (result.objective, found.objective)


@pytest.mark.parametrize("spec, cuts", [
    # 3:82 of the cross-check: propagation's M of 2e12 (bounds of 1e9 on cells of ~1): HiGHS's root
    # LP bound 1.4170 and "optimal" 1.3815 against the enumerated optimum 1.0635
    ("Spec(seed=437571764, magnitude='small', zeros=True, bounds='mixed', at_bounds=True, rhs='published', "
     "protection='asymmetric', sensitive=10, weights='inverse')", False),
    # 2:34, 4-D: M = 8e9, with the imbalance cuts "optimal" 6.4636 against 5.9578
    ("Spec(seed=2018001088, dimension=4, size='small', hierarchical=True, magnitude='small', zeros=True, "
     "bounds='huge', rhs='shift', sensitive=7)", True),
])
def test_a_huge_propagated_big_m_claims_nothing_false(spec, cuts):
    from tests.crosscheck.instances import Spec, build

    _claims_hold(_in_table_units(build(eval(spec, {"Spec": Spec})).problem), cuts)


def test_a_big_m_above_the_cap_is_capped_and_counted_guessed():
    from ctadesk.engine.solvers.milp import LARGE_M, MAX_M, big_m

    _, problem = cox_table((4, 4, 3), 2)
    loose = problem.replace(lower=problem.values - 1e9, upper=problem.values + 1e9)
    free = np.arange(loose.sensitive.size)
    m = big_m(loose, free, SolveOptions())
    cap = min(LARGE_M * np.abs(loose.values).max(), MAX_M)
    assert m.up.max() <= cap and m.down.max() <= cap and m.guessed.all()
    # an optimum cheaper than every guessed cell's w M is certified, a dearer one is not
    assert m.certifies(loose, free, 1.0) and not m.certifies(loose, free, 2 * cap * loose.weights.max())
    result = solve_milp(loose)
    assert result.status is Status.OPTIMAL and result.info.get("big_m_certified", True)
    # the same optimum as with M from a fixed-sense LP's cost (valid for every cheaper table)
    assert result.objective == pytest.approx(solve_milp(loose, starts=starting_senses).objective, rel=1e-6)


def _huge_bound_specs():
    from tests.crosscheck.instances import specs

    return specs(max_sensitive=5).filter(lambda s: not s.infeasible).flatmap(
        lambda s: st.sampled_from(("huge", "marker", "mixed")).map(lambda b: dataclasses.replace(s, bounds=b)))


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(spec=_huge_bound_specs(), cuts=st.booleans())
def test_solve_milp_claims_hold_against_enumerated_senses(spec, cuts):
    from tests.crosscheck.instances import build

    problem = build(spec).problem
    assume(problem is not None)
    _claims_hold(_in_table_units(problem), cuts)


@pytest.mark.parametrize("shape, seed", [((4, 5), 3), ((5, 4), 7), ((3, 3, 3), 1)])
def test_a_guessed_big_m_is_replaced_by_the_one_its_table_gives(shape, seed):
    """With no upper bounds and no start the first run must guess M (1000 times the largest
    value), HiGHS's integrality tolerance moves unprotected cells by 1e-6 M, and the LP with its
    senses could not be called optimal; the run again with M = F / w_i from that verified table
    proves its optimum (the business microdata's linked tables in the user guide said "feasible")."""
    _, problem = cox_table(shape, seed=seed)
    problem = problem.replace(upper=np.full(problem.n_cells, np.inf))
    result = solve_milp(problem, SolveOptions(time_limit=30))
    assert result.verified and result.status is Status.OPTIMAL
    assert result.bound is not None and result.bound <= result.objective * (1 + 1e-9)
