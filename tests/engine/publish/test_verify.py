import numpy as np

from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.publish.verify import relation_scale, verify
from ctadesk.engine.table.structure import TableStructure


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


def test_a_kept_relation_scale_still_checks_every_relation_at_every_verification():
    """The scale is kept per problem; a second table of the same problem that breaks relations is
    caught as the first was, and a problem with other values is measured in its own scale."""
    original = problem()
    adjusted = original.values.copy()
    adjusted[[0, 2, 6, 8]] += 5                     # the sensitive cell up, its row, column, grand total
    assert verify(original, adjusted).ok
    broken = adjusted.copy()
    broken[4] += 1                                  # an inner cell: its row and its column break
    assert verify(original, broken).counts["relation"] == 2
    assert relation_scale(original, 1.0) is not relation_scale(original, 1.0)      # the public one: new
    larger = original.replace(values=original.values * 1000, rhs=original.rhs * 1000,
                              lower_protection=[3000], upper_protection=[5000])
    moved = larger.values.copy()
    moved[4] += 1e-3                                # 1e-8 of the row's 7e4 and the column's 6e4: caught
    assert verify(larger, moved).counts["relation"] == 2
    moved[4] = larger.values[4] + 1e-6              # 1e-11 of them: within RTOL
    assert verify(larger, moved).counts["relation"] == 0
