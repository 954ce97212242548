"""Sharp bounds on cells of the full table given a release: LP (and MILP) over every
non-negative table that reproduces the released marginals.

Karr, Dobra & Sanil (undated), ("OTR components"): UB(C, R) and LB(C, R) are the largest and smallest values cell C
can take in a table consistent with release R.  The linear-programming bounds range over real
tables, the integer bounds over tables of whole counts (integer bounds lie inside LP bounds).

One HiGHS model is passed once (column-compressed arrays, ``passModel``); each bound changes
two objective costs (the previous cell's back to 0, this cell's to +-1) and re-solves from the
last optimal basis.  Presolve is off (it would discard the basis).  The marginal equations of
the frontier may be added to and dropped from the model (``add_subtables``, ``drop_rows``), so
a search that tries one sub-table after another keeps its basis too.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Sequence

import highspy
import numpy as np

from ctadesk.engine.errors import SolverError
from ctadesk.engine.releases.marginals import basis_constraints, marginal_constraints
from ctadesk.engine.releases.release import Release
from ctadesk.engine.releases.table import CountTable, Subtable
from ctadesk.engine.solvers.highs import ColumnMatrix, LinearModel, pass_model
from ctadesk.engine.solvers.highs_process import new_highs

#: HiGHS simplex_strategy: 4 primal (from the last basis, a changed objective leaves it primal
#: feasible; faster than 1, the dual simplex: `.venv/bin/python benchmarks/releases.py` prints both)
SIMPLEX_STRATEGY = 4
#: bounds this close to a whole number are that number (the LP is solved to 1e-7 feasibility)
SNAP = 1e-6


@dataclasses.dataclass(frozen=True, eq=False)
class CellBounds:
    """lower, upper  bounds of the full-table cells ``cells`` (flat C-order indices); upper is
    inf when the release does not bound a cell (nothing released)."""

    cells: np.ndarray
    lower: np.ndarray
    upper: np.ndarray

    @property
    def width(self) -> np.ndarray:
        """UB(C, R) - LB(C, R) per cell (Karr, Dobra & Sanil (undated), DR)."""
        return self.upper - self.lower


def _snap(values: np.ndarray) -> np.ndarray:
    snapped = np.array(values, dtype=float)
    finite = np.isfinite(snapped)
    whole = np.rint(snapped[finite])
    snapped[finite] = np.where(np.abs(snapped[finite] - whole) <= SNAP, whole, snapped[finite])
    return snapped


class BoundsModel:
    """The LP (``integer`` False) or MILP of the tables consistent with ``release`` over ``table``."""

    def __init__(self, table: CountTable, release: Release, integer: bool = False) -> None:
        self.table = table
        self.integer = integer
        self.highs = new_highs()
        for name, value in (("output_flag", False), ("presolve", "off" if not integer else "choose"),
                            ("simplex_strategy", SIMPLEX_STRATEGY), ("mip_rel_gap", 0.0)):
            self.highs.setOptionValue(name, value)
        constraints = marginal_constraints(table, release)
        n_cells = table.counts.size
        model = LinearModel(np.zeros(n_cells), np.zeros(n_cells), np.full(n_cells, np.inf),
                            ColumnMatrix.from_csc(constraints.matrix.tocsc()), constraints.rhs, constraints.rhs,
                            integer_columns=np.arange(n_cells) if integer else np.zeros(0, np.int64))
        if not pass_model(self.highs, model):
            raise SolverError("HiGHS refused the model of the release")
        self._costed: int | None = None
        self.runs = 0

    @property
    def n_rows(self) -> int:
        return self.highs.getNumRow()

    def add_subtables(self, subtables: Iterable[Subtable]) -> None:
        """Add the equations of sub-tables released on top of the model's (their rows go last;
        give only sub-tables not released yet, see marginals.basis_constraints)."""
        rows = basis_constraints(self.table, subtables)
        matrix = rows.matrix
        self.highs.addRows(matrix.shape[0], rows.rhs, rows.rhs, int(matrix.nnz), matrix.indptr.astype(np.int32),
                           matrix.indices.astype(np.int32), matrix.data.astype(np.float64))

    def drop_rows(self, first: int) -> None:
        """Remove the rows from ``first`` on (undo add_subtables)."""
        last = self.n_rows
        if last > first:
            self.highs.deleteRows(last - first, np.arange(first, last, dtype=np.int32))

    def end(self, cell: int, side: int) -> float:
        """min x_cell (side -1) or max x_cell (side +1); +-inf when unbounded."""
        columns = [cell] if self._costed in (None, cell) else [self._costed, cell]
        costs = [-float(side)] if len(columns) == 1 else [0.0, -float(side)]
        self.highs.changeColsCost(len(columns), np.array(columns, np.int32), np.array(costs))
        self._costed = cell
        self.highs.run()
        self.runs += 1
        status = self.highs.getModelStatus()
        if status == highspy.HighsModelStatus.kOptimal:
            return -float(side) * self.highs.getInfo().objective_function_value
        if status in (highspy.HighsModelStatus.kUnbounded, highspy.HighsModelStatus.kUnboundedOrInfeasible):
            return float(side) * math.inf
        raise SolverError(f"HiGHS ended with '{self.highs.modelStatusToString(status)}' bounding cell {cell}")

    def bounds(self, cells: Iterable[int] | None = None) -> CellBounds:
        """LB and UB of every cell of ``cells`` (all cells when None)."""
        cells = np.arange(self.table.counts.size) if cells is None else np.asarray(list(cells), np.int64)
        lower = np.array([self.end(int(c), -1) for c in cells], dtype=float)
        upper = np.array([self.end(int(c), +1) for c in cells], dtype=float)
        return CellBounds(cells, _snap(lower), _snap(upper))

    def first_narrower(self, cells: Sequence[int] | np.ndarray, alpha: float) -> int | None:
        """The first cell of ``cells`` whose bound width is below ``alpha``, or None when every
        width is at least ``alpha`` (DR(R) >= alpha).

        Every table the solver returns is consistent with the release, and so is the table
        itself: the spread of a cell over the tables seen so far is a width it has at least.
        A cell whose spread already reaches alpha needs no LP; one whose upper bound and
        smallest value seen reach it needs only one."""
        seen_low = self.table.counts.reshape(-1).astype(float)
        seen_high = seen_low.copy()

        def solve(cell: int, side: int) -> float:
            value = self.end(cell, side)
            if math.isfinite(value):
                solution = np.asarray(self.highs.getSolution().col_value)
                np.minimum(seen_low, solution, out=seen_low)
                np.maximum(seen_high, solution, out=seen_high)
            return float(_snap(np.array([value]))[0])

        for cell in (int(c) for c in cells):
            if seen_high[cell] - seen_low[cell] >= alpha:
                continue
            upper = solve(cell, +1)
            if upper - seen_low[cell] >= alpha:
                continue
            if upper - solve(cell, -1) < alpha:
                return cell
        return None


def lp_bounds(table: CountTable, release: Release, cells: Iterable[int] | None = None,
              integer: bool = False) -> CellBounds:
    """Sharp LP bounds (or integer bounds, ``integer``) on ``cells`` (all when None) given ``release``."""
    return BoundsModel(table, release, integer).bounds(cells)
