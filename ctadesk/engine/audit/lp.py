"""The attacker's LP in HiGHS: one model passed once, re-solved with changed objectives.

``IntervalLP`` gives one interval end per run: it changes two costs (``changeColsCost``: the
previous cell's back to 0, this cell's to +1 for the lower end or -1 for the upper) and runs the
simplex from the last optimal basis, which stays primal feasible under a change of objective.
The primal simplex from that basis needs a few dozen iterations per end at most, where the dual
simplex needs hundreds to thousands (the changed costs leave the basis dual infeasible), so the
primal simplex is used.  Presolve is off: it would discard the basis.  Every run costs HiGHS
work in proportion to the whole model, however few its iterations, which is why ends are
settled without LPs where possible (ends.py); ``.venv/bin/python benchmarks/audit.py --shape
300x350`` prints the audit's seconds and the LPs it ran.

``BatchLP`` optimises the sum over a batch of cells with HiGHS's interior point method without
crossover, several times faster than the simplex on the same batch:
where the sum of the batch's outer bounds (model.py) is attained, every cell of the batch is at
its bound in every optimal table, interior or not, so no vertex is needed (ends.py).
"""

from __future__ import annotations

import math

import highspy
import numpy as np

from ctadesk.engine.audit.model import AttackerModel
from ctadesk.engine.errors import SolverError
from ctadesk.engine.solvers.highs import ColumnMatrix, LinearModel, pass_model
from ctadesk.engine.solvers.highs_process import new_highs

#: HiGHS's simplex_strategy for the primal simplex
PRIMAL_SIMPLEX = 4
#: seconds one run may take (a backstop; an end takes milliseconds, a batch about a second).
#: HiGHS's time_limit counts the object's whole run time, so each run gets its own deadline
RUN_SECONDS = 600.0


def _highs(model: AttackerModel, settings: dict[str, bool | float | str]) -> highspy.Highs:
    """A quiet HiGHS holding the attacker's LP with a zero objective."""
    highs = new_highs()
    for name, value in {"output_flag": False, "presolve": "off", **settings}.items():
        highs.setOptionValue(name, value)
    lp = LinearModel(np.zeros(model.n_columns), model.lower, model.upper, ColumnMatrix.from_csc(model.matrix),
                     model.rhs, model.rhs)
    if not pass_model(highs, lp):
        raise SolverError("HiGHS refused the attacker's LP")
    return highs


class IntervalLP:
    """``end(column, side)``: one interval end by a warm-started primal simplex.

    warm_start False clears the basis before every run (for the differential tests).
    """

    def __init__(self, model: AttackerModel, warm_start: bool = True) -> None:
        self.warm_start = warm_start
        self.highs = _highs(model, {"simplex_strategy": PRIMAL_SIMPLEX})
        self._costed: int | None = None
        self.runs = 0

    def end(self, column: int, side: int) -> float:
        """min a_column (side -1) or max a_column (side +1) in table units; +-inf when unbounded."""
        columns = [column] if self._costed in (None, column) else [self._costed, column]
        costs = [-float(side)] if len(columns) == 1 else [0.0, -float(side)]
        self.highs.changeColsCost(len(columns), np.array(columns, np.int32), np.array(costs))
        self._costed = column
        if not self.warm_start:
            self.highs.clearSolver()
        _run(self.highs)
        self.runs += 1
        status = self.highs.getModelStatus()
        if status == highspy.HighsModelStatus.kOptimal:
            return -float(side) * self.highs.getInfo().objective_function_value
        if status == highspy.HighsModelStatus.kUnbounded:
            return float(side) * math.inf
        raise SolverError(f"HiGHS ended with '{self.highs.modelStatusToString(status)}' on an interval end")

    def solution(self) -> np.ndarray:
        """The values of the last optimal table (all columns)."""
        return _values(self.highs)


class BatchLP:
    """``table(columns, side)``: an optimal table for the sum over ``columns`` (all on one side),
    or None when that sum is unbounded or HiGHS does not finish."""

    def __init__(self, model: AttackerModel) -> None:
        self.highs = _highs(model, {"solver": "ipm", "run_crossover": "off"})
        self._costed = np.zeros(0, np.int32)
        self.runs = 0

    def table(self, columns: np.ndarray, side: int) -> np.ndarray | None:
        columns = np.asarray(columns, np.int32)
        self.highs.changeColsCost(self._costed.size, self._costed, np.zeros(self._costed.size))
        self.highs.changeColsCost(columns.size, columns, np.full(columns.size, -float(side)))
        self._costed = columns
        _run(self.highs)
        self.runs += 1
        if self.highs.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            return None
        return _values(self.highs)


def _run(highs: highspy.Highs) -> None:
    highs.setOptionValue("time_limit", highs.getRunTime() + RUN_SECONDS)
    highs.run()


def _values(highs: highspy.Highs) -> np.ndarray:
    return np.asarray(highs.getSolution().col_value, dtype=float)
