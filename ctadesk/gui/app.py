"""Application entry point."""

from __future__ import annotations

import sys


def run_app(path: str | None = None) -> int:
    """Open the main window (on path if given) and run the event loop."""
    from PySide6.QtWidgets import QApplication, QMainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    window = QMainWindow()
    window.setWindowTitle("ctadesk" + (f" — {path}" if path else ""))
    window.resize(1100, 750)
    window.show()
    return app.exec()
