import numpy as np

from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.table.structure import TableStructure
from ctadesk.engine.publish.verify import verify


def problem():
    structure = TableStructure.flat(2, 2)
    values = structure.aggregate(np.array([[10, 20, 0], [30, 40, 0], [0, 0, 0]]))
    return CTAProblem(values=values, relations=structure.relations(), lower=0, sensitive=[0],
                      lower_protection=[3], upper_protection=[5])


def test_original_table_is_not_protected():
    result = verify(problem(), problem().values)
    assert not result.ok and result.counts["protection"] == 1


def test_up_adjustment_is_verified():
    x = problem().values + np.array([5, -5, 0, -5, 5, 0, 0, 0, 0])
    assert verify(problem(), x).ok


def test_non_additive_adjustment_is_caught():
    x = problem().values + np.array([5, 0, 0, 0, 0, 0, 0, 0, 0])
    found = verify(problem(), x)
    assert not found.ok and found.counts["relation"] == 2


def test_protection_missed_by_a_hair_is_caught():
    x = problem().values + np.array([4.99, -4.99, 0, -4.99, 4.99, 0, 0, 0, 0])
    assert verify(problem(), x).counts["protection"] == 1


def test_wrong_sense_is_caught():
    x = problem().values + np.array([-3, 3, 0, 3, -3, 0, 0, 0, 0])
    assert verify(problem(), x).ok
    assert verify(problem(), x, senses=np.array([1])).counts["sense"] == 1


def test_bound_violation_is_caught():
    x = problem().values + np.array([-12, 12, 0, 12, -12, 0, 0, 0, 0])
    assert verify(problem(), x).counts["bound"] == 1
