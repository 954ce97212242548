"""The model selector: the model a statistician chooses (distance and senses, engine/model.py), the
algorithm (automatic, or an expert's choice among ctadesk.engine.methods, with its parameters from
the registry: gui/method_parameters.py), weights, time limit,
gap, published precision, widening, and the Quality group: the mean and variance kept exactly over
the inner cells and the quality terms of Cox (2005) (Cox 2005a, §3; gui/quality_terms_panel.py)."""

from __future__ import annotations

import math
from typing import Any

from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from ctadesk.app.request import AUTO, ProtectionRequest
from ctadesk.gui.method_parameters import MethodParameters
from ctadesk.gui.naming import named
from ctadesk.gui.quality_terms_panel import QualityTermsPanel
from ctadesk.io.project import Project

#: what the user chooses the model by (engine/model.py)
DISTANCES = {"l1": "L1: weighted absolute change", "l2": "L2: least squares", "huber": "Pseudo-Huber",
             "soc": "L1 as a cone program (SOC)"}
SENSES = {"optimal": "Optimal (exact)", "fixed": "Fixed (given, else ordering)",
          "heuristic": "Searched by a heuristic", "soft": "Soft: may fall short, at a price"}
AUTO_LABEL = "Automatic (chosen for the model)"


WEIGHTS = {
    "table": "As in the table",
    "unit": "1: total absolute change",
    "inverse": "1/value: total relative change",
}


def offered_models(methods: list[str]) -> frozenset[tuple[str, str]]:
    """The (distance, senses) pairs some installed method of the registry solves
    (ctadesk.engine.methods: each method's model): the only pairs the panel offers."""
    from ctadesk.engine.methods import METHODS

    return frozenset((METHODS[name].model.distance.value, METHODS[name].model.senses.value)
                     for name in methods if name in METHODS)


def method_label(method: str) -> str:
    """The registry's label of a method (ctadesk.engine.methods), AUTO_LABEL for 'auto'."""
    from ctadesk.engine.methods import METHODS

    if method == AUTO:
        return AUTO_LABEL
    return METHODS[method].label if method in METHODS else method.replace("_", " ").capitalize()


#: the published precisions offered: (label, request value)
PRECISIONS: tuple[tuple[str, str | int], ...] = (
    ("as the data", "auto"), ("full (no rounding)", "full"), ("whole numbers", 0), ("1 decimal", 1),
    ("2 decimals", 2), ("3 decimals", 3))


class ModelPanel(QWidget):
    def __init__(self, methods: list[str], parent=None) -> None:
        super().__init__(parent)
        self.distance = named(QComboBox(), "distance")
        for key, label in DISTANCES.items():
            self.distance.addItem(label, key)
        self.senses = named(QComboBox(), "senses")
        #: the senses' items (a combo box's own model, kept typed): some are disabled (_offer_senses)
        self.senses_items = QStandardItemModel(self.senses)
        self.senses.setModel(self.senses_items)
        for key, label in SENSES.items():
            self.senses.addItem(label, key)
        #: why the senses chosen before were changed (a distance no method solves with them)
        self.senses_note = named(QLabel("", wordWrap=True), "senses_note")
        self.senses_note.setStyleSheet("color: #7d6608")
        self.senses_note.hide()
        self._restoring = False
        self.delta = named(QDoubleSpinBox(minimum=1e-6, maximum=1e9, decimals=6, value=1e-3), "delta")
        self.delta.setToolTip("Pseudo-Huber delta, in the table's units: below it a change costs about its square, "
                              "above it about its size (thesis (5.17))")
        self.method = named(QComboBox(), "method")
        self.method.setToolTip("Automatic picks the algorithm for the model and the table and says why in the log; "
                               "an expert may choose one here, and set its parameters below it")
        self.parameters = MethodParameters()
        self.weights = named(QComboBox(), "weights")
        for key, label in WEIGHTS.items():
            self.weights.addItem(label, key)
        self.time_limit = named(QDoubleSpinBox(minimum=0.0, maximum=86_400.0, decimals=0,
                                               suffix=" s", value=60.0), "time_limit")
        self.time_limit.setSpecialValueText("none")
        self.gap = named(QDoubleSpinBox(minimum=0.0, maximum=100.0, decimals=3, suffix=" %",
                                        value=0.01), "gap")
        self.preserve_mean = named(QCheckBox("mean"), "preserve_mean")
        self.preserve_mean.setToolTip("Keep the mean of the inner cells (the grand total): sum of changes = 0")
        self.preserve_variance = named(QCheckBox("variance"), "preserve_variance")
        self.preserve_variance.setToolTip("Keep the variance of the inner cells to second order and the regression "
                                          "slope of adjusted on original at 1: L(y) = sum (a - mean a) y = 0")
        self.precision = named(QComboBox(), "precision")
        self.precision.setToolTip("Decimals the released table shows: it adds up exactly and stays protected at "
                                  "that precision")
        for label, precision in PRECISIONS:
            self.precision.addItem(label, precision)
        self.widen = named(QCheckBox("Widen protection levels by a secret factor"), "widen")
        self.widen.setChecked(True)
        self.widen.setToolTip("Each sensitive cell's levels grow by a random 0-25 % drawn from a secret seed kept in "
                              "the project and the internal workbook, so a released value does not sit at exactly "
                              "original ± a known percentage")
        self.quality_terms = QualityTermsPanel()
        self.quality = named(QGroupBox("Quality"), "quality")
        self.quality.setToolTip("What protection must keep of the table as a statistician uses it "
                                "(Cox 2005, Quality-preserving CTA)")
        quality = QVBoxLayout(self.quality)
        quality.setContentsMargins(6, 2, 6, 4)
        row = QHBoxLayout()
        row.addWidget(QLabel("Keep exactly:"))
        row.addWidget(self.preserve_mean)
        row.addWidget(self.preserve_variance)
        row.addStretch(1)
        quality.addLayout(row)
        quality.addWidget(self.quality_terms)
        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        form.addRow("Distance", self.distance)
        form.addRow("Huber δ", self.delta)
        form.addRow("Senses", self.senses)
        form.addRow(self.senses_note)
        form.addRow("Algorithm", self.method)
        form.addRow(self.parameters)
        form.addRow("Weights", self.weights)
        form.addRow("Time limit", self.time_limit)
        form.addRow("MILP gap", self.gap)
        form.addRow("Published", self.precision)
        form.addRow(self.quality)
        form.addRow(self.widen)
        self.set_methods(methods)
        self._form = form
        self.distance.currentIndexChanged.connect(self._rows_changed)
        self.distance.currentIndexChanged.connect(self._offer_senses)
        self.senses.currentIndexChanged.connect(lambda _: self.senses_note.hide())
        self.senses.currentIndexChanged.connect(self._offer_senses)
        self.method.currentIndexChanged.connect(self._method_changed)
        self._method_changed()

    def _method_changed(self) -> None:
        method = self.method.currentData()
        self.parameters.set_method(None if method == AUTO else method)
        self._rows_changed()

    def _rows_changed(self) -> None:
        """The Huber delta is the model's while the algorithm is automatic; an expert's algorithm
        shows its own parameters (the huber method's delta among them)."""
        automatic = self.method.currentData() == AUTO
        self._form.setRowVisible(self.delta, automatic and self.distance.currentData() == "huber")
        self._form.setRowVisible(self.parameters, not self.parameters.is_empty())

    def _offer_senses(self) -> None:
        """Offer only the senses some method solves at the chosen distance; a choice no longer
        offered moves to the first that is, saying why (L2 and pseudo-Huber take fixed senses)."""
        if self._restoring:
            return
        distance = self.distance.currentData()
        items = self.senses_items
        for row in range(self.senses.count()):
            senses = self.senses.itemData(row)
            offered = (distance, senses) in self.models
            items.item(row).setEnabled(offered)
            items.item(row).setToolTip("" if offered else f"No method solves {DISTANCES[distance]} with "
                                                          f"{SENSES[senses].lower()} senses")
        if (distance, self.senses.currentData()) in self.models:
            return
        was = SENSES[self.senses.currentData()]
        first = next((row for row in range(self.senses.count()) if items.item(row).isEnabled()), 0)
        self.senses.setCurrentIndex(first)
        self.senses_note.setText(f"{DISTANCES[distance]} is solved with {self.senses.currentText().lower()} senses "
                                 f"only, not “{was}”.")
        self.senses_note.show()

    def set_methods(self, methods: list[str]) -> None:
        self.models = offered_models(methods)
        current = self.method.currentData()
        self.method.clear()
        self.method.addItem(AUTO_LABEL, AUTO)
        for method in methods:
            self.method.addItem(method_label(method), method)
        position = self.method.findData(current)
        self.method.setCurrentIndex(max(position, 0))
        self._offer_senses()

    def precision_choices(self) -> tuple[tuple[str, Any], ...]:
        """The published precisions offered, (label, request value) in the list's order."""
        return PRECISIONS

    def set_precision(self, precision: Any) -> None:
        """Choose the published precision ``precision`` (one of PRECISIONS' values)."""
        self.precision.setCurrentIndex(max(self.precision.findData(precision), 0))

    def set_table(self, project: Project | None) -> None:
        """The table the quality terms' groups are read from (its terms are set by set_options)."""
        self.quality_terms.set_table(project)

    def request(self) -> ProtectionRequest:
        """The request the panel's choices stand for: remembered() with the quality terms, their
        groups read from the table as it stands (CTAError naming the first term that is not valid).
        No seed: the session keeps the project's (ctadesk.app.session)."""
        return self.remembered().replace(quality=self.quality_terms.terms())

    def remembered(self) -> ProtectionRequest:
        """The choices a new table starts with: the distance, the senses, the algorithm (AUTO or an
        expert's choice), its parameters (the Huber delta with the automatic algorithm; an expert's
        algorithm's parameters that differ from their defaults), the weights, the time limit (inf:
        none), the gap, the measures kept exactly, pricing the quality terms, secret widening
        (engine/publish/widening.py) and the published precision (engine/publish/precision.py).  Not
        the quality terms: they name groups of one table."""
        limit = self.time_limit.value()
        preserve = {name for name, box in (("mean", self.preserve_mean), ("variance", self.preserve_variance))
                    if box.isChecked()}
        if self.method.currentData() != AUTO:
            parameters = self.parameters.values()
        else:
            parameters = {"delta": self.delta.value()} if self.distance.currentData() == "huber" else {}
        return ProtectionRequest(distance=self.distance.currentData(), senses=self.senses.currentData(),
                                 method=self.method.currentData(), parameters=tuple(parameters.items()),
                                 weights=self.weights.currentData(), preserve=frozenset(preserve),
                                 time_limit=limit if limit > 0 else math.inf, gap=self.gap.value() / 100,
                                 quality_price=self.quality_terms.price.isChecked(), widen=self.widen.isChecked(),
                                 precision=self.precision.currentData())

    def options(self) -> dict[str, Any]:
        """request() in the plain form a project keeps (ProtectionRequest.options()), its quality
        terms and their pricing always named, so that it replaces a project's."""
        return {"quality": [], "quality_price": False, **self.request().options()}

    def remembered_options(self) -> dict[str, Any]:
        """remembered() in the plain form the settings keep (set_options reads it back)."""
        return {"quality_price": False, **self.remembered().options()}

    def set_options(self, options: dict[str, Any]) -> None:
        self._restoring = True  # the senses are checked against the distance once both are set
        for combo, key in ((self.distance, "distance"), (self.senses, "senses"), (self.method, "method"),
                           (self.weights, "weights"), (self.precision, "precision")):
            position = combo.findData(options.get(key))
            if position >= 0:
                combo.setCurrentIndex(position)
        self._restoring = False
        self.senses_note.hide()  # said only if the options themselves pair a distance with senses not offered
        self._offer_senses()
        parameters = dict(options.get("parameters") or {})
        if self.method.currentData() != AUTO:
            self.parameters.set_values(parameters)
        elif parameters.get("delta") is not None:
            self.delta.setValue(float(parameters["delta"]))
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
        self.quality_terms.price.setChecked(bool(options.get("quality_price", False)))
        self.quality_terms.set_terms(options.get("quality") or [])
