"""Application entry point: `ctadesk gui [FILE]`, `make run`, and the installer's self-test
(`ctadesk gui --self-test`).

The app shows itself before it loads: this module needs Qt alone, so a start screen is up as soon
as Qt is; the main window's modules (numpy, scipy, the solvers, the plots: about 1.5 s to import)
load in a thread meanwhile, and the first table is read or generated in the window's job runner.
"""

from __future__ import annotations

import gc
import importlib
import logging
import platform
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from PySide6.QtCore import QLocale, QSettings, Qt, QTimer, QTranslator
from PySide6.QtGui import QColor, QGuiApplication, QIcon, QPainter, QPixmap
from PySide6.QtWidgets import QApplication, QLabel

from ctadesk import __version__
from ctadesk.gui.naming import named
from ctadesk.resources import icon_files, samples_dir, translations_dir

if TYPE_CHECKING:
    from ctadesk.gui.main_window import MainWindow

#: the sample the self-test protects, and the app's default time limit (model panel)
SELF_TEST_SAMPLE = "thesis_10x15.jj"
SELF_TEST_TIME_LIMIT = 60.0


def application() -> QApplication:
    """The QApplication, named, with the ctadesk icon and the user's language (when translated)."""
    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication(sys.argv[:1])
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


#: the module the start screen waits for (imported in a thread while the screen shows)
MAIN_MODULE = "ctadesk.gui.main_window"
#: how often the start screen looks whether that import has ended
POLL_MS = 20


def start_screen(app: QApplication) -> QLabel:
    """A small frameless window with the icon, the name and the version: shown while the app
    loads.  (Not a QSplashScreen: its show() waits up to a second for the window manager.)"""
    pixmap = QPixmap(420, 160)
    pixmap.fill(QColor("#fbfcfd"))
    painter = QPainter(pixmap)
    painter.drawPixmap(24, 48, app.windowIcon().pixmap(64, 64))
    font = painter.font()
    font.setPointSize(20)
    font.setBold(True)
    painter.setFont(font)
    painter.drawText(110, 80, "ctadesk")
    font.setPointSize(10)
    font.setBold(False)
    painter.setFont(font)
    painter.drawText(110, 104, f"version {__version__}: controlled tabular adjustment")
    painter.drawText(110, 136, "Loading…")
    painter.end()
    screen = named(QLabel(), "start_screen")
    screen.setWindowFlags(Qt.WindowType.SplashScreen | Qt.WindowType.FramelessWindowHint)
    screen.setPixmap(pixmap)
    screen.setWindowTitle("ctadesk")
    screen.resize(pixmap.size())
    screen.move(app.primaryScreen().availableGeometry().center() - screen.rect().center())
    return screen


def import_in_background(name: str, then: Callable[[], None], failed: Callable[[BaseException], None]) -> QTimer:
    """Import module ``name`` in a thread; once it is, call ``then`` (or ``failed`` with the
    import's exception) on the GUI thread.  The returned timer polls the thread: keep it."""
    errors: list[BaseException] = []

    def load() -> None:
        try:
            importlib.import_module(name)
        except BaseException as error:  # handed to the GUI thread, which says what failed
            errors.append(error)

    thread = threading.Thread(target=load, name=f"import {name}", daemon=True)
    timer = QTimer()
    timer.setInterval(POLL_MS)

    def poll() -> None:
        if thread.is_alive():
            return
        timer.stop()
        if errors:
            failed(errors[0])
        else:
            then()

    timer.timeout.connect(poll)
    thread.start()
    timer.start()
    return timer


def run_app(path: str | None = None) -> int:
    """Show the start screen, load the main window's modules in a thread, then show the window,
    generate a Cox table and read ``path`` (a table or project) in its job runner; run."""
    app = application()
    screen = start_screen(app)
    screen.show()
    app.processEvents()
    windows: list[MainWindow] = []

    def ready() -> None:  # the window built a part per turn of the event loop, then shown, then its table
        from ctadesk.gui.main_window import MainWindow

        window = MainWindow(in_steps=True)
        windows.append(window)

        def unexpected(kind, error, trace) -> None:  # never a traceback dialog, never a silent crash
            logging.getLogger("ctadesk").error("unexpected error", exc_info=(kind, error, trace))
            window.report_error("Unexpected problem", error)

        sys.excepthook = unexpected
        QTimer.singleShot(0, build)

    def build() -> None:
        QTimer.singleShot(0, build if windows[0].build_step() else shown)

    def shown() -> None:
        window = windows[0]
        window.show()
        screen.close()
        gc.freeze()  # the modules' and the window's objects, alive while the app runs, left out of full collections
        QTimer.singleShot(0, first_table)

    def first_table() -> None:
        window = windows[0]
        window.new_generated(wait=False)
        if path:  # once the generated table is in: it stays if the file cannot be read

            def open_path() -> None:
                window.runner.ended.disconnect(open_path)
                window.open_path(path, wait=False)

            window.runner.ended.connect(open_path)

    def failed(error: BaseException) -> None:
        logging.getLogger("ctadesk").error("could not load the app", exc_info=error)
        print(f"ctadesk: could not load the app: {error}", file=sys.stderr)
        app.exit(1)

    poller = import_in_background(MAIN_MODULE, ready, failed)
    code = app.exec()
    poller.stop()
    return code


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
            from ctadesk.app import ProtectionRequest
            from ctadesk.gui.main_window import MainWindow

            app = application()
            window = MainWindow(settings=QSettings(str(Path(folder) / "settings.ini"), QSettings.Format.IniFormat))
            window.ask_before_closing = False
            window.show()
            app.processEvents()
            report(f"window shown ({app.platformName()})")
            sample = samples_dir() / SELF_TEST_SAMPLE
            if not window.open_path(sample):
                raise SelfTestFailure(f"could not open {sample}: {window.last_error}")
            project, session = window.open_project, window.open_session
            report(f"opened {sample.name} ({project.n_cells} cells, {int(project.sensitive.sum())} sensitive)")
            request = ProtectionRequest(time_limit=SELF_TEST_TIME_LIMIT)
            result = session.protect(request).result
            if not result.protected:
                raise SelfTestFailure(f"{request.method} did not protect the sample: {result.message}")
            report(f"protected with {request.method}: {result.status.value}, objective {result.objective:.6g}")
            release = Path(folder) / "release.xlsx"
            session.export("release", release)
            report(f"release workbook written ({release.stat().st_size:,} bytes)")
            window.close()
            window.settings.sync()  # written now: at the window's deletion the folder would be made again
        except Exception as error:  # the self-test's edge: one line saying what failed
            print(f"self-test FAILED: {error}", file=out, flush=True)
            return 1
    print(f"self-test passed in {time.perf_counter() - began:.2f} s", file=out, flush=True)
    return 0
