"""The cell-information pane: everything known about the grid's current cell (label, original and
adjusted value, status, the rules that flagged it, sense, protection interval, frequency and
largest contributions), kept up to date as the user moves, edits and protects."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFormLayout, QLabel, QScrollArea, QVBoxLayout, QWidget

from ctadesk.gui.naming import named
from ctadesk.gui.table_editor import TableEditor

NO_CELL = "Click a cell to see what is known about it."


class CellInfoPane(QWidget):
    """Facts (CellTableModel.cell_facts) of the current cell of a table editor."""

    def __init__(self, editor: TableEditor, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("cell_info")
        self._editor = editor
        self.placeholder = named(QLabel(NO_CELL, wordWrap=True), "cell_info_placeholder")
        self._body = QWidget()
        self._form = QFormLayout(self._body)
        self._form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        scroll = QScrollArea(widgetResizable=True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setWidget(self._body)
        column = QVBoxLayout(self)
        column.setContentsMargins(4, 4, 4, 4)
        column.addWidget(self.placeholder)
        column.addWidget(scroll, 1)
        self.values: dict[str, QLabel] = {}
        model = editor.model
        editor.view.selectionModel().currentChanged.connect(lambda *_: self.refresh())
        model.dataChanged.connect(lambda *_: self.refresh())
        model.modelReset.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        """Show the facts of the editor's current cell (none when no cell is current)."""
        while self._form.rowCount():
            self._form.removeRow(0)
        self.values = {}
        index = self._editor.view.currentIndex()
        model = self._editor.model
        if model.project is None or not index.isValid():
            self.placeholder.show()
            return
        self.placeholder.hide()
        for name, text in model.cell_facts(model.cell_at(index.row(), index.column())):
            value = named(QLabel(text, wordWrap=True), f"cell_info_{name.replace(' ', '_')}")
            value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            self._form.addRow(f"{name.capitalize()}:", value)
            self.values[name] = value
