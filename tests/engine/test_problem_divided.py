"""CTAProblem.divided (a restate by powers of two validated by the checks it can change) against
replace (every check of the fields it changes), and the effective senses kept per problem."""

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from ctadesk.engine.errors import ProblemError
from ctadesk.engine.problem import NO_BOUND, SENSE_DOWN, SENSE_FREE, SENSE_UP, CTAProblem

N = 6
SENSITIVE = [0, 3, 4]
#: magnitudes about the safe values' floor of 1, and large ones a division may carry past NO_BOUND
#: or overflow
magnitudes = st.sampled_from([0.0, 1e-300, 0.4, 0.999999999, 1.0, 1.000000001, 2.5, 3.0, 7e4, 1e19, 3e19,
                              9.9e19, 1e300, 1.7e308])
signed = st.builds(lambda m, negative: -m if negative else m, magnitudes, st.booleans())
#: a bound's distance from its value: none, NO_BOUND's neighbourhood, or a magnitude
gaps = st.one_of(magnitudes, st.sampled_from([np.inf, NO_BOUND, 1e21]))


def _problem(values, lower_gap, upper_gap, levels, weights, fixed, senses) -> CTAProblem:
    relations = np.array([[1.0, 1.0, -1.0, 0, 0, 0], [0, 0, 0, 1.0, 1.0, -1.0], [0, 0, 0, 0, 0, 0]])
    with np.errstate(over="ignore", invalid="ignore"):
        lower, upper = values - lower_gap, values + upper_gap
        rhs = relations @ values
    held = fixed.copy()
    held[SENSITIVE] = False
    return CTAProblem(values=values, relations=relations, rhs=np.where(np.isfinite(rhs), rhs, 0.0), lower=lower,
                      upper=upper, weights=weights, sensitive=SENSITIVE, lower_protection=levels[:3],
                      upper_protection=levels[3:], fixed=held, senses=senses)


@settings(max_examples=300, deadline=None)
@given(values=arrays(float, N, elements=signed), lower_gap=arrays(float, N, elements=gaps),
       upper_gap=arrays(float, N, elements=gaps), levels=arrays(float, 6, elements=magnitudes),
       weights=arrays(float, N, elements=magnitudes), fixed=arrays(bool, N),
       senses=arrays(np.int8, 3, elements=st.sampled_from([SENSE_DOWN, SENSE_FREE, SENSE_UP])),
       shift=st.integers(-1000, 1000), weight_shift=st.integers(-40, 40), power=st.booleans())
def test_divided_is_replace_with_the_quotients(values, lower_gap, upper_gap, levels, weights, fixed, senses,
                                               shift, weight_shift, power):
    """Equal fields and fits where replace accepts, the same message where it refuses; units that
    are no powers of two too (then divided is replace)."""
    try:
        problem = _problem(values, lower_gap, upper_gap, levels, weights, fixed, senses)
    except ProblemError:
        assume(False)
        raise
    unit = 2.0 ** shift if power else 3.0 * 2.0 ** (shift // 4)
    weight = 2.0 ** weight_shift
    assert problem.effective_senses.shape == (3,)          # kept for the problem, not for the quotient
    assert problem.free_senses == np.count_nonzero(problem.effective_senses == SENSE_FREE)
    with np.errstate(all="ignore"):
        try:
            expected = problem.replace(values=problem.values / unit, rhs=problem.rhs / unit,
                                       lower=problem.lower / unit, upper=problem.upper / unit,
                                       lower_protection=problem.lower_protection / unit,
                                       upper_protection=problem.upper_protection / unit,
                                       weights=problem.weights / weight)
        except ProblemError as refused:
            with pytest.raises(ProblemError) as raised:
                problem.divided(unit, weight)
            assert str(raised.value) == str(refused)
            return
        divided = problem.divided(unit, weight)
    for name in ("values", "rhs", "lower", "upper", "weights", "sensitive", "lower_protection",
                 "upper_protection", "fixed", "senses"):
        ours, theirs = getattr(divided, name), getattr(expected, name)
        assert ours.dtype == theirs.dtype and np.array_equal(ours, theirs), name
        assert not ours.flags.writeable, name
    assert divided.relations is problem.relations
    for ours, theirs in zip(divided.safe_value_fits(), expected.safe_value_fits(), strict=True):
        assert np.array_equal(ours, theirs) and not ours.flags.writeable
    assert np.array_equal(divided.effective_senses, expected.effective_senses)
    assert divided.free_senses == expected.free_senses == np.count_nonzero(expected.effective_senses == SENSE_FREE)
    assert np.array_equal(problem.values, values)               # the original untouched


def test_a_fit_that_the_floor_of_one_decides_is_worked_out_again():
    """A safe value fits within 1e-9 max(1, |a|) of its bound: in units where |a| < 1 the floor of 1
    is the larger and does not scale, so a division can make a fit or unmake one."""
    near = CTAProblem(values=[1.0, 0.0], relations=np.zeros((0, 2)), upper=[2 - 2e-9, 10.0],
                      sensitive=[0], lower_protection=[1.0], upper_protection=[1.0])
    assert near.effective_senses.tolist() == [SENSE_DOWN]            # 2 lies 2e-9 above the bound
    whole = near.replace(values=[0.25, 0.0], upper=[0.5 - 5e-10, 2.5], lower_protection=[0.25],
                         upper_protection=[0.25])
    assert near.divided(4.0, 1.0).effective_senses.tolist() == whole.effective_senses.tolist() == [SENSE_FREE]
    with pytest.raises(ProblemError, match="the given sense 'up' puts it outside its bounds"):
        near.replace(upper=[2 - 2e-9, 10.0]).with_senses([SENSE_UP])
    tight = CTAProblem(values=[0.25, 0.0], relations=np.zeros((0, 2)), lower=[5e-10, -1.0],
                       upper=[0.5 - 5e-10, 1.0], sensitive=[0], lower_protection=[0.25], upper_protection=[0.25])
    with pytest.raises(ProblemError, match="both safe values 0 and 2 lie outside its bounds"):
        tight.divided(0.25, 1.0)


def test_a_bound_carried_past_no_bound_is_none_and_a_fixed_cell_keeps_its_value():
    problem = CTAProblem(values=[1e19, 0.0], relations=np.zeros((0, 2)), lower=[-5e19, -1.0],
                         upper=[5e19, 1.0], fixed=[True, False])
    divided = problem.divided(0.25, 1.0)
    assert divided.lower[0] == divided.upper[0] == 4e19          # fixed: its value, beyond NO_BOUND
    whole = problem.replace(values=problem.values / 0.25, lower=problem.lower / 0.25, upper=problem.upper / 0.25)
    assert np.array_equal(whole.lower, divided.lower) and np.array_equal(whole.upper, divided.upper)
    free = CTAProblem(values=[1e19, 0.0], relations=np.zeros((0, 2)), lower=[-5e19, -1.0],
                      upper=[5e19, 1.0]).divided(0.25, 1.0)
    assert free.lower[0] == -np.inf and free.upper[0] == np.inf


def test_effective_senses_are_those_of_the_senses_and_bounds_after_every_change():
    problem = CTAProblem(values=[5.0, 5.0, 10.0], relations=[[1.0, 1.0, -1.0]], upper=[20.0, 5.5, 100.0],
                         sensitive=[0, 1], lower_protection=[1.0, 1.0], upper_protection=[1.0, 1.0])
    assert problem.effective_senses.tolist() == [SENSE_FREE, SENSE_DOWN]
    problem.effective_senses[0] = SENSE_UP                      # a copy: the kept one is unchanged
    assert problem.effective_senses.tolist() == [SENSE_FREE, SENSE_DOWN]
    assert problem.with_senses([SENSE_UP, SENSE_DOWN]).effective_senses.tolist() == [SENSE_UP, SENSE_DOWN]
    assert problem.replace(senses=[SENSE_DOWN, 0]).effective_senses.tolist() == [SENSE_DOWN, SENSE_DOWN]
    assert problem.replace(upper=[20.0, 50.0, 100.0]).effective_senses.tolist() == [SENSE_FREE, SENSE_FREE]
    assert problem.replace(upper=[5.5, 50.0, 100.0]).effective_senses.tolist() == [SENSE_DOWN, SENSE_FREE]
    assert problem.divided(2.0, 1.0).effective_senses.tolist() == [SENSE_FREE, SENSE_DOWN]
    assert problem.effective_senses.tolist() == [SENSE_FREE, SENSE_DOWN]


def test_free_senses_are_counted_again_after_every_change():
    """free_senses, kept with effective_senses, is dropped with it by replace and divided."""
    problem = CTAProblem(values=[5.0, 5.0, 10.0], relations=[[1.0, 1.0, -1.0]], upper=[20.0, 5.5, 100.0],
                         sensitive=[0, 1], lower_protection=[1.0, 1.0], upper_protection=[1.0, 1.0])
    assert problem.free_senses == 1 and problem.free_senses == 1           # worked out, then kept
    assert problem.with_senses([SENSE_UP, SENSE_DOWN]).free_senses == 0
    assert problem.replace(upper=[20.0, 50.0, 100.0]).free_senses == 2
    near = CTAProblem(values=[1.0, 0.0], relations=np.zeros((0, 2)), upper=[2 - 2e-9, 10.0],
                      sensitive=[0], lower_protection=[1.0], upper_protection=[1.0])
    assert near.free_senses == 0 and near.divided(4.0, 1.0).free_senses == 1     # the floor of one decides


@settings(max_examples=300, deadline=None)
@given(a=st.floats(-1e6, 1e6), level=st.floats(0.0, 1e6), slack=st.floats(0.0, 1.0), tiny=st.booleans(),
       shift=st.integers(0, 1023), weight_shift=st.integers(-40, 40))
def test_safe_values_that_fit_both_ways_still_do_divided_by_a_unit_of_one_or_more(a, level, slack, tiny, shift,
                                                                                  weight_shift):
    """divided keeps the fits where every safe value fits both ways and the unit is at least 1: the
    same fits replace works out, with safe values up to the whole tolerance beyond a bound (the
    floor of 1 deciding or not) and quotients down to subnormal numbers (tiny: magnitudes of 1e-300)."""
    scale = 1e-300 if tiny else 1.0
    a, level = a * scale, level * scale
    tolerance = 1e-9 * max(1.0, abs(a))
    problem = CTAProblem(values=[a, 0.0], relations=np.zeros((0, 2)), sensitive=[0], lower_protection=[level],
                         upper_protection=[level], lower=[min(a, a - level + slack * tolerance), -1.0],
                         upper=[max(a, a + level - slack * tolerance), 1.0])
    assume(problem.safe_value_fits()[0].all() and problem.safe_value_fits()[1].all())
    unit, weight = 2.0 ** shift, 2.0 ** weight_shift
    divided = problem.divided(unit, weight)
    expected = problem.replace(values=problem.values / unit, lower=problem.lower / unit, upper=problem.upper / unit,
                               lower_protection=problem.lower_protection / unit,
                               upper_protection=problem.upper_protection / unit, weights=problem.weights / weight)
    for ours, theirs in zip(divided.safe_value_fits(), expected.safe_value_fits(), strict=True):
        assert np.array_equal(ours, theirs)
