"""The one table generator: the Cox recipe (Cox 2005b, §3) is its preset."""

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
    assert GeneratorSpec() == COX_PRESET
    np.testing.assert_array_equal(recipe.values, preset.values)
    np.testing.assert_array_equal(recipe.sensitive, preset.sensitive)
    _, wide = generate_table(GeneratorSpec(shape=(6, 6), seed=9, protection_min=0.3, protection_max=0.5,
                                           capacity=0.1))
    cells = wide.sensitive
    assert np.all(wide.upper[cells] - wide.values[cells] >= wide.upper_protection - 1e-9)
    assert np.all(wide.values[cells] - wide.lower[cells] >= wide.lower_protection - 1e-9)


def test_office_tables_add_up_with_their_second_breakdowns_and_protect_inner_cells():
    from ctadesk.engine.table.generate import OfficeDimension, office_table

    dimensions = (OfficeDimension((2, 3), alternative=2), OfficeDimension((4,)))
    problem = office_table(dimensions, seed=1, sensitive_share=0.5)
    # codes: total, 2 groups, 6 leaves, 2 alternative groups x total and 4 codes
    assert problem.n_cells == 11 * 5
    np.testing.assert_allclose(problem.relations @ problem.values, 0)
    values = problem.values.reshape(11, 5)
    np.testing.assert_allclose(values[9] + values[10], values[0])        # the second breakdown of the total
    rows, columns = np.unravel_index(problem.sensitive, (11, 5))
    assert np.all((rows >= 3) & (rows <= 8) & (columns >= 1)) and np.all(problem.values[problem.sensitive] > 0)
    assert problem.n_sensitive == round(0.5 * np.count_nonzero(values[3:9, 1:]))


def test_linked_office_tables_share_one_margin():
    from ctadesk.engine.table.generate import OfficeDimension, linked_office_tables

    shared = OfficeDimension((3, 4))
    problem = linked_office_tables(shared, (OfficeDimension((3,)), OfficeDimension((2, 2))), seed=2)
    codes = 1 + 3 + 12
    assert problem.n_cells == codes * 4 + codes * (7 - 1)         # the second table's margin column is the first's
    np.testing.assert_allclose(problem.relations @ problem.values, 0)
    margin = problem.relations[:, :codes * 4:4]                  # the first table's margin column ...
    totalled = np.flatnonzero((margin < 0).sum(axis=0) > 1)
    assert totalled.size == codes                                # ... is the total of a relation in each table


@pytest.mark.parametrize("seed", range(3))
def test_office_shapes_span_the_kinds_and_sizes_asked(seed):
    from ctadesk.engine.table.generate import OFFICE_KINDS, office_shapes, office_table

    shapes = office_shapes(8, seed=seed, min_cells=500, max_cells=20000)
    assert len(shapes) == 8 and {kind for kind, _ in shapes} == set(OFFICE_KINDS)
    assert any(dimension.alternative for _, dimensions in shapes for dimension in dimensions)
    for kind, dimensions in shapes:
        problem = office_table(dimensions, seed=seed)
        assert 500 <= problem.n_cells <= 20000 and len(dimensions) == OFFICE_KINDS[kind][0]
        np.testing.assert_allclose(problem.relations @ problem.values, 0)


@pytest.mark.parametrize(("min_cells", "max_cells"), [(300_000, 1_000_000), (1_000_000, 1_100_000), (2000, 2100)])
def test_office_shapes_of_any_reachable_size_are_made_at_once(min_cells, max_cells):
    """Sizes a 1H2D table of three levels cannot reach (a million cells) come from a fourth level; a
    narrow range is met too (the sampler that drew shapes until one fitted never returned)."""
    from ctadesk.engine.table.generate import OFFICE_KINDS, office_cells, office_shapes

    shapes = office_shapes(9, seed=4, min_cells=min_cells, max_cells=max_cells)
    assert {kind for kind, _ in shapes} == set(OFFICE_KINDS)
    assert all(min_cells <= office_cells(dimensions) <= max_cells for _, dimensions in shapes)
    assert all(2 <= f <= 12 for _, dimensions in shapes for dimension in dimensions[:1] for f in dimension.fanouts)


def test_office_cells_counts_the_cells_of_office_table():
    from ctadesk.engine.table.generate import office_cells, office_shapes, office_table

    for _, dimensions in office_shapes(6, seed=1, min_cells=200, max_cells=5000):
        assert office_cells(dimensions) == office_table(dimensions).n_cells


def test_office_shapes_names_a_size_no_kind_reaches():
    from ctadesk.engine.table.generate import office_shapes

    with pytest.raises(ValueError, match="found no nested 2-D table of 10 to 12 cells"):
        office_shapes(1, min_cells=10, max_cells=12)
