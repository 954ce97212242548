import numpy as np

from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.senses import ordering_senses


def problem(values, senses=None, upper=None):
    n = len(values)
    return CTAProblem(values=values, relations=np.zeros((0, n)), sensitive=range(n),
                      lower_protection=np.ones(n), upper_protection=np.ones(n), senses=senses, upper=upper)


def test_largest_goes_up_then_directions_alternate_by_value():
    senses = ordering_senses(problem([5.0, 50.0, 20.0, 10.0]))
    # by value: 50 up, 20 down, 10 up, 5 down
    np.testing.assert_array_equal(senses, [-1, 1, -1, 1])


def test_given_and_forced_senses_are_kept():
    # cell 0 given down; cell 1 (largest) cannot go up past its upper bound 50
    senses = ordering_senses(problem([40.0, 50.0, 20.0, 10.0], senses=[-1, 0, 0, 0],
                                     upper=[np.inf, 50.0, np.inf, np.inf]))
    assert senses[0] == -1 and senses[1] == -1
    np.testing.assert_array_equal(senses[2:], [1, -1])
