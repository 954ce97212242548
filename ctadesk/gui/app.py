"""Application entry point: `ctadesk gui [FILE]`, `make run`, and the installer's self-test
(`ctadesk gui --self-test`)."""

from __future__ import annotations

import logging
import platform
import sys
import tempfile
import time
from pathlib import Path
from typing import TextIO

from PySide6.QtCore import QLocale, QSettings, QTranslator
from PySide6.QtGui import QGuiApplication, QIcon
from PySide6.QtWidgets import QApplication

from ctadesk import __version__
from ctadesk.app import ProtectionRequest
from ctadesk.gui.main_window import MainWindow
from ctadesk.resources import icon_files, samples_dir, translations_dir

#: the sample the self-test protects, and the app's default time limit (model panel)
SELF_TEST_SAMPLE = "thesis_10x15.jj"
SELF_TEST_TIME_LIMIT = 60.0


def application() -> QApplication:
    """The QApplication, named, with the ctadesk icon and the user's language (when translated)."""
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("ctadesk")
    app.setOrganizationName("ctadesk")
    app.setApplicationVersion(__version__)
    QGuiApplication.setDesktopFileName("ctadesk")
    icon = QIcon()
    for path in icon_files():
        icon.addFile(str(path))
    app.setWindowIcon(icon)
    _install_translation(app)
    return app


def _install_translation(app: QApplication) -> None:
    """Load resources/translations/ctadesk_<language>.qm for the user's locale, if there is one."""
    translator = QTranslator(app)
    if translator.load(QLocale(), "ctadesk", "_", str(translations_dir())):
        app.installTranslator(translator)


def run_app(path: str | None = None) -> int:
    """Open the main window on path (a table or project), or on a generated Cox table, and run."""
    app = application()
    window = MainWindow()

    def unexpected(kind, error, trace) -> None:  # never a traceback dialog, never a silent crash
        logging.getLogger("ctadesk").error("unexpected error", exc_info=(kind, error, trace))
        window.report_error("Unexpected problem", error)

    sys.excepthook = unexpected
    window.new_generated()
    if path:
        window.open_path(path)
    window.show()
    return app.exec()


class SelfTestFailure(Exception):
    """A self-test step that did not do what it should."""


def self_test(out: TextIO = sys.stdout) -> int:
    """Show the main window, open the bundled sample in it, protect it with the default model
    (ctadesk.app: the window's Session and a ProtectionRequest), write a release workbook to a
    temporary folder; print each step's seconds.  0 when every step passed, else 1."""
    began = time.perf_counter()
    step = began

    def report(text: str) -> None:
        nonlocal step
        now = time.perf_counter()
        print(f"  {now - step:6.2f} s  {text}", file=out, flush=True)
        step = now

    print(f"ctadesk {__version__} self-test ({platform.system()}, Python {platform.python_version()})",
          file=out, flush=True)
    with tempfile.TemporaryDirectory(prefix="ctadesk-self-test-") as folder:
        try:
            app = application()
            window = MainWindow(settings=QSettings(str(Path(folder) / "settings.ini"), QSettings.Format.IniFormat))
            window.ask_before_closing = False
            window.show()
            app.processEvents()
            report(f"window shown ({app.platformName()})")
            sample = samples_dir() / SELF_TEST_SAMPLE
            if not window.open_path(sample):
                raise SelfTestFailure(f"could not open {sample}: {window.last_error}")
            report(f"opened {sample.name} ({window.project.n_cells} cells, "
                   f"{int(window.project.sensitive.sum())} sensitive)")
            request = ProtectionRequest(time_limit=SELF_TEST_TIME_LIMIT)
            result = window.session.protect(request).result
            if not result.protected:
                raise SelfTestFailure(f"{request.method} did not protect the sample: {result.message}")
            report(f"protected with {request.method}: {result.status.value}, objective {result.objective:.6g}")
            release = Path(folder) / "release.xlsx"
            window.session.export("release", release)
            report(f"release workbook written ({release.stat().st_size:,} bytes)")
            window.close()
        except Exception as error:  # the self-test's edge: one line saying what failed
            print(f"self-test FAILED: {error}", file=out, flush=True)
            return 1
    print(f"self-test passed in {time.perf_counter() - began:.2f} s", file=out, flush=True)
    return 0
