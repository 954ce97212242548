"""The result's plots are built when their tab first shows and drawn only while it shows (issue 32)."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from ctadesk.engine.table.generate import GeneratorSpec
from ctadesk.gui.results_panel import largest_in_blocks
from tests.gui.conftest import solve_and_wait


def test_no_plot_is_built_until_its_tab_shows(qtbot, window):
    results = window.results
    plots = (results.heatmap, results.scatter, results.histogram, window.progress_plot)
    assert not any(plot.built for plot in plots)  # the window started without building one
    solve_and_wait(qtbot, window, "lp")
    assert not results.heatmap.built and not results.scatter.built  # a result shown, no plot drawn
    results.setCurrentWidget(results.heatmap)
    qtbot.waitUntil(lambda: results.heatmap.built)
    assert np.abs(results._image.image).max() > 0  # drawn from the result as the tab showed


def test_a_plot_showing_draws_the_next_result_at_once(qtbot, window):
    results = window.results
    results.setCurrentWidget(results.histogram)
    qtbot.waitUntil(lambda: results.histogram.built)
    result = solve_and_wait(qtbot, window, "lp")
    _, counts = results._histogram_curve.getData()  # read without asking the panel to draw
    changed = int(np.count_nonzero(result.values != window.project.values))
    assert counts.sum() == changed > 0


def test_a_large_slice_heatmap_is_drawn_by_blocks_on_the_codes_axes(qtbot, window):
    window.new_generated(GeneratorSpec(shape=(900, 12), seed=1))
    solve_and_wait(qtbot, window, "lp")
    image = window.results.image
    assert image.image.shape == (301, 13)  # 901 rows in blocks of 3, 13 columns as they are
    rect = image.mapRectToParent(image.boundingRect())
    assert (rect.width(), rect.height()) == (13, 901)  # code k still spans [k, k + 1]


@given(arrays(float, st.tuples(st.integers(1, 40), st.integers(1, 40)), elements=st.floats(-100, 100)),
       st.integers(1, 12))
def test_each_block_shows_its_change_largest_in_magnitude(values, most):
    shown = largest_in_blocks(values, most)
    assert shown.shape[0] <= most and shown.shape[1] <= most
    rows, columns = -(-values.shape[0] // shown.shape[0]), -(-values.shape[1] // shown.shape[1])
    for (i, j), value in np.ndenumerate(shown):
        block = values[i * rows:(i + 1) * rows, j * columns:(j + 1) * columns]
        assert abs(value) == np.abs(block).max() and value in block
