"""A scripted walkthrough of the desktop app that fails when the window freezes.

It starts the app as a user does (``ctadesk gui``, in a fresh interpreter), then, in one window,
opens every sample in sample_data/ and two office-style workbooks, protects each table, audits
the protected table and exports it; it switches the Excel import dialog to a sheet of 20,000
records, generates a 1000 x 1000 table, opens a protected 300 x 350 project, writes its release
workbook and opens the user guide.  A 10 ms heartbeat on
the GUI thread (ctadesk.gui.heartbeat) measures each action's longest stall: the time the window
could not answer a click, a key or a repaint.  Each action counts until its job has ended and
the window has had 0.3 s to show the outcome.

    xvfb-run -s "-screen 0 1600x1000x24" .venv/bin/python docs/walkthrough.py     # or: make walkthrough
    QT_QPA_PLATFORM=offscreen .venv/bin/python docs/walkthrough.py --quick

Prints one line per action (its longest stall, and what it came to) and exits 1, naming them,
when an action stalled longer than --limit (default 0.1 s) or failed; 0 otherwise.  --quick
leaves out the large tables (1000 x 1000, 300 x 350); --trace FILE writes every thread's stack
there whenever the window misses its heartbeat for 50 ms (what held it).  The stalls are
wall-clock figures: a machine busy with other work stalls longer.  The app runs as installed: a copy of the package
in a temporary folder, its bytecode compiled once beforehand (as_installed).
"""

from __future__ import annotations

import argparse
import compileall
import gc
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

import numpy as np

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
SAMPLES = ROOT / "sample_data"
#: the tables opened, protected, audited and exported, in turn
TABLES = ["thesis_3x4.jj", "thesis_10x15.jj", "thesis_20x30.jj", "thesis_50x75.jj", "thesis_70x100.jj",
          "thesis_100x120.jj", "cox_20x20.jj", "cox_6x8x10.jj", "region_industry.tab", "office_turnover.xlsx"]
#: microdata files, tabulated by their dialog's first choices, then as the tables
MICRODATA = ["business_microdata.csv", "business_microdata.sav", "business_microdata.xlsx"]
#: the seconds a protection run may take in the walkthrough
TIME_LIMIT = 10
#: how long the window is left to show an action's outcome, within the action
SETTLE_S = 0.3
#: the start is measured in a fresh interpreter: this script, run there
START_PROBE = textwrap.dedent("""
    import sys, time
    began = time.perf_counter()
    from PySide6.QtCore import QEvent, QObject, QTimer
    from PySide6.QtWidgets import QApplication
    qt = time.perf_counter()
    from ctadesk.gui import app as gui_app
    from ctadesk.gui.heartbeat import StallMeter
    qapp = gui_app.application()
    meter = StallMeter()
    seen = {}

    class Shown(QObject):
        def eventFilter(self, watched, event):
            if event.type() == QEvent.Type.Show and watched.objectName() == "start_screen" and "screen" not in seen:
                seen["screen"] = time.perf_counter()
                meter.begin("start")
            return False

    shown = Shown()
    qapp.installEventFilter(shown)

    def ready():
        window = next((w for w in qapp.topLevelWidgets() if type(w).__name__ == "MainWindow"), None)
        if window is not None and window.isVisible() and window.project is not None and not window.runner.running:
            seen["table"] = time.perf_counter()
            meter.end()
            window.ask_before_closing = False
            qapp.quit()

    poll = QTimer()
    poll.timeout.connect(ready)
    poll.start(5)
    code = gui_app.run_app(None)
    print(f"{seen['screen'] - qt:.4f} {meter.stalls['start']:.4f} {seen['table'] - qt:.4f} {qt - began:.4f}")
""")


def as_installed(folder: Path) -> None:
    """Run the app from an installed copy, as a wheel's install lays it out: the package copied
    to ``folder`` with its resources inside and its bytecode compiled once (a wheel's install
    compiles it).  This environment sets PYTHONDONTWRITEBYTECODE, and then every module the window
    imports on first use is compiled on its thread (the tau-argus writer deciding an export's menu
    entry: 97 ms after a protection run).  Not PYTHONPYCACHEPREFIX: with it Python ignores the
    libraries' own compiled bytecode too and compiles numpy, scipy and pyqtgraph at every start,
    holding the GIL for each module."""
    package = folder / "ctadesk"
    shutil.copytree(ROOT / "ctadesk", package, ignore=shutil.ignore_patterns("__pycache__"))
    compileall.compile_dir(package, quiet=1)
    for shipped, checkout in (("_resources", "resources"), ("_samples", "sample_data"),
                              ("_user_guide", "docs/user-guide")):
        (package / shipped).symlink_to(ROOT / checkout, target_is_directory=True)
    sys.path.insert(0, str(folder))
    os.environ["PYTHONPATH"] = str(folder)


def measure_start() -> tuple[float, float, float, float]:
    """In a fresh interpreter, as `ctadesk gui` starts: the seconds from the end of Qt's import to
    the start screen, the longest stall from then until the first table is shown, the seconds to
    that table, and Qt's import."""
    run = subprocess.run([sys.executable, "-c", START_PROBE], capture_output=True, text=True, timeout=120)
    if run.returncode != 0:
        raise RuntimeError(f"the start probe failed: {run.stderr.strip().splitlines()[-1:]}")
    screen, stall, table, qt = map(float, run.stdout.split()[-4:])
    return screen, stall, table, qt


def two_sheets(path: Path) -> Path:
    """A workbook of the office turnover table and, on a second sheet, the business microdata's
    20,000 records."""
    import csv

    import openpyxl

    book = openpyxl.Workbook(write_only=True)
    table = book.create_sheet("Turnover")
    for row in openpyxl.load_workbook(SAMPLES / "office_turnover.xlsx", read_only=True).active.iter_rows(
            values_only=True):
        table.append(row)
    records = book.create_sheet("enterprises")
    with open(SAMPLES / "business_microdata.csv", newline="", encoding="utf-8") as file:
        for k, row in enumerate(csv.reader(file)):
            records.append(row if k == 0 else [_number(field) for field in row])
    book.save(path)
    return path


def _number(field: str) -> object:
    """A CSV field as a workbook cell holds it: a number when it reads as one, else the text."""
    try:
        return int(field)
    except ValueError:
        try:
            return float(field)
        except ValueError:
            return field or None


class Walkthrough:
    """One main window driven as a user would, answering its questions: the unsaved-work question
    with Discard, dialogs accepted as they open, a CSV's kind as guessed, Yes to recomputing
    totals, no other precision offered."""

    def __init__(self, folder: Path, limit: float, trace: TextIO | None = None) -> None:
        from PySide6.QtCore import QSettings
        from PySide6.QtWidgets import QApplication, QMessageBox

        from ctadesk.gui.heartbeat import StallMeter
        from ctadesk.gui.main_window import MainWindow

        self.app = QApplication.instance() or QApplication(sys.argv[:1])
        self.folder = folder
        self.limit = limit
        self.meter = StallMeter(trace=trace)
        self.failures: dict[str, str] = {}
        QMessageBox.question = staticmethod(lambda *args, **kwargs: QMessageBox.StandardButton.Discard)
        self.window = MainWindow(QSettings(str(folder / "settings.ini"), QSettings.Format.IniFormat))
        self.window.ask_before_closing = False
        self.window.run_dialog = self._accept
        self.window.confirm = lambda title, question: True
        self.window.choose = lambda title, label, options, current: current if title == "Import CSV" else None
        self.window.resize(1500, 920)
        self.window.show()
        gc.freeze()  # as run_app does once its window shows
        self.settle(1.0)

    @staticmethod
    def _accept(dialog) -> bool:
        """Accept a dialog as it opens (a microdata dialog: region by industry of turnover; a
        workbook of microdata: tabulated, as its import dialog suggests)."""
        from PySide6.QtWidgets import QDialog, QPushButton

        if dialog.objectName() == "microdata_dialog":
            dialog.set_spanning(["region", "industry"])
            dialog.response.setCurrentText("turnover")
        if dialog.objectName() == "excel_import_dialog" and dialog.looks_like_microdata():
            dialog.findChild(QPushButton, "import_tabulate").click()
            return False
        dialog.accept()
        return dialog.result() == QDialog.DialogCode.Accepted

    def settle(self, seconds: float = SETTLE_S) -> None:
        """Run the event loop for ``seconds`` (what the window does meanwhile is measured)."""
        from PySide6.QtCore import QEventLoop, QTimer

        loop = QEventLoop()
        QTimer.singleShot(int(seconds * 1000), loop.quit)
        loop.exec()

    def act(self, name: str, action: Callable[[], object]) -> None:
        """Measure ``action`` (which waits in the event loop for its job) and the window's showing
        of its outcome; a False answer or a message on the status bar's error is a failure."""
        window = self.window
        window.last_error = ""
        began = time.perf_counter()
        with self.meter.action(name):
            outcome = action()
            window.runner.wait()
            self.settle()
        seconds = time.perf_counter() - began - SETTLE_S
        said = window.last_error or ("" if outcome is not False else "did not happen")
        if said:
            self.failures[name] = said
        stall = self.meter.stalls[name]
        mark = "STALL" if stall > self.limit else "ok"
        print(f"  {1000 * stall:6.0f} ms  {mark:5}  {name} ({seconds:.2f} s){': ' + said if said else ''}",
              flush=True)

    def table(self, name: str, opened: Callable[[], object]) -> None:
        """Open a table, protect it, audit the protected table and export it."""
        window = self.window
        self.act(f"open {name}", opened)
        if window.project is None or self.failures.get(f"open {name}"):
            return
        if not window.project.sensitive.any():
            self.act(f"mark sensitive cells of {name}", self.mark_sensitive)
        window.model_panel.time_limit.setValue(TIME_LIMIT)
        self.act(f"protect {name}", window.protect)
        if window.can_audit():
            self.act(f"audit {name}", window.run_audit)
        result = window.project.result
        releasable = result is not None and result.protected and window.export_actions["release"].isEnabled()
        kind = "release" if releasable else "internal"
        target = self.folder / f"{Path(name).stem}-{kind}.xlsx"
        self.act(f"export {name} ({kind})", lambda: window.export_to(kind, target))

    def mark_sensitive(self) -> bool:
        """A table with cell statistics: the safety rules a statistician starts from (at least 3
        contributors, no one contributor over 75 %); else its three smallest inner cells."""
        window = self.window
        project = window.project
        if project.statistics is not None:
            panel = window.rules_panel
            panel.min_frequency.setValue(3)
            panel.dominance[0].first.setValue(1)
            panel.dominance[0].second.setValue(75.0)
            return window.apply_rules()
        inner = np.flatnonzero(project.structure.inner_mask() & (project.values > 0))
        window.mark_sensitive(inner[np.argsort(project.values[inner])[:3]])
        return bool(project.sensitive.any())

    def large(self) -> None:
        """The issue's large tables: generating 1000 x 1000; opening a protected 300 x 350 project
        (made here first, not measured) and writing its release."""
        from ctadesk.app import ProtectionRequest
        from ctadesk.app.session import Session
        from ctadesk.engine.table.generate import GeneratorSpec
        from ctadesk.gui.jobs import generated_project

        window = self.window
        self.act("generate 1000 x 1000", lambda: window.new_generated(GeneratorSpec(shape=(1000, 1000), seed=1)))
        project = self.folder / "t300x350.ctaproj"
        session = Session(generated_project(GeneratorSpec(shape=(300, 350), seed=2)))
        session.protect(ProtectionRequest(method="lp", time_limit=120))
        session.save(project)
        self.act("open the protected 300 x 350 project", lambda: window.open_path(project))
        self.act("export the 300 x 350 release", lambda: window.export_to("release", self.folder / "t300x350.xlsx"))

    def sheets(self) -> None:
        """The import dialog of a workbook of a table and a sheet of 20,000 records (made here, not
        measured) switches to the records: the sheet is read in the dialog's runner."""
        from ctadesk.gui.import_dialogs import ExcelImportDialog

        dialog = ExcelImportDialog(two_sheets(self.folder / "two_sheets.xlsx"), self.window)
        dialog.show()
        dialog.runner.wait()

        def switch() -> bool:
            dialog.sheets.setCurrentRow(1)
            dialog.runner.wait()
            return dialog.looks_like_microdata()  # read, and laid out as records

        self.act("switch the import dialog to a sheet of 20,000 records", switch)
        dialog.reject()

    def guide(self) -> None:
        from ctadesk.gui.user_guide import show_user_guide

        self.act("open the user guide", lambda: show_user_guide(self.window))
        self.act("open the guide's protect page", lambda: show_user_guide(self.window, "protect.md"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=float, default=0.100, help="the longest stall allowed, in seconds")
    parser.add_argument("--quick", action="store_true", help="leave out the 1000 x 1000 and 300 x 350 tables")
    parser.add_argument("--trace", type=argparse.FileType("w"), metavar="FILE",
                        help="write every thread's stack there while the window stalls (StallMeter's trace)")
    args = parser.parse_args(argv)
    print(f"walkthrough: the longest main-thread stall of each action (limit {1000 * args.limit:.0f} ms)", flush=True)
    installed = tempfile.TemporaryDirectory(prefix="ctadesk-installed-")
    as_installed(Path(installed.name))
    screen, stall, table, qt = measure_start()
    print(f"  start: Qt imported in {qt:.2f} s; the start screen {1000 * screen:.0f} ms after; "
          f"the first table {table:.2f} s after", flush=True)
    stalls = {"start": stall}
    print(f"  {1000 * stall:6.0f} ms  {'STALL' if stall > args.limit else 'ok':5}  start (screen to first table)")
    if screen > args.limit:
        stalls["start screen after Qt"] = screen
    with tempfile.TemporaryDirectory(prefix="ctadesk-walkthrough-") as folder:
        walk = Walkthrough(Path(folder), args.limit, args.trace)
        for name in TABLES:
            walk.table(name, lambda path=SAMPLES / name: walk.window.open_path(path))
        for name in MICRODATA:
            walk.table(name, lambda path=SAMPLES / name: walk.window.open_path(path))
        walk.sheets()
        if not args.quick:
            walk.large()
        walk.guide()
        stalls.update(walk.meter.stalls)
        failures = walk.failures
        walk.window.close()
    over = {name: stall for name, stall in stalls.items() if stall > args.limit}
    for name, stall in over.items():
        print(f"walkthrough FAILED: {name} stalled the window {1000 * stall:.0f} ms", flush=True)
    for name, said in failures.items():
        print(f"walkthrough FAILED: {name}: {said}", flush=True)
    if not over and not failures:
        print(f"walkthrough passed: {len(stalls)} actions, the longest stall {1000 * max(stalls.values()):.0f} ms")
    return 1 if over or failures else 0


if __name__ == "__main__":
    sys.exit(main())
