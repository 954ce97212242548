"""Dialogs that set per-cell limits by hand: lower/upper protection levels and lower/upper bounds,
as a share of each selected cell's value or as numbers (Castro & González 2011, model (1): l <= x <= u,
x <= a - lpl or x >= a + upl)."""

from __future__ import annotations

import numpy as np
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from ctadesk.gui.naming import named

PERCENT = "percent"
ABSOLUTE = "absolute"


class LimitsDialog(QDialog):
    """Two limits (lower, upper) in % of the value or as numbers; for bounds, either may be 'none'.

    kind is "protection" (levels: distances below/above the value) or "bounds" (values the
    published cell may not leave).  limits(values) turns the answer into per-cell arrays.
    """

    def __init__(self, kind: str, lower: float, upper: float, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.kind = kind
        bounds = kind == "bounds"
        self.setWindowTitle("Bounds" if bounds else "Protection levels")
        self.mode = named(QComboBox(), "limits_mode")
        self.mode.addItem("% of the cell's value" if not bounds else "value -/+ % of the value", PERCENT)
        self.mode.addItem("absolute amount" if not bounds else "absolute values", ABSOLUTE)
        self.lower_limit = named(QDoubleSpinBox(minimum=-1e15, maximum=1e15, decimals=4, value=lower), "limits_lower")
        self.upper_limit = named(QDoubleSpinBox(minimum=-1e15, maximum=1e15, decimals=4, value=upper), "limits_upper")
        self.no_lower = named(QCheckBox("none"), "limits_no_lower")
        self.no_upper = named(QCheckBox("none"), "limits_no_upper")
        self.no_lower.toggled.connect(lambda on: self.lower_limit.setEnabled(not on))
        self.no_upper.toggled.connect(lambda on: self.upper_limit.setEnabled(not on))
        form = QFormLayout()
        form.addRow("Given as", self.mode)
        for label, box, none in (("Lower", self.lower_limit, self.no_lower),
                                 ("Upper", self.upper_limit, self.no_upper)):
            row = QHBoxLayout()
            row.addWidget(box)
            if bounds:
                row.addWidget(none)
            form.addRow(f"{label} {'bound' if bounds else 'protection level'}", row)
        hint = ("A published value must stay within [lower, upper]." if bounds else
                "A sensitive cell is safe at or below value - lower level, or at or above value + upper level.")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(QLabel(hint, wordWrap=True))
        layout.addWidget(buttons)
        self.mode.currentIndexChanged.connect(self._mode_changed)
        self._mode_changed()

    def _mode_changed(self) -> None:
        percent = self.mode.currentData() == PERCENT
        for box in (self.lower_limit, self.upper_limit):
            box.setSuffix(" %" if percent else "")
            box.setMinimum(0.0 if percent or self.kind == "protection" else -1e15)

    def limits(self, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(lower, upper) per cell of values: protection levels (>= 0) or bounds (-inf/inf for none)."""
        values = np.asarray(values, float)
        magnitude = np.abs(values)
        lower, upper = self.lower_limit.value(), self.upper_limit.value()
        if self.mode.currentData() == PERCENT:
            low, high = lower / 100 * magnitude, upper / 100 * magnitude
            if self.kind == "bounds":
                low, high = values - low, values + high
        else:
            low, high = np.full(values.shape, lower), np.full(values.shape, upper)
        if self.kind == "bounds":
            low = np.where(self.no_lower.isChecked(), -np.inf, low)
            high = np.where(self.no_upper.isChecked(), np.inf, high)
        return low, high
