"""The three risk levels an audited cell is shown with (exact disclosure, at risk, safe), their
colours, and the legend over the grid that names them with their counts.

The levels read the audit's verdicts (ctadesk.engine.audit.verdicts): an interval of width 0 is
exact disclosure (Petrenko 2017, §3.1); any other failure (an end closer than the protection level,
the published value inside the protection interval, the original singled out by the known
percentage) puts the cell at risk; a cell failing no way is safe.
"""

from __future__ import annotations

import enum

import numpy as np
from PySide6.QtCore import Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QCheckBox, QFrame, QHBoxLayout, QLabel, QWidget

from ctadesk.engine.audit import AuditResult
from ctadesk.gui.naming import named


class RiskLevel(enum.IntEnum):
    """How an audited cell fares (NOT_AUDITED: the cell was not audited)."""

    NOT_AUDITED = -1
    SAFE = 0
    AT_RISK = 1
    EXACT = 2


RISK_NAMES = {RiskLevel.EXACT: "exact disclosure", RiskLevel.AT_RISK: "at risk", RiskLevel.SAFE: "safe"}
RISK_COLOURS = {RiskLevel.EXACT: QColor(146, 43, 33), RiskLevel.AT_RISK: QColor(245, 176, 65),
                RiskLevel.SAFE: QColor(130, 214, 160)}
#: text colour on each level's background (white on the dark red)
RISK_TEXT = {RiskLevel.EXACT: QColor(255, 255, 255), RiskLevel.AT_RISK: QColor(0, 0, 0),
             RiskLevel.SAFE: QColor(0, 0, 0)}


def risk_levels(audit: AuditResult) -> np.ndarray:
    """The RiskLevel of every audited cell, in the order of ``audit.cells``."""
    return np.where(audit.verdicts.exact, RiskLevel.EXACT,
                    np.where(audit.at_risk, RiskLevel.AT_RISK, RiskLevel.SAFE)).astype(np.int8)


def cell_risk_levels(audit: AuditResult, n_cells: int) -> np.ndarray:
    """The RiskLevel of every cell of a table of ``n_cells`` cells (NOT_AUDITED for the others)."""
    levels = np.full(n_cells, RiskLevel.NOT_AUDITED, np.int8)
    levels[audit.cells] = risk_levels(audit)
    return levels


def _swatch(level: RiskLevel) -> QFrame:
    swatch = named(QFrame(), f"swatch_{level.name.lower()}")
    swatch.setFixedSize(14, 14)
    swatch.setStyleSheet(f"background: {RISK_COLOURS[level].name()}; border: 1px solid #555")
    return swatch


class AuditLegend(QWidget):
    """'Audit: ■ exact disclosure 1  ■ at risk 2  ■ safe 3  [x] colour cells by audit' over the grid.

    toggled(bool): the user switched the colouring on or off."""

    toggled = Signal(bool)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("audit_legend")
        row = QHBoxLayout(self)
        row.setContentsMargins(4, 2, 4, 2)
        title = QLabel("<b>Disclosure audit:</b>")
        row.addWidget(title)
        self.counts: dict[RiskLevel, QLabel] = {}
        for level in (RiskLevel.EXACT, RiskLevel.AT_RISK, RiskLevel.SAFE):
            row.addWidget(_swatch(level))
            label = named(QLabel(), f"legend_{level.name.lower()}")
            self.counts[level] = label
            row.addWidget(label)
            row.addSpacing(10)
        self.colour_cells = named(QCheckBox("Colour cells by audit"), "colour_by_audit")
        self.colour_cells.setChecked(True)
        self.colour_cells.toggled.connect(self.toggled)
        row.addWidget(self.colour_cells)
        row.addStretch(1)
        self.setAutoFillBackground(True)
        self.hide()

    def show_audit(self, audit: AuditResult | None) -> None:
        """Name the levels with their counts (hidden without an audit)."""
        if audit is None:
            self.hide()
            return
        levels = risk_levels(audit)
        for level, label in self.counts.items():
            label.setText(f"{RISK_NAMES[level]} {int((levels == level).sum()):,}")
        self.show()

    def text(self) -> str:
        """The legend as one line (tests and screen readers)."""
        return "; ".join(label.text() for label in self.counts.values())


def text_colour(level: int) -> QColor | None:
    """The text colour for a cell shown at ``level`` (None: the view's own)."""
    return RISK_TEXT.get(RiskLevel(level)) if level != RiskLevel.NOT_AUDITED else None

