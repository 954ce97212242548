"""The parameters of the algorithm an expert chose, as the method registry describes them (issue 12:
"front ends read labels and parameters from it"): a check box for a yes/no parameter, a spin box
within the registry's range for a number.  Only values that differ from the method's defaults
are handed on, so a project stays readable by a later version whose defaults changed."""

from __future__ import annotations

import math

from PySide6.QtWidgets import QCheckBox, QDoubleSpinBox, QFormLayout, QGroupBox, QLabel, QSpinBox, QWidget

from ctadesk.engine.errors import MethodError
from ctadesk.engine.methods import METHODS, Parameter, ParameterValue
from ctadesk.gui.naming import named
from ctadesk.gui.wheel_guard import guard_wheel

#: the widget a parameter is set with: a check box for yes/no, a spin box for a whole or real number
Field = QCheckBox | QSpinBox | QDoubleSpinBox
#: spin boxes need finite ends; a parameter without a maximum gets this one
UNBOUNDED = 1e9
#: decimals a float parameter's spin box shows: many for one whose default is below 1 (the
#: pseudo-Huber delta, 1e-3), few for seconds and prices
FINE_DECIMALS = 6
DECIMALS = 2


class MethodParameters(QGroupBox):
    """One row per parameter of the method set by set_method (labels wrap: the panel keeps its
    width); values() reads them back."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Algorithm parameters", parent)
        self.setObjectName("parameters")
        self._form = QFormLayout(self)
        self._form.setContentsMargins(6, 2, 6, 4)
        self._fields: dict[str, tuple[Parameter, Field]] = {}
        self.method: str | None = None

    def set_method(self, method: str | None, values: dict[str, ParameterValue] | None = None) -> None:
        """Rows for ``method``'s parameters (none for None or a name the registry lacks), at
        ``values`` where given, else at their defaults."""
        while self._form.rowCount():
            self._form.removeRow(0)
        self._fields = {}
        self.method = method if method in METHODS else None
        if self.method is None:
            return
        entry = METHODS[self.method]
        for parameter in entry.parameters:
            field = _field(parameter)
            self._fields[parameter.name] = (parameter, field)
            label = QLabel(parameter.label, wordWrap=True)
            label.setBuddy(field)
            self._form.addRow(label, field)
        guard_wheel(self)
        self.set_values(values or {})

    def set_values(self, values: dict[str, ParameterValue]) -> None:
        """Each row at ``values``' entry where it has a valid one (an invalid saved value falls back
        to the default, as the registry would refuse it), else at its default."""
        for name, (parameter, field) in self._fields.items():
            value = parameter.default
            if name in values:
                try:
                    value = parameter.checked(values[name], self.method or "")
                except MethodError:     # a stale project value: the default instead
                    value = parameter.default
            _show(field, value)

    def values(self) -> dict[str, ParameterValue]:
        """The parameters whose value differs from the method's default."""
        changed: dict[str, ParameterValue] = {}
        for name, (parameter, field) in self._fields.items():
            value = _read(parameter, field)
            if value != parameter.default:
                changed[name] = value
        return changed

    def is_empty(self) -> bool:
        return not self._fields


def _field(parameter: Parameter) -> Field:
    tip = f"{parameter.label}: {parameter.describe_range()} (default {parameter.default})"
    if parameter.kind is bool:
        field: Field = named(QCheckBox(), f"parameter_{parameter.name}")
    elif parameter.kind is int:
        field = named(QSpinBox(), f"parameter_{parameter.name}")
        low = parameter.minimum if parameter.minimum is not None else -UNBOUNDED
        field.setRange(int(low) + (1 if parameter.above else 0),
                       int(min(parameter.maximum, UNBOUNDED)) if parameter.maximum is not None else int(UNBOUNDED))
    else:
        decimals = FINE_DECIMALS if abs(float(parameter.default)) < 1 else DECIMALS
        field = named(QDoubleSpinBox(decimals=decimals), f"parameter_{parameter.name}")
        low = parameter.minimum if parameter.minimum is not None else -UNBOUNDED
        step = 10.0 ** -decimals if parameter.above else 0.0
        high = parameter.maximum if parameter.maximum is not None and math.isfinite(parameter.maximum) else UNBOUNDED
        field.setRange(low + step, high)
    field.setToolTip(tip)
    return field


def _show(field: Field, value: ParameterValue) -> None:
    if isinstance(field, QCheckBox):
        field.setChecked(bool(value))
    elif isinstance(field, QSpinBox):
        field.setValue(int(value))
    else:
        field.setValue(float(value))


def _read(parameter: Parameter, field: Field) -> ParameterValue:
    if isinstance(field, QCheckBox):
        return field.isChecked()
    if isinstance(field, QSpinBox):
        return int(field.value())
    return float(field.value())


__all__ = ["MethodParameters"]
