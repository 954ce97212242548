import numpy as np
import pytest

from ctadesk.engine.errors import ProblemError
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.table.structure import TableStructure


def small(**changes):
    structure = TableStructure.flat(2, 2)
    values = structure.aggregate(np.array([[1, 2, 0], [3, 4, 0], [0, 0, 0]]))
    base = dict(values=values, relations=structure.relations(), lower=0, sensitive=[0],
                lower_protection=[1], upper_protection=[1], cell_label=structure.cell_label)
    base.update(changes)
    return CTAProblem(**base)


def test_problem_is_immutable():
    problem = small()
    with pytest.raises(ValueError):
        problem.values[0] = 5
    with pytest.raises(AttributeError):
        problem.values = np.zeros(9)


def test_negative_protection_level_names_the_cell():
    with pytest.raises(ProblemError, match=r"cell 0 \(R=1, C=1\): lower protection level -1"):
        small(lower_protection=[-1])


def test_bounds_that_exclude_the_value_are_rejected():
    with pytest.raises(ProblemError, match=r"cell 4 .*exclude its value 4"):
        small(upper=np.r_[np.full(4, 100), 3, np.full(4, 100)])


def test_both_safe_values_outside_bounds_is_rejected():
    with pytest.raises(ProblemError, match="both safe values 0 and 2 lie outside"):
        small(lower=np.r_[0.5, np.zeros(8)], upper=np.r_[1.5, np.full(8, 100)])


def test_bound_forces_the_sense():
    problem = small(lower_protection=[2])  # 1 - 2 < 0 = lower bound
    assert problem.forced_senses.tolist() == [1]
    assert problem.effective_senses.tolist() == [1]


def test_given_sense_against_bounds_is_rejected():
    with pytest.raises(ProblemError, match="sense 'down'"):
        small(lower_protection=[2], senses=[-1])


def test_relations_must_cover_every_cell():
    with pytest.raises(ProblemError, match="refer to 5 cells but the table has 9"):
        small(relations=np.ones((1, 5)))


def test_nan_value_is_rejected():
    values = small().values.copy()
    values[3] = np.nan
    with pytest.raises(ProblemError, match="cell 3: value is NaN"):
        small(values=values)


def test_duplicate_relation_entries_are_merged():
    problem = small(relations=np.zeros((0, 9)))
    import scipy.sparse as sp
    A = sp.csr_array((np.array([1.0, 1.0, -1.0]), (np.array([0, 0, 0]), np.array([0, 0, 2]))), shape=(1, 9))
    merged = problem.replace(relations=A, rhs=None).relations
    assert merged[0, 0] == 2.0 and merged.nnz == 2


def test_sensitive_fixed_cell_is_rejected():
    fixed = np.zeros(9, bool)
    fixed[0] = True
    with pytest.raises(ProblemError, match="is sensitive but may not change"):
        small(fixed=fixed)
