"""The model panel gives a typed request (ProtectionRequest), and its plain form comes back:
whatever is chosen, a panel set from options() gives the same request."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from ctadesk.app import ProtectionRequest
from ctadesk.app.request import AUTO
from ctadesk.engine.methods import METHODS
from ctadesk.engine.quality.terms import QualityTerm
from ctadesk.gui.model_panel import DISTANCES, PRECISIONS, SENSES, WEIGHTS, ModelPanel, offered_models


@pytest.fixture(scope="module")
def panels(qapp):
    first, second = ModelPanel(list(METHODS)), ModelPanel(list(METHODS))
    yield first, second
    first.deleteLater()
    second.deleteLater()


def pick(combo, key) -> None:
    combo.setCurrentIndex(combo.findData(key))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(distance=st.sampled_from(list(DISTANCES)), senses=st.sampled_from(list(SENSES)),
       method=st.sampled_from([AUTO, *METHODS]), weights=st.sampled_from(list(WEIGHTS)),
       precision=st.sampled_from([key for _, key in PRECISIONS]), limit=st.sampled_from([0.0, 1.0, 600.0]),
       gap=st.sampled_from([0.0, 0.01, 5.0]), mean=st.booleans(), variance=st.booleans(), widen=st.booleans(),
       price=st.booleans(), delta=st.sampled_from([1e-3, 0.5, 20.0]))
def test_the_request_is_what_is_chosen_and_comes_back_from_its_plain_form(panels, distance, senses, method, weights,
                                                                         precision, limit, gap, mean, variance,
                                                                         widen, price, delta):
    assume((distance, senses) in offered_models(list(METHODS)))
    panel, again = panels
    for combo, key in ((panel.distance, distance), (panel.senses, senses), (panel.method, method),
                       (panel.weights, weights), (panel.precision, precision)):
        pick(combo, key)
    panel.time_limit.setValue(limit)
    panel.gap.setValue(gap)
    panel.delta.setValue(delta)
    panel.preserve_mean.setChecked(mean)
    panel.preserve_variance.setChecked(variance)
    panel.widen.setChecked(widen)
    panel.quality_terms.price.setChecked(price)
    request = panel.request()
    assert isinstance(request, ProtectionRequest) and request.seed is None and request.quality == ()
    assert (request.distance, request.senses, request.method, request.weights, request.precision) == (
        distance, senses, method, weights, precision)
    assert request.time_limit == (limit if limit > 0 else math.inf) and request.gap == pytest.approx(gap / 100)
    assert request.preserve == {name for name, on in (("mean", mean), ("variance", variance)) if on}
    assert (request.widen, request.quality_price) == (widen, price)
    huber_delta = method == AUTO and distance == "huber"
    assert dict(request.parameters) == ({"delta": pytest.approx(delta)} if huber_delta else {})
    again.set_options(panel.options())
    assert again.request() == request
    assert ProtectionRequest.from_options(panel.remembered_options()) == panel.remembered() == request


def test_the_quality_terms_are_part_of_the_request_not_of_what_is_remembered(qtbot):
    from ctadesk.io.project import Project
    from tests.app.test_job import _table

    panel = ModelPanel(list(METHODS))
    qtbot.addWidget(panel)
    panel.set_table(Project.from_problem(_table()))
    panel.set_options({"quality": [QualityTerm("mean", "bounded", bound=2.0).as_dict()]})
    assert panel.request().quality == (QualityTerm("mean", "bounded", bound=2.0),)
    assert panel.remembered().quality == () and "quality" not in panel.remembered_options()
    assert panel.options()["quality"] == [QualityTerm("mean", "bounded", bound=2.0).as_dict()]
    panel.set_options({"quality": []})
    assert panel.options()["quality"] == [] and panel.options()["quality_price"] is False


def test_only_the_senses_some_method_solves_at_the_distance_are_offered(qtbot):
    panel = ModelPanel(list(METHODS))
    qtbot.addWidget(panel)
    models = {(m.model.distance.value, m.model.senses.value) for m in METHODS.values()}
    assert offered_models(list(METHODS)) == models and ("l2", "optimal") not in models
    for distance in DISTANCES:
        pick(panel.distance, distance)
        enabled = {panel.senses.itemData(row) for row in range(panel.senses.count())
                   if panel.senses.model().item(row).isEnabled()}
        assert enabled == {senses for d, senses in models if d == distance}
        assert (distance, panel.senses.currentData()) in models


def test_a_distance_without_the_senses_chosen_moves_to_senses_it_has_and_says_so(qtbot):
    panel = ModelPanel(list(METHODS))
    qtbot.addWidget(panel)
    pick(panel.senses, "optimal")
    pick(panel.distance, "huber")
    assert panel.senses.currentData() == "fixed" and panel.request().senses == "fixed"
    assert not panel.senses_note.isHidden() and "Optimal (exact)" in panel.senses_note.text()
    pick(panel.senses, "optimal")  # chosen in code: moved back as well
    assert panel.senses.currentData() == "fixed"
    panel.set_options({"distance": "l1", "senses": "optimal"})
    assert panel.senses_note.isHidden()
    panel.set_options({"distance": "l2", "senses": "optimal"})  # options saved by an older version
    assert panel.request().senses == "fixed" and not panel.senses_note.isHidden()
