import time

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from PySide6.QtCore import QLocale, Qt
from PySide6.QtGui import QBrush, QFontMetrics, QFontMetricsF
from PySide6.QtWidgets import QHeaderView, QStyleOptionViewItem

from ctadesk.engine.result import CTAResult, Status
from ctadesk.engine.table.generate import GeneratorSpec, cox_table
from ctadesk.gui.jobs import generated_project
from ctadesk.gui.numbers import TableFormat, figure
from ctadesk.gui.table_editor import MAX_COLUMN_WIDTH, TableEditor
from ctadesk.gui.table_model import CellStatus, CellTableModel, Display, Glyphs, SliceLayout
from ctadesk.io.project import Project
from tests.timing import timed


def test_slice_of_a_3d_table_holds_the_cells_of_the_chosen_code():
    layout = SliceLayout((4, 5, 6), row_dim=2, column_dim=0, fixed={1: 3})
    assert layout.cells.shape == (6, 4)
    expected = np.arange(120).reshape(4, 5, 6)[:, 3, :].T
    assert np.array_equal(layout.cells, expected)
    assert layout.position(int(expected[2, 1])) == (2, 1)
    assert layout.position(int(np.arange(120).reshape(4, 5, 6)[0, 2, 0])) is None


@given(st.lists(st.integers(1, 5), min_size=1, max_size=4), st.data())
def test_a_slice_holds_the_flat_indices_numpy_gives_its_coordinates(shape, data):
    shape = tuple(shape)
    row = data.draw(st.integers(0, len(shape) - 1))
    column = data.draw(st.sampled_from([d for d in range(len(shape)) if d != row])) if len(shape) > 1 else None
    fixed = {d: data.draw(st.integers(0, shape[d] - 1)) for d in range(len(shape)) if d not in (row, column)}
    layout = SliceLayout(shape, row, column, fixed)
    assert layout.cells.shape == (layout.n_rows, layout.n_columns)
    for (r, c), cell in np.ndenumerate(layout.cells):
        coords = [fixed.get(d, 0) for d in range(len(shape))]
        coords[row] = r
        if column is not None:
            coords[column] = c
        assert cell == np.ravel_multi_index(tuple(coords), shape) == layout.cell(r, c)
        assert layout.position(int(cell)) == (r, c)
    rows, columns = np.indices(layout.cells.shape)
    assert np.array_equal(layout.cells_at(rows, columns), layout.cells)
    whole = np.arange(int(np.prod(shape))).reshape(layout.cells.shape) if layout.cells.size == np.prod(shape) else None
    assert not layout.in_order or np.array_equal(layout.cells, whole)  # a view of the values is then the slice


ENGLISH = QLocale(QLocale.Language.English, QLocale.Country.UnitedStates)
NUMBERS = st.one_of(st.floats(-1e14, 1e14), st.floats(allow_nan=False),
                    st.sampled_from([0.0, -0.0, 0.004, -0.5, 999.95, 1000.0, -999_999.5, 999_999_999_999_999.9,
                                     1e15, -1e15, np.inf, -np.inf, np.nan]))


def _model(display: Display, decimals: int) -> tuple[CellTableModel, QFontMetrics, Glyphs]:
    model = CellTableModel()
    model.display = display
    model.numbers = TableFormat(decimals, ENGLISH)
    return model, QFontMetrics(model._bold), Glyphs.measured(QFontMetricsF(model._bold), model.numbers)


@settings(max_examples=60, deadline=None)
@given(arrays(float, st.integers(1, 6), elements=NUMBERS), st.integers(0, 4), st.sampled_from(list(Display)))
def test_text_widths_are_those_of_the_grid_texts(qapp, values, decimals, display):
    """The column fit adds up the texts' widths from their parts: never narrower than the text
    (a pixel of kerning aside), wider only by what the widest digit has over the others (a
    number in exponent form, from PLAIN_LIMIT on, counts as the widest such text)."""
    model, metrics, glyphs = _model(display, decimals)
    widths = model.text_widths(values, glyphs)
    texts = [model.text_of(float(v)) for v in values]
    spread = glyphs.digit - min(QFontMetricsF(model._bold).horizontalAdvance(str(d)) for d in range(10))
    for width, text in zip(widths.tolist(), texts):
        measured = metrics.horizontalAdvance(text)
        digits = sum(character.isdigit() for character in text)
        widest = glyphs.exponent + glyphs.plus if "e" in text else measured + digits * spread
        assert measured - 1 <= width <= widest + 1, (text, width, measured)


@settings(max_examples=60, deadline=None)
@given(arrays(float, st.tuples(st.integers(1, 5), st.integers(1, 4)), elements=NUMBERS), st.integers(0, 3),
       st.sampled_from(list(Display)))
def test_a_columns_text_width_is_that_of_its_widest_text(qapp, values, decimals, display):
    model, _, glyphs = _model(display, decimals)
    every = model.text_widths(values.reshape(-1), glyphs).reshape(values.shape)
    assert model.column_text_widths(values, glyphs).tolist() == every.max(axis=0).tolist()


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
        def _cell_data(self, cell, role):  # what data() and multiData() answer with
            asked.append(role)
            return super()._cell_data(cell, role)

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


def _protected(shape=(40, 30)):
    project = generated_project(GeneratorSpec(shape=shape, seed=3))
    adjusted = project.values + np.where(project.structure.inner_mask(), 0.25, 0.0)
    project.result = CTAResult("lp", Status.OPTIMAL, values=adjusted)
    return project


def test_columns_are_fitted_without_formatting_a_text(qtbot):
    """The fit adds the widths of the widest texts up from their parts: it formats no cell's text (
    but the two the view's margins are read from, once), and every cell fits its column."""
    editor = TableEditor()
    qtbot.addWidget(editor)
    formatted = []
    text_of = editor.model.text_of
    editor.model.text_of = lambda value: formatted.append(value) or text_of(value)
    project = _protected((120, 90))
    editor.set_project(project)
    assert 0 < len(formatted) <= 4  # each read by the fit and by the view's size hint
    formatted.clear()
    editor.set_project(_protected((80, 60)))
    editor.model.refresh()
    assert formatted == []
    editor.set_project(project)
    view, model = editor.view, editor.model
    for display in Display:
        editor.set_display(display)
        for column in range(model.columnCount()):  # no text cut: every cell fits its column
            widest = max(view.sizeHintForIndex(model.index(row, column)).width() for row in range(model.rowCount()))
            assert widest <= view.columnWidth(column), (display, column)


def test_colouring_by_an_audit_repaints_without_a_reset_or_a_refit(qtbot):
    editor = TableEditor()
    qtbot.addWidget(editor)
    editor.set_project(_protected())
    resets, fits = [], []
    editor.model.modelReset.connect(lambda: resets.append(1))
    editor.model.numbers_changed.connect(lambda: fits.append(1))
    with qtbot.waitSignal(editor.model.dataChanged):
        editor.model.set_colour_by_audit(False)
    editor.model.refresh()  # the values changed: one dataChanged, a refit, still no reset
    assert resets == [] and fits == [1]


def test_a_large_slice_is_fitted_once_for_a_table_its_result_and_display(qtbot):
    editor = TableEditor()
    qtbot.addWidget(editor)
    fits = []
    slice_values = editor.model.slice_values
    editor.model.slice_values = lambda: fits.append(1) or slice_values()
    editor.set_project(_protected((400, 300)))  # 120 701 cells: more than FIT_NOW_CELLS
    editor.model.refresh()
    editor.set_display(Display.ADJUSTED)
    assert fits == []  # nothing measured while the changes came
    qtbot.waitUntil(lambda: fits == [1])
    qtbot.wait(20)
    assert fits == [1]
    header = editor.view.horizontalHeader()
    assert header.sectionSize(300) > header.sectionSize(0)  # the totals' column, wider than an inner one


ODD_VALUES = st.one_of(st.floats(-1e9, 1e9), st.sampled_from([np.nan, np.inf, -np.inf, -0.0, 0.004, -99_999.995]))


@settings(max_examples=15, deadline=None)
@given(shape=st.sampled_from([(4, 3), (3, 2, 4), (7,)]), data=st.data())
def test_every_cell_fits_its_column_in_any_slice_display_and_values(qapp, shape, data):
    """Columns of a slice that is not the table in order (another axis first, a 3-D table's
    slice), with values that are not finite, are as wide as their widest cell."""
    project = generated_project(GeneratorSpec(shape=shape, seed=1))
    n = project.values.size
    project.values[:] = data.draw(arrays(float, n, elements=ODD_VALUES))
    adjusted = project.values + data.draw(arrays(float, n, elements=st.floats(-1e6, 1e6)))
    project.result = CTAResult("lp", Status.OPTIMAL, values=adjusted)
    editor = TableEditor()
    editor.set_project(project)
    if len(shape) > 1:
        editor.slices.rows.setCurrentIndex(len(shape) - 1)
    view, model = editor.view, editor.model
    for display in Display:
        editor.set_display(display)
        for column in range(model.columnCount()):
            widest = max(view.sizeHintForIndex(model.index(row, column)).width() for row in range(model.rowCount()))
            assert min(widest, MAX_COLUMN_WIDTH) <= view.columnWidth(column), (display, column)


def test_a_painted_cell_shows_what_data_answers_for_each_role(qtbot):
    """The view paints from multiData (every role of a cell at once): the same answers as data()."""
    editor = TableEditor()
    qtbot.addWidget(editor)
    project = _protected((6, 5))
    project.sensitive[[0, 7]] = True
    project.senses[[0, 7]] = [1, -1]
    editor.set_project(project)
    view, model = editor.view, editor.model
    delegate = view.itemDelegate()
    roles = Qt.ItemDataRole
    for display in (Display.ORIGINAL, Display.RELATIVE):
        editor.set_display(display)
        for row in range(model.rowCount()):
            for column in range(model.columnCount()):
                index = model.index(row, column)
                option = QStyleOptionViewItem()
                delegate.initStyleOption(option, index)
                assert option.text == model.data(index)
                brush = model.data(index, roles.BackgroundRole)
                assert option.backgroundBrush == (brush if brush is not None else QBrush())
                assert option.font.bold() == (model.data(index, roles.FontRole) is not None)
                assert option.icon.isNull() == (model.data(index, roles.DecorationRole) is None)
                assert option.displayAlignment & Qt.AlignmentFlag.AlignRight


def test_showing_a_1000_by_1000_table_asks_for_a_screenful_of_labels(qtbot):
    """The headers' size hints are read from a few labels (SampledHeader), the column fit reads
    the labels without headerData: a table shown asks for some hundreds of labels, not thousands."""
    editor = TableEditor()
    qtbot.addWidget(editor)
    editor.resize(1000, 700)
    editor.set_project(_protected((20, 30)))
    editor.show()
    qtbot.waitExposed(editor)
    asked = []
    header_data = editor.model.headerData
    editor.model.headerData = lambda *args: asked.append(args) or header_data(*args)
    editor.set_project(generated_project(GeneratorSpec(shape=(1000, 1000), seed=1)))
    qtbot.wait(50)
    assert 0 < len(asked) < 1000
    model, header = editor.model, editor.view.horizontalHeader()
    assert model.column_labels() == [header_data(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    assert header.sizeHint().height() == QHeaderView.sizeHint(header).height()  # Qt's, from 200 labels


def test_column_labels_are_the_headers_of_a_hierarchy_and_of_a_single_column(qapp):
    model = CellTableModel()
    model.set_project(generated_project(GeneratorSpec(shape=(4, 3, 2), seed=1)))
    model.set_layout(SliceLayout((5, 4, 3), row_dim=2, column_dim=0))
    assert model.column_labels() == [model.headerData(c, Qt.Orientation.Horizontal) for c in range(5)]
    model.set_project(generated_project(GeneratorSpec(shape=(6,), seed=1)))
    assert model.column_labels() == [model.headerData(0, Qt.Orientation.Horizontal)] == ["Value"]
