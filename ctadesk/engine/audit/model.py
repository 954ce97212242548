"""The attacker's linear program: min / max a_k subject to A a = b and lower <= a <= upper.

The tau-argus audit (Petrenko 2017, §3.1: "the bounds of the feasibility intervals subject to a set
of table relations") solved in the form that makes each of its many LPs cheap:

* cells the attacker knows exactly (a published cell of a suppressed release, a fixed cell)
  are no unknowns: they move to the right-hand side, and relations left without unknowns go;
* the LP is restated in table units (ctadesk.engine.table.units: a power of two, so exact), since
  HiGHS works to absolute tolerances;
* bound propagation over the relations (the "star" of each cell: a relation's right-hand side
  less the extremes of its other cells) gives an outer bound on each interval end; where a
  table the attacker cannot rule out attains it, the end is known without an LP (ends.py).
  The bounds are those of solvers/propagation.py without its safety slack (1e-9 of a
  relation's terms, 1.5e-6 table units on a 1000 x 1000 table's rows), since they are
  compared with attained values to 1e-6 table units.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import scipy.sparse as sp

from ctadesk.engine.errors import ProblemError
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.publish.verify import relation_scale
from ctadesk.engine.solvers.propagation import implied_bounds
from ctadesk.engine.table.units import table_unit

#: rounds of bound propagation for the outer bounds (each one O(nonzeros))
OUTER_ROUNDS = 3
#: the original table must satisfy its relations to this share of each relation's largest term
RELATION_RTOL = 1e-9


@dataclasses.dataclass(frozen=True, eq=False)
class AttackerModel:
    """The attacker's LP over the unknown cells, in table units.

    cells        the cell of each column (n_columns,)
    matrix       relations over the unknowns, CSC (rows without unknowns dropped)
    rhs          right-hand sides once the known cells are moved over
    lower/upper  the attacker's box
    outer_lower, outer_upper   the box tightened by propagation: bounds on every interval end
    truth        the original values of the unknowns: one table the attacker cannot rule out
    unit         the table unit the values are divided by
    """

    cells: np.ndarray
    matrix: sp.csc_array
    rhs: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    truth: np.ndarray
    unit: float
    outer_lower: np.ndarray
    outer_upper: np.ndarray

    @property
    def n_columns(self) -> int:
        return int(self.cells.size)

    @property
    def n_rows(self) -> int:
        return int(self.matrix.shape[0])


def build_model(problem: CTAProblem, lower: np.ndarray, upper: np.ndarray,
                outer_rounds: int = OUTER_ROUNDS) -> AttackerModel:
    """The attacker's LP for the box lower <= a <= upper (attacker_box) on problem's relations."""
    _check_additive(problem)
    a = problem.values
    unit = table_unit(problem)
    unknown = lower < upper
    relations = problem.relations
    rhs = problem.rhs - relations @ np.where(unknown, 0.0, a)
    matrix = sp.csc_array(relations[:, np.flatnonzero(unknown)])
    used = np.diff(matrix.tocsr().indptr) > 0
    matrix = sp.csc_array(matrix[np.flatnonzero(used)])
    matrix.sort_indices()
    cells = np.flatnonzero(unknown)
    low, high, truth = lower[cells] / unit, upper[cells] / unit, a[cells] / unit
    rhs = rhs[used] / unit
    outer_low, outer_high = implied_bounds(matrix, rhs, low, high, outer_rounds)
    return AttackerModel(cells, matrix, rhs, low, high, truth, unit, outer_low, outer_high)


def _check_additive(problem: CTAProblem) -> None:
    """ProblemError naming the first relation the original table does not satisfy: the attacker's
    LP assumes the original adds up."""
    residual = problem.relations @ problem.values - problem.rhs
    broken = np.flatnonzero(np.abs(residual) > RELATION_RTOL * relation_scale(problem, table_unit(problem)))
    if broken.size:
        r = int(broken[0])
        raise ProblemError(f"{problem.describe_relation(r)} does not add up in the original table "
                           f"(off by {residual[r]:.6g}); an audit needs an additive table")
