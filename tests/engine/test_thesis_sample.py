"""The bundled sample reproduces Petrenko (2017), Figure 6.1: sensitive cells a1 = (1,1) and
a12 = (3,4), both up (sample_data/thesis_3x4.senses: JJ carries no senses), totals fixed,
cells >= 0, unit weights."""

from pathlib import Path

import numpy as np
import pytest

from ctadesk.engine.methods import solve
from ctadesk.engine.result import Status
from ctadesk.io.jj import read_jj
from ctadesk.io.senses import read_senses

from .solvers.test_conic import THESIS_L2

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data" / "thesis_3x4.jj"


def thesis_sample():
    problem = read_jj(SAMPLE).problem
    return problem.replace(senses=read_senses(SAMPLE.with_suffix(".senses"), problem))


def test_the_sample_flags_a1_and_a12_with_upper_senses():
    problem = thesis_sample()
    assert list(problem.sensitive) == [0, 13]
    assert list(problem.values[problem.sensitive]) == [10, 13]
    assert list(problem.upper_protection) == [3, 5]
    assert list(problem.effective_senses) == [1, 1]


@pytest.mark.parametrize("method", ["lp", "network", "milp"])
def test_l1_is_20(method):
    result = solve(thesis_sample(), method)
    assert result.status is Status.OPTIMAL and result.verified
    assert result.objective == pytest.approx(20.0, abs=1e-9)
    assert result.info["cells_changed"] <= 6        # table (b) changes 6 inner cells


@pytest.mark.parametrize("method", ["l2", "network-l2"])
def test_l2_is_table_c(method):
    problem = thesis_sample()
    result = solve(problem, method)
    assert result.status is Status.OPTIMAL and result.verified
    np.testing.assert_allclose(result.values.reshape(4, 5)[:3, :4], THESIS_L2, atol=0.005)
    assert result.objective == pytest.approx(20.69, abs=0.005)
