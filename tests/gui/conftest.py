import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMessageBox

from ctadesk.engine.table.generate import GeneratorSpec
from ctadesk.gui.main_window import MainWindow

SMALL = GeneratorSpec(shape=(5, 4), seed=3)


@pytest.fixture
def settings(tmp_path):
    return QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)


def unexpected_question(title, question, *options):
    """Stands in for the window's question hooks: a test that expects a question answers it itself."""
    raise AssertionError(f"the window asked a question the test does not answer: {title}: {question}")


def unexpected_message_box(parent, title, question, *options):
    """Stands in for QMessageBox.question (the unsaved-work question): a test that expects it answers it."""
    raise AssertionError(f"the window asked a question the test does not answer: {title}: {question}")


@pytest.fixture
def window(qtbot, settings, monkeypatch):
    """A main window on a 5 x 4 (6 x 5 with totals) generated table, remembering settings in tmp_path;
    a question the test does not answer fails it (instead of waiting for a user)."""
    monkeypatch.setattr(QMessageBox, "question", unexpected_message_box)
    window = MainWindow(settings)
    window.ask_before_closing = False
    window.confirm = window.choose = unexpected_question
    qtbot.addWidget(window)
    assert window.new_generated(SMALL)
    window.show()
    return window


def solve_and_wait(qtbot, window, method, timeout_ms=30_000):
    window.model_panel.method.setCurrentIndex(window.model_panel.method.findData(method))
    with qtbot.waitSignal(window.runner.finished, timeout=timeout_ms):
        window.protect()
    return window.project.result


@pytest.fixture(autouse=True)
def collect_qt_garbage(qapp):
    """Free each test's widgets while the QApplication still lives (not at interpreter exit)."""
    yield
    import gc

    qapp.processEvents()
    gc.collect()
