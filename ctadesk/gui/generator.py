"""The table generator of the thesis GUI (paper 003 §6.2.3): random 2-D/3-D tables with margins,
and its dialog.  The Cox preset reproduces the Cox recipe (paper 004 §3)."""

from __future__ import annotations

import dataclasses

import numpy as np
from PySide6.QtWidgets import (QDialog, QDialogButtonBox, QDoubleSpinBox, QFormLayout, QHBoxLayout,
                               QPushButton, QSpinBox, QVBoxLayout, QWidget)

from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.structure import TableStructure


@dataclasses.dataclass(frozen=True)
class GeneratorSpec:
    """Inner sizes, inner values uniform on min_value..max_value, a share of zeros,
    a share of non-zero inner cells sensitive with protection levels drawn uniformly
    as a share of the value, and bounds value * (1 -/+ capacity)."""

    shape: tuple[int, ...] = (20, 20)
    min_value: int = 1
    max_value: int = 1000
    zero_share: float = 0.10
    sensitive_share: float = 0.30
    protection_min: float = 0.20
    protection_max: float = 0.20
    capacity: float = 0.20
    seed: int = 0


COX_PRESET = GeneratorSpec()


def generate_table(spec: GeneratorSpec) -> tuple[TableStructure, CTAProblem]:
    """A random table with totals on every dimension (C order), ready to protect."""
    rng = np.random.default_rng(spec.seed)
    structure = TableStructure.flat(*spec.shape)
    inner = np.flatnonzero(structure.inner_mask())
    raw = np.zeros(structure.n_cells)
    raw[inner] = rng.integers(spec.min_value, spec.max_value + 1, inner.size)
    raw[rng.choice(inner, size=int(round(spec.zero_share * inner.size)), replace=False)] = 0.0
    values = structure.aggregate(raw)
    candidates = inner[values[inner] > 0]
    count = min(candidates.size, int(round(spec.sensitive_share * inner.size)))
    sensitive = np.sort(rng.choice(candidates, size=count, replace=False))
    levels = rng.uniform(spec.protection_min, spec.protection_max, count) * values[sensitive]
    magnitude = np.abs(values)
    problem = CTAProblem(values=values, relations=structure.relations(),
                         lower=values - spec.capacity * magnitude, upper=values + spec.capacity * magnitude,
                         sensitive=sensitive, lower_protection=levels, upper_protection=levels,
                         cell_label=structure.cell_label, relation_label=structure.relation_label)
    return structure, problem


class GeneratorDialog(QDialog):
    """Dimensions, value range, share of sensitive cells, protection range, bounds; Cox preset."""

    def __init__(self, parent: QWidget | None = None, spec: GeneratorSpec = COX_PRESET) -> None:
        super().__init__(parent)
        self.setWindowTitle("Generate a table")
        self.dimensions = QSpinBox(minimum=2, maximum=3, objectName="gen_dimensions")
        self.sizes = [QSpinBox(minimum=1, maximum=2000, objectName=f"gen_size_{k}") for k in range(3)]
        self.min_value = QSpinBox(minimum=0, maximum=10**9, objectName="gen_min_value")
        self.max_value = QSpinBox(minimum=1, maximum=10**9, objectName="gen_max_value")
        percent = dict(minimum=0.0, maximum=100.0, decimals=1, suffix=" %")
        self.zero_share = QDoubleSpinBox(objectName="gen_zero_share", **percent)
        self.sensitive_share = QDoubleSpinBox(objectName="gen_sensitive_share", **percent)
        self.protection_min = QDoubleSpinBox(objectName="gen_protection_min", **percent)
        self.protection_max = QDoubleSpinBox(objectName="gen_protection_max", **percent)
        self.capacity = QDoubleSpinBox(objectName="gen_capacity", **percent)
        self.seed = QSpinBox(minimum=0, maximum=2**31 - 1, objectName="gen_seed")
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
        form.addRow("Sensitive inner cells", self.sensitive_share)
        form.addRow("Protection level (min, max) of value", protection)
        form.addRow("Cells may move by at most", self.capacity)
        form.addRow("Random seed", self.seed)
        cox = QPushButton("Cox preset", objectName="gen_cox")
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

    def spec(self) -> GeneratorSpec:
        low, high = sorted((self.protection_min.value(), self.protection_max.value()))
        return GeneratorSpec(
            shape=tuple(box.value() for box in self.sizes[: self.dimensions.value()]),
            min_value=min(self.min_value.value(), self.max_value.value()),
            max_value=max(self.min_value.value(), self.max_value.value()),
            zero_share=self.zero_share.value() / 100, sensitive_share=self.sensitive_share.value() / 100,
            protection_min=low / 100, protection_max=high / 100, capacity=self.capacity.value() / 100,
            seed=self.seed.value())
