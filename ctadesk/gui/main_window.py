"""The main window, laid out in the order a tau-argus user works (docs/developer-guide.md):
1 table -> 2 safety rules -> 3 protect -> 4 view/audit -> 5 save/export; with Tools > Optimal
releases (count tables, issue 15) and File > Open sense store (on-line CTA, issue 14) beside it.

Here: the window put together (its parts are the classes it derives from, window_base.py
lists them), its menus and toolbar, the jobs' ends sent to the part that started them, the
tools and the closing."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QAction, QKeySequence, QUndoStack
from PySide6.QtWidgets import QLabel, QMenu, QMessageBox, QToolBar, QVBoxLayout, QWidget

from ctadesk.app.formats import exports
from ctadesk.app.job import engine_solve
from ctadesk.gui.about import about_text
from ctadesk.gui.jobs import JobRunner
from ctadesk.gui.naming import named
from ctadesk.gui.releases_window import ReleasesWindow
from ctadesk.gui.session_events import SessionEvents
from ctadesk.gui.table_editor import TableEditor
from ctadesk.gui.user_guide import show_user_guide
from ctadesk.gui.window_base import AUDIT, EXPORT, LOAD, PROTECT, STALE_NOTICE
from ctadesk.gui.window_panes import WindowPanes

#: the window's size at its first start, and what a window manager's frame may add to it
DEFAULT_SIZE, FRAME_ALLOWANCE = (1280, 820), (16, 48)


def start_size(available: tuple[int, int]) -> tuple[int, int]:
    """The window's size at its first start: DEFAULT_SIZE, less where the screen's ``available``
    (width, height) is smaller, leaving FRAME_ALLOWANCE for the title bar and borders (a
    1366 x 768 laptop, a 1400 x 900 screen with a panel).  A size saved by an earlier run is
    restored instead, which Qt fits to the screen."""
    return (min(DEFAULT_SIZE[0], available[0] - FRAME_ALLOWANCE[0]),
            min(DEFAULT_SIZE[1], available[1] - FRAME_ALLOWANCE[1]))


class MainWindow(WindowPanes):
    """settings: where recent files and choices are remembered; solve: the solve function (tests swap it)."""

    def __init__(self, settings: QSettings | None = None, solve=engine_solve, *, in_steps: bool = False) -> None:
        """in_steps: build only the bare window; build_step() builds each next part (the app's
        start: one part per turn of the event loop)."""
        super().__init__()
        self._steps = self._build(settings, solve)
        if not in_steps:
            while self.build_step():
                pass

    def build_step(self) -> bool:
        """Build the window's next part; False once it is all built.  The parts take 10-20 ms
        each, where the whole window holds the GUI thread 40-150 ms (more on a busy machine)."""
        return next(self._steps, False) is not False

    def _build(self, settings: QSettings | None, solve) -> Iterator[bool]:
        self.settings = settings or QSettings("ctadesk", "ctadesk")
        self.ask_before_closing = True
        self.session = None
        self.session_events = SessionEvents(self)
        self.session_events.changed.connect(self._session_changed)
        self.last_error = ""
        self.undo_stack = QUndoStack(self)
        self.solve = solve
        self.runner = JobRunner(self)
        self.runner.log_lines.connect(lambda lines: self.log_pane.append_lines(lines))
        self.runner.progress.connect(self._progress)
        self.runner.counted.connect(self._audit_progress)
        self.runner.elapsed.connect(self._elapsed)
        self.runner.finished.connect(self._job_finished)
        self.runner.cancelled.connect(self._audit_cancelled)
        self.runner.failed.connect(self._job_failed)
        self.releases_window: ReleasesWindow | None = None
        self._quality = (None, None)
        self._advice = (None, {})

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
        yield True
        self._build_workflow_dock()
        yield True
        self._build_bottom_dock()
        self._build_cell_dock()
        yield True
        self._build_actions()
        self.statusBar().showMessage("Ready")
        self.resize(*start_size(self.screen().availableGeometry().size().toTuple()))
        geometry = self.settings.value("window/geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)
        self.builtin_options = self.model_panel.remembered_options()
        self.model_panel.set_options(self.default_options())
        self._set_running(False)

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
        self.save_action = self._action("&Save project", self.save, S.Save, "act_save")
        file_menu.addAction(self.save_action)
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
        for action in (self.table_actions[1], self.save_action):
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

    def _job_finished(self, value: Any) -> None:
        """A job's value to the part that started it (each handler takes its own job's value)."""
        handlers: dict[str, Callable[[Any], None]] = {PROTECT: self._solved, AUDIT: self._audited,
                                                      LOAD: self._loaded, EXPORT: self._exported}
        handlers[self.runner.name](value)

    def _job_failed(self, error: BaseException) -> None:
        {PROTECT: self._solve_failed, AUDIT: self._audit_failed, LOAD: self._load_failed,
         EXPORT: self._export_failed}[self.runner.name](error)

    def show_releases(self) -> ReleasesWindow:
        """Tools > Optimal releases: the releases window (one, kept while the app runs)."""
        if self.releases_window is None:
            self.releases_window = ReleasesWindow(self, self._last_dir())
        self.releases_window.show()
        self.releases_window.raise_()
        return self.releases_window

    def show_about(self) -> None:
        """Help > About: the version and what ctadesk runs on (gui/app.py about_text), without blocking."""
        box = QMessageBox(QMessageBox.Icon.NoIcon, "About ctadesk", about_text(), QMessageBox.StandardButton.Ok, self)
        box.setObjectName("about_box")
        box.setIconPixmap(self.windowIcon().pixmap(64, 64))
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()

    def closeEvent(self, event) -> None:
        if self.ask_before_closing and not self.keep_work("closing"):
            event.ignore()
            return
        if self.runner.running:
            self.runner.cancel()
        self.settings.setValue("window/geometry", self.saveGeometry())
        super().closeEvent(event)
