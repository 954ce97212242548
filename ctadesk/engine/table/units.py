"""Table units: the magnitude a table's typical cell has, and the problem restated in it.

Solvers work to absolute tolerances (HiGHS 1e-7, clarabel 1e-9), so a table of
values around 1e-3 or 1e9 must be solved in units where its typical cell is of
order 1 (issue 10, "Scale"), and its weights in units where the typical weight is.  The unit is a power of two, so dividing by it and
multiplying back are exact in floating point: a table solved in units maps back
to the same numbers.  The verifier measures its tolerances in the same unit.
"""

from __future__ import annotations

import math

import numpy as np

from ctadesk.engine.problem import CTAProblem


def table_unit(problem: CTAProblem) -> float:
    """The power of two nearest the median of the nonzero |a_i| (failing those, of the nonzero
    protection levels; failing those, 1)."""
    magnitudes = np.abs(problem.values)
    magnitudes = magnitudes[magnitudes > 0]
    if not magnitudes.size:
        levels = np.concatenate([problem.lower_protection, problem.upper_protection])
        magnitudes = levels[levels > 0]
    if not magnitudes.size:
        return 1.0
    return _power_of_two(float(np.median(magnitudes)))


def weight_unit(problem: CTAProblem) -> float:
    """The power of two nearest the median positive weight (1 when none is positive): inverse
    weights 1/a on cells of 1e6 make every cost 1e-6, below the solvers' absolute tolerances."""
    positive = problem.weights[problem.weights > 0]
    if not positive.size:
        return 1.0
    return _power_of_two(float(np.median(positive)))


def _power_of_two(value: float) -> float:
    return math.ldexp(1.0, round(math.log2(value)))


def in_units(problem: CTAProblem, unit: float, weight: float = 1.0) -> CTAProblem:
    """``problem`` with values, right-hand sides, bounds and protection levels divided by ``unit``
    and weights by ``weight``: every cost of the restated problem is the original's divided by
    unit * weight (unit squared times weight for a quadratic one)."""
    if unit == 1.0 and weight == 1.0:
        return problem
    return problem.replace(values=problem.values / unit, rhs=problem.rhs / unit, lower=problem.lower / unit,
                           upper=problem.upper / unit, lower_protection=problem.lower_protection / unit,
                           upper_protection=problem.upper_protection / unit, weights=problem.weights / weight)


__all__ = ["in_units", "table_unit", "weight_unit"]
