"""The main window's panes: the numbered workflow dock (1 table, 2 sensitive cells, 3 protect,
4 audit, 5 save and export) over the run bar that keeps Protect in view, the tabs of results,
solver log and progress, and the cell pane beside them."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDockWidget,
    QDoubleSpinBox,
    QFormLayout,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ctadesk.gui.cell_info import CellInfoPane
from ctadesk.gui.file_actions import FileActions
from ctadesk.gui.jobs import available_methods
from ctadesk.gui.log_pane import LogPane
from ctadesk.gui.model_panel import ModelPanel
from ctadesk.gui.naming import named
from ctadesk.gui.progress_plot import ProgressPlot
from ctadesk.gui.results_panel import ResultsPanel
from ctadesk.gui.rules_panel import RulesPanel
from ctadesk.gui.wheel_guard import guard_wheel


class WindowPanes(FileActions):
    """The window's docks, built once by MainWindow.__init__."""

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
                                                       value=float(str(self.settings.value("cells/protection", 20.0)))),
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
        self.model_panel.weights.currentIndexChanged.connect(self._weights_changed)
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

    def _weights_changed(self) -> None:
        """Weights 1/value chosen: the advice to choose them goes."""
        if self.model_panel.weights.currentData() == "inverse":
            self.results.show_advice(None)
