"""The main window fits a 1400 x 900 screen (issue 32): its first size, its minimum and its
preferred width, at start, with the 101 x 121 thesis table open and with a protected, audited
result shown; and the grid's Total column can be scrolled into view inside the window."""

from pathlib import Path

import pytest
from PySide6.QtWidgets import QAbstractItemView

from ctadesk.gui.main_window import DEFAULT_SIZE, FRAME_ALLOWANCE, start_size

from .conftest import solve_and_wait

SCREEN = (1400, 900)
THESIS = Path(__file__).parents[2] / "sample_data" / "thesis_100x120.jj"


@pytest.mark.parametrize("available, size", [((1600, 1000), DEFAULT_SIZE), ((1400, 900), (1280, 820)),
                                             ((1366, 768), (1280, 720)), ((1024, 600), (1008, 552))])
def test_the_first_size_fits_the_screen_with_its_frame(available, size):
    assert start_size(available) == size
    assert size[0] + FRAME_ALLOWANCE[0] <= available[0] and size[1] + FRAME_ALLOWANCE[1] <= available[1]


def _fits(window) -> None:
    width = max(window.minimumSizeHint().width(), window.minimumWidth())
    height = max(window.minimumSizeHint().height(), window.minimumHeight())
    assert width + FRAME_ALLOWANCE[0] <= SCREEN[0], f"the window needs {width} px"
    assert height + FRAME_ALLOWANCE[1] <= SCREEN[1], f"the window needs {height} px of height"
    assert window.sizeHint().width() + FRAME_ALLOWANCE[0] <= SCREEN[0]


def _total_column_in_view(qtbot, window) -> None:
    window.resize(*start_size(SCREEN))
    qtbot.wait(50)
    view, model = window.editor.view, window.editor.model
    last = model.columnCount() - 1
    assert model.headerData(last, 1) == "Total"
    view.scrollTo(model.index(0, last), QAbstractItemView.ScrollHint.PositionAtCenter)
    qtbot.wait(50)
    left = view.columnViewportPosition(last)
    right = view.viewport().mapTo(window, view.viewport().rect().topLeft()).x() + left + view.columnWidth(last)
    assert left >= 0 and left + view.columnWidth(last) <= view.viewport().width()
    assert right <= window.width() <= SCREEN[0] - FRAME_ALLOWANCE[0]


def test_the_window_fits_1400_px_at_start_and_with_the_thesis_table(qtbot, window):
    _fits(window)
    assert window.open_path(THESIS)
    assert window.project.structure.shape == (101, 121)
    _fits(window)
    _total_column_in_view(qtbot, window)


def test_the_window_fits_1400_px_with_a_protected_and_audited_table(qtbot, window):
    assert solve_and_wait(qtbot, window, "lp").protected
    window.run_audit()
    window.runner.wait()
    assert window.audit_result is not None
    for tab in range(window.results.count()):
        window.results.setCurrentIndex(tab)
        _fits(window)
