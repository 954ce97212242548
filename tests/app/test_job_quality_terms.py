"""Quality terms in a protection run (ProtectionRequest.quality, app.protect): they round-trip
through project options, every term reaches the solve, and the report gives each term's value on
the PUBLISHED table -- recomputed here with numpy from that table."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctadesk.app import ProtectionRequest, RequestError, protect
from ctadesk.engine.quality.terms import QualityTerm
from ctadesk.engine.table.generate import cox_table
from tests.crosscheck.checker import check_table


def inner(structure) -> np.ndarray:
    return np.flatnonzero(structure.inner_mask())


def variance_term(a: np.ndarray, x: np.ndarray, cells: np.ndarray) -> float:
    centred = a[cells] - a[cells].mean()
    return float(centred @ (x[cells] - a[cells]) / (centred @ centred))


TERMS = (QualityTerm("L", "bounded", bound=1e-3), QualityTerm("mean", "weighted", weight=5.0, cells=(0, 1, 2),
                                                                   group="first three cells"))


def test_quality_terms_round_trip_through_a_project_file():
    request = ProtectionRequest(method="lp", quality=TERMS, quality_price=True, seed=4)
    stored = json.loads(json.dumps(request.options()))
    assert ProtectionRequest.from_options(stored) == request
    assert ProtectionRequest.from_options(ProtectionRequest().options()).quality == ()
    assert "|L(y)| <= 0.001 over inner cells" in request.public_settings()["quality terms"]


def test_a_broken_term_in_a_project_file_is_refused_naming_the_term():
    options = ProtectionRequest(quality=TERMS).options()
    options["quality"][1]["weight"] = -5
    with pytest.raises(RequestError, match=r"quality term 2: .*weight"):
        ProtectionRequest.from_options(options)
    options["quality"][1] = {"measure": "mean", "colour": "red"}
    with pytest.raises(RequestError, match=r"quality term 2: .*unknown setting 'colour'"):
        ProtectionRequest.from_options(options)
    with pytest.raises(RequestError, match="quality term 1"):
        ProtectionRequest(quality=("L:bounded:0.001",))


def test_preserve_is_the_hard_mean_and_variance_over_the_inner_cells():
    request = ProtectionRequest(preserve={"variance", "mean"}, quality=(QualityTerm("mean"), TERMS[0]))
    assert request.terms() == (QualityTerm("mean"), QualityTerm("L"), TERMS[0])


def test_preserve_gives_the_table_it_gave_before_and_now_a_report():
    _, problem = cox_table((4, 5), seed=5)
    by_preserve = protect(problem, ProtectionRequest(method="milp", preserve={"mean"}, widen=False))
    by_term = protect(problem, ProtectionRequest(method="milp", quality=(QualityTerm("mean"),), widen=False))
    np.testing.assert_array_equal(by_preserve.result.values, by_term.result.values)
    assert by_preserve.solved.n_relations == problem.n_relations + 1
    assert by_preserve.terms.outcomes[0].term == QualityTerm("mean").resolved(problem)


def test_a_hard_mean_keeps_the_groups_sum_exactly_on_the_published_grid():
    structure, problem = cox_table((5, 6), seed=1, protection=0.1, capacity=0.3)
    row = tuple(range(7, 13))  # the inner cells of row 2
    protection = protect(problem, ProtectionRequest(method="milp", seed=2, quality=(
        QualityTerm("mean"), QualityTerm("mean", cells=row, group="R=2"))))
    x = protection.result.values
    assert protection.result.protected and protection.decimals == 0
    np.testing.assert_array_equal(x, np.round(x))
    assert x[inner(structure)].sum() == problem.values[inner(structure)].sum()
    assert x[list(row)].sum() == problem.values[list(row)].sum()
    assert [o.value for o in protection.terms.outcomes] == [0.0, 0.0]
    assert any(line.startswith("quality term mean change = 0 over R=2") for line in protection.notes)
    assert "quality term" in protection.result.log


def test_prices_come_with_the_request_for_them():
    _, problem = cox_table((4, 5), seed=5)
    priced = protect(problem, ProtectionRequest(method="lp", quality=TERMS, quality_price=True, widen=False))
    assert all(o.price is not None for o in priced.terms.outcomes)
    assert any("price" in line for line in priced.notes)
    unpriced = protect(problem, ProtectionRequest(method="lp", quality=TERMS, widen=False))
    assert all(o.price is None for o in unpriced.terms.outcomes)


@st.composite
def runs(draw):
    shape = (draw(st.integers(2, 4)), draw(st.integers(2, 5)))
    structure, problem = cox_table(shape, seed=draw(st.integers(0, 10_000)),
                                   protection=draw(st.sampled_from([0.1, 0.2])), capacity=0.3)
    terms = draw(st.lists(st.sampled_from([QualityTerm("mean"), QualityTerm("mean", "bounded", bound=0.5),
                                           QualityTerm("L", "bounded", bound=1e-2),
                                           QualityTerm("L", "bounded", bound=1e-3),
                                           QualityTerm("L", "weighted", weight=1e4)]),
                          min_size=1, max_size=3, unique=True))
    request = ProtectionRequest(method=draw(st.sampled_from(["milp", "lp", "l2"])), quality=tuple(terms),
                                widen=draw(st.booleans()), seed=3, time_limit=20)
    return structure, problem, request


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(runs())
def test_the_report_holds_for_the_published_table_and_rounding_keeps_every_bounded_term(run):
    structure, problem, request = run
    protection = protect(problem, request)
    result = protection.result
    if not result.protected:
        return
    x, a, cells = result.values, problem.values, inner(structure)
    assert check_table(protection.required, x).ok
    for outcome in protection.terms.outcomes:
        term = outcome.term
        value = x[cells].mean() - a[cells].mean() if term.measure == "mean" else variance_term(a, x, cells)
        assert outcome.value == pytest.approx(value, abs=1e-9 * max(1.0, np.abs(a).max()))
        if term.mode == "bounded":  # a constraint of the solve, so it holds on the published table too
            assert abs(value) <= term.bound * (1 + 1e-6) + 1e-9 * np.abs(a).max()
            assert outcome.met is True
    if protection.decimals == 0:
        np.testing.assert_array_equal(x, np.round(x))
    elif protection.decimals is not None:    # a finer grid than the data's, and said
        scale = 10.0 ** protection.decimals
        np.testing.assert_array_equal(x, np.round(x * scale) / scale)
        assert any(line.startswith(f"published at {protection.decimals} decimal") for line in protection.notes)
    else:
        assert any(line.startswith("not rounded") for line in protection.notes)
