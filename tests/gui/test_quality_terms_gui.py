"""The model selector's quality terms (issue 16; Cox 2005a, §3): what the user sets reaches the
ProtectionRequest and holds on the published table, survives a project's save and open, the
results show the engine's TermsReport, and a bad number is refused with the engine's message.
The measures are checked against a numpy computation written here."""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from ctadesk.engine.errors import ProblemError
from ctadesk.engine.quality.terms import QualityTerm
from ctadesk.engine.table.generate import GeneratorSpec, generate_table
from ctadesk.gui.quality_table import target_text, value_text
from ctadesk.gui.quality_terms_panel import (
    ALL,
    NOT_SENSITIVE,
    SENSITIVE,
    SIZE,
    SLICE,
    group_choice,
    group_of,
    table_problem,
)
from ctadesk.io.project import Project

from .test_issue5_audit import _another_window

#: the fixture's table: 5 x 4 inner cells, a total row and column (6 x 5 cells in all)
SHAPE = (6, 5)


def set_row(row, measure, mode, number="", group=None, low="", high=""):
    """Fill a term row as a user would: measure, mode, the number typed, the group chosen by its text."""
    row.measure.setCurrentIndex(row.measure.findData(measure))
    row.mode.setCurrentIndex(row.mode.findData(mode))
    row.number.setText(number)
    if group is not None:
        position = row.group.findText(group)
        assert position >= 0, f"no group '{group}' in the list"
        row.group.setCurrentIndex(position)
    row.low.setText(low)
    row.high.setText(high)
    return row


def numpy_measures(original, adjusted, cells):
    """(mean change, L(y), Corr(a, x)) over cells, computed independently of the engine."""
    a, x = original[cells], adjusted[cells]
    centred = a - a.mean()
    return (x.sum() - a.sum()) / cells.size, centred @ (x - a) / (centred @ centred), np.corrcoef(a, x)[0, 1]


def slice_of_row(code_position):
    """The inner cells of one row of the fixture's table, by index arithmetic."""
    return np.ravel_multi_index((np.full(SHAPE[1] - 1, code_position), np.arange(SHAPE[1] - 1)), SHAPE)


def protect_and_wait(qtbot, window, method="milp"):
    window.model_panel.method.setCurrentIndex(window.model_panel.method.findData(method))
    with qtbot.waitSignal(window.runner.finished, timeout=60_000) as blocker:
        window.protect()
    return blocker.args[0]


# ------------------------------------------------------------------ the request
def test_the_terms_the_user_sets_reach_the_request_and_hold_on_the_published_table(qtbot, window):
    panel = window.model_panel.quality_terms
    set_row(panel.add_term(), "L", "bounded", "0.001")
    set_row(panel.add_term(), "mean", "hard", group="R = 2")
    panel.price.setChecked(True)
    protection = protect_and_wait(qtbot, window)
    row_2 = slice_of_row(1)
    assert protection.request.quality == (QualityTerm("L", "bounded", bound=0.001),
                                          QualityTerm("mean", "hard", cells=tuple(row_2.tolist()), group="R=2"))
    assert protection.request.quality_price
    result = protection.result
    assert result.protected
    original, adjusted = window.project.values, result.values
    inner = np.flatnonzero(window.project.structure.inner_mask())
    assert inner.size == 20
    _, slope_term, _ = numpy_measures(original, adjusted, inner)
    assert abs(slope_term) <= 0.001 * (1 + 1e-6)
    assert adjusted[row_2].sum() == pytest.approx(original[row_2].sum(), abs=1e-7)
    view = window.results.terms
    assert window.results.isTabVisible(window.results.indexOf(view))
    assert view.table.rowCount() == 2
    assert float(view.text(0, "Value reached")) == pytest.approx(slope_term, rel=1e-5, abs=1e-12)
    assert [view.text(k, "Met") for k in range(2)] == ["✔ met", "✔ met"]
    prices = [outcome.price for outcome in protection.terms.outcomes]
    assert all(price is not None for price in prices)
    assert [float(view.text(k, "Price (distance)").replace(",", "")) for k in range(2)] == \
        pytest.approx(prices, rel=1e-5, abs=1e-9)
    assert "Quality terms: 2 of 2 met" in window.results.summary.text()


def test_without_terms_the_request_has_none_and_the_terms_tab_stays_hidden(qtbot, window):
    protection = protect_and_wait(qtbot, window, "lp")
    assert protection.request.quality == () and protection.terms is None
    assert not window.results.isTabVisible(window.results.indexOf(window.results.terms))


# ------------------------------------------------------------------ the project
def test_terms_of_every_group_kind_round_trip_through_a_project(qtbot, window, settings, tmp_path):
    panel = window.model_panel.quality_terms
    set_row(panel.add_term(), "L", "bounded", "0.002")
    set_row(panel.add_term(), "mean", "bounded", "2.5", group="all cells (totals too)")
    set_row(panel.add_term(), "mean", "weighted", "40", group="sensitive cells")
    set_row(panel.add_term(), "L", "weighted", "1000", group="inner cells not sensitive")
    set_row(panel.add_term(), "correlation", "bounded", "0.995", group="size class (LO ≤ value < HI)", low="100")
    set_row(panel.add_term(), "mean", "hard", group="C = 3")
    panel.price.setChecked(True)
    terms = panel.terms()
    assert [term.group for term in terms] == ["inner cells", "all cells", "sensitive cells",
                                             "inner cells not sensitive", "cells of size [100, inf)", "C=3"]
    assert window.save_to(tmp_path / "terms.ctaproj")
    again = _another_window(qtbot, settings)
    assert again.model_panel.quality_terms.rows == []  # the settings keep no terms: they name one table's groups
    assert again.open_path(tmp_path / "terms.ctaproj")
    restored = again.model_panel.quality_terms
    assert restored.terms() == terms and restored.price.isChecked()
    assert [row.group.currentText() for row in restored.rows] == [row.group.currentText() for row in panel.rows]
    assert restored.rows[4].low.text() == "100" and restored.rows[4].high.text() == ""
    assert again.model_panel.options()["quality"] == window.model_panel.options()["quality"]


def test_a_term_saved_over_cells_by_number_keeps_them_as_saved(window):
    saved = QualityTerm("mean", "bounded", bound=1.0, cells=(0, 1, 7), group="cells 0,1,7")
    window.model_panel.set_options({"quality": [saved.as_dict()]})
    row = window.model_panel.quality_terms.rows[0]
    assert row.group.currentText() == "cells 0,1,7 (as saved, 3 cells)"
    assert window.model_panel.quality_terms.terms() == (saved,)


def test_a_saved_term_that_cannot_be_read_is_named_not_dropped_silently(window):
    window.model_panel.set_options({"quality": [{"measure": "mean", "mode": "bounded", "bound": -3}]})
    panel = window.model_panel.quality_terms
    assert panel.rows == []
    assert "quality term 1 of the project was not read" in panel.message.text()
    assert "the bound must be finite and >= 0" in panel.message.text()


# ------------------------------------------------------------------ the report
def test_the_report_shows_what_the_engine_returned_and_comes_back_with_the_project(qtbot, window, settings, tmp_path):
    panel = window.model_panel.quality_terms
    set_row(panel.add_term(), "mean", "weighted", "50")
    set_row(panel.add_term(), "correlation", "bounded", "0.99")
    protection = protect_and_wait(qtbot, window)
    returned = protection.terms.as_dict()
    assert window.session.outcome.terms == returned
    view = window.results.terms

    def shown(view):
        return [[view.table.item(r, c).text() for c in range(view.table.columnCount())]
                for r in range(view.table.rowCount())]

    rows = shown(view)
    for row, term in zip(rows, returned["terms"]):
        assert row[0] == term["term"] and row[1] == target_text(term) and row[2] == value_text(term)
    mean_change, _, correlation = numpy_measures(window.project.values, protection.result.values,
                                                 np.flatnonzero(window.project.structure.inner_mask()))
    assert returned["terms"][0]["value"] == pytest.approx(mean_change, abs=1e-9)
    assert returned["terms"][1]["value"] == pytest.approx(correlation, abs=1e-9)
    assert rows[0][3] == "weighted (no target)" and rows[0][1] == "weight 50"
    assert rows[1][3] == ("✔ met" if correlation >= 0.99 - 1e-9 else "✘ not met")
    assert view.summary.text() == f"Quality terms: {int(correlation >= 0.99 - 1e-9)} of 1 met, 1 weighted (no target)"
    assert window.save_to(tmp_path / "report.ctaproj")
    again = _another_window(qtbot, settings)
    assert again.open_path(tmp_path / "report.ctaproj")
    assert shown(again.results.terms) == rows
    assert again.results.isTabVisible(again.results.indexOf(again.results.terms))


# ------------------------------------------------------------------ refusals
@pytest.mark.parametrize(("measure", "mode", "number", "low", "high", "message"), [
    ("L", "bounded", "-1", "", "", "the bound must be finite and >= 0"),
    ("correlation", "bounded", "1.5", "", "", "the target must lie strictly between 0 and 1"),
    ("mean", "weighted", "0", "", "", "a weighted term needs a finite weight > 0"),
    ("mean", "bounded", "abc", "", "", "the bound 'abc' is not a number"),
    ("L", "bounded", "0,001", "", "", "the bound '0,001' is not a number (write the decimal mark as a point)"),
    ("mean", "bounded", "", "", "", "a bounded term needs a bound"),
    ("L", "hard", "", "500", "100", "the lower end must be below the upper end"),
    ("L", "hard", "", "1e9", "", "the group 'cells of size [1e+09, inf)' has no cells"),
])
def test_a_bad_number_is_refused_with_the_engines_message_next_to_the_term(window, measure, mode, number, low, high,
                                                                          message):
    row = set_row(window.model_panel.quality_terms.add_term(), measure, mode, number,
                  group="size class (LO ≤ value < HI)" if low else None, low=low, high=high)
    assert message in row.message.text()
    window.protect()
    assert not window.runner.running and window.project.result is None
    assert window.last_error.startswith("quality term 1: ") and message in window.last_error
    assert not window.save_to(window.path or (window.settings.fileName() + ".ctaproj"))


def test_correlation_is_a_target_and_a_hard_term_takes_no_number(window):
    row = window.model_panel.quality_terms.add_term()
    set_row(row, "L", "hard")
    assert row.number.isHidden() and row.sign.isHidden()
    row.measure.setCurrentIndex(row.measure.findData("correlation"))
    assert row.mode.currentData() == "bounded" and not row.mode.isEnabled()
    assert row.number.text() == "0.999" and row.sign.text() == "≥"


def test_the_row_reads_its_group_again_after_the_table_changes(window):
    row = set_row(window.model_panel.quality_terms.add_term(), "mean", "hard", group="sensitive cells")
    before = int(window.project.sensitive.sum())
    assert row.message.text().startswith(f"{before} cells")
    safe = int(np.flatnonzero(~window.project.sensitive & window.project.structure.inner_mask())[0])
    window.mark_sensitive(np.array([safe]))
    assert row.message.text().startswith(f"{before + 1} cells")


# ------------------------------------------------------------------ the groups
def independent_group(kind, project, detail=None, low=-math.inf, high=math.inf):
    """A group's cells by index arithmetic over the table's shape and codes (the totals: code 'Total')."""
    shape = project.structure.shape
    coordinates = np.unravel_index(np.arange(project.n_cells), shape)
    leaf = np.ones(project.n_cells, bool)
    for d, dimension in enumerate(project.structure.dimensions):
        leaf &= np.asarray(dimension.codes)[coordinates[d]] != "Total"
    if kind == ALL:
        return np.arange(project.n_cells)
    if kind == SENSITIVE:
        return np.flatnonzero(project.sensitive)
    if kind == NOT_SENSITIVE:
        return np.flatnonzero(leaf & ~project.sensitive)
    if kind == SIZE:
        return np.flatnonzero(leaf & (project.values >= low) & (project.values < high))
    dimension, code = detail
    d = [dim.name for dim in project.structure.dimensions].index(dimension)
    others = np.ones(project.n_cells, bool)
    for e, other in enumerate(project.structure.dimensions):
        if e != d:
            others &= np.asarray(other.codes)[coordinates[e]] != "Total"
    return np.flatnonzero(others & (np.asarray(project.structure.dimensions[d].codes)[coordinates[d]] == code))


@hypothesis_settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sizes=st.lists(st.integers(2, 6), min_size=2, max_size=3), seed=st.integers(0, 10_000),
       kind=st.sampled_from([ALL, SENSITIVE, NOT_SENSITIVE, SIZE, SLICE]), data=st.data())
def test_every_group_is_the_cells_it_names_and_reads_back_from_its_name(qapp, sizes, seed, kind, data):
    structure, problem = generate_table(GeneratorSpec(shape=tuple(sizes), seed=seed))
    project = Project.from_problem(problem, structure)
    detail, low, high = None, -math.inf, math.inf
    if kind == SIZE:
        low, high = sorted(data.draw(st.sampled_from(project.values.tolist()), label="end") for _ in range(2))
        high += 1
    if kind == SLICE:
        dimension = data.draw(st.sampled_from(structure.dimensions))
        detail = (dimension.name, data.draw(st.sampled_from(dimension.codes)))
    typed = ("" if math.isinf(low) else f"{low!r}", "" if math.isinf(high) else f"{high!r}")
    expected = independent_group(kind, project, detail, low, high)
    if expected.size == 0:  # a group without cells is refused, naming it
        with pytest.raises(ProblemError, match="no cells"):
            group_of(kind, detail, project, table_problem(project), *typed)
        return
    cells, name = group_of(kind, detail, project, table_problem(project), *typed)
    assert np.array_equal(np.asarray(cells), expected)
    term = QualityTerm("mean", "hard", cells=cells, group=name)
    chosen, chosen_detail, chosen_low, chosen_high = group_choice(term, project)
    assert (chosen, chosen_detail) == (kind, detail)
    assert group_of(chosen, chosen_detail, project, table_problem(project), chosen_low, chosen_high) == (cells, name)
