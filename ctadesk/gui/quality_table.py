"""The quality report of a result (paper 002, Tables 1-2) as a table widget for the results panel."""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem

from ctadesk.engine.quality import QualityReport

LARGEST = "largest relative change (%)"


def _text(value) -> str:
    if isinstance(value, (int, np.integer)):
        return f"{value:,}"
    if value is None or not math.isfinite(value):
        return "–"
    if abs(value) >= 1000:
        return f"{value:,.1f}"
    return f"{value:,.4g}" if abs(value) >= 1e-4 or value == 0 else f"{value:.2e}"


class QualityTable(QTableWidget):
    """Measures down, cell groups across.  Clicking a 'largest relative change' entry asks for its cell
    (cell_selected(list[int]))."""

    cell_selected = Signal(list)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("quality_table")
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.cellClicked.connect(self._clicked)
        self.report: QualityReport | None = None

    def show_report(self, report: QualityReport | None) -> None:
        self.report = report
        self.clear()
        if report is None:
            self.setRowCount(0)
            self.setColumnCount(0)
            return
        header, *rows = report.rows()
        self.setColumnCount(len(header) - 1)
        self.setRowCount(len(rows))
        self.setHorizontalHeaderLabels(list(header[1:]))
        self.setVerticalHeaderLabels([row[0] for row in rows])
        for r, row in enumerate(rows):
            for c, value in enumerate(row[1:]):
                item = QTableWidgetItem(_text(value))
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if row[0] == LARGEST and report.groups[c].largest_relative_change_cell >= 0:
                    item.setToolTip("Click to show the cell in the table")
                self.setItem(r, c, item)

    def value(self, measure: str, group: str):
        """The number shown for measure and group (as in QualityReport.rows())."""
        rows = self.report.rows()
        return rows[[row[0] for row in rows].index(measure)][1 + rows[0][1:].index(group)]

    def _clicked(self, row: int, column: int) -> None:
        if self.report is not None and self.verticalHeaderItem(row).text() == LARGEST:
            cell = self.report.groups[column].largest_relative_change_cell
            if cell >= 0:
                self.cell_selected.emit([cell])
