"""Application entry point: `ctadesk gui [FILE]` and `make run`."""

from __future__ import annotations

import logging
import sys


def run_app(path: str | None = None) -> int:
    """Open the main window on path (a table or project), or on a generated Cox table, and run."""
    from PySide6.QtWidgets import QApplication

    from ctadesk.gui.main_window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("ctadesk")
    app.setOrganizationName("ctadesk")
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
