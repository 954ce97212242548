"""Issue 13 in the window: the Audit action, the audit run in a worker, cells coloured by risk with
a legend, the attacker interval in the cell-information pane, the summary in the Audit tab, and
an audit cleared when it goes stale."""

import threading

import numpy as np
import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from PySide6.QtCore import Qt

from ctadesk.app.session import Session
from ctadesk.engine.audit import APriori, AttackerKnowledge, AuditCancelled, AuditResult, Capacity
from ctadesk.engine.audit.verdicts import Verdicts
from ctadesk.gui.audit_risk import RISK_COLOURS, RiskLevel
from ctadesk.gui.numbers import figure
from ctadesk.gui.window_base import AUDIT_CLEARED

from .conftest import solve_and_wait

EXACT, AT_RISK, SAFE = (RISK_COLOURS[level].name() for level in (RiskLevel.EXACT, RiskLevel.AT_RISK, RiskLevel.SAFE))


def _background(window, cell: int) -> str | None:
    model = window.editor.model
    position = model.layout_.position(cell)
    brush = model.data(model.index(*position), Qt.ItemDataRole.BackgroundRole)
    return None if brush is None else brush.color().name()


def _shown(window) -> dict[str, str]:
    return {name: label.text() for name, label in window.cell_info.values.items()}


def _audit(qtbot, window, timeout_ms=30_000) -> AuditResult:
    with qtbot.waitSignal(window.runner.finished, timeout=timeout_ms) as blocker:
        window.run_audit()
    return blocker.args[0]


def _expected_level(verdicts: Verdicts, k: int) -> RiskLevel:
    """The level a cell must be shown at, read from its verdicts (independent of audit_risk.py)."""
    if verdicts.exact[k]:
        return RiskLevel.EXACT
    failed = (verdicts.lower_short[k] or verdicts.upper_short[k] or verdicts.published_inside[k]
              or verdicts.singled_out[k])
    return RiskLevel.AT_RISK if failed else RiskLevel.SAFE


def test_the_audit_action_waits_for_a_protected_table_that_is_not_stale(qtbot, window):
    assert not window.audit_action.isEnabled()  # nothing protected yet
    assert window.audit_action in window.toolbar.actions()
    protect_menu = next(action.menu() for action in window.menuBar().actions() if action.text() == "&Protect")
    assert window.audit_action in protect_menu.actions()
    window.run_audit()  # refused, saying why
    assert window.audit_result is None and not window.runner.running
    solve_and_wait(qtbot, window, "lp")
    assert window.project.result.protected and window.audit_action.isEnabled()
    window.set_senses(np.flatnonzero(window.project.sensitive)[:1], 1)  # an edit: the result is stale
    assert window.session.stale and not window.audit_action.isEnabled()
    window.undo_stack.undo()  # back to the table the result was computed on
    assert not window.session.stale and window.audit_action.isEnabled()


def test_the_audit_runs_in_a_worker_and_its_result_fills_the_tab_grid_and_cell_pane(qtbot, window, monkeypatch):
    threads = []
    engine_audit = Session.audit

    def recording(self, *args, **kwargs):
        threads.append(threading.current_thread())
        return engine_audit(self, *args, **kwargs)

    monkeypatch.setattr(Session, "audit", recording)
    solve_and_wait(qtbot, window, "lp")
    audit = _audit(qtbot, window)
    assert threads and threads[0] is not threading.main_thread()
    assert window.audit_result is audit and window.editor.model.audit is audit
    sensitive = np.flatnonzero(window.project.sensitive)
    assert np.array_equal(audit.cells, sensitive)
    panel = window.audit_panel
    assert window.results.currentWidget() is panel and panel.cells.rowCount() == sensitive.size
    summary = panel.summary.text()
    assert f"cells audited</td><td>&nbsp;&nbsp;{sensitive.size}" in summary
    assert f"cells at risk</td><td>&nbsp;&nbsp;{audit.n_at_risk}" in summary and " s, " in summary
    for row in range(panel.cells.rowCount()):
        k = int(np.flatnonzero(audit.cells == panel.cells.cell(row))[0])
        assert panel.cells.text(row, 0) == window.project.structure.cell_label(int(audit.cells[k]))
        assert [panel.cells.text(row, c) for c in (2, 3, 6, 7)] == [
            figure(audit.lower[k]), figure(audit.upper[k]), *(panel.cells.numbers.text(v) for v in
                                                              (audit.original[k], audit.published[k]))]
    width, narrowest = audit.smallest_relative_width()
    assert f"{figure(100 * width, 4)} % ({window.project.structure.cell_label(narrowest)})" in summary
    for k, cell in enumerate(audit.cells):
        window.editor.select_cells([int(cell)])
        low, high = audit.lower[k], audit.upper[k]
        interval = f"[{figure(low)}, {figure(high)}] (width {figure(high - low)}"
        assert _shown(window)["attacker interval"].startswith(interval)
        # the interval holds the original value and the safe interval around it (a protected release)
        a = window.project.values[cell]
        assert low <= a - window.project.lower_protection[cell] + 1e-6
        assert high >= a + window.project.upper_protection[cell] - 1e-6
        assert _shown(window)["audit"] == "safe" and _background(window, int(cell)) == SAFE
    assert window.editor.audit_legend.isVisibleTo(window)
    assert window.editor.audit_legend.text() == f"exact disclosure 0; at risk 0; safe {sensitive.size}"


def test_a_known_percentage_puts_cells_at_risk_and_their_colour_legend_and_reasons_say_so(qtbot, window):
    solve_and_wait(qtbot, window, "lp")
    panel = window.audit_panel
    panel.a_priori.setCurrentIndex(1)  # the table's bounds
    panel.capacity_kind.setCurrentIndex(2)  # at most a share of the value
    panel.capacity.setValue(20.0)
    panel.percentage_known.setChecked(True)
    assert panel.knowledge() == AttackerKnowledge(capacity=Capacity("rel", 0.2), percentage_known=True)
    audit = _audit(qtbot, window)
    assert audit.knowledge.percentage_known and audit.n_at_risk > 0
    levels = [_expected_level(audit.verdicts, k) for k in range(audit.n_audited)]
    for k, cell in enumerate(audit.cells):
        assert _background(window, int(cell)) == RISK_COLOURS[levels[k]].name()
    counts = {level: levels.count(level) for level in RiskLevel}
    assert window.editor.audit_legend.text() == (f"exact disclosure {counts[RiskLevel.EXACT]}; "
                                                 f"at risk {counts[RiskLevel.AT_RISK]}; safe {counts[RiskLevel.SAFE]}")
    first = panel.cells.cell(0)  # the riskiest cell first
    k = int(np.flatnonzero(audit.cells == first)[0])
    assert levels[k] is RiskLevel.AT_RISK
    assert panel.cells.text(0, 1) == "at risk" and panel.cells.text(0, 9) == ", ".join(audit.reasons(k))
    panel.table.clicked.emit(panel.cells.index(0, 0))  # a click shows the cell in the grid
    assert window.editor.selected_cells().tolist() == [first]
    assert _shown(window)["audit"] == "at risk: " + ", ".join(audit.reasons(k))
    window.editor.audit_legend.colour_cells.setChecked(False)  # the statuses again
    assert _background(window, first) != RISK_COLOURS[RiskLevel.AT_RISK].name()


@pytest.mark.parametrize("change", ["edit", "protect again"])
def test_a_stale_audit_is_cleared(qtbot, window, change):
    solve_and_wait(qtbot, window, "lp")
    audit = _audit(qtbot, window)
    cell = int(audit.cells[0])
    if change == "edit":
        window.set_senses(np.array([cell]), -1)
    else:
        solve_and_wait(qtbot, window, "lp")
    assert window.audit_result is None and window.editor.model.audit is None
    assert not window.editor.audit_legend.isVisibleTo(window)
    assert window.audit_panel.cells.rowCount() == 0 and window.audit_panel.summary.text() == AUDIT_CLEARED
    window.editor.select_cells([cell])
    assert "attacker interval" not in _shown(window) and _background(window, cell) != SAFE


def test_the_table_is_locked_during_an_audit_and_cancel_stops_it(qtbot, window, monkeypatch):
    started = threading.Event()

    def waits_for_cancel(self, knowledge=None, options=None):
        started.set()
        assert options.stop.wait(20), "the window never asked the audit to stop"
        raise AuditCancelled("the audit was cancelled")

    window.set_senses(np.flatnonzero(window.project.sensitive)[:1], 0)  # an edit there is to undo
    solve_and_wait(qtbot, window, "lp")
    monkeypatch.setattr(Session, "audit", waits_for_cancel)
    window.run_audit()
    qtbot.waitUntil(started.is_set)
    assert window.runner.running and window.editor.model.read_only
    assert not window.audit_action.isEnabled() and not window.protect_action.isEnabled()
    assert window.cancel_action.isEnabled() and not any(action.isEnabled() for action in window.table_actions)
    assert window.undo_stack.canUndo() and not window.undo_action.isEnabled()  # it would change the audited table
    depth = window.undo_stack.count()
    window.set_senses(np.flatnonzero(window.project.sensitive)[:1], 1)
    assert window.undo_stack.count() == depth  # refused while the audit runs
    with qtbot.waitSignal(window.runner.cancelled, timeout=10_000):
        window.cancel()
    assert not window.editor.model.read_only and window.audit_action.isEnabled() and window.audit_result is None
    assert window.undo_action.isEnabled()
    assert "cancelled" in window.audit_panel.summary.text()


def test_an_assumption_the_release_breaks_is_reported_and_nothing_is_shown(qtbot, window):
    result = solve_and_wait(qtbot, window, "lp")
    moved = np.abs(result.values - window.project.values)[~window.project.sensitive].max()
    assert moved > 0
    window.audit_panel.capacity_kind.setCurrentIndex(1)  # at most, in table units
    window.audit_panel.capacity.setValue(moved / 2)
    with qtbot.waitSignal(window.runner.failed, timeout=20_000):
        window.run_audit()
    assert "more than the capacity the attacker is assumed to know" in window.last_error
    assert window.audit_result is None and window.audit_action.isEnabled()


def _audit_result(cells: np.ndarray, flags: np.ndarray, values: np.ndarray) -> AuditResult:
    """An audit of ``cells`` whose verdicts are the columns of ``flags`` (exact, lower_short,
    upper_short, published_inside, singled_out)."""
    a = values[cells]
    widths = np.where(flags[:, 0], 0.0, np.abs(a) + 1.0)
    verdicts = Verdicts(a - widths / 2, a + widths / 2, *(flags[:, j].copy() for j in range(5)))
    levels = np.ones(cells.size)
    return AuditResult(cells, a, a, levels, levels, verdicts, AttackerKnowledge(), 1e-9, 0.5, 3)


@hypothesis_settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_every_audited_cell_is_coloured_as_its_verdicts_say_and_the_legend_counts_them(window, data):
    project = window.project
    n = project.n_cells
    cells = np.array(sorted(data.draw(st.sets(st.integers(0, n - 1), min_size=1, max_size=n))), np.int64)
    flags = np.array(data.draw(st.lists(st.lists(st.booleans(), min_size=5, max_size=5),
                                        min_size=cells.size, max_size=cells.size)), bool)
    audit = _audit_result(cells, flags, project.values)
    window.editor.show_audit(audit)
    levels = [_expected_level(audit.verdicts, k) for k in range(cells.size)]
    risk_colours = {colour.name() for colour in RISK_COLOURS.values()}
    for cell in range(n):
        shown = _background(window, cell)
        if cell in cells:
            assert shown == RISK_COLOURS[levels[int(np.searchsorted(cells, cell))]].name()
        else:
            assert shown not in risk_colours  # a cell not audited keeps its status colour
    counts = {level: levels.count(level) for level in RiskLevel}
    assert window.editor.audit_legend.text() == (f"exact disclosure {counts[RiskLevel.EXACT]}; "
                                                 f"at risk {counts[RiskLevel.AT_RISK]}; safe {counts[RiskLevel.SAFE]}")
    window.audit_panel.show_audit(project, audit)
    shown_levels = [window.audit_panel.cells.level(row) for row in range(cells.size)]
    assert shown_levels == sorted(shown_levels, reverse=True)  # exact, then at risk, then safe
    assert f"exact disclosures</td><td>&nbsp;&nbsp;{counts[RiskLevel.EXACT]}" in window.audit_panel.summary.text()
    window.editor.show_audit(None)


def test_the_internal_workbook_written_from_the_window_carries_the_audit(qtbot, window, tmp_path):
    import zipfile

    solve_and_wait(qtbot, window, "lp")
    path = tmp_path / "internal.xlsx"
    assert window.export_to("internal", path)
    with zipfile.ZipFile(path) as book:
        before = " ".join(book.read(n).decode("utf-8", "replace") for n in book.namelist() if "workbook.xml" in n)
    assert "Audit" not in before                                   # no audit run yet: no sheet
    _audit(qtbot, window)
    assert window.export_to("internal", path)
    with zipfile.ZipFile(path) as book:
        after = " ".join(book.read(n).decode("utf-8", "replace") for n in book.namelist() if "workbook.xml" in n)
    assert "Audit" in after


def test_the_default_attacker_is_the_one_the_rules_assume(window):
    """Not an attacker who knows nothing (every cell 'safe, infinite width'): the rule's percentage
    and each value to within the rule's range (q of a (p,q) rule, else 100 %)."""
    panel = window.audit_panel
    assert panel.knowledge() == AttackerKnowledge(a_priori=APriori.RANGE, percentage_known=True, a_priori_range=1.0)
    panel.set_rules({"pq": [(10.0, 40.0)], "p_percent": [15.0]})
    assert panel.knowledge().a_priori_range == pytest.approx(0.4)
    panel.percentage_known.setChecked(False)
    window.set_project(window.project)            # a table's rules set the attacker again
    assert panel.knowledge() == AttackerKnowledge(a_priori=APriori.RANGE, percentage_known=True, a_priori_range=1.0)


def test_every_audit_column_is_as_wide_as_its_header_and_texts(qtbot, window):
    """The audit table's columns are fitted from the texts' widths at once, not by Qt's delegate
    asking each cell ten roles (a 69-ms stall after auditing thesis_100x120): no text is cut."""
    from ctadesk.gui.audit_panel import COLUMNS

    solve_and_wait(qtbot, window, "lp")
    window.audit_panel.percentage_known.setChecked(True)  # reasons in the last column too
    _audit(qtbot, window)
    panel = window.audit_panel
    table, model = panel.table, panel.cells
    assert model.rowCount() > 0
    metrics, header_metrics = table.fontMetrics(), table.horizontalHeader().fontMetrics()
    for column, name in enumerate(COLUMNS):
        texts = [model.text(row, column) for row in range(model.rowCount())]
        needed = max([header_metrics.horizontalAdvance(name)] + [metrics.horizontalAdvance(t) for t in texts])
        assert table.columnWidth(column) > needed, (name, table.columnWidth(column), needed)
