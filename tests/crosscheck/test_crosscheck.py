"""Differential cross-check: every claim of a CTA result against an independent checker.

For each method of METHODS_UNDER_TEST, hypothesis draws instances
(instances.specs(): 1-4 dimensions, hierarchies, magnitudes 1e-3..1e7, bounds
finite / 1e9 / 1e20 / inf, nonzero right-hand sides, protection asymmetry, given
senses, fixed cells, weights, infeasible instances), solves each, and asserts by
checker.py and the brute-force reference optimum (rules in claims.py):
no exception escapes solve, no false "protected", no wrong "infeasible", no bound
above the optimum, no false "optimal".  Each claim is asserted on its own line, so
hypothesis reports and shrinks each kind of failure separately.

test_regression runs the instances that exposed the engine's false claims with every method.
Runs are derandomized (the same instances every time; benchmarks/crosscheck.py
explores more).  Shrinking stops SHRINK_SECONDS after a method's first failure (the
smallest example found by then is reported), so a broken engine cannot push the
file past its 2-minute budget.

    .venv/bin/pytest tests/crosscheck -q
"""

from __future__ import annotations

import collections
import time
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, assume, given, settings

from ctadesk.engine.problem import CTAProblem
from tests.crosscheck.checker import check_table, reference, table_unit
from tests.crosscheck.claims import (
    ERROR,
    EXCEPTION,
    FALSE_OPTIMAL,
    FALSE_OPTIMAL_OWN,
    FALSE_PROTECTED,
    INVALID_BOUND,
    REFERENCE,
    REFERENCE_CHEAPER,
    WRONG_INFEASIBLE,
    WRONG_INFEASIBLE_OWN,
    judge,
    run_method,
    summary_line,
)
from tests.crosscheck.instances import Spec, build, instance, specs

METHODS_UNDER_TEST = ("milp", "lp", "l2", "soc", "huber", "network", "hybrid", "bcd")
EXAMPLES = 80              # instances per method
TIME_LIMIT = 5.0           # seconds per solve
MAX_SENSITIVE = 5          # at most 2^5 sense vectors for the reference
SHRINK_SECONDS = 4.0       # per method, once a failure is found

#: instances that exposed false claims (test_regression runs each with every method)
REGRESSIONS = (
    # soc/huber: relations off by 98304 near 3e19 with +-1e20 bounds, "verified"; milp: "model rejected"
    Spec(seed=2, dimension=3, size="small", magnitude="large", bounds="marker", sensitive=3),
    # soc/huber/l2 infeasible on a feasible large-magnitude table
    Spec(seed=1, size="small", magnitude="large", bounds="marker", sensitive=3),
    # network: bound = objective above the optimum; fixed-sense methods "optimal" for heuristic senses
    Spec(dimension=1, size="small", bounds="marker", sensitive=3),
    # milp: "optimal" 7-12 % above the optimum, bound above it (weights 1/a on values ~1e6)
    Spec(seed=12, size="small", magnitude="large", sensitive=4, weights="inverse"),
    Spec(seed=8, dimension=3, size="small", magnitude="large", sensitive=4, weights="inverse"),
    # l2: "optimal" although a table with the same senses has a smaller sum w z^2
    Spec(seed=929, dimension=1, hierarchical=True, magnitude="large", signed=True, bounds="huge",
         protection="asymmetric", sensitive=4, given_senses=True, fixed=True, weights="inverse"),
    # certified bound above a verified table with nonzero right-hand sides (bcd)
    Spec(dimension=1, signed=True, zeros=True, bounds="mixed", rhs="published", protection="asymmetric", fixed=True),
    # hybrid: infeasible on a feasible table
    Spec(size="small", hierarchical=True, magnitude="large", signed=True, zeros=True, bounds="marker",
         rhs="published", protection="one-sided", sensitive=2, given_senses=True, fixed=True, weights="some-zero"),
    # milp: "optimal" above the optimum
    Spec(seed=2286, bounds="mixed", protection="asymmetric", sensitive=3, weights="random"),
    # infeasible by construction
    Spec(seed=1, size="small", sensitive=3, infeasible=True),
)

_references: dict = {}
_findings_of: dict = {}
_failing_since: dict = {}
_counts: collections.Counter = collections.Counter()


def _reference(spec: Spec):
    if spec not in _references:
        problem = build(spec).problem
        _references[spec] = None if problem is None else reference(problem, max_free=MAX_SENSITIVE)
        _counts["instances"] += 1
        _counts["refused by CTAProblem" if problem is None else f"reference {_references[spec].status}"] += 1
    return _references[spec]


def _findings(spec: Spec, method: str):
    key = (spec, method)
    if key not in _findings_of:
        problem = build(spec).problem
        run = run_method(problem, method, time_limit=TIME_LIMIT)
        _counts[f"{method} {run.status}"] += 1
        findings = judge(problem, [run], _reference(spec))
        for f in findings:
            if f.method == REFERENCE:
                _counts[f.kind] += 1
        _findings_of[key] = [f for f in findings if f.method != REFERENCE]
    return _findings_of[key]


def _message(spec: Spec, method: str, findings) -> str:
    lines = [summary_line(f) for f in findings]
    return ("\n".join(lines) + "\nreproduce:\n  from tests.crosscheck.instances import Spec, build\n"
            "  from ctadesk.engine.methods import solve\n  from ctadesk.engine.result import SolveOptions\n"
            f"  problem = {spec.code()}\n  result = solve(problem, {method!r}, SolveOptions(time_limit={TIME_LIMIT}))")


@pytest.mark.parametrize("method", METHODS_UNDER_TEST)
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None, report_multiple_bugs=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(spec=specs(sizes=("tiny", "small"), max_sensitive=MAX_SENSITIVE))
def test_claims(method: str, spec: Spec) -> None:
    """No exception, no false protected, no wrong infeasible, no invalid bound, no false optimal.

    Each claim is asserted on a line of its own: hypothesis reports (and shrinks) each
    kind of failure separately, with the Python that reproduces it.
    """
    if (spec, method) not in _findings_of and method in _failing_since and \
            time.perf_counter() - _failing_since[method] > SHRINK_SECONDS:
        return  # shrinking budget spent: new instances are not run; known ones replay their verdict
    assume(build(spec).problem is not None)
    findings = _findings(spec, method)
    kinds = {f.kind for f in findings} - {ERROR}   # an ERROR status is allowed (counted)
    if kinds:
        _failing_since.setdefault(method, time.perf_counter())
    message = _message(spec, method, findings)
    assert EXCEPTION not in kinds, message
    assert FALSE_PROTECTED not in kinds, message
    assert not kinds & {WRONG_INFEASIBLE, WRONG_INFEASIBLE_OWN}, message
    assert INVALID_BOUND not in kinds, message
    assert not kinds & {FALSE_OPTIMAL, FALSE_OPTIMAL_OWN}, message


@pytest.mark.parametrize("method", METHODS_UNDER_TEST)
@pytest.mark.parametrize("number", range(len(REGRESSIONS)))
def test_regression(number: int, method: str) -> None:
    """The instances of REGRESSIONS, every claim at once."""
    spec = REGRESSIONS[number]
    assert build(spec).problem is not None
    findings = [f for f in _findings(spec, method) if f.kind != ERROR]
    assert not findings, _message(spec, method, findings)


def test_zz_counts() -> None:
    """ERROR statuses are allowed but counted, as are instances where a method's valid table beat
    the reference (the reference is then not used): both reported as a warning."""
    if any(key.endswith(" error") or key == REFERENCE_CHEAPER for key in _counts):
        warnings.warn(f"cross-check counts: {dict(sorted(_counts.items()))}", stacklevel=1)


# --------------------------------------------------------------- the checker itself
def _chain(values, upper=None, lower=None, sensitive=(0,), lpl=(1.0,), upl=(2.0,), senses=None,
           fixed=None, rhs=None) -> CTAProblem:
    """x0 + x1 = x2 (a 1-D table with its total)."""
    return CTAProblem(values=np.array(values, float), relations=sp.csr_array(np.array([[1.0, 1.0, -1.0]])),
                      rhs=rhs, lower=lower, upper=upper, sensitive=np.array(sensitive), lower_protection=lpl,
                      upper_protection=upl, senses=senses, fixed=fixed)


def test_checker_accepts_a_protected_table() -> None:
    problem = _chain([3.0, 4.0, 7.0])
    assert check_table(problem, [5.0, 4.0, 9.0]).ok
    assert check_table(problem, [2.0, 5.0, 7.0]).ok


def test_checker_rejects_a_relation_off_by_one() -> None:
    check = check_table(_chain([3.0, 4.0, 7.0]), [5.0, 4.0, 8.0])
    assert not check.ok and check.counts == {"relation": 1}


def test_checker_rejects_unprotected_and_wrong_side() -> None:
    problem = _chain([3.0, 4.0, 7.0])
    assert check_table(problem, [3.0, 4.0, 7.0]).counts == {"protection": 1}      # unchanged
    assert check_table(problem, [4.5, 4.0, 8.5]).counts == {"protection": 1}      # inside (2, 5)
    down = _chain([3.0, 4.0, 7.0], senses=[-1])
    assert check_table(down, [5.0, 4.0, 9.0]).counts == {"protection": 1}         # up, sense down
    assert check_table(down, [2.0, 4.0, 6.0]).ok


def test_checker_bounds_fixed_and_nonfinite() -> None:
    problem = _chain([3.0, 4.0, 7.0], upper=[4.0, 10.0, 100.0], lower=[0.0, 3.5, 0.0])
    assert check_table(problem, [5.0, 4.0, 9.0]).counts == {"upper bound": 1}
    assert check_table(problem, [2.0, 3.0, 5.0]).counts == {"lower bound": 1}
    fixed = _chain([3.0, 4.0, 7.0], fixed=[False, True, False])
    assert "fixed" in check_table(fixed, [2.0, 5.0, 7.0]).counts   # (CTAProblem also pins its bounds)
    assert not check_table(problem, [np.nan, 4.0, 7.0]).ok
    assert not check_table(problem, [np.inf, 4.0, np.inf]).ok


def test_checker_treats_1e20_as_no_bound() -> None:
    free = CTAProblem(values=[1.0, 2.0], relations=sp.csr_array((0, 2)), lower=[-1e20, -np.inf],
                      upper=[1e20, 5.0])
    assert check_table(free, [3e20, -4e21]).ok
    bounded = CTAProblem(values=[1.0, 2.0], relations=sp.csr_array((0, 2)), lower=[-1e19, 0.0],
                         upper=[1e19, 5.0])
    assert check_table(bounded, [3e19, 2.0]).counts == {"upper bound": 1}
    assert check_table(bounded, [1.0, 6.0]).counts == {"upper bound": 1}


def test_checker_tolerance_comes_from_the_original_table() -> None:
    problem = _chain([3.0, 4.0, 7.0], upper=[1e20, 1e20, 1e20], lower=[-1e20, -1e20, -1e20])
    # the soc/huber tables: cells near 3e19, a relation off by 65536
    assert check_table(problem, [3e19, 4.0, 3e19 + 4.0 + 65536.0]).counts == {"relation": 1}
    # a relative error of 1e-8 of the table is fine, 1e-5 is not
    assert check_table(problem, [5.0, 4.0, 9.0 + 4e-8]).ok
    assert not check_table(problem, [5.0, 4.0, 9.0 + 4e-5]).ok
    assert table_unit(np.array([0.0, 2.0, 0.0, 8.0, 4.0])) == 4.0
    assert table_unit(np.zeros(3)) == 1.0


def test_checker_nonzero_rhs() -> None:
    problem = _chain([3.0, 4.0, 8.0], rhs=[-1.0])     # published total one above the parts
    assert check_table(problem, [5.0, 4.0, 10.0]).ok
    assert check_table(problem, [5.0, 4.0, 9.0]).counts == {"relation": 1}


def test_reference_optimum_and_infeasible() -> None:
    # cell 0 must move by 1 down or 2 up; the cheapest is down with cell 1 or the total following
    ref = reference(_chain([3.0, 4.0, 7.0]))
    assert ref.status == "optimal" and ref.objective == pytest.approx(2.0)
    assert check_table(_chain([3.0, 4.0, 7.0]), ref.values).ok
    weighted = CTAProblem(values=[3.0, 4.0, 7.0], relations=sp.csr_array(np.array([[1.0, 1.0, -1.0]])),
                          weights=[1.0, 5.0, 0.5], sensitive=[0], lower_protection=[1.0], upper_protection=[2.0])
    assert reference(weighted).objective == pytest.approx(1.5)          # down 1, total down 1 at 0.5
    pinned = _chain([3.0, 4.0, 7.0], fixed=[False, True, True])
    assert reference(pinned).status == "infeasible"
    assert len(reference(pinned).solutions) == 2
    assert reference(_chain([3.0, 4.0, 7.0], senses=[1])).objective == pytest.approx(4.0)


def test_generator_is_deterministic_and_varied() -> None:
    first = [instance(3, k) for k in range(30)]
    again = [instance(3, k) for k in range(30)]
    for a, b in zip(first, again):
        assert a.spec == b.spec
        if a.problem is not None:
            assert np.array_equal(a.problem.values, b.problem.values)
            assert np.array_equal(a.problem.rhs, b.problem.rhs)
    assert {i.spec.dimension for i in first} == {1, 2, 3, 4}
    built = [i.problem for i in first if i.problem is not None]
    assert any(np.any(p.rhs != 0) for p in built)
    assert {"marker", "inf", "huge", "near"} <= {i.spec.bounds for i in first}
    assert any(p.n_cells <= 5 for p in built) and any(p.n_cells >= 50 for p in built)
