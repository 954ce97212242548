"""The audit against the independent checker (checker.py: scipy linprog per cell, no shortcuts)
on random small tables of every magnitude, with and without warm starts, shortcuts, batches
(by max flow and by LP) and worker processes."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctadesk.engine.audit import APriori, AttackerKnowledge, AuditOptions, Capacity, Release, audit
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.table.generate import cox_table
from ctadesk.engine.table.structure import TableStructure

from . import checker

VARIANTS = {
    "plain": AuditOptions(warm_start=False, shortcuts=False, workers=1),
    "warm": AuditOptions(shortcuts=False, workers=1),
    "shortcuts": AuditOptions(warm_start=False, workers=1),
    "all": AuditOptions(workers=1, batch_min=1),
    "lp batches": AuditOptions(workers=1, batch_min=1, network=False),
}


@dataclasses.dataclass
class Case:
    problem: CTAProblem
    release: Release
    knowledge: AttackerKnowledge
    capacity: tuple[str, float] | None

    def expected(self) -> tuple[np.ndarray, np.ndarray]:
        lower, upper = checker.box(self.problem, np.nan_to_num(self.release.published), self.release.missing,
                                   exact=self.knowledge.published_exact, capacity=self.capacity,
                                   sign_only=self.knowledge.a_priori is APriori.SIGN,
                                   value_range=(self.knowledge.a_priori_range
                                                if self.knowledge.a_priori is APriori.RANGE else None))
        return checker.intervals(self.problem, lower, upper)


@st.composite
def cases(draw) -> Case:
    """A 2-D table with margins, its sensitive cells and a release it is consistent with."""
    rows, columns = draw(st.integers(1, 4)), draw(st.integers(2, 4))
    magnitude = 10.0 ** draw(st.sampled_from([-3, 0, 3, 6, 9]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    structure = TableStructure.flat(rows, columns)
    inner = np.flatnonzero(structure.inner_mask())
    raw = np.zeros(structure.n_cells)
    raw[inner] = rng.integers(0, 100, inner.size) * magnitude / 10
    values = structure.aggregate(raw)
    candidates = inner[values[inner] > 0]
    if not candidates.size:
        values[inner[0]] = magnitude
        values = structure.aggregate(np.where(structure.inner_mask(), values, 0))
        candidates = inner[:1]
    sensitive = np.sort(rng.choice(candidates, size=rng.integers(1, candidates.size + 1), replace=False))
    lpl = values[sensitive] * rng.uniform(0.05, 0.3, sensitive.size)
    upl = values[sensitive] * rng.uniform(0.05, 0.3, sensitive.size)
    fixed = ~structure.inner_mask() if draw(st.booleans()) else None
    problem = CTAProblem(values, structure.relations(), lower=0.0, fixed=fixed, sensitive=sensitive,
                         lower_protection=lpl, upper_protection=upl)
    a_priori = draw(st.sampled_from(list(APriori)))
    value_range = draw(st.sampled_from([0.5, 1.0]))
    if draw(st.booleans()):
        missing = np.zeros(values.size, bool)
        missing[sensitive] = True
        missing[rng.random(values.size) < 0.3] = True
        release = Release(values, missing)
        return Case(problem, release, AttackerKnowledge(a_priori=a_priori, published_exact=True,
                                                        a_priori_range=value_range), None)
    kind = draw(st.sampled_from(["abs", "rel"]))
    share = draw(st.floats(0.05, 0.6))
    c = share * magnitude if kind == "abs" else share
    step = rng.uniform(-0.9, 0.9, values.size) * (c if kind == "abs" else c * values)
    published = np.where(problem.fixed, values, values + step)
    knowledge = AttackerKnowledge(a_priori=a_priori, capacity=Capacity(kind, c), a_priori_range=value_range)
    return Case(problem, Release.adjusted(published), knowledge, (kind, c))


def assert_same_intervals(result, low, high, scale):
    tolerance = 1e-6 * scale
    for ours, theirs in ((result.lower, low), (result.upper, high)):
        finite = np.isfinite(theirs)
        assert np.array_equal(np.isfinite(ours), finite), (ours, theirs)
        np.testing.assert_allclose(ours[finite], theirs[finite], rtol=1e-7, atol=tolerance)


@settings(max_examples=40, deadline=None)
@given(case=cases())
def test_every_variant_finds_the_checkers_intervals(case):
    low, high = case.expected()
    scale = float(np.abs(case.problem.values).max())
    verdicts = []
    for options in VARIANTS.values():
        result = audit(case.problem, case.release, case.knowledge, options)
        assert_same_intervals(result, low, high, scale)
        verdicts.append(result.at_risk)
    assert all(np.array_equal(verdicts[0], other) for other in verdicts[1:])


@pytest.mark.slow
def test_batches_and_two_worker_processes_find_the_checkers_intervals():
    _, problem = cox_table((9, 10), seed=3)
    published = problem.values * np.random.default_rng(3).uniform(0.85, 1.15, problem.n_cells)
    knowledge = AttackerKnowledge(a_priori=APriori.SIGN, capacity=Capacity("rel", 0.2))
    release = Release.adjusted(published)
    lower, upper = checker.box(problem, published, release.missing, exact=False, capacity=("rel", 0.2),
                               sign_only=True)
    low, high = checker.intervals(problem, lower, upper)
    scale = float(problem.values.max())
    assert problem.n_sensitive > 2 * 4
    for options in (AuditOptions(workers=1, batch_min=4), AuditOptions(workers=2, batch_min=4),
                    AuditOptions(workers=1, batch_min=4, network=False), AuditOptions(workers=1, shortcuts=False)):
        result = audit(problem, release, knowledge, options)
        assert_same_intervals(result, low, high, scale)
