"""An expert's algorithm comes with its parameters, read from the method registry (issue 12: "method
parameters (block size, groups, cuts, Huber delta) cannot be reached")."""

import pytest
from PySide6.QtWidgets import QCheckBox, QDoubleSpinBox, QSpinBox

from ctadesk.app import ProtectionRequest
from ctadesk.app.request import AUTO
from ctadesk.engine.methods import METHODS
from ctadesk.gui.method_parameters import MethodParameters
from ctadesk.gui.model_panel import ModelPanel

from .conftest import solve_and_wait


def choose(panel: ModelPanel, method: str) -> None:
    panel.method.setCurrentIndex(panel.method.findData(method))


@pytest.mark.parametrize("name", list(METHODS))
def test_every_parameter_of_every_method_has_a_field_at_its_default(qtbot, name):
    form = MethodParameters()
    qtbot.addWidget(form)
    form.set_method(name)
    kinds = {bool: QCheckBox, int: QSpinBox, float: QDoubleSpinBox}
    for parameter in METHODS[name].parameters:
        field = form.findChild(kinds[parameter.kind], f"parameter_{parameter.name}")
        assert field is not None, parameter.name
    assert form.values() == {}          # the defaults survive the widgets exactly
    assert form.is_empty() is not bool(METHODS[name].parameters)


def test_the_parameters_of_an_expert_algorithm_are_shown_set_and_remembered(qtbot):
    panel = ModelPanel(list(METHODS))
    qtbot.addWidget(panel)
    panel.show()
    assert panel.method.currentData() == AUTO and not panel.parameters.isVisible()
    assert panel.remembered_options()["parameters"] == {}
    choose(panel, "bcd")
    assert panel.parameters.isVisible()
    panel.parameters.findChild(QSpinBox, "parameter_block_size").setValue(25)
    panel.parameters.findChild(QCheckBox, "parameter_by_relations").setChecked(True)
    options = panel.remembered_options()
    assert options["method"] == "bcd" and options["parameters"] == {"block_size": 25, "by_relations": True}
    again = ModelPanel(list(METHODS))
    qtbot.addWidget(again)
    again.set_options(options)
    assert again.remembered_options()["parameters"] == {"block_size": 25, "by_relations": True}
    choose(again, "random")                      # another algorithm: its own parameters, at their defaults
    assert again.remembered_options()["parameters"] == {}
    assert again.parameters.findChild(QSpinBox, "parameter_repetitions") is not None


def test_a_saved_value_out_of_range_falls_back_to_the_default(qtbot):
    panel = ModelPanel(list(METHODS))
    qtbot.addWidget(panel)
    panel.set_options({"method": "bcd", "parameters": {"block_size": 0, "seed": 7}})
    assert panel.remembered_options()["parameters"] == {"seed": 7}


def test_huber_delta_is_the_models_with_the_automatic_algorithm_and_the_methods_with_huber(qtbot):
    panel = ModelPanel(list(METHODS))
    qtbot.addWidget(panel)
    panel.show()
    panel.distance.setCurrentIndex(panel.distance.findData("huber"))
    panel.delta.setValue(0.5)
    assert panel.delta.isVisible() and panel.remembered_options()["parameters"] == {"delta": 0.5}
    choose(panel, "huber")
    assert not panel.delta.isVisible()
    panel.parameters.findChild(QDoubleSpinBox, "parameter_delta").setValue(2.0)
    assert panel.remembered_options()["parameters"] == {"delta": 2.0}


def test_the_chosen_parameters_reach_the_protection_run(qtbot, window):
    panel = window.model_panel
    choose(panel, "random")
    panel.parameters.findChild(QSpinBox, "parameter_repetitions").setValue(3)
    panel.parameters.findChild(QSpinBox, "parameter_seed").setValue(11)
    request = ProtectionRequest.from_options(panel.options())
    assert dict(request.parameters) == {"repetitions": 3, "seed": 11}
    result = solve_and_wait(qtbot, window, "random")
    assert result.verified
    assert window.project.options["parameters"] == {"repetitions": 3, "seed": 11}
