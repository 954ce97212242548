"""Two response variables as a kind of request (ctadesk.app.bivariate): what it refuses, and
what a run gives -- each table protected at the levels the rules require, its cells changed
counted, the seed kept, one JSON document."""

from __future__ import annotations

import json

import numpy as np
import pytest

from ctadesk.app import ProtectionRequest, RequestError
from ctadesk.app.bivariate import BivariateRequest, protect_two
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.quality.terms import QualityTerm
from ctadesk.engine.solvers.finish import cells_changed
from ctadesk.engine.table.structure import TableStructure
from tests.crosscheck.checker import check_table


def pair(rows: int = 4, cols: int = 4, seed: int = 5) -> tuple[CTAProblem, CTAProblem]:
    """Two variables of one rows x cols table with margins, each with its own sensitive cells."""
    rng = np.random.default_rng(seed)
    structure = TableStructure.flat(rows, cols)
    inner = np.flatnonzero(structure.inner_mask())
    raw_a = np.zeros(structure.n_cells)
    raw_a[inner] = rng.integers(10, 1000, inner.size)
    raw_b = np.zeros(structure.n_cells)
    raw_b[inner] = np.round(raw_a[inner] * rng.lognormal(0, 0.4, inner.size))
    problems = []
    for raw in (raw_a, raw_b):
        values = structure.aggregate(raw)
        sensitive = np.sort(rng.choice(inner, size=inner.size // 4, replace=False))
        levels = 0.15 * values[sensitive]
        problems.append(CTAProblem(values=values, relations=structure.relations(), lower=0.0,
                                   sensitive=sensitive, lower_protection=levels, upper_protection=levels))
    return problems[0], problems[1]


@pytest.mark.parametrize("settings, word", [
    ({"base": ProtectionRequest(preserve={"mean"})}, "preserve"),
    ({"base": ProtectionRequest(quality=(QualityTerm("mean"),))}, "quality"),
    ({"base": ProtectionRequest(widen_cost=True)}, "widen_cost"),
    ({"approach": "sideways"}, "approach 'sideways'"),
    ({"variance_target": 0.0}, "variance target"),
    ({"covariance_target": 100.0}, "covariance target"),
])
def test_settings_for_one_variable_or_out_of_range_are_refused_by_name(settings, word):
    with pytest.raises(RequestError, match=word):
        BivariateRequest(**settings)


def test_both_tables_are_protected_at_the_required_levels_and_the_document_says_so():
    first, second = pair()
    request = BivariateRequest(ProtectionRequest(method="lp", seed=11), covariance_target=None)
    protection = protect_two(first, second, ("a", "a"), request)
    assert protection.required.names == ("a", "a (second)")
    assert protection.request.base.seed == 11
    for problem, own, changed in zip((first, second), (protection.result.first, protection.result.second),
                                     protection.cells_changed):
        assert own.verified and check_table(problem, own.values).ok
        assert changed == cells_changed(problem, own.values) > 0
    document = json.loads(json.dumps(protection.as_dict(), allow_nan=False))
    assert set(document["variables"]) == {"a", "a (second)"}
    assert document["variables"]["a"]["cells_changed"] == protection.cells_changed[0]
    assert document["request"]["widening_seed"] == 11 and document["request"]["covariance_target"] is None
    assert document["verified"] == protection.result.verified
    assert any(line.startswith("precision auto: the two tables are given unrounded") for line in protection.notes)


def test_a_fresh_seed_is_drawn_and_the_second_variable_widened_by_the_next():
    first, second = pair()
    protection = protect_two(first, second, ("a", "b"), BivariateRequest(ProtectionRequest(method="lp")))
    again = protect_two(first, second, ("a", "b"), protection.request)
    assert isinstance(protection.request.base.seed, int)
    np.testing.assert_array_equal(again.result.first.values, protection.result.first.values)
    np.testing.assert_array_equal(again.result.second.values, protection.result.second.values)
