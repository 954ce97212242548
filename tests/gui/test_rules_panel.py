"""The sensitivity-rule panel on a table tabulated from microdata."""

import numpy as np
import pytest

from ctadesk.app import files
from ctadesk.gui.table_model import RULE_COLOURS
from ctadesk.io.project import load_project

# Region x Size; cell A,x has one firm; A,y is dominated by one firm (100 of 102);
# B,y has X - x1 - x2 = 3 < 10 % of x1 = 5
MICRODATA = """Region;Size;Turnover;Firm
A;x;7;f1
A;y;100;f2
A;y;1;f3
A;y;1;f4
B;x;10;f5
B;x;10;f6
B;x;10;f7
B;x;10;f8
B;y;50;f9
B;y;40;f10
B;y;1;f11
B;y;1;f12
B;y;1;f13
"""


@pytest.fixture
def micro_window(window, tmp_path):
    path = tmp_path / "firms.csv"
    path.write_text(MICRODATA)
    window.set_project(files.read_microdata_file(path, ["Region", "Size"], "Turnover"))
    return window


def _set_rules(panel, min_frequency=3, dominance=(1, 80.0), p=10.0):
    panel.min_frequency.setValue(min_frequency)
    panel.dominance[0].on.setChecked(True)
    panel.dominance[0].first.setValue(dominance[0])
    panel.dominance[0].second.setValue(dominance[1])
    panel.dominance[1].on.setChecked(False)
    panel.p_percent.on.setChecked(True)
    panel.p_percent.first.setValue(p)
    panel.pq.on.setChecked(False)


def test_the_panel_is_off_for_a_table_without_statistics_and_on_for_microdata(window, micro_window):
    assert micro_window.rules_panel.apply_button.isEnabled()
    assert micro_window.project.structure.shape == (3, 3) and micro_window.project.values[-1] == 242
    assert not micro_window.rules_panel.holding_box.isEnabled()  # the table has no holdings
    micro_window.new_generated()
    assert not micro_window.rules_panel.apply_button.isEnabled()


def test_apply_flags_cells_by_rule_and_shows_how_many_each_rule_flagged(micro_window):
    window = micro_window
    _set_rules(window.rules_panel)
    window.rules_panel.apply_button.click()
    project = window.project
    assert np.flatnonzero(project.sensitive).tolist() == [0, 1, 2, 4]  # A,x  A,y  A,Total  B,y
    assert project.flagged_by[0] == "frequency, dominance, p%" and project.flagged_by[4] == "p%"
    text = window.rules_panel.counts.text()
    for shown in ("frequency: 1 cell", "dominance: 3 cell", "p%: 4 cell", "4 unsafe cell(s)</b> of 9"):
        assert shown in text
    # dominance level of A,y: (100/80) * 100 - 102 = 23; p% level of B,y: 0.1 * 50 - 3 = 2
    assert project.upper_protection[1] == pytest.approx(23.0)
    assert project.upper_protection[4] == pytest.approx(2.0)


def test_flagged_cells_are_coloured_by_their_rule_and_tooltips_name_it(micro_window):
    from PySide6.QtCore import Qt

    _set_rules(micro_window.rules_panel)
    micro_window.apply_rules()
    model = micro_window.editor.model
    by_rule = model.data(model.index(1, 1), Qt.ItemDataRole.BackgroundRole).color()  # B,y: p%
    by_frequency = model.data(model.index(0, 0), Qt.ItemDataRole.BackgroundRole).color()  # A,x: frequency first
    assert by_rule == RULE_COLOURS["p%"] and by_frequency == RULE_COLOURS["frequency"]
    assert "flagged by: p%" in model.data(model.index(1, 1), Qt.ItemDataRole.ToolTipRole)


def test_applying_rules_is_undoable_and_keeps_cells_marked_by_hand(micro_window):
    window = micro_window
    window.mark_sensitive(np.array([3]))  # B,x by hand
    _set_rules(window.rules_panel, min_frequency=0, p=10.0)
    window.apply_rules()
    assert np.flatnonzero(window.project.sensitive).tolist() == [0, 1, 2, 3, 4]
    assert window.project.flagged_by[3] == "manual"
    window.undo_stack.undo()
    assert np.flatnonzero(window.project.sensitive).tolist() == [3]


def test_the_project_file_keeps_the_rules_and_the_statistics(micro_window, tmp_path, qtbot, settings):
    from ctadesk.gui.main_window import MainWindow

    _set_rules(micro_window.rules_panel, min_frequency=4, dominance=(2, 85.0), p=12.5)
    micro_window.apply_rules()
    path = tmp_path / "rules.ctaproj"
    assert micro_window.save_to(path)
    assert load_project(path).rules["dominance"] == [[2.0, 85.0]]
    again = MainWindow(settings)
    again.ask_before_closing = False
    qtbot.addWidget(again)
    assert again.open_path(path)
    panel = again.rules_panel
    assert panel.min_frequency.value() == 4 and panel.p_percent.first.value() == 12.5
    assert (panel.dominance[0].first.value(), panel.dominance[0].second.value()) == (2, 85.0)
    assert not panel.dominance[1].on.isChecked() and panel.apply_button.isEnabled()


def test_holding_rules_appear_and_apply_when_the_microdata_have_holdings(window, tmp_path):
    # firms f5, f6, f7 of cell B,x (10 each) belong to one enterprise group: 30 of the cell's 40
    lines = MICRODATA.splitlines()
    rows = [lines[0] + ";Group"] + [line + (";G1" if line.split(";")[3] in ("f5", "f6", "f7") else ";")
                                    for line in lines[1:]]
    path = tmp_path / "groups.csv"
    path.write_text("\n".join(rows) + "\n")
    window.set_project(files.read_microdata_file(path, ["Region", "Size"], "Turnover", holding="Group"))
    panel = window.rules_panel
    assert panel.holding_box.isVisibleTo(window) and panel.holding_box.isEnabled()
    _set_rules(panel, min_frequency=0)
    panel.p_percent.on.setChecked(False)
    panel.holding_dominance.on.setChecked(True)
    panel.holding_dominance.first.setValue(1)
    panel.holding_dominance.second.setValue(70.0)
    window.apply_rules()
    assert window.project.flagged_by[3] == "holding dominance"  # 30 > 70 % of 40; no single firm dominates
    assert "holding dominance: " in panel.counts.text()


def test_the_level_combination_is_chosen_applied_and_kept_in_the_project(micro_window, tmp_path, qtbot, settings):
    from ctadesk.engine.rules.safety import LEVEL_COMBINATIONS
    from ctadesk.gui.main_window import MainWindow

    panel = micro_window.rules_panel
    combo = panel.level_combination
    assert [combo.itemData(k) for k in range(combo.count())] == list(LEVEL_COMBINATIONS)
    assert panel.rules().level_combination == "tau-argus"  # the default, as tau-argus does it
    _set_rules(panel)
    panel.frequency_range.setValue(50.0)  # A,x (7, one firm): frequency level 3.5, dominance level 1.75
    micro_window.apply_rules()
    assert micro_window.project.upper_protection[0] == pytest.approx(1.75)  # the first rule in tau-argus's order
    combo.setCurrentIndex(combo.findData("largest"))
    micro_window.apply_rules()
    assert micro_window.project.upper_protection[0] == pytest.approx(3.5)
    path = tmp_path / "largest.ctaproj"
    assert micro_window.save_to(path) and load_project(path).rules["level_combination"] == "largest"
    again = MainWindow(settings)
    again.ask_before_closing = False
    qtbot.addWidget(again)
    assert again.open_path(path)
    assert again.rules_panel.level_combination.currentData() == "largest"


def test_protect_before_the_rules_are_applied_offers_to_apply_them_and_protects_what_they_find(micro_window, qtbot):
    """A table from microdata with no sensitive cell: Protect asks whether to apply the rules of step 2
    (as the CLI's protect applies them itself), then protects the cells they flag."""
    window = micro_window
    _set_rules(window.rules_panel)
    asked = []
    window.confirm = lambda title, question: asked.append(title) or True
    with qtbot.waitSignal(window.runner.finished, timeout=30_000):
        window.protect()
    assert asked == ["Apply the safety rules?"]
    project = window.project
    assert np.flatnonzero(project.sensitive).tolist() == [0, 1, 2, 4]
    assert project.result is not None and project.result.verified
    assert project.rules["min_frequency"] == 3


def test_protect_declined_or_with_rules_finding_nothing_runs_nothing_and_says_why(micro_window):
    window = micro_window
    errors = []
    window.report_error = lambda title, error: errors.append(str(error))
    window.confirm = lambda title, question: False
    window.protect()
    assert not window.runner.running and errors == []          # declined: nothing done, nothing to say
    assert not window.project.sensitive.any() and not window.project.rules
    _set_rules(window.rules_panel, min_frequency=0, dominance=(1, 100.0), p=0.0)
    window.rules_panel.p_percent.on.setChecked(False)
    window.rules_panel.dominance[0].on.setChecked(False)
    window.confirm = lambda title, question: True
    window.protect()
    assert not window.runner.running and not window.project.sensitive.any()
    assert errors == ["The safety rules find no unsafe cell in this table: nothing needs protecting. Change the "
                      "rules in step 2 and apply them, or mark cells sensitive by hand."]
    window.protect()        # the rules were applied: asked no more
    assert errors[-1].startswith("No cell is sensitive: nothing needs protecting.")
