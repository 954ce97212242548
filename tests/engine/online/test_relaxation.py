"""What a second-stage table gives up, and the sides of its sensitive cells."""

import numpy as np

from ctadesk.engine.online import Relaxation, crossed_sides, pinned
from ctadesk.engine.problem import CTAProblem

#: cells A, B and their total T = A + B, A sensitive (up, level 2)
ABT = CTAProblem(values=[10.0, 5.0, 15.0], relations=[[1.0, 1.0, -1.0]], lower=0.0, sensitive=[0],
                 lower_protection=[2.0], upper_protection=[2.0], senses=[1])


def test_a_protected_table_gives_nothing_up():
    relaxation = Relaxation.of(ABT, np.array([1]), np.array([12.0, 5.0, 17.0]))
    assert not relaxation and not relaxation.broken and relaxation.lines() == []


def test_a_short_level_a_broken_relation_and_a_changed_value_are_each_reported():
    problem = pinned(ABT, {1: 4.0})
    relaxation = Relaxation.of(problem, np.array([1]), np.array([11.0, 5.0, 17.0]), ABT.n_relations)
    assert [s.short for s in relaxation.protection] == [1.0]
    assert [amount for _, amount in relaxation.relations] == [-1.0]
    assert [amount for _, amount in relaxation.published] == [1.0]
    assert relaxation.broken and len(relaxation.lines()) == 3


def test_only_a_cell_past_its_true_value_on_the_other_side_has_crossed():
    assert crossed_sides(ABT, np.array([1]), np.array([11.0, 5.0, 16.0])).size == 0    # short, same side
    assert crossed_sides(ABT, np.array([1]), np.array([10.0, 5.0, 15.0])).size == 0    # at its true value
    assert crossed_sides(ABT, np.array([1]), np.array([9.0, 5.0, 14.0])).tolist() == [0]
    assert crossed_sides(ABT, np.array([-1]), np.array([12.0, 5.0, 17.0])).tolist() == [0]
