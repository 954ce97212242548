"""The one table generator: the Cox recipe (paper 004 §3) is its preset."""

from __future__ import annotations

import numpy as np
import pytest

from ctadesk.engine.table.generate import COX_PRESET, GeneratorSpec, cox_table, generate_table


@pytest.mark.parametrize("shape", [(5, 7), (4, 3, 5)])
def test_the_cox_recipe_as_the_paper_states_it(shape):
    structure, problem = cox_table(shape, seed=3)
    inner = structure.inner_mask()
    values = problem.values
    assert np.all(values[inner] == np.round(values[inner])) and values[inner].max() <= 1000
    assert np.count_nonzero(values[inner] == 0) == round(0.10 * inner.sum())
    assert problem.n_sensitive == round(0.30 * inner.sum()) and np.all(values[problem.sensitive] > 0)
    np.testing.assert_allclose(problem.lower_protection, 0.2 * values[problem.sensitive])
    np.testing.assert_allclose(problem.upper, 1.2 * values)
    np.testing.assert_allclose(problem.lower, 0.8 * values)
    np.testing.assert_allclose(problem.relations @ values, 0)


def test_the_preset_is_the_recipe_and_sensitive_cells_can_reach_their_safe_values():
    _, recipe = cox_table((6, 6), seed=9)
    _, preset = generate_table(GeneratorSpec(shape=(6, 6), seed=9))
    assert COX_PRESET == GeneratorSpec()
    np.testing.assert_array_equal(recipe.values, preset.values)
    np.testing.assert_array_equal(recipe.sensitive, preset.sensitive)
    _, wide = generate_table(GeneratorSpec(shape=(6, 6), seed=9, protection_min=0.3, protection_max=0.5,
                                           capacity=0.1))
    cells = wide.sensitive
    assert np.all(wide.upper[cells] - wide.values[cells] >= wide.upper_protection - 1e-9)
    assert np.all(wide.values[cells] - wide.lower[cells] >= wide.lower_protection - 1e-9)
