"""The main window, laid out in the order a tau-argus user works (docs/developer-guide.md):
1 table -> 2 safety rules -> 3 protect -> 4 view/audit -> 5 save/export; with Tools > Optimal
releases (count tables, issue 15) and File > Open sense store (on-line CTA, issue 14) beside it."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from PySide6.QtCore import QSettings, Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence, QUndoStack
from PySide6.QtWidgets import (
    QDialog,
    QDockWidget,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QMainWindow,
    QMenu,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QTabWidget,
    QToolBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ctadesk.app import WIDENING_SEED, Protection, additivity, files
from ctadesk.app.formats import (
    Answers,
    Holds,
    Layout,
    Question,
    Requires,
    Totals,
    export_of,
    exports,
    format_of,
    formats,
    microdata_columns,
    open_filter,
    read_table,
)
from ctadesk.app.job import engine_solve
from ctadesk.app.request import AUTO
from ctadesk.app.rules import rules_dict
from ctadesk.app.sense_conflicts import conflicting_cells, describe
from ctadesk.app.session import Change, Edit, Session
from ctadesk.app.weight_advice import WeightAdvice, after_run
from ctadesk.engine.audit import AuditResult
from ctadesk.engine.errors import CTAError
from ctadesk.engine.publish.widening import new_seed
from ctadesk.engine.quality.measures import QualityReport
from ctadesk.engine.result import CTAResult
from ctadesk.engine.table.generate import COX_PRESET, GeneratorSpec
from ctadesk.gui.about import about_text
from ctadesk.gui.audit_panel import NO_AUDIT
from ctadesk.gui.cell_dialogs import LimitsDialog
from ctadesk.gui.cell_info import CellInfoPane
from ctadesk.gui.commands import CellEdit
from ctadesk.gui.errors import plain_message
from ctadesk.gui.generator import GeneratorDialog
from ctadesk.gui.import_dialogs import AS_MICRODATA, ExcelImportDialog, MicrodataDialog, first_sheet, read_sheet
from ctadesk.gui.jobs import (
    AUDIT_CANCELLED,
    TABLE_WEIGHTS,
    UNIT_WEIGHTS,
    JobRunner,
    Loading,
    Reader,
    Retry,
    audit_job,
    available_methods,
    export_job,
    generated_project,
    protection_job,
    weight_advice,
    with_advice,
    with_quality,
)
from ctadesk.gui.log_pane import LogPane
from ctadesk.gui.model_panel import ModelPanel, method_label
from ctadesk.gui.naming import named
from ctadesk.gui.progress_plot import ProgressPlot
from ctadesk.gui.releases_window import ReleasesWindow
from ctadesk.gui.results_panel import ResultsPanel
from ctadesk.gui.rules_panel import RulesPanel
from ctadesk.gui.sense_store_view import STORE_FILTER, SenseStoreDialog, store_name
from ctadesk.gui.session_events import SessionEvents
from ctadesk.gui.table_editor import TableEditor
from ctadesk.gui.table_model import Display
from ctadesk.gui.user_guide import show_user_guide
from ctadesk.gui.wheel_guard import guard_wheel
from ctadesk.io.additivity import NonAdditiveError
from ctadesk.io.csv_table import guess_csv_kind
from ctadesk.io.project import Project

RECENT_FILES = 8
#: the window's size at its first start, and what a window manager's frame may add to it
DEFAULT_SIZE, FRAME_ALLOWANCE = (1280, 820), (16, 48)
OPEN_FILTER = open_filter()
MICRODATA_FILTER = open_filter(Holds.MICRODATA)
PROJECT_FORMAT = formats(Holds.PROJECT)[0]
CSV_KINDS = {"long": "Table, one line per cell (long)", "wide": "Table, labels left and on top (wide)",
             "microdata": "Microdata, one line per respondent"}
STALE_NOTICE = ("The table was edited after this result was computed: the adjusted values shown are stale. "
                "Press Protect again (or undo the edits).")
AUDIT_CLEARED = ("The audit was cleared: the table changed or was protected again since. Press Audit (F6) to "
                 "audit the table as it is now.")
AUDIT_NEEDS = "Audit needs a protected table that is not stale: press Protect first."
#: what _reader answers for a microdata file (tabulated as the microdata dialog says) and for a
#: workbook (read in the layouts the import dialog shows)
TABULATE, SHEETS = "tabulate", "sheets"
#: the window's background jobs (JobRunner.name): a protection run, an audit, reading or making a
#: table, writing an export
PROTECT, AUDIT, LOAD, EXPORT = "protect", "audit", "load", "export"


def start_size(available: tuple[int, int]) -> tuple[int, int]:
    """The window's size at its first start: DEFAULT_SIZE, less where the screen's ``available``
    (width, height) is smaller, leaving FRAME_ALLOWANCE for the title bar and borders (a
    1366 x 768 laptop, a 1400 x 900 screen with a panel).  A size saved by an earlier run is
    restored instead, which Qt fits to the screen."""
    return (min(DEFAULT_SIZE[0], available[0] - FRAME_ALLOWANCE[0]),
            min(DEFAULT_SIZE[1], available[1] - FRAME_ALLOWANCE[1]))


def _result_of(read: Any) -> tuple[Project, CTAResult | None]:
    """The project a load job read and its result (None for what comes before a project: the
    columns of a microdata file, a workbook)."""
    return (read, read.result) if isinstance(read, Project) else (read, None)


class MainWindow(QMainWindow):
    """settings: where recent files and choices are remembered; solve: the solve function (tests swap it)."""

    def __init__(self, settings: QSettings | None = None, solve=engine_solve) -> None:
        super().__init__()
        self.settings = settings or QSettings("ctadesk", "ctadesk")
        self.ask_before_closing = True
        #: the document shown (app/session.py): the table, its path, result, audit and note
        self.session: Session | None = None
        self.session_events = SessionEvents(self)
        self.session_events.changed.connect(self._session_changed)
        self.last_error = ""
        self.undo_stack = QUndoStack(self)
        self.solve = solve
        #: the one background job at a time: a protection run (PROTECT) or an audit (AUDIT)
        self.runner = JobRunner(self)
        self.runner.log_lines.connect(lambda lines: self.log_pane.append_lines(lines))
        self.runner.progress.connect(self._progress)
        self.runner.counted.connect(self._audit_progress)
        self.runner.elapsed.connect(self._elapsed)
        self.runner.finished.connect(self._job_finished)
        self.runner.cancelled.connect(self._audit_cancelled)
        self.runner.failed.connect(self._job_failed)
        self.releases_window: ReleasesWindow | None = None
        #: a result and its quality report, computed by the job that brought the result
        self._quality: tuple[CTAResult | None, QualityReport | None] = (None, None)
        #: a project and its weight advice before a run, worked out by the job that read it
        self._advice: tuple[Project | None, dict[str, WeightAdvice | None]] = (None, {})

        self.editor = TableEditor()
        self.editor.model.edit_requested.connect(self._edit_value)
        self.editor.paste_requested.connect(self._paste_values)
        self.editor.refused.connect(lambda reason: self.statusBar().showMessage(reason, 8000))
        self.setAcceptDrops(True)
        self.editor.slices.changed.connect(lambda _: self._refresh_heatmap())
        self.editor.view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.editor.view.customContextMenuRequested.connect(self._cell_menu)
        self.stale_banner = named(QLabel(STALE_NOTICE, wordWrap=True), "stale_banner")
        self.stale_banner.setStyleSheet("background: #fcf3cf; color: #7d6608; padding: 4px; border: 1px solid #f1c40f")
        keep_place = self.stale_banner.sizePolicy()
        keep_place.setRetainSizeWhenHidden(True)  # shown or hidden, the grid below does not move
        self.stale_banner.setSizePolicy(keep_place)
        self.stale_banner.hide()
        central = QWidget()
        central_layout = QVBoxLayout(central)
        central_layout.setContentsMargins(0, 0, 0, 0)
        central_layout.addWidget(self.stale_banner)
        central_layout.addWidget(self.editor)
        self.setCentralWidget(central)
        self._build_workflow_dock()
        self._build_bottom_dock()
        self._build_cell_dock()
        self._build_actions()
        self.statusBar().showMessage("Ready")
        self.resize(*start_size(self.screen().availableGeometry().size().toTuple()))
        geometry = self.settings.value("window/geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)
        #: the model panel's own choices: the defaults until the user makes others the defaults
        self.builtin_options = self.model_panel.remembered_options()
        self.model_panel.set_options(self.default_options())
        self._set_running(False)

    # ------------------------------------------------------------ building
    def _build_workflow_dock(self) -> None:
        panel = QWidget()
        column = QVBoxLayout(panel)

        table_box = QGroupBox("1  Table")
        self.table_info = named(QLabel(wordWrap=True), "table_info")
        self.generate_button = named(QPushButton("Generate…"), "generate")
        self.generate_button.clicked.connect(self.generate_dialog)
        self.open_button = named(QPushButton("Open or import…"), "open")
        self.open_button.clicked.connect(self.open_dialog)
        self.totals_button = named(QPushButton("Recompute totals"), "recompute_totals")
        self.totals_button.setToolTip("Set every total and subtotal to the sum of its inner cells")
        self.totals_button.clicked.connect(self.recompute_totals)
        buttons = QHBoxLayout()
        for button in (self.generate_button, self.open_button):
            buttons.addWidget(button)
        box = QVBoxLayout(table_box)
        box.addWidget(self.table_info)
        box.addLayout(buttons)
        box.addWidget(self.totals_button)

        rules_box = QGroupBox("2  Sensitive cells")
        self.rules_layout = QVBoxLayout(rules_box)
        self.rules_panel = RulesPanel()
        self.rules_panel.apply_requested.connect(self.apply_rules)
        self.rules_layout.addWidget(self.rules_panel)
        self.default_protection = named(QDoubleSpinBox(minimum=0.0, maximum=1000.0, decimals=1, suffix=" %",
                                                       value=float(self.settings.value("cells/protection", 20.0))),
                                        "default_protection")
        self.default_protection.valueChanged.connect(lambda v: self.settings.setValue("cells/protection", v))
        form = QFormLayout()
        form.addRow("Protection level", self.default_protection)
        self.rules_layout.addLayout(form)
        self.mark_button = named(QPushButton("Mark selected sensitive"), "mark_sensitive")
        self.mark_button.clicked.connect(lambda: self.mark_sensitive(self.editor.selected_cells()))
        self.unmark_button = named(QPushButton("Mark selected safe"), "mark_safe")
        self.unmark_button.clicked.connect(lambda: self.mark_safe(self.editor.selected_cells()))
        marks = QHBoxLayout()
        marks.addWidget(self.mark_button)
        marks.addWidget(self.unmark_button)
        self.rules_layout.addLayout(marks)
        self.sensitive_info = named(QLabel(wordWrap=True), "sensitive_info")
        self.rules_layout.addWidget(self.sensitive_info)

        protect_box = QGroupBox("3  Protect")
        self.model_panel = ModelPanel(available_methods())
        QVBoxLayout(protect_box).addWidget(self.model_panel)

        audit_box = QGroupBox("4  Audit")
        self.audit_step = named(QLabel("What an attacker can deduce from the protected table, before it is released "
                                       "(F6).", wordWrap=True), "audit_step")
        self.audit_button = named(QToolButton(), "audit_step_button")
        self.audit_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        audit_column = QVBoxLayout(audit_box)
        audit_column.addWidget(self.audit_step)
        audit_column.addWidget(self.audit_button)

        save_box = QGroupBox("5  Save and export")
        self.save_button = named(QPushButton("Save project…"), "save")
        self.save_button.clicked.connect(self.save)
        self.export_button = named(QPushButton("Export…"), "export")
        saves = QHBoxLayout(save_box)
        saves.addWidget(self.save_button)
        saves.addWidget(self.export_button)

        for group in (table_box, rules_box, protect_box, audit_box, save_box):
            column.addWidget(group)
        column.addStretch(1)
        guard_wheel(panel)
        scroll = self.workflow_scroll = QScrollArea(widgetResizable=True)
        scroll.setWidget(panel)
        workflow = QWidget()
        stack = QVBoxLayout(workflow)
        stack.setContentsMargins(0, 0, 0, 0)
        stack.setSpacing(0)
        stack.addWidget(scroll, 1)
        stack.addWidget(self._build_run_bar())
        dock = named(QDockWidget("Workflow", self), "workflow_dock")
        dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable)
        dock.setWidget(workflow)
        dock.setMinimumWidth(max(310, panel.sizeHint().width(), self.rules_panel.body.sizeHint().width() + 40) + 24)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, dock)

    def _build_run_bar(self) -> QFrame:
        """Protect, Cancel, the elapsed time and the solve's state, below the scrolling workflow so
        the primary action stays in view at any window size."""
        bar = named(QFrame(frameShape=QFrame.Shape.StyledPanel), "run_bar")
        self.protect_button = named(QPushButton("Protect"), "protect")
        font = self.protect_button.font()
        font.setBold(True)
        self.protect_button.setFont(font)
        self.protect_button.setMinimumHeight(30)
        self.protect_button.setToolTip("Protect the table with the chosen model (F5)")
        self.protect_button.clicked.connect(self.protect)
        self.cancel_button = named(QPushButton("Cancel"), "cancel")
        self.cancel_button.setMinimumHeight(30)
        self.cancel_button.clicked.connect(self.cancel)
        self.busy = named(QProgressBar(textVisible=False), "busy")
        self.busy.setMaximumHeight(10)
        self.elapsed = named(QLabel(""), "elapsed")
        self.solve_state = named(QLabel("", wordWrap=True), "solve_state")
        run = QHBoxLayout()
        run.addWidget(self.protect_button, 2)
        run.addWidget(self.cancel_button, 1)
        run.addWidget(self.elapsed)
        box = QVBoxLayout(bar)
        box.setContentsMargins(8, 6, 8, 6)
        box.addLayout(run)
        box.addWidget(self.busy)
        box.addWidget(self.solve_state)
        return bar

    def _build_bottom_dock(self) -> None:
        self.log_pane = LogPane()
        self.progress_plot = ProgressPlot()
        self.results = ResultsPanel()
        self.results.cell_selected.connect(self.editor.select_cells)
        self.results.inverse_weights_requested.connect(self.use_inverse_weights)
        self.model_panel.weights.currentIndexChanged.connect(
            lambda: self.model_panel.weights.currentData() == "inverse" and self.results.show_advice(None))
        self.audit_panel = self.results.audit
        self.bottom_tabs = named(QTabWidget(), "bottom_tabs")
        self.bottom_tabs.addTab(self.results, "Results")
        self.bottom_tabs.addTab(self.log_pane, "Solver log")
        self.bottom_tabs.addTab(self.progress_plot, "Incumbent and bound")
        dock = self.bottom_dock = named(QDockWidget("View and audit", self), "bottom_dock")
        dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable)
        dock.setWidget(self.bottom_tabs)
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)
        self.resizeDocks([dock], [300], Qt.Orientation.Vertical)

    def _build_cell_dock(self) -> None:
        """The current cell's facts, beside the results (movable beside the grid)."""
        self.cell_info = CellInfoPane(self.editor)
        dock = named(QDockWidget("Cell", self), "cell_dock")
        dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable)
        dock.setWidget(self.cell_info)
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)
        self.splitDockWidget(self.bottom_dock, dock, Qt.Orientation.Horizontal)
        self.resizeDocks([dock], [320], Qt.Orientation.Horizontal)

    def _action(self, text: str, slot, shortcut=None, name: str = "") -> QAction:
        action = named(QAction(text, self), name)
        action.triggered.connect(slot)
        if shortcut is not None:
            action.setShortcut(shortcut)
        return action

    def _build_actions(self) -> None:
        S = QKeySequence.StandardKey
        self.undo_action = self.undo_stack.createUndoAction(self, "&Undo")
        self.undo_action.setShortcut(S.Undo)
        self.redo_action = self.undo_stack.createRedoAction(self, "&Redo")
        self.redo_action.setShortcut(S.Redo)
        file_menu = self.menuBar().addMenu("&File")
        #: the actions that replace the table (locked while a solve or an audit runs)
        self.table_actions = [self._action("&Generate table…", self.generate_dialog, S.New, "act_generate"),
                              self._action("&Open or import…", self.open_dialog, S.Open, "act_open"),
                              self._action("Import &microdata…", self.microdata_dialog, None, "act_microdata")]
        for action in self.table_actions:
            file_menu.addAction(action)
        file_menu.addAction(self._action("Open sense s&tore…", self.sense_store_dialog, None, "act_open_store"))
        file_menu.addAction(self._action("Open sense store in a &database…", self.sense_store_url_dialog, None,
                                         "act_open_store_url"))
        self.recent_menu = QMenu("Open &recent", self)
        file_menu.addMenu(self.recent_menu)
        file_menu.addAction(self._action("&Save project", self.save, S.Save, "act_save"))
        file_menu.addAction(self._action("Save project &as…", self.save_as, S.SaveAs, "act_save_as"))
        self.export_menu = named(QMenu("&Export", self), "export_menu")
        self.export_actions = {}
        for kind, export in exports().items():
            self.export_actions[kind] = self._action(export.menu, lambda _=False, k=kind: self.export_dialog(k),
                                                     None, f"act_export_{kind}")
            self.export_menu.addAction(self.export_actions[kind])
        file_menu.addMenu(self.export_menu)
        self.export_button.setMenu(self.export_menu)
        file_menu.addSeparator()
        file_menu.addAction(self._action("&Quit", self.close, S.Quit))
        edit_menu = self.menuBar().addMenu("&Edit")
        edit_menu.addAction(self.undo_action)
        edit_menu.addAction(self.redo_action)
        edit_menu.addSeparator()
        self.cell_actions = [
            self._action("Mark &sensitive", lambda: self.mark_sensitive(self.editor.selected_cells()), "Ctrl+M"),
            self._action("Mark s&afe", lambda: self.mark_safe(self.editor.selected_cells()), "Ctrl+Shift+M"),
            self._action("&Fix (may not change)", lambda: self.set_fixed(self.editor.selected_cells(), True)),
            self._action("Unfi&x", lambda: self.set_fixed(self.editor.selected_cells(), False)),
            self._action("&Protection levels…", self.protection_dialog, None, "act_protection"),
            self._action("&Bounds…", self.bounds_dialog, None, "act_bounds"),
            self._action("Sense &up", lambda: self.set_senses(self.editor.selected_cells(), 1)),
            self._action("Sense &down", lambda: self.set_senses(self.editor.selected_cells(), -1)),
            self._action("Sense f&ree", lambda: self.set_senses(self.editor.selected_cells(), 0)),
        ]
        for action in self.cell_actions:
            edit_menu.addAction(action)
        edit_menu.addAction(self._action("Recompute &totals", self.recompute_totals))
        run_menu = self.menuBar().addMenu("&Protect")
        self.protect_action = self._action("&Protect", self.protect, "F5", "act_protect")
        self.cancel_action = self._action("&Cancel", self.cancel, "Esc", "act_cancel")
        self.audit_action = self._action("&Audit release", self.run_audit, "F6", "act_audit")
        self.audit_action.setToolTip("What an attacker can deduce about every sensitive cell from the protected "
                                     "table (F6); needs a protected table that is not stale")
        run_menu.addAction(self.protect_action)
        run_menu.addAction(self.audit_action)
        run_menu.addAction(self.cancel_action)
        run_menu.addSeparator()
        run_menu.addAction(self._action("Use these options for &new tables", self.make_options_default, None,
                                        "act_default_options"))
        run_menu.addAction(self._action("&Reset the options to the defaults", self.reset_options, None,
                                        "act_reset_options"))
        self.audit_panel.set_run_action(self.audit_action)
        self.audit_button.setDefaultAction(self.audit_action)
        tools_menu = self.menuBar().addMenu("&Tools")
        tools_menu.addAction(self._action("Optimal &releases…", self.show_releases, None, "act_releases"))
        self.toolbar = named(QToolBar("Main", self), "main_toolbar")
        self.toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.toolbar.setMovable(False)
        for action in (self.table_actions[1], self.findChild(QAction, "act_save")):
            self.toolbar.addAction(action)
        self.toolbar.addSeparator()
        for action in (self.protect_action, self.audit_action, self.cancel_action):
            self.toolbar.addAction(action)
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, self.toolbar)
        help_menu = self.menuBar().addMenu("&Help")
        help_menu.addAction(self._action("&User guide", lambda: show_user_guide(self),
                                         QKeySequence.StandardKey.HelpContents, "act_user_guide"))
        help_menu.addAction(self._action("&About ctadesk", self.show_about, None, "act_about"))
        self._update_recent_menu()

    # -------------------------------------------------------------- project
    @property
    def project(self) -> Project | None:
        """The table shown (the session's)."""
        return self.session.project if self.session is not None else None

    @property
    def open_session(self) -> Session:
        """The session shown, for what only runs once a table is open (its actions are disabled before)."""
        if self.session is None:
            raise RuntimeError("no table is open")
        return self.session

    @property
    def open_project(self) -> Project:
        """The table shown, for what only runs once a table is open."""
        return self.open_session.project

    @property
    def path(self) -> Path | None:
        """Where the project shown is saved (the session's)."""
        return self.session.path if self.session is not None else None

    @property
    def audit_result(self) -> AuditResult | None:
        """The session's audit of the protected table as it stands."""
        return self.session.last_audit if self.session is not None else None

    def set_project(self, project: Project, path: Path | None = None, source: Path | None = None) -> None:
        """Show ``project`` (saved at ``path``, read from the file ``source``, or new) in place of
        the table shown: the session starts afresh with it."""
        if self.session is None:
            self.session = Session(project, path, source)
            self.session_events.listen(self.session)
            self._session_changed(Change.TABLE)
        else:
            self.session.replace(project, path, source)

    def _session_changed(self, change: Change) -> None:
        """Show what changed in the session."""
        if change is Change.TABLE:
            self._show_table()
        elif change is Change.EDIT:
            self.model_panel.quality_terms.revalidate()
            self.editor.model.refresh()
            self._show_audit()
        elif change is Change.RESULT:
            self._show_result(self.open_project.result)
            self._show_audit()
        elif change is Change.AUDIT:
            self._show_audit()
        elif change is Change.NOTE:
            self.solve_state.setText(self.open_session.note)
        self._update_stale()
        self._update_info()
        self._update_title()

    def _show_table(self) -> None:
        """A new table: everything shown about the one before goes (its audit, note, banner and
        options); the model options are the project's, else the defaults."""
        project = self.open_project
        self.undo_stack.clear()
        self.editor.set_project(project)  # shows no audit (and repaints the grid once)
        self.audit_panel.clear(NO_AUDIT)
        self.solve_state.setText(self.open_session.note)
        self.model_panel.set_table(project)
        self.model_panel.set_options(project.options or self.default_options())
        self.rules_panel.set_statistics(project.statistics)
        self.rules_panel.set_rules(project.rules)
        self.audit_panel.set_rules(project.rules)
        self.log_pane.set_text(project.log)
        self.progress_plot.reset()
        if project.result is not None:
            self._show_result(project.result)
        else:
            self.results.clear()
            self.editor.set_display(Display.ORIGINAL)
            self.bottom_tabs.setCurrentWidget(self.log_pane if project.log else self.results)
        self._advise_weights_before_run()

    def _update_title(self) -> None:
        self.setWindowTitle(f"ctadesk — {self.open_session.name}[*]")
        self.setWindowModified(self.open_session.unsaved)

    # ------------------------------------------------------------- options
    def default_options(self) -> dict:
        """The options a new table starts with: those the user made the defaults (Protect > Use
        these options for new tables), else the model panel's own."""
        chosen = self.settings.value("model/defaults")
        return chosen if isinstance(chosen, dict) else self.builtin_options

    def make_options_default(self) -> None:
        """Make the model panel's choices (not the table's quality terms) the defaults of new tables."""
        self.settings.setValue("model/defaults", self.model_panel.remembered_options())
        self.statusBar().showMessage("New tables will start with these options.", 5000)

    def reset_options(self) -> None:
        """Set the model panel to the defaults (the table's quality terms stay)."""
        terms = self.model_panel.options()["quality"]
        self.model_panel.set_options({**self.default_options(), "quality": terms})

    # ------------------------------------------------------------ unsaved work
    def keep_work(self, action: str) -> bool:
        """Before ``action`` replaces the table: when it holds work not saved, ask to save it,
        discard it or cancel; True when the action may go on."""
        if self.session is None or not self.session.unsaved:
            return True
        buttons = QMessageBox.StandardButton
        answer = QMessageBox.question(self, "Unsaved changes",
                                      f"The table has changes that are not saved. Save the project before "
                                      f"{action}?", buttons.Save | buttons.Discard | buttons.Cancel)
        if answer == buttons.Save:
            return self.save()
        return answer == buttons.Discard

    def open_path(self, path: str | Path, wait: bool = True) -> bool:
        """Open or import any file ctadesk reads: the questions its format needs are asked here,
        the file is read in the background (the window stays live, saying what it reads) and the
        table shown when it is; on failure say why and keep the current table.  Unsaved work is
        saved or discarded first, as the user says.  ``wait``: return once the table is shown
        (True when it is); else return once reading has started (True when it has)."""
        path = Path(path)
        if not self.keep_work(f"opening {path.name}"):
            return False
        try:
            reading = self._reader(path)
        except Exception as error:  # the GUI edge: every failure becomes a message
            self.report_error(f"Could not open {path.name}", error)
            return False
        if reading is None:  # the user cancelled a dialog
            return False

        def place(project: Project) -> None:
            self.set_project(project, path if format_of(path).project else None, path)
            self._remember_recent(path)
            self.statusBar().showMessage(f"Opened {path}", 5000)

        if reading is TABULATE:
            return self._import_microdata(path, place, wait)
        if reading is SHEETS:
            return self._import_workbook(path, place, wait)
        read, retry = reading
        return self._load(Loading(f"Reading {path.name}", f"Could not open {path.name}", read, place, retry), wait)

    def _reader(self, path: Path) -> tuple[Reader, Retry | None] | str | None:
        """What reads the project a file stands for, once the questions its format lists
        (ctadesk.app.formats) are answered here, and what asks about totals that do not add up
        and reads again; TABULATE for microdata, SHEETS for a workbook; None when the user cancelled
        a question."""
        if not path.exists():
            raise CTAError(f"The file {path} does not exist.")
        fmt = format_of(path, Holds.PROJECT, Holds.TABLE, Holds.MICRODATA)
        if Question.SHEETS in fmt.questions:  # the dialog reads the sheets in the layouts the user corrects
            return SHEETS
        answers = Answers()
        if Question.TABLE_OR_MICRODATA in fmt.questions:
            kind = self.choose("Import CSV", f"What does {path.name} hold?", CSV_KINDS, guess_csv_kind(path))
            if kind is None or kind == "microdata":
                return None if kind is None else TABULATE
            answers = Answers(layout=Layout(kind))
        elif not fmt.holds & {Holds.PROJECT, Holds.TABLE}:
            return TABULATE

        def totals(error: BaseException) -> Reader | None:
            """Totals that do not add up: ask whether to recompute them from their parts."""
            if not isinstance(error, NonAdditiveError) or Question.TOTALS not in fmt.questions:
                return None
            broken = error.broken
            recompute = self.confirm(
                "Totals do not add up",
                f"{len(broken)} total(s) in {path.name} differ from the sum of their parts "
                f"(largest: {broken[0].label}, off by {broken[0].difference:,.6g}).\n\n"
                "Recompute the totals from their parts? (No keeps the file's values; protection "
                "then has to keep the differences.)")
            again = Answers(layout=answers.layout, totals=Totals.RECOMPUTE if recompute else Totals.KEEP)
            return lambda: read_table(path, again)

        return (lambda: read_table(path, answers)), totals

    def _load(self, loading: Loading, wait: bool) -> bool:
        """Read (or make) a table in the background, the window locked and saying what it does;
        then show it.  ``wait``: return once it is shown (True) or has failed (False, said)."""
        if self._busy():
            self.statusBar().showMessage("Wait for the job running to end (or cancel it) first.", 5000)
            return False
        self._loading = loading
        self._loaded_ok = False  # set once a table is shown (not by a step before it)
        self.solve_state.setText(f"{loading.doing}…")
        self.statusBar().showMessage(f"{loading.doing}…")
        self._set_running(True, LOAD)
        self.runner.start(LOAD, with_advice(with_quality(lambda feed: loading.read(), _result_of, self._keep_quality),
                                            self._keep_advice))
        if not wait:
            return True
        self.runner.wait()
        return self._loaded_ok

    def _loaded(self, value: Any) -> None:
        self._set_running(False)
        self.statusBar().clearMessage()
        self.solve_state.setText(self.session.note if self.session is not None else "")
        self._loading.place(value)
        self._loaded_ok = isinstance(value, Project)

    def _load_failed(self, error: BaseException) -> None:
        self._set_running(False)
        self.statusBar().clearMessage()
        self.solve_state.setText(self.session.note if self.session is not None else "")
        loading = self._loading
        again = loading.retry(error) if loading.retry is not None else None
        if again is not None:
            self._load(dataclasses.replace(loading, read=again), wait=False)
        else:
            self.report_error(loading.failure, error)

    def _import_microdata(self, path: Path, place: Callable[[Project], None], wait: bool) -> bool:
        """Read the columns of a microdata file, ask how to tabulate it (the microdata dialog),
        tabulate it and ``place`` the project: the reading and the tabulating in the background,
        the dialog between them.  A tabulation that fails shows the dialog again saying why,
        every choice kept.  ``wait`` as in open_path."""

        def choices(dialog: MicrodataDialog) -> Reader:
            """What tabulates the microdata as the dialog says (run in the background)."""
            from ctadesk.app.linked_tables import read_microdata_tables

            tables, response = dialog.tables(), dialog.response.currentText()
            weight, holding, hierarchies = dialog.weight.currentData(), dialog.holding.currentData(), \
                dialog.hierarchy_files()
            return lambda: read_microdata_tables(path, tables, response, weight=weight, holding=holding,
                                                 hierarchy_files=hierarchies)

        def ask(columns: list[str]) -> None:
            dialog = MicrodataDialog(path, columns, choices, self)

            def again(error: BaseException) -> Reader | None:
                dialog.error.setText(plain_message(error))
                return dialog.project if self.run_dialog(dialog) else None

            if self.run_dialog(dialog):
                self._load(Loading(f"Tabulating {path.name}", f"Could not tabulate {path.name}", dialog.project, place,
                                   again), wait=False)

        return self._load(Loading(f"Reading the columns of {path.name}", f"Could not read {path.name}",
                                  lambda: microdata_columns(path), ask), wait)

    def _import_workbook(self, path: Path, place: Callable[[Project], None], wait: bool) -> bool:
        """Open a workbook, let the user correct each sheet's layout (the import dialog), build
        its tables and ``place`` the project: opening and building in the background, the dialog
        between them.  A build that fails shows the dialog again saying why, every correction
        kept; a workbook of microdata goes on to the microdata dialog when the user says so.
        ``wait`` as in open_path."""

        def opened() -> tuple[Any, dict]:
            from ctadesk.io.excel import open_workbook

            workbook = open_workbook(path)
            sheet = first_sheet(workbook)
            return workbook, {} if sheet is None else {sheet: read_sheet(workbook, sheet, path)}

        def built(dialog: ExcelImportDialog) -> Reader:
            build = dialog.reader()
            return lambda: files.project_from_excel(build())

        def ask(read: tuple[Any, dict]) -> None:
            dialog = ExcelImportDialog(path, self, *read)

            def again(error: BaseException) -> Reader | None:
                dialog.error.setText(plain_message(error))
                return built(dialog) if self.run_dialog(dialog) else None

            if self.run_dialog(dialog):
                self._load(Loading(f"Reading the tables of {path.name}", f"Could not open {path.name}", built(dialog),
                                   place, again), wait=False)
            elif dialog.result() == AS_MICRODATA:
                self._import_microdata(path, place, wait=False)

        return self._load(Loading(f"Opening {path.name}", f"Could not open {path.name}", opened, ask), wait)

    def microdata_dialog(self) -> None:
        chosen, _ = QFileDialog.getOpenFileName(self, "Import microdata", self._last_dir(), MICRODATA_FILTER)
        if not chosen or not self.keep_work(f"importing {Path(chosen).name}"):
            return
        path = Path(chosen)

        def place(project: Project) -> None:
            self.set_project(project, source=path)
            self._remember_recent(path)

        self._import_microdata(path, place, wait=False)

    # hooks a test replaces to answer for the user
    def run_dialog(self, dialog) -> bool:
        """Show a modal dialog; True when the user accepted it (not when it ended otherwise: rejected,
        or with a code of its own, which ``dialog.result()`` keeps)."""
        return dialog.exec() == QDialog.DialogCode.Accepted

    def confirm(self, title: str, question: str) -> bool:
        answer = QMessageBox.question(self, title, question)
        return answer == QMessageBox.StandardButton.Yes

    def choose(self, title: str, label: str, options: dict[str, str], current: str) -> str | None:
        """One key of options, chosen by its text (current preselected); None when cancelled."""
        keys = list(options)
        text, ok = QInputDialog.getItem(self, title, label, list(options.values()), keys.index(current), False)
        return keys[list(options.values()).index(text)] if ok else None

    def new_generated(self, spec: GeneratorSpec = COX_PRESET, wait: bool = True) -> bool:
        """Show a generated table (``spec``, made in the background) in place of the one shown, once
        unsaved work is saved or discarded; ``wait`` as in open_path."""
        if not self.keep_work("generating a new table"):
            return False
        shape = " × ".join(map(str, spec.shape))
        return self._load(Loading(f"Generating a {shape} table", "Could not generate the table",
                                  lambda: generated_project(spec), self.set_project), wait)

    def generate_dialog(self) -> None:
        """The generator dialog, opened on the last table generated (remembered across sessions)."""
        saved = self.settings.value("generator/spec")
        try:
            spec = GeneratorSpec.from_dict(saved) if isinstance(saved, dict) else COX_PRESET
        except (TypeError, ValueError):
            spec = COX_PRESET
        dialog = GeneratorDialog(self, spec)
        if self.run_dialog(dialog):
            self.settings.setValue("generator/spec", dialog.spec().as_dict())
            self.new_generated(dialog.spec(), wait=False)

    def open_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open a table or project", self._last_dir(), OPEN_FILTER)
        if path:
            self.open_path(path, wait=False)

    def save(self) -> bool:
        if self.path is None:
            return self.save_as()
        return self.save_to(self.path)

    def save_as(self) -> bool:
        suffix = PROJECT_FORMAT.suffixes[0]
        path, _ = QFileDialog.getSaveFileName(self, "Save project", self._last_dir(),
                                              f"{PROJECT_FORMAT.label} ({PROJECT_FORMAT.pattern()})")
        if not path:
            return False
        if not path.endswith(suffix):
            path += suffix
        return self.save_to(Path(path))

    def save_to(self, path: Path) -> bool:
        """Write the project with the current options and log."""
        try:
            options = self.model_panel.options()
        except CTAError as error:
            self.report_error("Could not save the project", error)
            return False
        self.open_project.options = {**(self.open_project.options or {}), **options}
        self.open_project.log = self.log_pane.toPlainText()
        try:
            self.open_session.save(path)
        except Exception as error:
            self.report_error("Could not save the project", error)
            return False
        self._remember_recent(Path(path))
        self.statusBar().showMessage(f"Saved {path}", 5000)
        return True

    def export_dialog(self, kind: str) -> None:
        export = export_of(kind)
        stem = self.path.stem if self.path else "table"
        suffix = export.suffix
        default = str(Path(self._last_dir()) / f"{stem}{'-' + kind if kind in ('release', 'internal') else ''}{suffix}")
        path, _ = QFileDialog.getSaveFileName(self, export.menu.rstrip("…"), default, export.filter)
        if path:
            self.export_to(kind, Path(path if path.lower().endswith(suffix) else path + suffix), wait=False)

    def export_to(self, kind: str, path: Path, wait: bool = True) -> bool:
        """Write one export kind (ctadesk.app.formats.exports) in the background, the table locked
        meanwhile; a stale result is written only if the user says so.  ``wait``: return once
        written (True) or failed (False, said); else once writing has started."""
        if (export_of(kind).requires is not Requires.NOTHING and self.open_project.result is not None and self._stale()
                and not self.confirm("Stale result", STALE_NOTICE + "\n\nExport the stale result anyway?")):
            return False
        if self._busy():
            self.statusBar().showMessage("Wait for the job running to end (or cancel it) first.", 5000)
            return False
        if (export_of(kind).requires is not Requires.NOTHING and self.open_project.result is not None
                and self.open_project.result.protected and self.audit_result is None):
            self.log_pane.append_lines([f"{Path(path).name}: written without an audit of this result; step 4, Audit "
                                        "(F6), shows what an attacker can deduce from it."])
        self._exporting = path = Path(path)
        self._exported_ok = False
        self.solve_state.setText(f"Writing {path.name}…")
        self.statusBar().showMessage(f"Writing {path}…")
        self._set_running(True, EXPORT)
        self.runner.start(EXPORT, export_job(self.open_session, kind, path))
        if not wait:
            return True
        self.runner.wait()
        return self._exported_ok

    def _exported(self, written) -> None:
        from ctadesk.io.excel import ExportOutcome  # openpyxl: loaded by the export of a workbook

        self._set_running(False)
        self.solve_state.setText(self.open_session.note)
        left_out = ""
        if isinstance(written, ExportOutcome):
            self.log_pane.append_lines(written.lines())
            if written.dropped:
                left_out = f" — {len(written.dropped)} item(s) of the source left out, listed in the log"
        self.statusBar().showMessage(f"Wrote {self._exporting}{left_out}", 8000)
        self._exported_ok = True

    def _export_failed(self, error: BaseException) -> None:
        self._set_running(False)
        self.solve_state.setText(self.open_session.note)
        self.report_error(f"Could not write {self._exporting.name}", error)

    # ---------------------------------------------------------------- rules
    def apply_rules(self) -> bool:
        """Flag cells by the panel's safety rules (cells marked by hand stay sensitive); undoable."""
        project = self.project
        if project is None or project.statistics is None:
            return False
        try:
            rules = self.rules_panel.rules()
            changes, result = self.open_session.rule_changes(rules)
        except Exception as error:
            self.report_error("The safety rules cannot be applied", error)
            return False
        self._push(changes, "Apply safety rules")
        project.rules = rules_dict(rules)
        self.audit_panel.set_rules(project.rules)
        self.rules_panel.show_counts(result)
        return True

    # --------------------------------------------------------------- editing
    def _push(self, changes: dict, text: str) -> bool:
        """Apply changes as one undoable edit; False (and nothing changes) while a solve or an audit runs."""
        if self._busy():
            self.statusBar().showMessage("The table cannot change while a solve or an audit runs.", 5000)
            return False
        self.undo_stack.push(CellEdit(self.open_session, changes, text))
        return True

    def _edit_value(self, cell: int, value: float) -> None:
        """Set a cell's value (undoable); once the cell editor has closed, say which totals it
        left unequal to the sum of their parts, if any (check_additivity)."""
        previous = float(self.open_project.values[cell])
        text = f"Set {self.open_project.structure.cell_label(cell)} to {value:,.10g}"
        if self._push({"values": ([cell], [value])}, text):
            edit = self.open_session.history[-1]
            QTimer.singleShot(0, self, lambda: self.check_additivity(edit, cell, previous))

    def _paste_values(self, cells: np.ndarray, values: np.ndarray) -> None:
        """Set the pasted cells' values as one undoable edit; say how many relations the table now
        breaks (Edit > Recompute totals makes them add up)."""
        if not self._push({"values": (cells, values)}, f"Paste {cells.size:,} value(s)"):
            return
        project = self.open_project
        residual = np.abs(project.relations @ project.values - project.rhs)
        broken = int((residual > 1e-9 * max(1.0, float(np.abs(project.values).max()))).sum())
        self.statusBar().showMessage(f"Pasted {cells.size:,} value(s)" + (
            f"; {broken:,} total(s) no longer equal the sum of their parts (Edit > Recompute totals)" if broken
            else ""), 10000)

    # ------------------------------------------------------------- drag and drop
    def dragEnterEvent(self, event) -> None:
        """Files dragged onto the window may be dropped while nothing runs."""
        urls = event.mimeData().urls()
        if urls and all(url.isLocalFile() for url in urls) and not self._busy():
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:
        """A dropped file opens as File > Open does (asking about unsaved work); one file at a time."""
        paths = [url.toLocalFile() for url in event.mimeData().urls() if url.isLocalFile()]
        if not paths:
            return
        event.acceptProposedAction()
        if len(paths) > 1:
            self.statusBar().showMessage(f"Opening {Path(paths[0]).name}: drop one file at a time.", 8000)
        QTimer.singleShot(0, self, lambda: self.open_path(paths[0]))  # after the drop ends: the dialogs are modal

    def check_additivity(self, edit: Edit, cell: int, previous: float) -> None:
        """If the value edit `edit` (still the last thing done) unbalanced totals, name them and
        offer to recompute the totals (a second undoable edit) or to keep the table as typed."""
        session = self.session
        if session is None or session.position != len(session.history) or session.history[-1] is not edit:
            return
        project = self.open_project
        unbalanced = additivity.unbalanced_by_edit(project, cell, previous)
        if not unbalanced:
            return
        label = project.structure.cell_label(cell)
        totals = additivity.recomputed_totals(project)
        if totals is None or self.runner.running:  # nothing to offer: recomputing would not help, or cannot now
            first = unbalanced[0]
            self.statusBar().showMessage(f"{first.label} no longer adds up (off by {first.off_by:+,.6g}): "
                                         "protection makes the table add up by moving cells.", 15000)
            return
        reset = None if project.structure.inner_mask()[cell] else float(totals[cell])
        if self.confirm("Totals no longer add up",
                        additivity.question(label, float(project.values[cell]), unbalanced, reset)):
            self.recompute_totals()

    def mark_sensitive(self, cells: np.ndarray) -> None:
        cells = np.asarray(cells, np.int64)
        if cells.size == 0:
            self.statusBar().showMessage("Select cells first.", 5000)
            return
        share = self.default_protection.value() / 100
        levels = share * np.abs(self.open_project.values[cells])
        unset = (self.open_project.lower_protection[cells] == 0) & (self.open_project.upper_protection[cells] == 0)
        self._push({"sensitive": (cells, True), "fixed": (cells, False), "flagged_by": (cells, "manual"),
                    "lower_protection": (cells, np.where(unset, levels, self.open_project.lower_protection[cells])),
                    "upper_protection": (cells, np.where(unset, levels, self.open_project.upper_protection[cells]))},
                   f"Mark {cells.size} cell(s) sensitive")

    def mark_safe(self, cells: np.ndarray) -> None:
        cells = np.asarray(cells, np.int64)
        if cells.size:
            self._push({"sensitive": (cells, False), "flagged_by": (cells, "")}, f"Mark {cells.size} cell(s) safe")

    def set_fixed(self, cells: np.ndarray, fixed: bool) -> None:
        cells = np.asarray(cells, np.int64)
        if cells.size:
            changes: dict[str, tuple[np.ndarray, bool | str]] = {"fixed": (cells, fixed)}
            if fixed:
                changes.update(sensitive=(cells, False), flagged_by=(cells, ""))
            self._push(changes, f"{'Fix' if fixed else 'Unfix'} {cells.size} cell(s)")

    def set_senses(self, cells: np.ndarray, sense: int) -> None:
        cells = np.asarray(cells, np.int64)
        cells = cells[self.open_project.sensitive[cells]]
        if cells.size:
            word = {1: "up", -1: "down", 0: "free"}[sense]
            self._push({"senses": (cells, sense)}, f"Sense {word} for {cells.size} cell(s)")

    def set_protection_levels(self, cells: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> bool:
        """Set the lower/upper protection levels of the sensitive cells among cells (undoable)."""
        cells = np.asarray(cells, np.int64)
        keep = self.open_project.sensitive[cells]
        lower, upper = np.broadcast_to(lower, keep.shape)[keep], np.broadcast_to(upper, keep.shape)[keep]
        cells = cells[keep]
        if cells.size == 0:
            self.statusBar().showMessage("Select sensitive cells first: protection levels apply to them.", 5000)
            return False
        self._push({"lower_protection": (cells, lower), "upper_protection": (cells, upper)},
                   f"Protection levels for {cells.size} cell(s)")
        return True

    def set_bounds(self, cells: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> bool:
        """Set the bounds of cells (undoable); refused, naming the cell, when they exclude its value."""
        cells = np.asarray(cells, np.int64)
        lower, upper = np.broadcast_to(lower, cells.shape), np.broadcast_to(upper, cells.shape)
        values = self.open_project.values[cells]
        outside = np.flatnonzero((lower > values) | (upper < values))
        if outside.size:
            k = int(outside[0])
            self.report_error("Bounds not set", CTAError(
                f"cell {self.open_project.structure.cell_label(int(cells[k]))}: bounds [{lower[k]:g}, {upper[k]:g}] "
                f"exclude its value {values[k]:g}"))
            return False
        if cells.size:
            self._push({"lower": (cells, lower), "upper": (cells, upper)}, f"Bounds for {cells.size} cell(s)")
        return bool(cells.size)

    def protection_dialog(self) -> None:
        level = self.default_protection.value()
        dialog = LimitsDialog("protection", level, level, self)
        cells = self.editor.selected_cells()
        if self.run_dialog(dialog):
            self.set_protection_levels(cells, *dialog.limits(self.open_project.values[cells]))

    def bounds_dialog(self) -> None:
        dialog = LimitsDialog("bounds", 20.0, 20.0, self)
        cells = self.editor.selected_cells()
        if self.run_dialog(dialog):
            self.set_bounds(cells, *dialog.limits(self.open_project.values[cells]))

    def recompute_totals(self) -> None:
        totals = self.open_project.recompute_totals()
        cells = np.flatnonzero(totals != self.open_project.values)
        if cells.size == 0:
            self.statusBar().showMessage("Every total already equals the sum of its cells.", 5000)
            return
        self._push({"values": (cells, totals[cells])}, f"Recompute {cells.size} total(s)")

    def _cell_menu(self, position) -> None:
        menu = QMenu(self)
        for action in self.cell_actions:
            menu.addAction(action)
        menu.exec(self.editor.view.viewport().mapToGlobal(position))

    # --------------------------------------------------------------- solving
    def protect(self) -> None:
        """Start the chosen method in the background; the table stays as typed whatever happens."""
        if self._busy() or self.project is None:
            return
        self.editor.commit_open_editor()
        try:
            options = self.model_panel.options()
        except CTAError as error:
            self.report_error("The quality terms are not valid", error)
            return
        if options["method"] is None:
            self.report_error("Cannot protect", CTAError("No solver is installed."))
            return
        try:
            problem = self.project.to_problem()
            seed = self.open_session.widening_seed or new_seed()
            request = self.model_panel.request().replace(seed=seed)
        except Exception as error:
            self.report_error("The table cannot be protected as it stands", error)
            return
        if problem.n_sensitive == 0:
            self.report_error("Nothing to protect", CTAError("No cell is sensitive: mark cells sensitive first."))
            return
        self.project.options = {**options, WIDENING_SEED: seed}
        self.log_pane.clear()
        self.progress_plot.reset()
        self.solve_state.setText(f"Running {method_label(options['method'])}…")
        self._set_running(True)
        project = self.project
        self.runner.start(PROTECT, with_quality(protection_job(problem, request, self.solve),
                                                lambda protection: (project, protection.result), self._keep_quality))

    def cancel(self) -> None:
        if self.runner.running:
            self.runner.cancel()
            self.solve_state.setText("Cancelling… (the best table so far will be kept)" if self.runner.name == PROTECT
                                     else "Cancelling the audit…")

    def _job_finished(self, value) -> None:
        handlers = {PROTECT: self._solved, AUDIT: self._audited, LOAD: self._loaded, EXPORT: self._exported}
        handlers[self.runner.name](value)

    def _job_failed(self, error: BaseException) -> None:
        {PROTECT: self._solve_failed, AUDIT: self._audit_failed, LOAD: self._load_failed,
         EXPORT: self._export_failed}[self.runner.name](error)

    def _elapsed(self, seconds: float) -> None:
        """The seconds a solve or an audit has run (reading or writing a file says what it does instead)."""
        if self.runner.name in (PROTECT, AUDIT):
            self.elapsed.setText(f"{seconds:.1f} s")

    def _progress(self, reports) -> None:
        self.progress_plot.add(reports)
        self.solve_state.setText(self.progress_plot.state())

    def _stale(self) -> bool:
        return self.session is not None and self.session.stale

    def _update_stale(self) -> None:
        """Show the stale-result notice while the table differs from the one the result was computed on."""
        self.stale_banner.setVisible(self._stale())

    def _solved(self, protection: Protection) -> None:
        self._set_running(False)
        result = protection.result
        if not self.log_pane.toPlainText() and result.log:
            self.log_pane.set_text(result.log)
        state = "protected table" if result.protected else "no protected table"
        said = f"{result.status.value.replace('_', ' ')}: " + (
            result.message if result.message.startswith(state) else
            state + (f" — {result.message}" if result.message else ""))
        self.statusBar().showMessage(f"{method_label(result.method)} finished: {result.status.value}", 10000)
        failed_senses = protection.request.senses == "fixed" and not result.protected
        if not self.open_session.keep(protection):  # the table found before stays in view
            self.open_session.say(f"{said}. The result before this run is kept.")
            if failed_senses:
                self._offer_optimal_senses(protection)
            return
        if failed_senses:
            self._offer_optimal_senses(protection)
            return
        self.open_project.log = self.log_pane.toPlainText()
        self.open_session.say(said)
        self.results.show_advice(None if protection.request.weights == "inverse"
                                 else after_run(protection.required, result.values))
        if result.protected and not protection.precision_met:
            self._offer_precision(protection)

    def _offer_optimal_senses(self, protection: Protection) -> None:
        """A fixed-sense run found no table: name the cells whose senses conflict
        (app/sense_conflicts.py) and offer, in one click, to let the solver choose the senses and
        protect again."""
        senses = self.model_panel.senses
        if senses.findData("optimal") < 0:
            return
        problem = protection.solved
        given = problem.effective_senses
        cells = conflicting_cells(problem, given)
        named = f"These senses cannot all hold: {describe(problem, given, cells)}." if cells else (
            "The senses given (or chosen by ordering) cannot all hold.")
        given_here = [c for c in cells if self.open_project.senses[c] != 0]
        free = " (the senses set by hand on these cells are freed, undoably)" if given_here else ""
        if self.confirm("The senses given conflict",
                        f"{protection.result.message or 'No table satisfies the senses given'}.\n\n{named}\n\n"
                        f"Use optimal senses (the solver chooses each sensitive cell's direction){free} and "
                        "protect again?"):
            def again() -> None:  # once the run that failed has ended
                if given_here:
                    self.set_senses(np.array(given_here), 0)
                senses.setCurrentIndex(senses.findData("optimal"))
                self.protect()
            QTimer.singleShot(0, self, again)

    def _advise_weights_before_run(self) -> None:
        """On a table not yet protected whose weights would be one value (unit, or the table's own
        all equal) and whose cells span orders of magnitude, suggest 1/value weights (the advice
        the job that read the table worked out, else worked out here)."""
        project = self.open_project
        choice = self.model_panel.weights.currentData()
        if project.result is not None or choice == "inverse":
            self.results.show_advice(None)
            return
        kept, advice = self._advice
        if kept is not project:
            advice = weight_advice(project)
        self.results.show_advice(advice[TABLE_WEIGHTS if choice == "table" else UNIT_WEIGHTS])

    def _keep_advice(self, project: Project, advice: dict[str, WeightAdvice | None]) -> None:
        """Called by a load job in its own thread: the weight advice of the project it read."""
        self._advice = (project, advice)

    def use_inverse_weights(self) -> None:
        """The advice's one click: weights 1/value, and protect again when a run gave the advice."""
        self.model_panel.weights.setCurrentIndex(self.model_panel.weights.findData("inverse"))
        self.results.show_advice(None)
        if self.project is not None and self.project.result is not None:
            self.protect()

    def _offer_precision(self, protection: Protection) -> None:
        """The protected table is not at the precision asked, so it cannot be released: offer the
        finer precisions the model panel has, the next one first, and none (full), and protect
        again at the one chosen."""
        asked = protection.request.precision
        choices = self.model_panel.precision_choices()
        finer = [(key, label) for label, key in choices if isinstance(key, int) and isinstance(asked, int)
                 and key > asked] + [(key, label) for label, key in choices if key == "full"]
        why = protection.outcome.published.note or "no table at that precision was found"
        choice = self.choose("Publish at another precision",
                             f"{why}.\nThe table cannot be released as it stands. Publish it at:",
                             dict(finer), finer[0][0])
        if choice is None:
            return
        self.model_panel.set_precision(choice)
        self.protect()

    def _solve_failed(self, error: BaseException) -> None:
        self._set_running(False)
        result = self.open_project.result
        kept = " and the result before this run is kept" if result is not None and result.values is not None else ""
        self.open_session.say(f"The solve failed ({plain_message(error).rstrip('.')}); the table is unchanged{kept}.")
        self.report_error("The solve failed", error)

    def _keep_quality(self, result: CTAResult, quality: QualityReport | None) -> None:
        """Called by a job in its own thread, before it ends: the quality report of the result it
        came to, shown with the result (not computed again on the GUI thread)."""
        self._quality = (result, quality)

    def _show_result(self, result: CTAResult) -> None:
        self.editor.model.refresh()
        kept, quality = self._quality  # computed by the job that brought the result, if one did
        self.results.show_result(self.open_project, result, self.editor.model.layout_, self.open_session.outcome.terms,
                                 quality if kept is result else None)
        self.editor.set_display(Display.ORIGINAL if result.values is None else Display.ADJUSTED)
        self.bottom_tabs.setCurrentWidget(self.results)

    def _refresh_heatmap(self) -> None:
        if self.project is not None and self.project.result is not None:
            self.results.update_heatmap(self.project, self.project.result, self.editor.model.layout_)

    def _busy(self) -> bool:
        """A solve or an audit runs (the table may not change meanwhile)."""
        return self.runner.running

    def _set_running(self, running: bool, job: str = PROTECT) -> None:
        """Lock (or unlock) everything that changes the table while a job runs: a solve, an audit,
        reading or making a table, writing an export (only the first two can be cancelled)."""
        self.editor.model.read_only = running
        self.busy.setRange(0, 0 if running else 1)
        self.busy.setValue(0)
        for widget in (self.protect_button, self.protect_action, self.generate_button, self.open_button,
                       self.totals_button, self.mark_button, self.unmark_button, self.model_panel, self.rules_panel,
                       self.export_button, *self.cell_actions, *self.table_actions):
            widget.setEnabled(not running)
        self.recent_menu.setEnabled(not running and bool(self.recent_files()))
        self.undo_action.setEnabled(not running and self.undo_stack.canUndo())
        self.redo_action.setEnabled(not running and self.undo_stack.canRedo())
        self.cancel_button.setEnabled(running and job in (PROTECT, AUDIT))
        self.cancel_action.setEnabled(running and job in (PROTECT, AUDIT))
        self._update_audit_action()
        if running:
            self.elapsed.setText("0.0 s" if job in (PROTECT, AUDIT) else "")
            if job == AUDIT:
                self.bottom_tabs.setCurrentWidget(self.results)
                self.results.setCurrentWidget(self.audit_panel)
            elif job == PROTECT:
                self.bottom_tabs.setCurrentWidget(self.progress_plot if self._plots_progress() else self.log_pane)

    def _plots_progress(self) -> bool:
        """Whether the run about to start reports incumbents worth the live plot: an exact model left to
        the automatic choice, or a method whose registry entry says so."""
        from ctadesk.engine.methods import METHODS

        options = self.model_panel.remembered_options()
        method = options["method"]
        if method == AUTO:
            return options["senses"] == "optimal"
        return method in METHODS and METHODS[method].reports.progress_plot

    # ----------------------------------------------------------------- audit
    def can_audit(self) -> bool:
        """There is a protected table, not stale, and nothing runs."""
        result = self.project.result if self.project is not None else None
        return (self.session is not None and result is not None and result.values is not None and result.protected
                and not self._stale() and not self._busy())

    def _update_audit_action(self) -> None:
        self.audit_action.setEnabled(self.can_audit())

    def run_audit(self) -> None:
        """Audit the protected table in the background under the audit tab's assumptions; the
        table is locked until the audit ends (Cancel stops it)."""
        if not self.can_audit():
            self.statusBar().showMessage(AUDIT_NEEDS, 5000)
            return
        self.editor.commit_open_editor()
        try:
            knowledge = self.audit_panel.knowledge()
        except Exception as error:
            self.report_error("The audit's assumptions are not valid", error)
            return
        self.clear_audit("Auditing…")
        self.open_session.say("Auditing the protected table…")
        self.runner.start(AUDIT, audit_job(self.open_session, knowledge), AUDIT_CANCELLED)
        self._set_running(True, AUDIT)

    def _audit_progress(self, done: int, total: int) -> None:
        if total > 0:
            self.busy.setRange(0, total)
            self.busy.setValue(done)
            self.solve_state.setText(f"Auditing: {done:,} of {total:,} interval ends")

    def _audited(self, audit: AuditResult) -> None:
        self._set_running(False)
        self._show_audit()
        self.bottom_tabs.setCurrentWidget(self.results)
        self.results.setCurrentWidget(self.audit_panel)
        state = "every sensitive cell protected" if audit.safe else f"{audit.n_at_risk:,} cell(s) at risk"
        self.open_session.say(f"Audit: {audit.n_audited:,} cells audited, {state}")
        self.statusBar().showMessage(f"Audit finished in {audit.seconds:.2f} s: {state}", 10000)

    def _audit_cancelled(self) -> None:
        self._set_running(False)
        if not self._show_audit():
            self.audit_panel.clear("The audit was cancelled. Press Audit (F6) to run it again.")
        self.open_session.say("Audit cancelled.")

    def _audit_failed(self, error: BaseException) -> None:
        self._set_running(False)
        if not self._show_audit():
            self.audit_panel.clear("The audit failed: " + plain_message(error))
        self.open_session.say("The audit failed; the table is unchanged.")
        self.report_error("The audit failed", error)

    def clear_audit(self, message: str = NO_AUDIT) -> None:
        """Show no audit; ``message`` says why in the audit tab."""
        self.editor.show_audit(None)
        self.audit_panel.clear(message)

    def _show_audit(self) -> bool:
        """Show the session's audit of the table as it stands, if there is one (True then); an
        audit shown that no longer describes the table is cleared, saying so."""
        audit = self.audit_result
        if audit is None and self.editor.model.audit is not None:
            self.clear_audit(AUDIT_CLEARED)
            self.open_session.say("The audit was cleared: the table changed.")
        elif audit is not None and audit is not self.editor.model.audit:
            self.editor.show_audit(audit)
            self.audit_panel.show_audit(self.open_project, audit)
        return audit is not None

    # ------------------------------------------------------------------ tools
    def show_releases(self) -> ReleasesWindow:
        """Tools > Optimal releases: the releases window (one, kept while the app runs)."""
        if self.releases_window is None:
            self.releases_window = ReleasesWindow(self, self._last_dir())
        self.releases_window.show()
        self.releases_window.raise_()
        return self.releases_window

    def sense_store_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open a sense store", self._last_dir(), STORE_FILTER)
        if path:
            self.open_sense_store(path)

    def sense_store_url_dialog(self) -> None:
        url, ok = QInputDialog.getText(self, "Open a sense store in a database",
                                       "PostgreSQL URL (postgresql://user@host:5432/database; the password from "
                                       "~/.pgpass or PGPASSWORD):", text="postgresql://")
        if ok and url.strip():
            self.open_sense_store(url.strip())

    def open_sense_store(self, path: str | Path) -> SenseStoreDialog | None:
        """Show the published tables and the senses of the sense store at ``path``, a file or a
        ``postgresql://`` URL (read-only)."""
        try:
            dialog = SenseStoreDialog(path, self)
        except Exception as error:
            self.report_error(f"Could not open the sense store {store_name(path)}", error)
            return None
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()
        return dialog

    # ---------------------------------------------------------------- helpers
    def show_about(self) -> None:
        """Help > About: the version and what ctadesk runs on (gui/app.py about_text), without blocking."""
        box = QMessageBox(QMessageBox.Icon.NoIcon, "About ctadesk", about_text(), QMessageBox.StandardButton.Ok, self)
        box.setObjectName("about_box")
        box.setIconPixmap(self.windowIcon().pixmap(64, 64))
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()

    def report_error(self, title: str, error: BaseException) -> None:
        """Show error in plain language (never a traceback), without blocking the event loop."""
        self.last_error = plain_message(error)
        self.statusBar().showMessage(self.last_error, 15000)
        box = QMessageBox(QMessageBox.Icon.Warning, title, self.last_error, QMessageBox.StandardButton.Ok, self)
        box.setObjectName("error_box")
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()

    def _update_info(self) -> None:
        project = self.open_project
        shape = " × ".join(str(s) for s in project.structure.shape)
        self.table_info.setText(f"{shape} table, {project.n_cells:,} cells, {project.relations.shape[0]:,} relations")
        self.sensitive_info.setText(f"{int(project.sensitive.sum()):,} sensitive, {int(project.fixed.sum()):,} fixed. "
                                    "Select cells, right-click for status, sense and protection level.")
        for kind, action in self.export_actions.items():
            action.setEnabled(export_of(kind).available(project))
        self._update_audit_action()

    def _last_dir(self) -> str:
        return str(self.settings.value("files/last_dir", str(Path.home())))

    def _remember_recent(self, path: Path) -> None:
        path = Path(path).resolve()
        recent = [p for p in self.recent_files() if p != str(path)]
        self.settings.setValue("files/recent", [str(path), *recent][:RECENT_FILES])
        self.settings.setValue("files/last_dir", str(path.parent))
        self._update_recent_menu()

    def recent_files(self) -> list[str]:
        value = self.settings.value("files/recent", [])
        return [value] if isinstance(value, str) else list(value or [])

    def _update_recent_menu(self) -> None:
        self.recent_menu.clear()
        for path in self.recent_files():
            self.recent_menu.addAction(path, lambda p=path: self.open_path(p, wait=False))
        self.recent_menu.setEnabled(bool(self.recent_files()))

    def closeEvent(self, event) -> None:
        if self.ask_before_closing and not self.keep_work("closing"):
            event.ignore()
            return
        if self.runner.running:
            self.runner.cancel()
        self.settings.setValue("window/geometry", self.saveGeometry())
        super().closeEvent(event)
