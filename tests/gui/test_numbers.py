"""Numbers as statisticians read them (issue 32): one format per table at its published
precision with the locale's separators, columns as wide as their numbers, no scientific notation
below 1e15 and no "nan" on screen, the scatter of inner cells, the selectors' names whole."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from PySide6.QtCore import QLocale

from ctadesk.engine.table.generate import GeneratorSpec, cox_table
from ctadesk.gui.numbers import MISSING, PLAIN_LIMIT, TableFormat, figure, fixed, table_decimals
from ctadesk.gui.table_model import CellTableModel, Display
from ctadesk.io.project import Project

from .conftest import solve_and_wait

ENGLISH = QLocale(QLocale.Language.English, QLocale.Country.UnitedStates)
GERMAN = QLocale(QLocale.Language.German, QLocale.Country.Germany)
#: a number in scientific notation ("6.82026e+06", "1.5E20")
EXPONENT = re.compile(r"\d[eE][+-]?\d")


def test_figures_are_plain_with_the_locales_separators_and_nan_is_said_in_words():
    assert figure(6820260.0, locale=ENGLISH) == "6,820,260"
    assert figure(30367001.0, locale=ENGLISH) == "30,367,001"  # integer digits are never rounded away
    assert figure(0.140429, locale=ENGLISH) == "0.140429"
    assert figure(1234.5678, locale=GERMAN) == "1.234,57"
    assert figure(float("nan")) == figure(None) == MISSING
    assert figure(float("inf")) == "∞"
    assert figure(1.5e20, locale=ENGLISH) == "1.5e+20"  # past every table's numbers
    assert fixed(-1e-12, 2, ENGLISH) == "0.00"  # no "-0.00" for a leftover of arithmetic


@given(st.floats(min_value=-PLAIN_LIMIT / 10, max_value=PLAIN_LIMIT / 10, allow_nan=False),
       st.integers(min_value=0, max_value=6))
def test_a_value_at_the_tables_decimals_reads_back_as_the_value_rounded(value, decimals):
    numbers = TableFormat(decimals, ENGLISH)
    text = numbers.text(value)
    assert not EXPONENT.search(text)
    assert numbers.parse(text) == float(f"{round(value, decimals):.{decimals}f}")
    assert len(text.rpartition(".")[2]) == decimals if decimals else "." not in text


def test_one_table_one_number_of_decimals():
    assert table_decimals(np.array([691.0, 220.1])) == 1
    assert table_decimals(np.array([691.0, 3.0]), np.array([690.25])) == 2
    structure, problem = cox_table((3, 3), seed=1)
    project = Project.from_problem(problem, structure)
    project.values[:3] = [691.0, 220.1, 30367001.0]
    model = CellTableModel()
    model.numbers = TableFormat(0, ENGLISH)
    model.set_project(project)
    assert [model.data(model.index(0, c)) for c in range(3)] == ["691.0", "220.1", "30,367,001.0"]


def test_columns_are_as_wide_as_their_numbers_before_and_after_protection(qtbot, window):
    window.new_generated(GeneratorSpec(shape=(5, 4), seed=3, min_value=1_000_000, max_value=9_000_000))
    view, model = window.editor.view, window.editor.model
    window.confirm = lambda title, question: True  # recompute the totals the edit unbalanced
    model.setData(model.index(0, 0), window.project.values[0] + 0.25)  # two decimals: three more characters
    qtbot.waitUntil(lambda: window.undo_stack.count() == 2)

    def cells_fit() -> list[str]:
        cut = []
        for row in range(model.rowCount()):
            for column in range(model.columnCount()):
                index = model.index(row, column)
                if view.sizeHintForIndex(index).width() > view.columnWidth(column):
                    cut.append(model.data(index))
        return cut

    assert model.numbers.decimals == 2 and cells_fit() == []
    solve_and_wait(qtbot, window, "lp")
    window.editor.set_display(Display.DIFFERENCE)
    assert cells_fit() == []


def test_no_scientific_notation_nor_nan_in_the_summary_cell_pane_and_progress(qtbot, window):
    window.new_generated(GeneratorSpec(shape=(5, 4), seed=3, min_value=1_000_000, max_value=9_000_000))
    assert window.progress_plot.state() == "no table yet"
    solve_and_wait(qtbot, window, "lp")
    summary = window.results.summary.text()
    assert "objective" in summary and not EXPONENT.search(summary) and "nan" not in summary
    window.editor.select_cells([int(np.flatnonzero(window.project.sensitive)[0])])
    facts = " ".join(label.text() for label in window.cell_info.values.values())
    assert "protection interval" in window.cell_info.values and not EXPONENT.search(facts)


def test_the_scatter_shows_inner_cells_only(qtbot, window):
    solve_and_wait(qtbot, window, "lp")
    project = window.project
    x, _ = window.results.scatter_points.getData()
    inner = project.structure.inner_mask()
    changed = inner & (project.result.values != project.values)
    assert x.size == int(changed.sum()) > 0
    assert np.array_equal(np.sort(x), np.sort(project.values[changed]))
    assert x.max() < project.values[~inner].max()  # the grand total is not on the plot


def test_the_slice_selectors_show_whole_dimension_names(qtbot, window):
    structure, problem = cox_table((3, 3), seed=1)
    names = ("region of the enterprise", "industry (NACE section)")
    structure = dataclasses.replace(structure, dimensions=tuple(
        dataclasses.replace(dimension, name=name) for dimension, name in zip(structure.dimensions, names)))
    window.set_project(Project.from_problem(problem, structure))
    qtbot.wait(10)
    for combo in (window.editor.slices.rows, window.editor.slices.columns):
        assert combo.sizeHint().width() > combo.fontMetrics().horizontalAdvance(combo.currentText())
        assert combo.width() >= combo.fontMetrics().horizontalAdvance(combo.currentText())


def test_the_grid_shows_differences_with_their_sign_and_relative_changes_in_percent(qtbot, window):
    solve_and_wait(qtbot, window, "lp")
    model = window.editor.model
    changed = int(np.flatnonzero(window.project.result.values != window.project.values)[0])
    index = model.index(*model.layout_.position(changed))
    window.editor.set_display(Display.RELATIVE)
    assert re.fullmatch(r"[+-][\d,]+\.\d\d", model.data(index))
    window.editor.set_display(Display.DIFFERENCE)
    decimals = model.numbers.decimals
    assert re.fullmatch(r"[+-][\d,]+" + (rf"\.\d{{{decimals}}}" if decimals else ""), model.data(index))
