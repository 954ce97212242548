"""A rounding base: protect(problem, ProtectionRequest(rounding_base=b)) publishes a controlled
rounding to multiples of b -- every cell a multiple, every relation exact, every sensitive cell
outside its protection interval -- checked here without the verifier, on random 2-D and 1H2D
tables (the network-matrix tables for which such a rounding always exists)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctadesk.app import ProtectionRequest, protect
from ctadesk.app.request import RequestError
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.quality.terms import QualityTerm
from ctadesk.engine.table.structure import Dimension, TableStructure


def random_table(seed: int, hierarchical: bool) -> CTAProblem:
    """A count or magnitude table, 2-D, its first dimension flat or with a sub-total level (1H2D):
    inner values 0..max (a tenth of them 0), 1-5 sensitive inner cells with levels of 10-40 %."""
    rng = np.random.default_rng(seed)
    rows, columns = int(rng.integers(2, 6)), int(rng.integers(2, 7))
    if hierarchical:
        levels, codes = [], []
        for group in range(int(rng.integers(2, 4))):
            levels.append(1)
            codes.append(f"G{group}")
            for row in range(rows):
                levels.append(2)
                codes.append(f"G{group}.{row}")
        first = Dimension.from_levels("Region", levels, codes)
    else:
        first = Dimension.flat("Region", [str(k) for k in range(rows)])
    structure = TableStructure((first, Dimension.flat("Size", [str(k) for k in range(columns)])))
    maximum = float(rng.choice([9, 60, 1000, 250000]))
    inner = rng.integers(0, maximum + 1, structure.shape).astype(float)
    inner[rng.random(structure.shape) < 0.1] = 0.0
    values = structure.aggregate(inner)
    leaves = np.flatnonzero(structure.inner_mask() & (values > 0))
    sensitive = np.sort(rng.choice(leaves, size=min(int(rng.integers(1, 6)), leaves.size), replace=False))
    level = np.ceil(rng.uniform(0.1, 0.4, sensitive.size) * values[sensitive])
    return CTAProblem(values, structure.relations(), lower=0.0, sensitive=sensitive, lower_protection=level,
                      upper_protection=level, cell_label=structure.cell_label, relation_label=structure.relation_label)


def assert_rounded_and_protected(problem: CTAProblem, x: np.ndarray, base: int) -> None:
    """Independent of the verifier: multiples of base, relations exact in whole bases, every
    sensitive cell at or beyond a + upl or a - lpl, every cell >= 0."""
    k = np.round(x / base).astype(np.int64)
    assert np.array_equal(k * base, x), "a cell is not a multiple of the base"
    A = problem.relations.tocoo()
    sums = np.zeros(problem.n_relations, np.int64)
    np.add.at(sums, A.row, np.round(A.data).astype(np.int64) * k[A.col])
    assert not sums.any(), "a relation does not add up"
    moved = x[problem.sensitive] - problem.values[problem.sensitive]
    assert np.all((moved >= problem.upper_protection) | (-moved >= problem.lower_protection)), "a cell is unprotected"
    assert np.all(x >= 0)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), hierarchical=st.booleans(), base=st.sampled_from([2, 5, 10, 100]),
       distance=st.sampled_from(["l1", "l2"]), widen=st.booleans())
def test_a_rounding_base_publishes_an_additive_protected_table_of_its_multiples(seed, hierarchical, base, distance,
                                                                                 widen):
    problem = random_table(seed, hierarchical)
    request = ProtectionRequest(distance=distance, senses="fixed" if distance == "l2" else "optimal",
                                rounding_base=base, widen=widen, seed=3, time_limit=20.0)
    protection = protect(problem, request)
    assert protection.result.protected, protection.result.message
    assert protection.outcome.published.base == base and protection.precision_met
    assert protection.decimals == 0
    x = protection.result.values
    assert_rounded_and_protected(problem, x, base)
    if "no zero-restricted rounding" not in protection.outcome.published.note:
        # zero-restricted: a cell not sensitive stays when a multiple, else goes to a multiple next to it
        free = np.ones(problem.n_cells, bool)
        free[problem.sensitive] = False
        assert np.all(np.abs(x - problem.values)[free] < base)
        on_grid = free & (problem.values % base == 0)
        assert np.array_equal(x[on_grid], problem.values[on_grid])


def test_a_fixed_cell_off_the_base_is_rounded_and_one_on_it_stays():
    problem = random_table(11, hierarchical=False)
    total = problem.n_cells - 1
    fixed = np.zeros(problem.n_cells, bool)
    fixed[total] = True
    fixed[0] = problem.values[0] % 10 == 0 or 0 in problem.sensitive
    problem = problem.replace(fixed=fixed)
    protection = protect(problem, ProtectionRequest(rounding_base=10, seed=1))
    x = protection.result.values
    assert_rounded_and_protected(problem, x, 10)
    assert abs(x[total] - problem.values[total]) < 10


def test_the_request_keeps_its_rounding_base_and_refuses_what_it_cannot_run():
    request = ProtectionRequest(rounding_base=5)
    assert ProtectionRequest.from_options(request.options()) == request
    assert "rounding_base" not in ProtectionRequest().options()
    assert request.public_settings()["rounded to multiples of"] == "5"
    for bad in (0, -5, 2.5, True):
        with pytest.raises(RequestError, match="rounding base"):
            ProtectionRequest(rounding_base=bad)
    with pytest.raises(RequestError, match="leave precision auto"):
        ProtectionRequest(rounding_base=5, precision=2)
    with pytest.raises(RequestError, match="quality terms"):
        ProtectionRequest(rounding_base=5, quality=(QualityTerm("mean"),))
