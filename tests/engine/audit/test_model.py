"""The attacker's LP: known cells moved to the right-hand side, implied bounds on the rest."""

import numpy as np
import pytest
import scipy.sparse as sp

from ctadesk.engine.audit.model import build_model, implied_bounds

from .tables import THESIS, thesis_problem


def test_implied_bounds_are_each_relations_rest_at_its_extremes():
    # x0 + x1 - x2 = 0 with x0 in [0, 10], x1 in [2, 5], x2 in [4, 8]: x0 <= 8 - 2, x2 >= 0 + 2
    matrix = sp.csc_array(np.array([[1.0, 1.0, -1.0]]))
    lower, upper = implied_bounds(matrix, np.zeros(1), np.array([0.0, 2, 4]), np.array([10.0, 5, 8]), rounds=3)
    assert lower.tolist() == [0, 2, 4] and upper.tolist() == [6, 5, 8]


def test_an_infinite_bound_leaves_the_others_of_its_relation_unbounded_on_that_side():
    matrix = sp.csc_array(np.array([[1.0, 1.0, -1.0]]))
    lower, upper = implied_bounds(matrix, np.zeros(1), np.zeros(3), np.array([np.inf, 5, 8]), rounds=1)
    assert upper.tolist() == [8, 5, 8] and lower.tolist() == [0, 0, 0]


def test_known_cells_leave_the_lp_with_their_relations():
    # only (1,1) unknown: it stays in row 1 and column 1, every other relation has no unknown
    values = THESIS.reshape(-1)
    lower, upper = values.copy(), values.copy()
    lower[0], upper[0] = 0.0, np.inf
    model = build_model(thesis_problem(), lower, upper)
    assert model.cells.tolist() == [0] and model.n_rows == 2
    assert model.rhs * model.unit == pytest.approx([10, 10])   # 28 - 8 - 10 and 45 - 15 - 11 - 9
    assert model.outer_lower * model.unit == pytest.approx([10])
    assert model.outer_upper * model.unit == pytest.approx([10])
