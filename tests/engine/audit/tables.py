"""Small tables of the audit tests, with their hand-computed facts in the tests that use them."""

from __future__ import annotations

import numpy as np

from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.table.structure import TableStructure

#: Petrenko (2017) Figure 6.1 (a), the thesis 3 x 4 example with margins
THESIS = np.array([[10, 15, 11, 9, 45],
                   [8, 10, 12, 15, 45],
                   [10, 12, 11, 13, 46],
                   [28, 37, 34, 37, 136]], dtype=float)
#: its L1 CTA release, Figure 6.1 (b): (1,1) up by 3, (3,4) up by 5, totals unchanged
THESIS_L1 = np.array([[13, 15, 11, 6, 45],
                      [10, 10, 12, 13, 45],
                      [5, 12, 11, 18, 46],
                      [28, 37, 34, 37, 136]], dtype=float)
#: a 3 x 3 table with margins in the style of the tau-argus manual's suppression examples
MANUAL = np.array([[20, 50, 10, 80],
                   [8, 19, 22, 49],
                   [17, 32, 12, 61],
                   [45, 101, 44, 190]], dtype=float)


def thesis_problem(**changes) -> CTAProblem:
    """Cells (1,1) = 10 and (3,4) = 13 sensitive with levels 3 and 5 both ways; margins fixed; cells >= 0."""
    structure = TableStructure.flat(3, 4)
    fields = {"values": THESIS.reshape(-1), "relations": structure.relations(), "lower": 0.0,
              "fixed": ~structure.inner_mask(), "sensitive": [0, 13], "lower_protection": [3, 5],
              "upper_protection": [3, 5], "cell_label": structure.cell_label}
    fields.update(changes)
    return CTAProblem(**fields)


def manual_problem(levels: float = 5.0) -> CTAProblem:
    """The 3 x 3 table, cell (I, A) = 20 sensitive with protection ``levels`` both ways, cells >= 0."""
    structure = TableStructure.flat(3, 3)
    return CTAProblem(MANUAL.reshape(-1), structure.relations(), lower=0.0, sensitive=[0],
                      lower_protection=[levels], upper_protection=[levels], cell_label=structure.cell_label)


def missing(shape: tuple[int, int], *cells: tuple[int, int]) -> np.ndarray:
    """A mask of the given (row, column) cells of a table of ``shape`` (margins included)."""
    mask = np.zeros(shape, bool)
    for cell in cells:
        mask[cell] = True
    return mask.reshape(-1)
