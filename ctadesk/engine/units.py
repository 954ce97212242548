"""Table units: the magnitude a table's typical cell has, and the problem restated in it.

Solvers work to absolute tolerances (HiGHS 1e-7, clarabel 1e-9), so a table of
values around 1e-3 or 1e9 must be solved in units where its typical cell is of
order 1 (issue 10, "Scale").  The unit is a power of two, so dividing by it and
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
    return math.ldexp(1.0, round(math.log2(float(np.median(magnitudes)))))


def in_units(problem: CTAProblem, unit: float) -> CTAProblem:
    """``problem`` with values, right-hand sides, bounds and protection levels divided by ``unit``.

    Weights are kept, so every cost of the restated problem is the original's divided by unit.
    """
    if unit == 1.0:
        return problem
    return problem.replace(values=problem.values / unit, rhs=problem.rhs / unit, lower=problem.lower / unit,
                           upper=problem.upper / unit, lower_protection=problem.lower_protection / unit,
                           upper_protection=problem.upper_protection / unit)


__all__ = ["in_units", "table_unit"]
