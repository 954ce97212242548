"""The audit is a numbered workflow step before export, and an export of a result not audited
says so."""

from PySide6.QtWidgets import QGroupBox

from .conftest import solve_and_wait


def test_the_audit_is_step_four_before_save_and_export(window):
    steps = [box.title() for box in window.findChildren(QGroupBox) if box.title()[:1].isdigit()]
    assert steps == ["1  Table", "2  Sensitive cells", "3  Protect", "4  Audit", "5  Save and export"]
    assert window.audit_button.defaultAction() is window.audit_action


def test_exporting_a_result_not_audited_suggests_the_audit(qtbot, window, tmp_path):
    solve_and_wait(qtbot, window, "lp")
    window.export_to("csv", tmp_path / "table.csv")
    assert "without an audit" in window.log_pane.toPlainText() and "Audit (F6)" in window.log_pane.toPlainText()
