"""Table units: the magnitude a table's typical cell has, and the problem restated in it.

Solvers work to absolute tolerances (HiGHS 1e-7, clarabel 1e-9), so a table of
values around 1e-3 or 1e9 must be solved in units where its typical cell is of
order 1 (issue 10, "Scale"), and its weights in units where the typical weight is.
The unit is a power of two, so dividing by it and multiplying back are exact in
floating point: a table solved in units maps back to the same numbers.  The
verifier measures its tolerances in the same unit.
"""

from __future__ import annotations

import math

import numpy as np

from ctadesk.engine.array_memo import ArrayMemo
from ctadesk.engine.problem import CTAProblem


def table_unit(problem: CTAProblem) -> float:
    """The power of two nearest the median of the nonzero |a_i| (failing those, of the nonzero
    protection levels; failing those, 1)."""
    median = _median_magnitude(problem.values)
    if median is None:
        median = _median_magnitude(np.concatenate([problem.lower_protection, problem.upper_protection]))
    return 1.0 if median is None else _power_of_two(median)


def weight_unit(problem: CTAProblem) -> float:
    """The power of two nearest the median positive weight (1 when none is positive): inverse
    weights 1/a on cells of 1e6 make every cost 1e-6, below the solvers' absolute tolerances."""
    median = _median_magnitude(problem.weights)
    return 1.0 if median is None else _power_of_two(median)


#: a problem's read-only array -> the median of its nonzero magnitudes, while the array lives
_MEDIANS: ArrayMemo[float | None] = ArrayMemo()
#: a median divided by a unit between these is exact, and so kept for the scaled array (_scaled_median)
_NORMAL = float(np.finfo(float).tiny)
_LARGEST = float(np.finfo(float).max) / 2
#: the exponent of the largest power of two a float holds
MAX_EXPONENT = int(np.finfo(float).maxexp) - 1


def _median_magnitude(array: np.ndarray) -> float | None:
    """The median of the nonzero |entries| (None when there are none).  A run asks it of one
    table many times (the solve in table units, each verification: 12 ms a time on a million
    cells), so it is kept for a read-only array, such as a problem's values or weights, which a
    replace that leaves them alone shares; a writeable one could change and is worked out anew."""
    if array in _MEDIANS:
        return _MEDIANS[array]
    nonzero = int(np.count_nonzero(array))
    median = _median(np.abs(array), array.size - nonzero) if nonzero else None
    _MEDIANS.keep(array, median)
    return median


def _median(magnitudes: np.ndarray, zeros: int = 0) -> float:
    """np.median of the entries of ``magnitudes`` (finite, >= 0) after its ``zeros`` zeros (fewer
    than its entries), the same number: the middle entry, or the mean of the middle two,
    (a + b) / 2 as np.mean works it out, found by one np.partition of the whole array, whose
    zeros come first (np.median's checks and reductions took 15 of its 18 microseconds on 150
    entries, and taking the nonzero entries out two calls more).  Where a + b overflows (numpy's
    median is then inf) it is a / 2 + b / 2."""
    count = magnitudes.size - zeros
    middle = zeros + count // 2
    if count % 2:
        return float(np.partition(magnitudes, middle)[middle])
    low, high = np.partition(magnitudes, (middle - 1, middle))[middle - 1:middle + 1].tolist()
    mean = (low + high) / 2
    return mean if math.isfinite(mean) else low / 2 + high / 2    # two halves where the sum overflows


def _power_of_two(value: float) -> float:
    """The power of two nearest ``value`` (> 0), at most the largest a float holds (2**1023)."""
    return math.ldexp(1.0, min(round(math.log2(value)), MAX_EXPONENT))


def in_units(problem: CTAProblem, unit: float, weight: float = 1.0) -> CTAProblem:
    """``problem`` with values, right-hand sides, bounds and protection levels divided by ``unit``
    and weights by ``weight``: every cost of the restated problem is the original's divided by
    unit * weight (unit squared times weight for a quadratic one)."""
    if unit == 1.0 and weight == 1.0:
        return problem
    scaled = problem.divided(unit, weight)
    _scaled_median(problem.values, scaled.values, unit)
    _scaled_median(problem.weights, scaled.weights, weight)
    return scaled


def _scaled_median(array: np.ndarray, scaled: np.ndarray, unit: float) -> None:
    """Keep the median of ``scaled`` = ``array`` / ``unit`` where ``array``'s is kept: the median
    divided by the power of two ``unit``, exactly (a division by a power of two only moves the
    exponent, and the median of an even count is a mean of two entries, which moves with it) --
    every verification of a table in units asks it (on 150 cells np.median took a third of the
    verifier's time)."""
    if array not in _MEDIANS or scaled in _MEDIANS:
        return
    median = _MEDIANS[array]
    if median is not None and not _NORMAL <= median / unit <= _LARGEST:     # exact only between these
        return
    _MEDIANS.keep(scaled, None if median is None else median / unit)


__all__ = ["in_units", "table_unit", "weight_unit"]
