"""The dialog of the table generator of the thesis GUI (Petrenko 2017, §6.2.3); the tables come from
ctadesk.engine.table.generate (its Cox preset is the Cox recipe of Cox 2005b, §3)."""

from __future__ import annotations

import dataclasses

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from ctadesk.engine.table.generate import COX_PRESET, GeneratorSpec
from ctadesk.gui.naming import named


def _percent(name: str) -> QDoubleSpinBox:
    """A share in percent, 0 to 100."""
    return named(QDoubleSpinBox(minimum=0.0, maximum=100.0, decimals=1, suffix=" %"), name)


class GeneratorDialog(QDialog):
    """Dimensions, value range, share of sensitive cells, protection range, bounds; Cox preset."""

    def __init__(self, parent: QWidget | None = None, spec: GeneratorSpec = COX_PRESET) -> None:
        super().__init__(parent)
        self.setWindowTitle("Generate a table")
        self.dimensions = named(QSpinBox(minimum=2, maximum=3), "gen_dimensions")
        self.sizes = [named(QSpinBox(minimum=1, maximum=2000), f"gen_size_{k}") for k in range(3)]
        self.min_value = named(QSpinBox(minimum=0, maximum=10**9), "gen_min_value")
        self.max_value = named(QSpinBox(minimum=1, maximum=10**9), "gen_max_value")
        self.zero_share = _percent("gen_zero_share")
        self.sensitive_share = _percent("gen_sensitive_share")
        self.sensitive_count = named(QSpinBox(minimum=0, maximum=10**8), "gen_sensitive_count")
        self.sensitive_by = named(QComboBox(), "gen_sensitive_by")
        self.sensitive_by.addItems(["share of inner cells", "number of cells"])
        self.sensitive_by.currentIndexChanged.connect(self._sensitive_by_changed)
        self.protection_min = _percent("gen_protection_min")
        self.protection_max = _percent("gen_protection_max")
        self.capacity = _percent("gen_capacity")
        self.seed = named(QSpinBox(minimum=0, maximum=2**31 - 1), "gen_seed")
        sizes = QHBoxLayout()
        for box in self.sizes:
            sizes.addWidget(box)
        protection = QHBoxLayout()
        protection.addWidget(self.protection_min)
        protection.addWidget(self.protection_max)
        form = QFormLayout()
        form.addRow("Dimensions", self.dimensions)
        form.addRow("Inner categories per dimension", sizes)
        form.addRow("Smallest inner value", self.min_value)
        form.addRow("Largest inner value", self.max_value)
        form.addRow("Zero inner cells", self.zero_share)
        sensitive = QHBoxLayout()
        sensitive.addWidget(self.sensitive_by)
        sensitive.addWidget(self.sensitive_share)
        sensitive.addWidget(self.sensitive_count)
        form.addRow("Sensitive inner cells (at random)", sensitive)
        form.addRow("Protection level (min, max) of value", protection)
        form.addRow("Cells may move by at most", self.capacity)
        form.addRow("Random seed", self.seed)
        cox = named(QPushButton("Cox preset"), "gen_cox")
        cox.clicked.connect(lambda: self.set_spec(dataclasses.replace(COX_PRESET, shape=self.spec().shape,
                                                                       seed=self.seed.value())))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.addButton(cox, QDialogButtonBox.ButtonRole.ResetRole)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(buttons)
        self.dimensions.valueChanged.connect(lambda k: self.sizes[2].setEnabled(k == 3))
        self.set_spec(spec)

    def set_spec(self, spec: GeneratorSpec) -> None:
        self.dimensions.setValue(len(spec.shape))
        for box, size in zip(self.sizes, (*spec.shape, 5, 5)):
            box.setValue(size)
        self.sizes[2].setEnabled(len(spec.shape) == 3)
        self.min_value.setValue(spec.min_value)
        self.max_value.setValue(spec.max_value)
        self.zero_share.setValue(100 * spec.zero_share)
        self.sensitive_share.setValue(100 * spec.sensitive_share)
        self.protection_min.setValue(100 * spec.protection_min)
        self.protection_max.setValue(100 * spec.protection_max)
        self.capacity.setValue(100 * spec.capacity)
        self.seed.setValue(spec.seed)
        self.sensitive_by.setCurrentIndex(int(spec.sensitive_count is not None))
        self.sensitive_count.setValue(spec.sensitive_count or 0)
        self._sensitive_by_changed()

    def _sensitive_by_changed(self) -> None:
        by_number = self.sensitive_by.currentIndex() == 1
        self.sensitive_share.setVisible(not by_number)
        self.sensitive_count.setVisible(by_number)

    def spec(self) -> GeneratorSpec:
        low, high = sorted((self.protection_min.value(), self.protection_max.value()))
        return GeneratorSpec(
            shape=tuple(box.value() for box in self.sizes[: self.dimensions.value()]),
            min_value=min(self.min_value.value(), self.max_value.value()),
            max_value=max(self.min_value.value(), self.max_value.value()),
            zero_share=self.zero_share.value() / 100, sensitive_share=self.sensitive_share.value() / 100,
            protection_min=low / 100, protection_max=high / 100, capacity=self.capacity.value() / 100,
            seed=self.seed.value(),
            sensitive_count=self.sensitive_count.value() if self.sensitive_by.currentIndex() == 1 else None)
