"""The quality report of a result (Cox 2005a, Tables 1-2) as a table widget for the results panel,
and beside it the quality terms' report (ctadesk.engine.quality.terms.TermsReport): per term the
value reached on the published table, its target, whether it was met and its price."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ctadesk.engine.quality.measures import QualityReport
from ctadesk.gui.naming import named

LARGEST = "largest relative change (%)"
TERM_COLUMNS = ("Quality term", "Target", "Value reached", "Met", "Price (distance)", "Note")
NO_TERMS = "No quality terms: add them under 3 Protect > Quality."
MET = {True: ("✔ met", QColor(130, 214, 160)), False: ("✘ not met", QColor(231, 76, 60)),
       None: ("weighted (no target)", None)}


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
        self.setHorizontalHeaderLabels([str(name) for name in header[1:]])
        self.setVerticalHeaderLabels([str(row[0]) for row in rows])
        for r, row in enumerate(rows):
            for c, value in enumerate(row[1:]):
                item = QTableWidgetItem(_text(value))
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if row[0] == LARGEST and report.groups[c].largest_relative_change_cell >= 0:
                    item.setToolTip("Click to show the cell in the table")
                self.setItem(r, c, item)

    def value(self, measure: str, group: str):
        """The number shown for measure and group (as in QualityReport.rows())."""
        if self.report is None:
            raise RuntimeError("no quality report is shown")
        rows = self.report.rows()
        return rows[[row[0] for row in rows].index(measure)][1 + rows[0][1:].index(group)]

    def _clicked(self, row: int, column: int) -> None:
        header = self.verticalHeaderItem(row)
        if self.report is not None and header is not None and header.text() == LARGEST:
            cell = self.report.groups[column].largest_relative_change_cell
            if cell >= 0:
                self.cell_selected.emit([cell])


def target_text(term: Mapping[str, Any]) -> str:
    """What a term asks, from TermOutcome.as_dict(): '= 0', '|·| ≤ 0.001', '≥ 0.999', 'weight 1000'."""
    if term["mode"] == "hard":
        return "= 0"
    if term["mode"] == "weighted":
        return f"weight {term['weight']:g}"
    return f"≥ {term['bound']:g}" if term["measure"] == "correlation" else f"|·| ≤ {term['bound']:g}"


def value_text(term: Mapping[str, Any]) -> str:
    """The value reached: a correlation to 9 digits (it is read against a target near 1)."""
    value = term["value"]
    if value is None:
        return "–"
    return f"{value:.9g}" if term["measure"] == "correlation" else f"{value:,.6g}"


class QualityTermsView(QWidget):
    """The quality terms' report of a result: a line saying whether every term was met, one row
    per term, and the solve's notes (cutting-plane rounds) under them."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("quality_terms_view")
        self.summary = named(QLabel(NO_TERMS, wordWrap=True), "terms_summary")
        self.table = named(QTableWidget(), "terms_table")
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.notes = named(QLabel(wordWrap=True), "terms_notes")
        self.notes.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        column = QVBoxLayout(self)
        column.setContentsMargins(4, 4, 4, 4)
        column.addWidget(self.summary)
        column.addWidget(self.table, 1)
        column.addWidget(self.notes)
        self.report: Mapping[str, Any] | None = None

    def show_report(self, report: Mapping[str, Any] | None) -> None:
        """Show a TermsReport.as_dict() (None: no terms)."""
        self.report = report
        self.table.clearContents()
        terms = [] if report is None else list(report["terms"])
        self.table.setColumnCount(len(TERM_COLUMNS))
        self.table.setHorizontalHeaderLabels(list(TERM_COLUMNS))
        price = self.table.horizontalHeaderItem(TERM_COLUMNS.index("Price (distance)"))
        if price is not None:  # the labels just set made it
            price.setToolTip("The weighted distance of the solved table with every term minus that of a solve "
                             "without this term (one extra solve per term; tick 'Report the price of each term')")
        self.table.setRowCount(len(terms))
        self.summary.setText(NO_TERMS if report is None else summary_text(report))
        for row, term in enumerate(terms):
            met, colour = MET[term["met"]]
            price_note = term.get("price_note") or ("" if term["price"] is not None else "price not asked for")
            note = "; ".join(part for part in (
                price_note,
                f"{term['rounds']} cutting-plane round{'s' * (term['rounds'] != 1)}" if term.get("rounds") else "")
                if part)
            texts = (term["term"], target_text(term), value_text(term), met,
                     "–" if term["price"] is None else f"{term['price']:,.6g}", note)
            for column, text in enumerate(texts):
                item = QTableWidgetItem(text)
                if column in (2, 4):
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if column == 3 and colour is not None:
                    item.setBackground(QBrush(colour))
                if column == 5 and text:
                    item.setToolTip(text)
                self.table.setItem(row, column, item)
        notes = [] if report is None else list(report.get("notes") or [])
        self.notes.setText("\n".join(notes))
        self.notes.setVisible(bool(notes))

    def text(self, row: int, column: str) -> str:
        """The text shown for term ``row`` under ``column`` (TERM_COLUMNS)."""
        item = self.table.item(row, TERM_COLUMNS.index(column))
        return item.text() if item is not None else ""


def summary_text(report: Mapping[str, Any]) -> str:
    """'Quality terms: 2 of 2 met' (weighted terms have no target and are counted apart)."""
    terms = report["terms"]
    targets = [term for term in terms if term["met"] is not None]
    met = sum(term["met"] is True for term in targets)
    text = f"Quality terms: {met} of {len(targets)} met" if targets else "Quality terms:"
    weighted = len(terms) - len(targets)
    if weighted:
        text += f"{',' if targets else ''} {weighted} weighted (no target)"
    return text
