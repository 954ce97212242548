"""The tabulate dialog asks for the response (nothing guessed) and takes the spanning variables in
the order the user ticks them, reorderable."""

from pathlib import Path

from PySide6.QtCore import Qt

from ctadesk.gui.import_dialogs import MicrodataDialog

SAMPLE = Path(__file__).parents[2] / "sample_data" / "business_microdata.csv"
COLUMNS = ["id", "region", "industry", "size_class", "employment", "turnover", "holding", "weight"]


def _dialog(qtbot) -> MicrodataDialog:
    dialog = MicrodataDialog(SAMPLE, COLUMNS, lambda d: None)
    qtbot.addWidget(dialog)
    return dialog


def test_the_response_is_asked_not_the_last_column(qtbot):
    dialog = _dialog(qtbot)
    assert dialog.response_variable() is None and dialog.response.currentText() != "weight"
    assert not dialog.tabulate.isEnabled()
    dialog.set_spanning(["region"])
    dialog.accept()
    assert "Choose the response" in dialog.error.text() and dialog.result() != 1
    dialog.response.setCurrentText("turnover")
    assert dialog.tabulate.isEnabled() and dialog.response_variable() == "turnover"


def test_spanning_variables_keep_the_order_ticked_and_move(qtbot):
    dialog = _dialog(qtbot)
    rows = {name: k for k, name in enumerate(COLUMNS)}
    for name in ("size_class", "region", "industry"):   # not the file's order
        dialog.variables.item(rows[name], 0).setCheckState(Qt.CheckState.Checked)
    assert dialog.spanning() == ["size_class", "region", "industry"]
    dialog.order.setCurrentRow(2)
    dialog.move_selected(-1)
    assert dialog.spanning() == ["size_class", "industry", "region"]
    dialog.move_selected(-1)
    dialog.move_selected(-1)                                      # at the top already: stays
    assert dialog.spanning() == ["industry", "size_class", "region"]
    dialog.variables.item(rows["size_class"], 0).setCheckState(Qt.CheckState.Unchecked)
    assert dialog.spanning() == ["industry", "region"]


def test_the_table_is_spanned_in_the_order_chosen(window):
    window.choose = lambda *args: "microdata"

    def run(dialog):
        dialog.set_spanning(["size_class", "region"])
        dialog.response.setCurrentText("turnover")
        dialog.accept()
        return dialog.result() == 1
    window.run_dialog = run
    assert window.open_path(SAMPLE)
    assert [d.name for d in window.project.structure.dimensions] == ["size_class", "region"]


def test_the_file_s_variables_are_all_in_view_without_scrolling(qtbot):
    """The variables are the choice the dialog asks for: a file of eight columns shows all eight (the
    table of variables used to open two rows high beside the dialog's other parts)."""
    dialog = _dialog(qtbot)
    dialog.show()
    qtbot.waitExposed(dialog)
    table = dialog.variables
    last = len(COLUMNS) - 1
    assert table.rowViewportPosition(last) + table.rowHeight(last) <= table.viewport().height()
    assert table.verticalScrollBar().maximum() == 0
