"""Tools > Optimal releases (issue 15, Karr, Dobra & Sanil (undated)): open a count table, set
the at-risk threshold and alpha, find the largest release whose at-risk cells stay bounded no
tighter than alpha (in a worker), and look at the lattice of sub-tables (released or withheld,
coloured by critical width), the bounds of the at-risk cells under the release, and export the
released sub-tables as CSV files or a workbook (ctadesk.app.count_releases, ctadesk.io.subtables)."""

from __future__ import annotations

import html
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDialog,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMenu,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ctadesk.app.count_releases import (
    SEARCHES,
    ReleaseChoice,
    choose_release,
    read_count_file,
    release_risk,
    write_subtables,
)
from ctadesk.app.formats import Holds, open_filter, suffix_of
from ctadesk.engine.releases import DEFAULT_THRESHOLD, CountTable, Release, RiskReport, Subtable, critical_widths
from ctadesk.gui.errors import plain_message
from ctadesk.gui.jobs import JobRunner
from ctadesk.gui.lattice_view import LatticeView, WidthLegend, subtable_label
from ctadesk.gui.naming import named

COUNT_FILTER = open_filter(Holds.MICRODATA)
WORKBOOK_SUFFIX = suffix_of("excel")
#: a bound narrower than alpha is shown on this background (only a release the user did not get from
#: the search can have one)
NARROW = QColor(245, 183, 177)


def frontier_text(table: CountTable, release: Release) -> str:
    """The frontier, largest sub-tables first: '[ABCDF] [ABCEF]'."""
    labels = sorted((subtable_label(table, s) for s in release.frontier), key=lambda n: (-len(n), n))
    return " ".join(labels) or "nothing"


class ReleasesWindow(QDialog):
    """A window of its own (not modal).  Signals for tests and the main window:

    table_opened(CountTable)    a count table was read
    searched(ReleaseChoice)     a search finished and is shown
    shown(Release)              the lattice and bounds show this release
    """

    table_opened = Signal(object)
    searched = Signal(object)
    shown = Signal(object)

    def __init__(self, parent=None, last_dir: str = "") -> None:
        super().__init__(parent)
        self.setObjectName("releases_window")
        self.setWindowTitle("Optimal releases of a count table")
        self.setWindowFlag(Qt.WindowType.Window)
        self.last_dir = last_dir
        self.path: Path | None = None
        self.table: CountTable | None = None
        self.widths: dict[Subtable, float] | None = None
        self.choice: ReleaseChoice | None = None
        self.release: Release | None = None
        self.risk: RiskReport | None = None
        self.last_error = ""
        #: the searches run here one at a time (they cannot be interrupted)
        self.runner = JobRunner(self)
        self.runner.finished.connect(self._returned)
        self.runner.failed.connect(self._failed)
        self._done: Callable[[Any], None] = lambda _value: None
        self._build()
        self.resize(1400, 860)
        self._set_busy(False)

    # ------------------------------------------------------------ building
    def _build(self) -> None:
        self.open_button = named(QPushButton("Open count table…"), "releases_open")
        self.open_button.clicked.connect(self.open_dialog)
        self.file_label = named(QLabel("No table yet: open a CSV with one column per variable and a count column "
                                       "(sample_data/czech_autoworkers.csv).", wordWrap=True), "releases_file")
        self.count_column = named(QComboBox(), "releases_count_column")
        self.count_column.setToolTip("The column holding the counts; the others are the variables")
        self.count_column.activated.connect(lambda _: self.reopen())
        self.threshold = named(QSpinBox(minimum=1, maximum=1_000_000, value=DEFAULT_THRESHOLD), "releases_threshold")
        self.threshold.setToolTip("Cells with 0 < count ≤ threshold are at risk (Karr, Dobra & Sanil (undated) use 2)")
        self.alpha = named(QDoubleSpinBox(minimum=0.0, maximum=1e9, decimals=2, value=3.0), "releases_alpha")
        self.alpha.setToolTip("α: the smallest bound width (upper − lower) an at-risk cell may have")
        self.search = named(QComboBox(), "releases_search")
        for key, text in SEARCHES.items():
            self.search.addItem(text, key)
        self.integer = named(QCheckBox("integer bounds"), "releases_integer")
        self.integer.setToolTip("Bounds over tables of whole counts (MILP) instead of LP bounds: slower, tighter")
        self.find_button = named(QPushButton("Find release"), "releases_find")
        self.find_button.setDefault(True)
        self.find_button.clicked.connect(self.find_release)
        self.busy = named(QProgressBar(textVisible=False), "releases_busy")
        self.busy.setMaximumHeight(10)
        self.busy.setMaximumWidth(120)
        top = QHBoxLayout()
        top.addWidget(self.open_button)
        top.addWidget(QLabel("count column"))
        top.addWidget(self.count_column)
        top.addSpacing(12)
        for text, widget in (("threshold", self.threshold), ("α", self.alpha), ("search", self.search)):
            top.addWidget(QLabel(text))
            top.addWidget(widget)
        top.addWidget(self.integer)
        top.addWidget(self.find_button)
        top.addWidget(self.busy)
        top.addStretch(1)

        self.lattice = LatticeView()
        self.lattice.node_clicked.connect(self._node_clicked)
        self.legend = WidthLegend()
        self.legend.hide()
        self.node_info = named(QLabel("", wordWrap=True), "releases_node_info")
        left = QWidget()
        left_column = QVBoxLayout(left)
        left_column.setContentsMargins(0, 0, 0, 0)
        left_column.addWidget(self.lattice, 1)
        left_column.addWidget(self.legend)
        left_column.addWidget(self.node_info)

        self.summary = named(QLabel("", wordWrap=True), "releases_summary")
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.summary.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.alternatives = named(QComboBox(), "releases_alternatives")
        self.alternatives.setToolTip("Releases of the same utility the search found")
        self.alternatives.currentIndexChanged.connect(self._alternative_chosen)
        self.bounds = named(QTableWidget(), "releases_bounds")
        self.bounds.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.bounds.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.bounds.verticalHeader().hide()
        self.bounds.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.export_button = named(QPushButton("Export the released sub-tables"), "releases_export")
        export_menu = QMenu(self.export_button)
        export_menu.addAction("As CSV files in a folder (one per sub-table, ABC.csv)…", self.export_csv_dialog)
        export_menu.addAction("As an Excel workbook (one sheet per sub-table)…", self.export_xlsx_dialog)
        self.export_button.setMenu(export_menu)
        right = QWidget()
        right_column = QVBoxLayout(right)
        right_column.setContentsMargins(0, 0, 0, 0)
        right_column.addWidget(self.summary)
        choose = QFormLayout()
        choose.addRow("Release shown:", self.alternatives)
        right_column.addLayout(choose)
        right_column.addWidget(QLabel("<b>Bounds of the at-risk cells under this release</b>"))
        right_column.addWidget(self.bounds, 1)
        right_column.addWidget(self.export_button)

        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(left)
        splitter.addWidget(right)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        splitter.setSizes([860, 520])
        column = QVBoxLayout(self)
        column.addLayout(top)
        column.addWidget(self.file_label)
        column.addWidget(splitter, 1)

    # --------------------------------------------------------------- table
    def open_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open a count table", self.last_dir, COUNT_FILTER)
        if path:
            self.open_counts(path)

    def open_counts(self, path: str | Path, count: str | None = None) -> bool:
        """Read the count table of ``path`` (its count column ``count``: by default 'count' if the
        file has one, else its last column); the lattice shows it with nothing released."""
        from ctadesk.app.formats import microdata_columns

        path = Path(path)
        try:
            columns = microdata_columns(path)
            count = count or ("count" if "count" in columns else columns[-1])
            table, notes = read_count_file(path, count)
        except Exception as error:
            self.report_error(f"Could not read {path.name}", error)
            return False
        self.path, self.table, self.last_dir = path, table, str(path.parent)
        self.count_column.blockSignals(True)
        self.count_column.clear()
        self.count_column.addItems(columns)
        self.count_column.setCurrentText(count)
        self.count_column.blockSignals(False)
        letters = ", ".join(f"{letter} = {name}" for letter, name in zip(table.letters(), table.names))
        shape = " × ".join(str(s) for s in table.shape)
        self.file_label.setText(f"<b>{html.escape(path.name)}</b>: {shape} table of {table.total:,} records; "
                                f"{html.escape(letters)}"
                                + "".join(f"<br><i>{html.escape(note)}</i>" for note in notes))
        self.choice = self.release = self.risk = None
        self.widths = None
        self._fill_alternatives()
        self._show_bounds()
        self.summary.setText("Set the threshold and α, then press <b>Find release</b>.")
        self._run(critical_widths, (table, self.threshold.value()), self._widths_ready)
        self.table_opened.emit(table)
        return True

    def reopen(self) -> None:
        """Read the file again with the count column now chosen."""
        if self.path is not None:
            self.open_counts(self.path, self.count_column.currentText())

    def _widths_ready(self, widths: dict[Subtable, float]) -> None:
        self.widths = widths
        self._draw()

    # -------------------------------------------------------------- search
    def find_release(self) -> None:
        """Search in the background for the release the settings ask for."""
        if self.table is None or self.running:
            return
        self.summary.setText("Searching…")
        self._run(choose_release, (self.table, self.alpha.value(), self.threshold.value(), self.search.currentData(),
                                   self.integer.isChecked()), self._found)

    def _found(self, choice: ReleaseChoice) -> None:
        self.choice, self.widths = choice, choice.critical_widths
        self.release, self.risk = choice.releases[0], choice.risk
        self._fill_alternatives()
        self._show_summary()
        self._show_bounds()
        self._draw()
        self.searched.emit(choice)
        self.shown.emit(self.release)

    def _fill_alternatives(self) -> None:
        self.alternatives.blockSignals(True)
        self.alternatives.clear()
        choice, table = self.choice, self.table
        if choice is not None and table is not None:
            count = len(choice.releases)
            for k, release in enumerate(choice.releases):
                self.alternatives.addItem(f"{k + 1} of {count}: {frontier_text(table, release)}")
        self.alternatives.setEnabled(self.alternatives.count() > 1)
        self.alternatives.blockSignals(False)

    def _alternative_chosen(self, position: int) -> None:
        if self.choice is None or position < 0 or self.running:
            return
        release = self.choice.releases[position]
        self._run(release_risk, (self.table, release, self.choice.threshold, self.choice.integer),
                  lambda risk: self._show_release(release, risk))

    def _show_release(self, release: Release, risk: RiskReport) -> None:
        self.release, self.risk = release, risk
        self._show_summary()
        self._show_bounds()
        self._draw()
        self.shown.emit(release)

    # --------------------------------------------------------------- views
    def _draw(self) -> None:
        self.node_info.setText("")
        if self.table is None or self.widths is None:
            return
        alpha = self.choice.alpha if self.choice is not None else self.alpha.value()
        self.lattice.show_lattice(self.table, self.widths, alpha, self.release)
        self.legend.set_scale(alpha, self.lattice.scale_end)
        self.legend.show()

    def _show_summary(self) -> None:
        choice, table, release, risk = self.choice, self.table, self.release, self.risk
        if choice is None or table is None or release is None or risk is None:
            return  # set together by a search (and a release chosen after it)
        how = SEARCHES[choice.search].lower()
        if choice.search == "ordered":
            proof = "a procedure, not proven optimal" + (
                f"; stopped at {subtable_label(table, choice.refused[0])}" if choice.refused else "")
        else:
            proof = (("proven optimal" if choice.exact else "not proven optimal")
                     + f", {choice.evaluations:,} releases evaluated")
        at_risk = table.at_risk(choice.threshold).size
        dr = "∞ (no cell at risk)" if not math.isfinite(risk.risk) else f"{risk.risk:g}"
        safe = risk.risk >= choice.alpha
        rows = [("released frontier", frontier_text(table, release)),
                ("DU (sub-tables released)", f"{len(release)} of {2 ** table.n_axes}"),
                ("DR (smallest bound width)", f"{dr} ({risk.method} bounds) — "
                 + ("<span style='color:#1e8449'>≥ α, safe</span>" if safe else
                    "<span style='color:#922b21'>below α</span>")),
                ("cells at risk", f"{at_risk:,} (0 &lt; count ≤ {choice.threshold})"),
                ("search", f"{how}, α = {choice.alpha:g}: {proof}; {choice.seconds:.2f} s")]
        self.summary.setText("<table>" + "".join(f"<tr><td><b>{name}</b></td><td>&nbsp;&nbsp;{text}</td></tr>"
                                                 for name, text in rows) + "</table>")

    def _show_bounds(self) -> None:
        """One row per at-risk cell: its categories, count and bounds, the narrowest first."""
        table, risk = self.table, self.risk
        self.bounds.clear()
        if table is None or risk is None:
            self.bounds.setRowCount(0)
            self.bounds.setColumnCount(0)
            self.export_button.setEnabled(False)
            return
        headers = ["cell", "count", "lower", "upper", "width"]
        self.bounds.setColumnCount(len(headers))
        self.bounds.setHorizontalHeaderLabels(headers)
        header = self.bounds.horizontalHeaderItem(0)
        if header is not None:  # the labels just set made it
            header.setToolTip("; ".join(f"{letter} = {name}" for letter, name in zip(table.letters(), table.names)))
        cells = risk.bounds
        order = np.argsort(cells.width, kind="stable")
        self.bounds.setRowCount(order.size)
        counts = table.counts.reshape(-1)
        alpha = self.choice.alpha if self.choice is not None else self.alpha.value()
        for row, k in enumerate(order):
            cell = int(cells.cells[k])
            label = ", ".join(f"{letter}={code}"
                              for letter, code in zip(table.letters(), table.cell_labels(cell).values()))
            numbers = [int(counts[cell]), cells.lower[k], cells.upper[k], cells.width[k]]
            for column, text in enumerate([label, *(f"{n:g}" for n in numbers)]):
                item = QTableWidgetItem(text)
                if column:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if cells.width[k] < alpha:
                    item.setBackground(QBrush(NARROW))
                self.bounds.setItem(row, column, item)
        self.bounds.resizeColumnsToContents()
        self.export_button.setEnabled(True)

    def _node_clicked(self, subtable: Subtable) -> None:
        node = self.lattice.nodes[subtable]
        self.node_info.setText(node.toolTip().replace("\n", "; "))

    # -------------------------------------------------------------- export
    def export_csv_dialog(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Folder for the released sub-tables", self.last_dir)
        if folder:
            self.export_to(folder)

    def export_xlsx_dialog(self) -> None:
        stem = self.path.stem if self.path is not None else "release"
        path, _ = QFileDialog.getSaveFileName(self, "Workbook of the released sub-tables",
                                              str(Path(self.last_dir) / f"{stem}-release{WORKBOOK_SUFFIX}"),
                                              f"Excel workbook (*{WORKBOOK_SUFFIX})")
        if path:
            self.export_to(path if path.lower().endswith(WORKBOOK_SUFFIX) else path + WORKBOOK_SUFFIX)

    def export_to(self, target: str | Path) -> list[Path]:
        """Write every sub-table of the release shown: one workbook when ``target`` ends in .xlsx,
        else CSV files in the folder ``target``; the files written."""
        if self.table is None or self.release is None:
            return []
        try:
            written = write_subtables(self.table, self.release, target)
        except Exception as error:
            self.report_error("Could not write the sub-tables", error)
            return []
        self.node_info.setText(f"{len(self.release)} sub-table(s) written to {target}")
        return written

    # -------------------------------------------------------------- worker
    @property
    def running(self) -> bool:
        return self.runner.running

    def _run(self, function, arguments: tuple, done) -> None:
        """``function(*arguments)`` in the worker (gui/jobs.py); ``done(result)`` on the GUI thread."""
        self._done = done
        self._set_busy(True)
        self.runner.start(function.__name__, lambda _feed: function(*arguments))

    def _returned(self, value) -> None:
        self._set_busy(False)
        self._done(value)

    def _failed(self, error: BaseException) -> None:
        self._set_busy(False)
        self.summary.setText("")
        self.report_error("The release search failed", error)

    def _set_busy(self, busy: bool) -> None:
        """The engine's searches cannot be interrupted: while one runs, nothing else starts."""
        self.busy.setRange(0, 0 if busy else 1)
        self.busy.setValue(0)
        for widget in (self.open_button, self.count_column, self.find_button, self.alternatives):
            widget.setEnabled(not busy)
        self.find_button.setEnabled(not busy and self.table is not None)
        self.alternatives.setEnabled(not busy and self.alternatives.count() > 1)
        self.export_button.setEnabled(not busy and self.risk is not None)

    def report_error(self, title: str, error: BaseException) -> None:
        """Say what went wrong in plain words, without blocking."""
        self.last_error = plain_message(error)
        box = QMessageBox(QMessageBox.Icon.Warning, title, self.last_error, QMessageBox.StandardButton.Ok, self)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()
