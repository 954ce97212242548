"""The model selector: method (from the solvers' METHODS), weights, time limit, gap and the
quality-preserving relations of Cox (2005) (paper 002 §3)."""

from __future__ import annotations

import math
from typing import Any

from PySide6.QtWidgets import QCheckBox, QComboBox, QDoubleSpinBox, QFormLayout, QGroupBox, QHBoxLayout, QWidget


METHOD_LABELS = {
    "milp": "Exact (MILP, optimal senses)",
    "lp": "Fixed senses, L1 (LP)",
    "l2": "Fixed senses, L2 (QP)",
    "soc": "Fixed senses, L1 as a cone program (SOC)",
    "huber": "Fixed senses, pseudo-Huber",
    "milp-cuts": "Exact (MILP with imbalance cuts)",
    "random": "Heuristic: best of random senses",
    "hybrid": "Heuristic: Hybrid grouping",
    "hybrid-swaps": "Heuristic: Hybrid with swaps",
    "sat-lp": "Heuristic: SAT start, fixed senses",
    "bcd": "Heuristic: block coordinate descent",
    "scatter": "Heuristic: scatter search",
    "learning": "Heuristic: learning and rounding (big 3-D tables)",
    "hybrid-milp": "MILP + Hybrid beside it",
    "bcd-milp": "MILP + BCD beside it",
    "learning-milp": "MILP + learning beside it (big tables)",
    "network": "Fixed senses, L1 as a network (2-D, 1H2D)",
    "network-l2": "Fixed senses, L2 as a network (2-D, 1H2D)",
    "soft-lp": "Fixed senses, L1 with soft protection",
}

WEIGHTS = {
    "table": "As in the table",
    "unit": "1: total absolute change",
    "inverse": "1/value: total relative change",
}


def method_label(method: str) -> str:
    return METHOD_LABELS.get(method, method.replace("_", " ").capitalize())


class ModelPanel(QWidget):
    def __init__(self, methods: list[str], parent=None) -> None:
        super().__init__(parent)
        self.method = QComboBox(objectName="method")
        self.weights = QComboBox(objectName="weights")
        for key, label in WEIGHTS.items():
            self.weights.addItem(label, key)
        self.time_limit = QDoubleSpinBox(objectName="time_limit", minimum=0.0, maximum=86_400.0, decimals=0,
                                         suffix=" s", specialValueText="none", value=60.0)
        self.gap = QDoubleSpinBox(objectName="gap", minimum=0.0, maximum=100.0, decimals=3, suffix=" %",
                                  value=0.01)
        self.preserve_mean = QCheckBox("mean", objectName="preserve_mean")
        self.preserve_mean.setToolTip("Keep the mean of the inner cells (the grand total): sum of changes = 0")
        self.preserve_variance = QCheckBox("variance", objectName="preserve_variance")
        self.preserve_variance.setToolTip("Keep the variance of the inner cells to second order and the regression "
                                          "slope of adjusted on original at 1: L(y) = sum (a - mean a) y = 0")
        self.precision = QComboBox(objectName="precision")
        self.precision.setToolTip("Decimals the released table shows: it adds up exactly and stays protected at "
                                  "that precision")
        for label, key in (("as the data", "auto"), ("full (no rounding)", "full"), ("whole numbers", 0),
                           ("1 decimal", 1), ("2 decimals", 2), ("3 decimals", 3)):
            self.precision.addItem(label, key)
        self.widen = QCheckBox("Widen protection levels by a secret factor", objectName="widen", checked=True)
        self.widen.setToolTip("Each sensitive cell's levels grow by a random 0-25 % drawn from a secret seed kept in "
                              "the project and the internal workbook, so a released value does not sit at exactly "
                              "original ± a known percentage")
        self.preserve = QGroupBox("Preserve", objectName="preserve")
        row = QHBoxLayout(self.preserve)
        row.setContentsMargins(6, 2, 6, 2)
        row.addWidget(self.preserve_mean)
        row.addWidget(self.preserve_variance)
        row.addStretch(1)
        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        form.addRow("Method", self.method)
        form.addRow("Weights", self.weights)
        form.addRow("Time limit", self.time_limit)
        form.addRow("MILP gap", self.gap)
        form.addRow("Published", self.precision)
        form.addRow(self.preserve)
        form.addRow(self.widen)
        self.set_methods(methods)

    def set_methods(self, methods: list[str]) -> None:
        current = self.method.currentData()
        self.method.clear()
        for method in methods:
            self.method.addItem(method_label(method), method)
        if current in methods:
            self.method.setCurrentIndex(methods.index(current))

    def options(self) -> dict[str, Any]:
        """method, weights, time_limit (inf: none), gap (a fraction), preserve (['mean', 'variance'] or part)
        widen (secret widening of the protection levels, engine/widening.py) and precision ("auto",
        "full" or a number of decimals, engine/precision.py)."""
        limit = self.time_limit.value()
        preserve = [name for name, box in (("mean", self.preserve_mean), ("variance", self.preserve_variance))
                    if box.isChecked()]
        return {"method": self.method.currentData(), "weights": self.weights.currentData(),
                "time_limit": limit if limit > 0 else math.inf, "gap": self.gap.value() / 100,
                "preserve": preserve, "widen": self.widen.isChecked(), "precision": self.precision.currentData()}

    def set_options(self, options: dict[str, Any]) -> None:
        for combo, key in ((self.method, "method"), (self.weights, "weights"), (self.precision, "precision")):
            position = combo.findData(options.get(key))
            if position >= 0:
                combo.setCurrentIndex(position)
        if "time_limit" in options:
            limit = float(options["time_limit"])
            self.time_limit.setValue(limit if math.isfinite(limit) else 0.0)
        if "gap" in options:
            self.gap.setValue(100 * float(options["gap"]))
        preserve = options.get("preserve") or []
        preserve = [preserve] if isinstance(preserve, str) else list(preserve)
        self.preserve_mean.setChecked("mean" in preserve)
        self.preserve_variance.setChecked("variance" in preserve)
        self.widen.setChecked(bool(options.get("widen", True)))
