"""Screenshots of the main states of the desktop app, taken from a real X window.

    xvfb-run -s "-screen 0 1400x900x24" .venv/bin/python docs/make_screenshots.py
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from ctadesk.gui.generator import GeneratorSpec
from ctadesk.gui.main_window import MainWindow

OUT = Path(__file__).resolve().parent / "screenshots"


def settle(app: QApplication, seconds: float = 0.5) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        app.processEvents()
        time.sleep(0.01)


def main() -> int:
    app = QApplication(sys.argv[:1])
    OUT.mkdir(exist_ok=True)
    window = MainWindow(QSettings(str(Path(tempfile.mkdtemp()) / "s.ini"), QSettings.Format.IniFormat))
    window.ask_before_closing = False
    window.resize(1360, 860)
    window.show()
    window.open_path(Path(__file__).resolve().parent.parent / "sample_data" / "cox_20x20.jj")
    settle(app)
    window.grab().save(str(OUT / "table.png"))

    window.model_panel.method.setCurrentIndex(window.model_panel.method.findData("milp"))
    window.model_panel.time_limit.setValue(8)
    window.protect()
    settle(app, 4.0)
    window.grab().save(str(OUT / "solving.png"))
    while window.runner.running:
        settle(app, 0.2)
    settle(app)
    window.grab().save(str(OUT / "results.png"))
    window.results.setCurrentWidget(window.results.heatmap)
    settle(app)
    window.grab().save(str(OUT / "heatmap.png"))

    window.new_generated(GeneratorSpec(shape=(6, 5, 4), seed=1))
    window.model_panel.method.setCurrentIndex(window.model_panel.method.findData("lp"))
    window.protect()
    while window.runner.running:
        settle(app, 0.2)
    window.editor.display.setCurrentIndex(3)
    window.results.setCurrentWidget(window.results.scatter)
    settle(app)
    window.grab().save(str(OUT / "three_dimensions.png"))
    window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
