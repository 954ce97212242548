import numpy as np
import pytest

from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.table.structure import TableStructure

#: Petrenko (2017) Figure 6.1 (a): a 3 x 4 table with its margins
THESIS_TABLE = np.array([[10, 15, 11, 9, 45],
                         [8, 10, 12, 15, 45],
                         [10, 12, 11, 13, 46],
                         [28, 37, 34, 37, 136]], dtype=float)


def thesis_problem(**changes) -> CTAProblem:
    """Cells (1,1)=10 (upl 3) and (3,4)=13 (upl 5) sensitive, both up; margins fixed; cells >= 0."""
    structure = TableStructure.flat(3, 4)
    fields = {"values": THESIS_TABLE.reshape(-1), "relations": structure.relations(), "lower": 0.0,
              "fixed": ~structure.inner_mask(), "sensitive": [0, 13], "lower_protection": [0, 0],
              "upper_protection": [3, 5], "senses": [1, 1], "cell_label": structure.cell_label,
              "relation_label": structure.relation_label}
    fields.update(changes)
    return CTAProblem(**fields)


@pytest.fixture
def thesis():
    return thesis_problem()


def locked_problem() -> CTAProblem:
    """The thesis table with the rest of row 1 and its total fixed: cell (1,1) cannot move."""
    structure = TableStructure.flat(3, 4)
    fixed = ~structure.inner_mask()
    fixed[[1, 2, 3]] = True
    return thesis_problem(fixed=fixed, lower_protection=[2, 0], senses=None)
