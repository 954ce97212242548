"""The sensitivity-rule panel: primary safety rules with their parameters (Petrenko 2017, Table 3.1;
ctadesk.engine.rules.safety) and, after Apply, how many cells each rule flagged.

The panel only builds a SafetyRules and shows counts; the main window applies
the rules to the project's CellStatistics (undoably).  It is enabled when the
table carries per-cell statistics (from microdata or a tau-argus .tab).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Generic, TypeVar

import numpy as np
from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from ctadesk.app.rules import rule_counts
from ctadesk.engine.rules.safety import RuleResult, SafetyRules
from ctadesk.engine.table.statistics import CellStatistics
from ctadesk.gui.naming import named
from ctadesk.gui.table_model import RULE_COLOURS

#: how the levels of a cell several rules flag combine (SafetyRules.level_combination)
LEVEL_COMBINATION_LABELS = {"tau-argus": "first rule's level (tau-argus)", "largest": "largest level"}

def _percent(value: float = 0.0, maximum: float = 1000.0, name: str = "") -> QDoubleSpinBox:
    return named(QDoubleSpinBox(minimum=0.0, maximum=maximum, decimals=1, suffix=" %", value=value), name)


First = TypeVar("First", QSpinBox, QDoubleSpinBox)
Second = TypeVar("Second", QDoubleSpinBox, QLabel)


class _PairRule(QWidget, Generic[First, Second]):
    """A checkbox and two numbers: one (n,k) dominance or (p,q) rule; a single-number rule's second
    is an empty label."""

    def __init__(self, text: str, first: First, second: Second, name: str) -> None:
        super().__init__()
        self.on = named(QCheckBox(text), f"{name}_on")
        self.first: First = first
        self.second: Second = second
        self.first.setObjectName(f"{name}_a")
        self.second.setObjectName(f"{name}_b")
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        for widget in (self.on, self.first, self.second):
            row.addWidget(widget)
        self.on.toggled.connect(self._sync)
        self._sync()

    def _sync(self) -> None:
        self.first.setEnabled(self.on.isChecked())
        self.second.setEnabled(self.on.isChecked())


def _dominance(name: str, n: int = 1, k: float = 80.0) -> _PairRule[QSpinBox, QDoubleSpinBox]:
    return _PairRule("(n,k)", QSpinBox(minimum=1, maximum=20, value=n, prefix="n "),
                     QDoubleSpinBox(minimum=0.1, maximum=100.0, decimals=1, value=k, prefix="k ", suffix=" %"), name)


def _single(name: str, text: str, value: float) -> _PairRule[QDoubleSpinBox, QLabel]:
    box = QDoubleSpinBox(minimum=0.1, maximum=100.0, decimals=1, value=value, prefix="p ", suffix=" %")
    hidden = QLabel("")
    return _PairRule(text, box, hidden, name)


def _pq(name: str) -> _PairRule[QDoubleSpinBox, QDoubleSpinBox]:
    return _PairRule("(p,q)", QDoubleSpinBox(minimum=0.1, maximum=99.9, decimals=1, value=10.0, prefix="p "),
                     QDoubleSpinBox(minimum=0.2, maximum=100.0, decimals=1, value=50.0, prefix="q "), name)


class RulesPanel(QWidget):
    """apply_requested() asks the main window to apply rules() to the table."""

    apply_requested = Signal()

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("rules_panel")
        self.min_frequency = named(QSpinBox(minimum=0, maximum=1000, value=3), "min_frequency")
        self.min_frequency.setSpecialValueText("off")
        self.frequency_range = _percent(10.0, name="frequency_range")
        self.dominance = [_dominance("dominance1", 1, 80.0), _dominance("dominance2", 2, 90.0)]
        self.dominance[0].on.setChecked(True)
        self.p_percent = _single("p_percent", "p%", 10.0)
        self.pq = _pq("pq")
        self.zero_unsafe = named(QCheckBox("Zero cells with contributors"), "zero_unsafe")
        self.zero_range = named(QDoubleSpinBox(minimum=0.0, maximum=1e12, decimals=1, value=0.0), "zero_range")
        self.manual_range = _percent(10.0, name="manual_range")
        self.apply_weights = named(QCheckBox("Use sampling weights"), "apply_weights")
        self.apply_weights.setChecked(True)
        self.level_combination = named(QComboBox(), "level_combination")
        for key, label in LEVEL_COMBINATION_LABELS.items():
            self.level_combination.addItem(label, key)
        self.level_combination.setToolTip(
            "A cell several rules flag: tau-argus takes the level of the first rule, in its order (dominance, "
            "p%, (p,q), request, frequency, zero, manual), that asks for one; or take the largest of them all")

        self.holding_box = named(QGroupBox("Holding level"), "holding_box")
        self.holding_min_frequency = named(QSpinBox(minimum=0, maximum=1000, value=0), "holding_min_frequency")
        self.holding_min_frequency.setSpecialValueText("off")
        self.holding_frequency_range = _percent(10.0, name="holding_frequency_range")
        self.holding_dominance = _dominance("holding_dominance", 1, 80.0)
        self.holding_p_percent = _single("holding_p_percent", "p%", 10.0)
        holding = QFormLayout(self.holding_box)
        holding.addRow("Min. holdings", self._pair(self.holding_min_frequency, self.holding_frequency_range))
        holding.addRow("Dominance", self.holding_dominance)
        holding.addRow("", self.holding_p_percent)

        self.apply_button = named(QPushButton("Apply rules"), "apply_rules")
        self.apply_button.clicked.connect(self.apply_requested)
        self.counts = named(QLabel("", wordWrap=True), "rule_counts")
        self.availability = named(QLabel("", wordWrap=True), "rules_availability")

        form = QFormLayout()
        form.addRow("Min. frequency", self._pair(self.min_frequency, self.frequency_range))
        form.addRow("Dominance", self.dominance[0])
        form.addRow("", self.dominance[1])
        form.addRow("", self.p_percent)
        form.addRow("", self.pq)
        form.addRow(self.zero_unsafe, self.zero_range)
        form.addRow("Manual safety range", self.manual_range)
        form.addRow("Several rules flag", self.level_combination)
        form.addRow("", self.apply_weights)
        self.body = named(QWidget(), "rules_body")
        body = QVBoxLayout(self.body)
        body.setContentsMargins(0, 0, 0, 0)
        body.addLayout(form)
        body.addWidget(self.holding_box)
        body.addWidget(self.apply_button)
        body.addWidget(self.counts)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.availability)
        column.addWidget(self.body)
        self.set_statistics(None)

    @staticmethod
    def _pair(first: QWidget, second: QWidget) -> QWidget:
        widget = QWidget()
        row = QHBoxLayout(widget)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(first)
        row.addWidget(QLabel("range"))
        row.addWidget(second)
        return widget

    # ----------------------------------------------------------------- state
    def set_statistics(self, statistics: CellStatistics | None) -> None:
        """Enable the rules the statistics can feed (concentration rules need top contributions)."""
        for widget in self.findChildren(QWidget):
            if widget is not self.availability:
                widget.setEnabled(statistics is not None)
        self.counts.setText("")
        self.body.setVisible(statistics is not None)
        if statistics is None:
            self.holding_box.hide()
            self.availability.setText("Safety rules need per-cell frequencies and contributions: "
                                      "import microdata or a tau-argus .tab.")
            return
        kept = statistics.top.shape[1]
        self.availability.setText(f"Per-cell statistics: frequencies, {kept} largest contribution(s)"
                                  + (", sampling weights" if statistics.has_weights else "")
                                  + (", holdings" if statistics.has_holdings else "") + ".")
        for rule in self.dominance:
            rule.first.setMaximum(max(1, kept))
            rule.setEnabled(kept >= 1)
        for concentration in (self.p_percent, self.pq):
            concentration.setEnabled(kept >= 2)
        self.holding_box.setEnabled(statistics.has_holdings)
        self.holding_box.setVisible(statistics.has_holdings)
        if statistics.holding_top is not None:  # has_holdings
            self.holding_dominance.first.setMaximum(max(1, statistics.holding_top.shape[1]))
        self.apply_weights.setEnabled(statistics.has_weights)
        pairs: tuple[_PairRule[Any, Any], ...] = (*self.dominance, self.p_percent, self.pq, self.holding_dominance,
                                                  self.holding_p_percent)
        for pair in pairs:
            pair._sync()

    def rules(self) -> SafetyRules:
        """The rules as set (only those enabled for this table); ProblemError when a parameter is invalid."""
        def on(rule: _PairRule) -> bool:
            return rule.isEnabled() and rule.on.isChecked()

        holdings = self.holding_box.isEnabled()
        return SafetyRules(
            min_frequency=self.min_frequency.value(), frequency_safety_range=self.frequency_range.value(),
            dominance=tuple((r.first.value(), r.second.value()) for r in self.dominance if on(r)),
            p_percent=(self.p_percent.first.value(),) if on(self.p_percent) else (),
            pq=((self.pq.first.value(), self.pq.second.value()),) if on(self.pq) else (),
            holding_min_frequency=self.holding_min_frequency.value() if holdings else 0,
            holding_frequency_safety_range=self.holding_frequency_range.value(),
            holding_dominance=((self.holding_dominance.first.value(), self.holding_dominance.second.value()),)
            if holdings and on(self.holding_dominance) else (),
            holding_p_percent=(self.holding_p_percent.first.value(),)
            if holdings and on(self.holding_p_percent) else (),
            zero_unsafe=self.zero_unsafe.isChecked(), zero_safety_range=self.zero_range.value(),
            manual_safety_range=self.manual_range.value(),
            apply_weights=self.apply_weights.isChecked(), level_combination=self.level_combination.currentData())

    def set_rules(self, saved: dict[str, Any]) -> None:
        """Show saved rules (a dict of SafetyRules fields, as the project file keeps them)."""
        if not saved:
            return
        fields = {f.name for f in dataclasses.fields(SafetyRules)}
        rules = SafetyRules(**{k: v for k, v in saved.items() if k in fields})
        self.min_frequency.setValue(rules.min_frequency)
        self.frequency_range.setValue(rules.frequency_safety_range)
        for widget, pair in zip(self.dominance, (*rules.dominance, None, None)):
            widget.on.setChecked(pair is not None)
            if pair is not None:
                widget.first.setValue(int(pair[0]))
                widget.second.setValue(pair[1])
        self.p_percent.on.setChecked(bool(rules.p_percent))
        if rules.p_percent:
            self.p_percent.first.setValue(rules.p_percent[0])
        self.pq.on.setChecked(bool(rules.pq))
        if rules.pq:
            self.pq.first.setValue(rules.pq[0][0])
            self.pq.second.setValue(rules.pq[0][1])
        self.holding_min_frequency.setValue(rules.holding_min_frequency)
        self.holding_frequency_range.setValue(rules.holding_frequency_safety_range)
        self.holding_dominance.on.setChecked(bool(rules.holding_dominance))
        if rules.holding_dominance:
            self.holding_dominance.first.setValue(int(rules.holding_dominance[0][0]))
            self.holding_dominance.second.setValue(rules.holding_dominance[0][1])
        self.holding_p_percent.on.setChecked(bool(rules.holding_p_percent))
        if rules.holding_p_percent:
            self.holding_p_percent.first.setValue(rules.holding_p_percent[0])
        self.zero_unsafe.setChecked(rules.zero_unsafe)
        self.zero_range.setValue(rules.zero_safety_range)
        self.manual_range.setValue(rules.manual_safety_range)
        self.apply_weights.setChecked(rules.apply_weights)
        self.level_combination.setCurrentIndex(self.level_combination.findData(rules.level_combination))

    def show_counts(self, result: RuleResult) -> None:
        """'dominance: 5 cells' per rule with its colour, and the number of unsafe cells."""
        counts = rule_counts(result)
        swatch = '<span style="background:{}">&nbsp;&nbsp;&nbsp;</span>'
        lines = [f"{swatch.format(RULE_COLOURS[name].name())} {name}: {count:,} cell(s)"
                 for name, count in counts.items()]
        total = int(np.count_nonzero(result.flags))
        lines.append(f"<b>{total:,} unsafe cell(s)</b> of {result.flags.size:,}")
        self.counts.setText("<br>".join(lines))


