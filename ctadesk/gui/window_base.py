"""The main window's state and what every part of it uses: the document shown (a Session), the
one job runner, the widgets the parts read and write, and the helpers they share (questions to
the user, errors in plain words, the table locked while a job runs).

The window is put together from a module per part, each a class over this one: cell editing
(cell_editing.py), the audit (audit_flow.py), the protection run (protect_flow.py), showing the
document (document_view.py), files (file_actions.py), the panes (window_panes.py) and the menus
(main_window.py)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QAction, QUndoStack
from PySide6.QtWidgets import (
    QDialog,
    QDockWidget,
    QDoubleSpinBox,
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

from ctadesk.app.job import Solve
from ctadesk.app.request import AUTO
from ctadesk.app.session import Session
from ctadesk.app.weight_advice import WeightAdvice
from ctadesk.engine.audit import AuditResult
from ctadesk.engine.quality.measures import QualityReport
from ctadesk.engine.result import CTAResult
from ctadesk.gui.audit_panel import AuditPanel
from ctadesk.gui.cell_info import CellInfoPane
from ctadesk.gui.errors import plain_message
from ctadesk.gui.jobs import JobRunner, Loading
from ctadesk.gui.log_pane import LogPane
from ctadesk.gui.model_panel import ModelPanel
from ctadesk.gui.progress_plot import ProgressPlot
from ctadesk.gui.releases_window import ReleasesWindow
from ctadesk.gui.results_panel import ResultsPanel
from ctadesk.gui.rules_panel import RulesPanel
from ctadesk.gui.session_events import SessionEvents
from ctadesk.gui.table_editor import TableEditor
from ctadesk.io.project import Project

STALE_NOTICE = ("The table was edited after this result was computed: the adjusted values shown are stale. "
                "Press Protect again (or undo the edits).")
AUDIT_CLEARED = ("The audit was cleared: the table changed or was protected again since. Press Audit (F6) to "
                 "audit the table as it is now.")
AUDIT_NEEDS = "Audit needs a protected table that is not stale: press Protect first."
#: the window's background jobs (JobRunner.name): a protection run, an audit, reading or making a
#: table, writing an export
PROTECT, AUDIT, LOAD, EXPORT = "protect", "audit", "load", "export"


class WindowBase(QMainWindow):
    """The state of the main window and the helpers its parts share (MainWindow puts them together)."""

    settings: QSettings
    ask_before_closing: bool
    #: the document shown (app/session.py): the table, its path, result, audit and note
    session: Session | None
    session_events: SessionEvents
    last_error: str
    undo_stack: QUndoStack
    solve: Solve
    #: the one background job at a time (its name: PROTECT, AUDIT, LOAD or EXPORT)
    runner: JobRunner
    releases_window: ReleasesWindow | None
    #: a result and its quality report, computed by the job that brought the result
    _quality: tuple[CTAResult | None, QualityReport | None]
    #: a project and its weight advice before a run, worked out by the job that read it
    _advice: tuple[Project | None, dict[str, WeightAdvice | None]]
    #: the model panel's own choices: the defaults until the user makes others the defaults
    builtin_options: dict
    #: what a load or an export job reads or writes, and whether it came to a table or a file
    _loading: Loading
    _loaded_ok: bool
    _exporting: Path
    _exported_ok: bool

    # the grid and the panes (window_panes.py)
    editor: TableEditor
    stale_banner: QLabel
    table_info: QLabel
    generate_button: QPushButton
    open_button: QPushButton
    totals_button: QPushButton
    rules_layout: QVBoxLayout
    rules_panel: RulesPanel
    default_protection: QDoubleSpinBox
    mark_button: QPushButton
    unmark_button: QPushButton
    sensitive_info: QLabel
    model_panel: ModelPanel
    audit_step: QLabel
    audit_button: QToolButton
    save_button: QPushButton
    export_button: QPushButton
    workflow_scroll: QScrollArea
    protect_button: QPushButton
    cancel_button: QPushButton
    busy: QProgressBar
    elapsed: QLabel
    solve_state: QLabel
    log_pane: LogPane
    progress_plot: ProgressPlot
    results: ResultsPanel
    audit_panel: AuditPanel
    bottom_tabs: QTabWidget
    bottom_dock: QDockWidget
    cell_info: CellInfoPane
    # the menus' actions (main_window.py)
    undo_action: QAction
    redo_action: QAction
    #: the actions that replace the table (locked while a job runs)
    table_actions: list[QAction]
    recent_menu: QMenu
    export_menu: QMenu
    export_actions: dict[str, QAction]
    cell_actions: list[QAction]
    protect_action: QAction
    cancel_action: QAction
    audit_action: QAction
    toolbar: QToolBar

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

    def report_error(self, title: str, error: BaseException) -> None:
        """Show error in plain language (never a traceback), without blocking the event loop."""
        self.last_error = plain_message(error)
        self.statusBar().showMessage(self.last_error, 15000)
        box = QMessageBox(QMessageBox.Icon.Warning, title, self.last_error, QMessageBox.StandardButton.Ok, self)
        box.setObjectName("error_box")
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()

    def _busy(self) -> bool:
        """A solve or an audit runs (the table may not change meanwhile)."""
        return self.runner.running

    def _stale(self) -> bool:
        return self.session is not None and self.session.stale

    def _update_stale(self) -> None:
        """Show the stale-result notice while the table differs from the one the result was computed on."""
        self.stale_banner.setVisible(self._stale())

    def recent_files(self) -> list[str]:
        """The files opened last, the latest first (QSettings gives one file as a string)."""
        value = self.settings.value("files/recent", [])
        return [value] if isinstance(value, str) else [str(path) for path in value] if isinstance(value, list) else []

    def _last_dir(self) -> str:
        return str(self.settings.value("files/last_dir", str(Path.home())))

    def can_audit(self) -> bool:
        """There is a protected table, not stale, and nothing runs."""
        result = self.project.result if self.project is not None else None
        return (self.session is not None and result is not None and result.values is not None and result.protected
                and not self._stale() and not self._busy())

    def _update_audit_action(self) -> None:
        self.audit_action.setEnabled(self.can_audit())

    def _set_running(self, running: bool, job: str = PROTECT) -> None:
        """Lock (or unlock) everything that changes the table while a job runs: a solve, an audit,
        reading or making a table, writing an export (only the first two can be cancelled)."""
        self.editor.model.read_only = running
        self.busy.setRange(0, 0 if running else 1)
        self.busy.setValue(0)
        locked: tuple[QWidget | QAction, ...] = (
            self.protect_button, self.protect_action, self.generate_button, self.open_button, self.totals_button,
            self.mark_button, self.unmark_button, self.model_panel, self.rules_panel, self.export_button,
            *self.cell_actions, *self.table_actions)
        for widget in locked:
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
