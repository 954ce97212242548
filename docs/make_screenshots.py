"""Screenshots of the main states of the desktop app, taken from a real X window: the README's in
docs/screenshots/, and the user guide's (parts of the window, on the sample tables) in
docs/user-guide/images/.

    xvfb-run -s "-screen 0 1400x900x24" .venv/bin/python docs/make_screenshots.py [--guide]

--guide takes only the user guide's.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QApplication, QMessageBox

from ctadesk.app import WIDENING_SEED, files
from ctadesk.app.formats import microdata_columns
from ctadesk.gui.generator import GeneratorSpec
from ctadesk.gui.import_dialogs import ExcelImportDialog, MicrodataDialog
from ctadesk.gui.main_window import MainWindow

OUT = Path(__file__).resolve().parent / "screenshots"
GUIDE = Path(__file__).resolve().parent / "user-guide" / "images"
SAMPLES = Path(__file__).resolve().parent.parent / "sample_data"


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


def main(argv: list[str]) -> int:
    app = QApplication(sys.argv[:1])
    # the windows here replace their tables without saving them: the unsaved-work question is answered Discard
    QMessageBox.question = staticmethod(lambda *args, **kwargs: QMessageBox.StandardButton.Discard)
    if "--guide" not in argv:
        readme_images(app)
    guide_images(app)
    return 0


def readme_images(app: QApplication) -> None:
    """The README's pictures: the whole window in its main states."""
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
    dialog.runner.wait()  # the sheet shown is read in the dialog's runner
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


def protect_and_wait(app: QApplication, window: MainWindow) -> None:
    window.protect()
    while window.runner.running:
        settle(app, 0.2)
    settle(app)


def audit_and_wait(app: QApplication, window: MainWindow) -> None:
    window.run_audit()
    while window.runner.running:
        settle(app, 0.2)
    settle(app)


def choose(combo, data) -> None:
    """Choose the entry of a combo box whose data is ``data``."""
    combo.setCurrentIndex(combo.findData(data))


def sense_store(folder: Path) -> Path:
    """A sense store that has published two tables of the business microdata (as in online-cta.md)."""
    from ctadesk.cli import main as ctadesk

    store = folder / "senses.db"
    for table in ("region x industry", "industry"):
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            ctadesk(["online", "--store", str(store), "--microdata", str(SAMPLES / "business_microdata.csv"),
                     "--table", table, "--senses", "table", "--response", "turnover", "--min-freq", "3",
                     "--dominance", "1,75", "--p-percent", "10", "-o", str(folder / f"{table.replace(' ', '')}.csv"),
                     *["--init-store"] * (not store.exists())])
    return store


def guide_images(app: QApplication) -> None:
    """The user guide's pictures: parts of the window at work on the sample tables."""
    GUIDE.mkdir(parents=True, exist_ok=True)
    os.chdir(SAMPLES.parent)  # the dialogs show sample_data/... as a user typing it would
    window = MainWindow(QSettings(str(Path(tempfile.mkdtemp()) / "s.ini"), QSettings.Format.IniFormat))
    window.ask_before_closing = False
    window.resize(1360, 860)
    window.show()

    dialog = ExcelImportDialog(Path("sample_data/office_turnover.xlsx"), window)
    dialog.show()
    dialog.runner.wait()  # the sheet shown is read in the dialog's runner
    settle(app)
    dialog.grab().save(str(GUIDE / "import-excel.png"))
    dialog.reject()
    dialog = ExcelImportDialog(Path("sample_data/business_microdata.xlsx"), window)  # records: tabulate them
    dialog.show()
    dialog.runner.wait()  # the sheet shown is read in the dialog's runner
    settle(app)
    dialog.grab().save(str(GUIDE / "import-excel-microdata.png"))
    dialog.reject()

    microdata = Path("sample_data/business_microdata.csv")

    def tabulate(dialog: MicrodataDialog):
        return files.read_microdata_file(microdata, dialog.spanning(), dialog.response.currentText(),
                                         weight=dialog.weight.currentData(), holding=dialog.holding.currentData(),
                                         hierarchy_files=dialog.hierarchy_files())

    dialog = MicrodataDialog(microdata, microdata_columns(microdata), tabulate, window)
    dialog.set_spanning(["region", "industry", "size_class"])
    for row in range(dialog.variables.rowCount()):
        name = dialog.variables.item(row, 0).text()
        if name in ("region", "industry"):
            dialog.variables.item(row, 1).setText(f"sample_data/business_{name}.hrc")
    dialog.response.setCurrentText("turnover")
    dialog.weight.setCurrentIndex(dialog.weight.findData("weight"))
    dialog.holding.setCurrentIndex(dialog.holding.findData("holding"))
    dialog.show()
    settle(app)
    dialog.grab().save(str(GUIDE / "import-microdata.png"))
    dialog.accept()
    window.set_project(dialog.project)
    panel = window.rules_panel
    panel.min_frequency.setValue(3)
    panel.dominance[0].first.setValue(1)
    panel.dominance[0].second.setValue(75.0)
    panel.p_percent.on.setChecked(True)
    window.apply_rules()
    settle(app)
    panel.parentWidget().grab().save(str(GUIDE / "rules-panel.png"))
    window.workflow_scroll.widget().grab().save(str(GUIDE / "workflow.png"))
    window.model_panel.parentWidget().grab().save(str(GUIDE / "model-panel.png"))

    window.open_path(SAMPLES / "region_industry.tab")
    window.project.options[WIDENING_SEED] = 11  # the same pictures every time
    window.apply_rules()
    window.model_panel.weights.setCurrentIndex(window.model_panel.weights.findData("inverse"))
    window.model_panel.time_limit.setValue(20)
    protect_and_wait(app, window)
    window.results.setCurrentIndex(0)
    settle(app)
    window.results.summary.parentWidget().grab().save(str(GUIDE / "results-summary.png"))
    window.bottom_tabs.setCurrentWidget(window.log_pane)
    window.log_pane.moveCursor(QTextCursor.MoveOperation.Start)
    window.log_pane.ensureCursorVisible()
    settle(app)
    window.log_pane.grab().save(str(GUIDE / "solver-log.png"))
    window.editor.select_cells([int(np.flatnonzero(window.project.sensitive)[0])])
    settle(app)
    window.cell_info.grab().save(str(GUIDE / "cell-pane.png"))

    window.open_path(SAMPLES / "cox_20x20.jj")
    window.model_panel.senses.setCurrentIndex(window.model_panel.senses.findData("fixed"))
    protect_and_wait(app, window)
    window.bottom_tabs.setCurrentWidget(window.results)
    window.results.setCurrentWidget(window.results.heatmap)
    window.resizeDocks([window.bottom_dock], [460], Qt.Orientation.Vertical)
    settle(app)
    window.results.heatmap.grab().save(str(GUIDE / "heatmap.png"))
    window.resizeDocks([window.bottom_dock], [300], Qt.Orientation.Vertical)

    quality_and_audit_images(app, window)
    tools_images(app, window)
    window.close()


def quality_and_audit_images(app: QApplication, window: MainWindow) -> None:
    """thesis_10x15.jj with two quality terms, protected, its terms report, then audited: the
    audit tab, the grid coloured by risk, a cell's attacker interval and the whole window."""
    window.open_path(SAMPLES / "thesis_10x15.jj")
    window.project.options[WIDENING_SEED] = 1  # the widening of `ctadesk solve --seed 1` in read-the-result.md
    panel = window.model_panel
    for combo, data in ((panel.distance, "l1"), (panel.senses, "optimal"), (panel.method, "auto"),
                        (panel.weights, "table"), (panel.precision, "auto")):
        choose(combo, data)
    panel.time_limit.setValue(60)
    terms = panel.quality_terms
    terms.add_term()  # |L(y)| <= 0.001 over the inner cells
    row = terms.add_term()
    choose(row.measure, "mean")
    choose(row.mode, "hard")
    row.group.setCurrentIndex(row.group.findText("R = 1"))
    terms.price.setChecked(True)
    settle(app)
    window.workflow_scroll.ensureWidgetVisible(terms)
    panel.parentWidget().grab().save(str(GUIDE / "model-panel.png"))
    protect_and_wait(app, window)
    window.bottom_tabs.setCurrentWidget(window.results)
    window.results.setCurrentWidget(window.results.terms)
    settle(app)
    window.results.grab().save(str(GUIDE / "quality-terms.png"))

    audit_and_wait(app, window)
    window.results.grab().save(str(GUIDE / "audit-tab.png"))
    window.editor.grab().save(str(GUIDE / "audit-grid.png"))
    window.editor.select_cells([int(window.audit_result.cells[0])])
    settle(app)
    window.cell_info.grab().save(str(GUIDE / "cell-pane-audit.png"))
    window.grab().save(str(GUIDE / "main-window.png"))


def tools_images(app: QApplication, window: MainWindow) -> None:
    """Tools > Optimal releases on the Czech auto workers table, and File > Open sense store on a
    store that has published two tables."""
    releases = window.show_releases()
    releases.open_counts(SAMPLES / "czech_autoworkers.csv")
    while releases.running:
        settle(app, 0.2)
    releases.alpha.setValue(7)
    choose(releases.search, "optimal")
    releases.find_release()
    while releases.running:
        settle(app, 0.2)
    settle(app)
    releases.grab().save(str(GUIDE / "releases-window.png"))
    releases.close()

    checkout = Path.cwd()
    os.chdir(sense_store(Path(tempfile.mkdtemp())).parent)  # the dialog names the store as it was opened
    dialog = window.open_sense_store("senses.db")
    dialog.tabs.setCurrentIndex(1)
    settle(app)
    dialog.grab().save(str(GUIDE / "sense-store.png"))
    dialog.close()
    os.chdir(checkout)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
