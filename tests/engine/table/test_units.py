import gc
import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.table import units
from ctadesk.engine.table.units import table_unit, weight_unit

entries = st.sampled_from([0.0, 0.0, 1e-3, -0.75, 3.0, 1e6, -2.5e9])


def nearest_power_of_two(magnitudes: np.ndarray) -> float:
    positive = np.abs(magnitudes)[np.abs(magnitudes) > 0]
    return 2.0 ** round(math.log2(np.median(positive))) if positive.size else 1.0


@settings(max_examples=80, deadline=None)
@given(values=arrays(float, 6, elements=entries), levels=arrays(float, 2, elements=st.sampled_from([0.0, 0.5, 40.0])),
       weights=arrays(float, 6, elements=st.sampled_from([0.0, 0.25, 1.0, 3e-6])))
def test_units_are_the_powers_of_two_nearest_the_medians_asked_twice_or_after_a_replace(values, levels, weights):
    problem = CTAProblem(values=values, relations=np.zeros((0, 6)), sensitive=[0],
                         lower_protection=levels[:1], upper_protection=levels[1:], weights=weights)
    expected = nearest_power_of_two(values if np.any(values) else levels)
    assert table_unit(problem) == table_unit(problem) == expected
    assert weight_unit(problem) == weight_unit(problem) == nearest_power_of_two(weights)
    moved = problem.replace(values=values * 4, lower_protection=levels[:1] * 4, upper_protection=levels[1:] * 4)
    assert table_unit(moved) == (4 * expected if np.any(values) or np.any(levels) else 1.0)
    assert table_unit(moved.replace(weights=weights * 2)) == table_unit(moved)
    assert weight_unit(moved.replace(weights=weights * 2)) == nearest_power_of_two(weights * 2)


def test_a_median_is_kept_while_its_read_only_array_lives_and_only_then():
    values = np.array([1.0, 2.0, 8.0])
    assert units._median_magnitude(values) == 2.0
    assert id(values) not in units._MEDIANS._kept       # writeable: it could change
    values[:] = 16.0
    assert units._median_magnitude(values) == 16.0
    problem = CTAProblem(values=[1.0, 2.0, 8.0], relations=np.zeros((0, 3)))
    key = id(problem.values)
    assert table_unit(problem) == 2.0 and units._MEDIANS._kept[key][1] == 2.0
    del problem
    gc.collect()
    assert key not in units._MEDIANS._kept


@settings(max_examples=80, deadline=None)
@given(values=arrays(float, 7, elements=entries),
       weights=arrays(float, 7, elements=st.sampled_from([0.0, 0.25, 1.0, 3e-6, 7e4])),
       shift=st.integers(-60, 60), weight_shift=st.integers(-60, 60))
def test_a_restated_problem_keeps_the_medians_a_fresh_count_finds(values, weights, shift, weight_shift):
    """in_units hands the scaled problem the original's medians divided by its units: the same
    numbers np.median finds on the scaled arrays, so a verification in units takes the same unit."""
    problem = CTAProblem(values=values, relations=np.zeros((0, 7)), weights=weights)
    table_unit(problem), weight_unit(problem)                     # the originals' medians kept
    unit, weight = 2.0 ** shift, 2.0 ** weight_shift
    scaled = units.in_units(problem, unit, weight)
    if unit == weight == 1.0:
        return
    for kept in (scaled.values, scaled.weights):
        assert id(kept) in units._MEDIANS._kept
        assert units._MEDIANS._kept[id(kept)][1] == units._median_magnitude(kept.copy())     # a writeable copy: counted


@settings(max_examples=200, deadline=None)
@given(magnitudes=arrays(float, st.integers(1, 40), elements=st.one_of(
    st.floats(min_value=1e-300, max_value=1e300), st.sampled_from([5e-324, 1.7e308, 1.0, 1.0000000000000002]))))
def test_the_median_is_numpys_to_the_last_bit(magnitudes):
    assert units._median(magnitudes) == _numpys_median(magnitudes)


def _numpys_median(magnitudes: np.ndarray) -> float:
    """np.median, where it is finite; where the middle two's sum overflows (numpy's median is then
    inf), their halves' sum: a table of such values has a finite unit."""
    ordered = np.sort(magnitudes)
    middle = ordered.size // 2
    if ordered.size % 2 == 0 and math.isinf(float(ordered[middle - 1]) + float(ordered[middle])):
        return float(ordered[middle - 1]) / 2 + float(ordered[middle]) / 2
    return float(np.median(magnitudes))


def test_a_table_of_values_near_the_largest_float_has_a_unit():
    """Two values near 1.7e308 overflowed the median's sum, and a median above 2**1023.5 the unit's
    power of two (OverflowError from math.ldexp): both now end at the largest power of two."""
    assert units._median(np.array([1.7e308, 1.7e308])) == 1.7e308
    assert units._power_of_two(1.7e308) == 2.0 ** 1023
    assert 2 ** -0.5 <= units._power_of_two(1e-320) / 1e-320 <= 2 ** 0.5     # a subnormal one too


@settings(max_examples=200, deadline=None)
@given(values=arrays(float, st.integers(1, 40), elements=st.one_of(
    st.floats(min_value=-1e300, max_value=1e300), st.sampled_from([0.0, -0.0, 5e-324, -1.7e308, 1.0]))))
def test_the_median_magnitude_is_numpys_median_of_the_nonzero_magnitudes(values):
    """_median_magnitude partitions all |entries|, its zeros first, where the nonzero ones were taken out."""
    magnitudes = np.abs(values)
    expected = _numpys_median(magnitudes[magnitudes > 0]) if np.any(magnitudes > 0) else None
    assert units._median_magnitude(values) == expected
