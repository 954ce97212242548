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

import numpy as np

from ctadesk.gui import files
from ctadesk.gui.generator import GeneratorSpec
from ctadesk.gui.import_dialogs import ExcelImportDialog
from ctadesk.gui.main_window import MainWindow

OUT = Path(__file__).resolve().parent / "screenshots"


def settle(app: QApplication, seconds: float = 0.5) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        app.processEvents()
        time.sleep(0.01)


def firms_csv(path: Path) -> Path:
    """Synthetic business microdata: 6 regions x 5 size classes, a few firms per cell, some dominated."""
    rng = np.random.default_rng(4)
    lines = ["Region;Size;Turnover"]
    for region in ("North", "East", "South", "West", "Centre", "Coast"):
        for size in ("1-9", "10-49", "50-249", "250-999", "1000+"):
            for _ in range(int(rng.integers(1, 9))):
                lines.append(f"{region};{size};{rng.lognormal(4, 1.2):.0f}")
    path.write_text("\n".join(lines) + "\n")
    return path


def layout_workbook(path: Path) -> Path:
    """A sheet as offices lay it out: title, two header rows, indented regions, totals."""
    import openpyxl
    from openpyxl.styles import Alignment, Font

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Turnover"
    sheet["A1"] = "Turnover by region and size class, 2024 (EUR 1000)"
    sheet["A1"].font = Font(bold=True, size=13)
    sheet.append([])
    sheet.append(["Region", "Small firms", None, "Large firms", None, "Total"])
    sheet.merge_cells("B3:C3")
    sheet.merge_cells("D3:E3")
    sheet.append([None, "1-9", "10-49", "50-249", "250+", None])
    rng = np.random.default_rng(2)
    rows = []
    for group, regions in (("North", ("Groningen", "Friesland", "Drenthe")), ("South", ("Limburg", "Zeeland"))):
        inner = rng.integers(50, 900, (len(regions), 4))
        for name, row in zip(regions, inner):
            rows.append(["  " + name, *row.tolist(), int(row.sum())])
        sums = inner.sum(axis=0)
        rows.append([f"{group} total", *sums.tolist(), int(sums.sum())])
    grand = np.sum([r[1:] for r in rows if r[0].endswith("total")], axis=0)
    rows.append(["Total", *grand.tolist()])
    for row in rows:
        sheet.append(row)
    for cell in sheet["A"]:
        cell.alignment = Alignment(indent=1 if cell.value and str(cell.value).startswith("  ") else 0)
    book.save(path)
    return path


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
    window.results.setCurrentWidget(window.results.quality)
    settle(app)
    window.grab().save(str(OUT / "quality.png"))

    scratch = Path(tempfile.mkdtemp())
    window.set_project(files.read_microdata_file(firms_csv(scratch / "firms.csv"), ["Region", "Size"], "Turnover"))
    panel = window.rules_panel
    panel.min_frequency.setValue(3)
    panel.dominance[0].first.setValue(1)
    panel.dominance[0].second.setValue(75.0)
    panel.p_percent.on.setChecked(True)
    window.apply_rules()
    window.editor.view.resizeColumnsToContents()
    window.bottom_tabs.setCurrentWidget(window.results)
    window.results.setCurrentIndex(0)
    settle(app)
    window.workflow_scroll.ensureWidgetVisible(panel.counts)
    settle(app)
    window.grab().save(str(OUT / "rules.png"))

    dialog = ExcelImportDialog(layout_workbook(scratch / "layout.xlsx"), window)
    dialog.show()
    settle(app)
    dialog.grab().save(str(OUT / "import_dialog.png"))
    dialog.reject()

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
