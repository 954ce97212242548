"""A fixed-sense run that finds no table names the cells whose senses conflict and offers, in one
click, optimal senses (the solver chooses the directions) and a new run."""

import numpy as np

from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.table.structure import TableStructure
from ctadesk.io.project import Project


def _conflicting() -> Project:
    """One row of two cells and a fixed total, both cells sensitive and both told to go up: no
    table keeps the total."""
    structure = TableStructure.flat(1, 2)
    values = structure.aggregate(np.array([[40.0, 60.0, 0.0], [0.0, 0.0, 0.0]]))
    fixed = np.zeros(values.size, bool)
    fixed[[2, 5]] = True                                 # the row's total and the grand total
    problem = CTAProblem(values, structure.relations(), lower=0.0, upper=np.inf, sensitive=np.array([0, 1]),
                         lower_protection=np.array([5.0, 5.0]), upper_protection=np.array([5.0, 5.0]),
                         senses=np.array([1, 1]), fixed=fixed, cell_label=structure.cell_label)
    return Project.from_problem(problem, structure)


def test_a_failing_fixed_sense_run_names_the_cells_and_uses_optimal_senses_on_one_click(qtbot, window):
    window.set_project(_conflicting())
    panel = window.model_panel
    panel.distance.setCurrentIndex(panel.distance.findData("l1"))
    panel.senses.setCurrentIndex(panel.senses.findData("fixed"))
    asked = []

    def confirm(title, question):
        asked.append(question)
        return True
    window.confirm = confirm
    with qtbot.waitSignal(window.runner.finished, timeout=30_000):
        window.protect()
    assert len(asked) == 1 and "optimal senses" in asked[0]
    assert "cell 0 (R=1, C=1) up, cell 1 (R=1, C=2) up" in asked[0]   # the cells and their senses, by name
    qtbot.waitUntil(lambda: not window.runner.running and window.project.result.protected, timeout=30_000)
    assert panel.senses.currentData() == "optimal"
    assert window.project.result.protected and window.project.senses.tolist() == [0] * 6   # freed, undoably
    assert window.undo_stack.canUndo()
