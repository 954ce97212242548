import time

import numpy as np
from PySide6.QtCore import Qt

from ctadesk.engine.table.generate import cox_table
from ctadesk.gui.numbers import figure
from ctadesk.gui.table_editor import TableEditor
from ctadesk.gui.table_model import CellStatus, CellTableModel, Display, SliceLayout
from ctadesk.io.project import Project
from tests.timing import timed


def test_slice_of_a_3d_table_holds_the_cells_of_the_chosen_code():
    layout = SliceLayout((4, 5, 6), row_dim=2, column_dim=0, fixed={1: 3})
    assert layout.cells.shape == (6, 4)
    expected = np.arange(120).reshape(4, 5, 6)[:, 3, :].T
    assert np.array_equal(layout.cells, expected)
    assert layout.position(int(expected[2, 1])) == (2, 1)
    assert layout.position(int(np.arange(120).reshape(4, 5, 6)[0, 2, 0])) is None


def test_cells_show_values_status_colours_and_a_tooltip_with_the_protection_interval():
    structure, problem = cox_table((3, 3), seed=1)
    project = Project.from_problem(problem, structure)
    model = CellTableModel()
    model.set_project(project)
    cell = int(problem.sensitive[0])
    row, column = model.layout_.position(cell)
    index = model.index(row, column)
    a = problem.values[cell]
    assert model.data(index) == model.numbers.text(a)
    assert model.status(cell) is CellStatus.SENSITIVE
    assert model.data(index, Qt.ItemDataRole.BackgroundRole).color().red() == 244
    tip = model.data(index, Qt.ItemDataRole.ToolTipRole)
    level = problem.lower_protection[0]
    assert f"protection interval: ({figure(a - level)}, {figure(a + level)})" in tip
    assert "flagged by: given" in tip


def test_adjusted_and_relative_views_read_the_result():
    structure, problem = cox_table((2, 2), seed=1)
    project = Project.from_problem(problem, structure)
    model = CellTableModel()
    model.set_project(project)
    from ctadesk.engine.result import CTAResult, Status

    adjusted = project.values.copy()
    adjusted[0] = 1.5 * adjusted[0]
    project.result = CTAResult("lp", Status.OPTIMAL, values=adjusted)
    model.set_display(Display.RELATIVE)
    assert model.data(model.index(0, 0)) == "+50.00"
    model.set_display(Display.DIFFERENCE)
    assert float(model.data(model.index(0, 0)).replace(",", "")) == 0.5 * project.values[0]


def test_editing_a_cell_requests_an_edit_instead_of_changing_the_table():
    structure, problem = cox_table((2, 2), seed=1)
    project = Project.from_problem(problem, structure)
    model = CellTableModel()
    model.set_project(project)
    requests = []
    model.edit_requested.connect(lambda cell, value: requests.append((cell, value)))
    assert model.setData(model.index(1, 0), "1,234.5")
    assert requests == [(3, 1234.5)]
    assert project.values[3] == problem.values[3]


@timed
def test_a_1000_by_1000_table_opens_in_under_3_seconds_asking_only_for_visible_cells(qtbot, timed):
    started = time.perf_counter()
    structure, problem = cox_table((1000, 1000), seed=0)
    project = Project.from_problem(problem, structure)
    editor = TableEditor()
    qtbot.addWidget(editor)
    editor.resize(1000, 700)
    asked = []

    class CountingModel(CellTableModel):
        def data(self, index, role=Qt.ItemDataRole.DisplayRole):
            asked.append(role)
            return super().data(index, role)

    editor.model = CountingModel(editor)
    editor.view.setModel(editor.model)
    editor.set_project(project)
    editor.show()
    qtbot.waitExposed(editor)
    qtbot.wait(50)
    seconds = time.perf_counter() - started
    assert not timed or seconds < 3.0, f"opening took {seconds:.2f} s"
    assert editor.model.rowCount() == 1001
    assert 0 < len(asked) < 20 * 1000  # a screenful of cells times a few roles, not 1 M cells
