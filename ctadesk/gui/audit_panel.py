"""The disclosure audit tab (issue 13): what the attacker is assumed to know (a-priori bounds, how
far non-sensitive cells may have moved, the rule's percentage: ctadesk.engine.audit.knowledge),
the audit's summary (cells audited, at risk, smallest relative width, time) and every audited
cell with its attacker interval (Petrenko 2017, §3.1, the feasibility interval of two LPs per cell)
and verdict, the riskiest first; a click shows the cell in the grid."""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QBrush
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QGridLayout,
    QHeaderView,
    QLabel,
    QScrollArea,
    QSplitter,
    QStyle,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ctadesk.engine.audit import APriori, AttackerKnowledge, AuditResult, Capacity, CapacityKind
from ctadesk.engine.audit.result import FAILURES
from ctadesk.gui.audit_risk import RISK_COLOURS, RISK_NAMES, RiskLevel, risk_levels, text_colour
from ctadesk.gui.naming import named
from ctadesk.gui.numbers import TableFormat, figure, table_decimals
from ctadesk.io.project import Project

NO_AUDIT = ("No audit yet. Protect the table, then press Audit (F6): for every sensitive cell, the "
            "smallest and largest value an attacker can deduce from the released table.")
A_PRIORI = {APriori.RANGE: "each value ± the rule's range", APriori.PROBLEM: "the table's bounds",
            APriori.SIGN: "only that values are ≥ 0"}


def rule_range(rules: dict | None) -> float:
    """The share of its value the safety rules assume anyone knows a cell to within: the largest
    q of the (p, q) rules, else 100 % (the p% rule is the (p, q) rule with q = 100; Cox 2005a, §2)."""
    pairs = [pair for key in ("pq", "holding_pq") for pair in (rules or {}).get(key, ())]
    return max(float(q) for _, q in pairs) / 100 if pairs else 1.0
#: rows the audit table's columns are fitted to (its riskiest, shown first; the user widens the rest)
FIT_ROWS = 200
CAPACITIES = {None: "not known", CapacityKind.ABSOLUTE: "at most, in table units",
              CapacityKind.RELATIVE: "at most, % of the value"}
COLUMNS = ("Cell", "Verdict", "Attacker lower", "Attacker upper", "Width", "Relative width (%)", "Original",
           "Published", "Protection interval", "Why at risk")


class AuditCellsModel(QAbstractTableModel):
    """The audited cells of one audit, exact disclosures first, then cells at risk, then safe
    ones, each group by relative width (narrowest first).  UserRole: the cell's flat index."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.project: Project | None = None
        self.audit: AuditResult | None = None
        self._order = np.zeros(0, np.int64)
        self._levels = np.zeros(0, np.int8)
        self._width = self._relative = np.zeros(0)
        self._brushes = {int(level): QBrush(colour) for level, colour in RISK_COLOURS.items()}
        self.numbers = TableFormat()

    def set_audit(self, project: Project | None, audit: AuditResult | None) -> None:
        self.beginResetModel()
        self.project, self.audit = project, audit
        if audit is None:
            self._order, self._levels = np.zeros(0, np.int64), np.zeros(0, np.int8)
            self._width = self._relative = np.zeros(0)
        else:
            self._levels = risk_levels(audit)
            self._width, self._relative = audit.width, audit.relative_width
            self.numbers = TableFormat(table_decimals(audit.original, audit.published))
            self._order = np.lexsort((self._relative, -self._levels.astype(np.int64)))
        self.endResetModel()

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else int(self._order.size)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole):
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return COLUMNS[section]
        return None

    @property
    def shown(self) -> tuple[Project, AuditResult]:
        """The project and audit shown, for what is asked of a row (rows exist only while they are set)."""
        if self.project is None or self.audit is None:
            raise RuntimeError("the audit table shows no audit")
        return self.project, self.audit

    def level(self, row: int) -> RiskLevel:
        return RiskLevel(int(self._levels[self._order[row]]))

    def cell(self, row: int) -> int:
        return int(self.shown[1].cells[self._order[row]])

    def text(self, row: int, column: int) -> str:
        (project, audit), k = self.shown, int(self._order[row])
        if column == 0:
            return project.structure.cell_label(int(audit.cells[k]))
        if column == 1:
            return RISK_NAMES[self.level(row)]
        if column == 9:
            return ", ".join(audit.reasons(k)) if self.level(row) is RiskLevel.AT_RISK else ""
        a = float(audit.original[k])
        if column == 8:
            return f"({figure(a - float(audit.lower_protection[k]))}, {figure(a + float(audit.upper_protection[k]))})"
        if column in (6, 7):  # the table's own values, at its precision
            return self.numbers.text(a if column == 6 else float(audit.published[k]))
        figures = {2: float(audit.lower[k]), 3: float(audit.upper[k]), 4: float(self._width[k]),
                   5: 100 * float(self._relative[k])}
        return figure(figures[column])

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or self.audit is None:
            return None
        row, column = index.row(), index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self.text(row, column)
        if role == Qt.ItemDataRole.UserRole:
            return self.cell(row)
        if role == Qt.ItemDataRole.BackgroundRole and column == 1:
            return self._brushes[int(self.level(row))]
        if role == Qt.ItemDataRole.ForegroundRole and column == 1:
            return text_colour(int(self.level(row)))
        if role == Qt.ItemDataRole.TextAlignmentRole and 2 <= column <= 7:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None


class AuditPanel(QWidget):
    """The audit tab.  cell_selected(list[int]) asks the grid to show a cell."""

    cell_selected = Signal(list)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("audit_panel")
        self.a_priori = named(QComboBox(), "audit_a_priori")
        self.a_priori.addItems(list(A_PRIORI.values()))
        self.a_priori.currentIndexChanged.connect(self._a_priori_changed)
        self.a_priori_range = named(QDoubleSpinBox(minimum=0.0, maximum=1000.0,
                                                   decimals=1, suffix=" %", value=100.0), "audit_a_priori_range")
        self.a_priori_range.setMaximumWidth(90)
        self.a_priori_range.setToolTip("How closely anyone knows a cell's value before the release, as the safety "
                                       "rule assumes (the (p,q) rule's q; 100 % for the p% rule)")
        self.capacity_kind = named(QComboBox(), "audit_capacity_kind")
        self.capacity_kind.addItems(list(CAPACITIES.values()))
        self.capacity = named(QDoubleSpinBox(minimum=0.0, maximum=1e15, decimals=4, value=20.0), "audit_capacity")
        self.capacity.setMaximumWidth(110)
        self.capacity.setToolTip("The most a non-sensitive cell may have moved, as the attacker is assumed to know it "
                                 "(absolute: in the table's units; relative: % of the cell's value, below 100)")
        self.capacity_kind.currentIndexChanged.connect(self._capacity_kind_changed)
        self.capacity_kind.setToolTip("Whether the attacker knows how far a non-sensitive cell may have moved")
        self.percentage_known = named(QCheckBox("rule's percentage known"), "audit_percentage_known")
        self.percentage_known.setChecked(True)
        self.percentage_known.setToolTip("The attacker knows each sensitive cell's protection level as a share of its "
                                         "value (the safety rule's percentage is public)")
        self.run_button = named(QToolButton(), "audit_run")
        self.run_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        knows = QGridLayout()
        knows.setContentsMargins(0, 0, 0, 0)
        knows.addWidget(QLabel("<b>The attacker knows:</b>"), 0, 0)
        knows.addWidget(QLabel("a-priori bounds"), 0, 1, Qt.AlignmentFlag.AlignRight)
        knows.addWidget(self.a_priori, 0, 2)
        knows.addWidget(QLabel("moves of other cells"), 0, 3, Qt.AlignmentFlag.AlignRight)
        knows.addWidget(self.capacity_kind, 0, 4)
        knows.addWidget(self.capacity, 0, 5)
        knows.addWidget(self.a_priori_range, 1, 1)
        knows.addWidget(self.percentage_known, 1, 2)
        knows.addWidget(self.run_button, 1, 5)
        knows.setColumnStretch(6, 1)
        self.summary = named(QLabel(NO_AUDIT, wordWrap=True), "audit_summary")
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.cells = AuditCellsModel(self)
        self.table = named(QTableView(), "audit_cells")
        self.table.setModel(self.cells)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(22)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.clicked.connect(lambda index: self.cell_selected.emit([self.cells.cell(index.row())]))
        self.table.activated.connect(lambda index: self.cell_selected.emit([self.cells.cell(index.row())]))
        self.summary.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        scroll = QScrollArea(widgetResizable=True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(self.summary)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(scroll)
        splitter.addWidget(self.table)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([300, 600])
        column = QVBoxLayout(self)
        column.setContentsMargins(4, 4, 4, 4)
        column.addLayout(knows)
        column.addWidget(splitter, 1)
        self._capacity_kind_changed()

    def set_rules(self, rules: dict | None) -> None:
        """Assume the attacker the table's safety rules assume: the rule's range as a-priori bounds
        and the rule's percentage known (the user may assume less or more)."""
        self.a_priori.setCurrentIndex(list(A_PRIORI).index(APriori.RANGE))
        self.a_priori_range.setValue(100 * rule_range(rules))
        self.percentage_known.setChecked(True)

    def _a_priori_changed(self) -> None:
        self.a_priori_range.setEnabled(list(A_PRIORI)[self.a_priori.currentIndex()] is APriori.RANGE)

    def set_run_action(self, action) -> None:
        """The window's Audit action, run from this tab too (enabled when it is)."""
        self.run_button.setDefaultAction(action)

    def capacity_kind_chosen(self) -> CapacityKind | None:
        """How the capacity the attacker knows is measured (None: not known)."""
        return list(CAPACITIES)[self.capacity_kind.currentIndex()]

    def _capacity_kind_changed(self) -> None:
        kind = self.capacity_kind_chosen()
        self.capacity.setEnabled(kind is not None)
        self.capacity.setSuffix(" %" if kind is CapacityKind.RELATIVE else "")
        self.capacity.setDecimals(2 if kind is CapacityKind.RELATIVE else 4)
        self.capacity.setMaximum(99.99 if kind is CapacityKind.RELATIVE else 1e15)

    def knowledge(self) -> AttackerKnowledge:
        """What the attacker is assumed to know of a CTA release, as set in the tab."""
        kind = self.capacity_kind_chosen()
        capacity = None
        if kind is not None:
            value = self.capacity.value()
            capacity = Capacity(kind, value / 100 if kind is CapacityKind.RELATIVE else value)
        return AttackerKnowledge(a_priori=list(A_PRIORI)[self.a_priori.currentIndex()], capacity=capacity,
                                 percentage_known=self.percentage_known.isChecked(),
                                 a_priori_range=self.a_priori_range.value() / 100)

    def show_audit(self, project: Project, audit: AuditResult) -> None:
        """The audit's summary and cells."""
        levels = risk_levels(audit)
        width, narrowest = audit.smallest_relative_width()
        where = f" ({project.structure.cell_label(narrowest)})" if narrowest is not None else ""
        failing = ", ".join(f"{count:,} {FAILURES[name]}" for name, count in audit.counts().items() if count)
        verdict = ("<span style='color:#1e8449'><b>✔ every sensitive cell is protected</b></span>" if audit.safe else
                   f"<span style='color:#922b21'><b>✘ {audit.n_at_risk:,} cell(s) at risk</b></span>")
        smallest = f"{figure(100 * width, 4)} %" if math.isfinite(width) else figure(width)
        rows = [("cells audited", f"{audit.n_audited:,}"),
                ("cells at risk", f"{audit.n_at_risk:,}" + (f" ({failing})" if failing else "")),
                ("exact disclosures", f"{int((levels == RiskLevel.EXACT).sum()):,}"),
                ("smallest relative width", smallest + where),
                ("time", f"{audit.seconds:.2f} s, {audit.lps:,} LP(s)"
                 + (f", {audit.flows:,} max flow(s)" if audit.flows else "")),
                ("assumed known", self._assumptions(audit.knowledge))]
        self.summary.setText(verdict + "<table>" + "".join(
            f"<tr><td>{name}</td><td>&nbsp;&nbsp;{text}</td></tr>" for name, text in rows) + "</table>")
        self.cells.set_audit(project, audit)
        self._fit_columns()

    def _fit_columns(self) -> None:
        """Each column as wide as its header and the texts of its rows, measured at once: Qt's
        resizeColumnsToContents asks the model about ten roles a cell through its delegate
        (9 568 calls of data() for 100 audited cells, 43 ms of a 69-ms stall after auditing
        thesis_100x120).  The first FIT_ROWS rows, the riskiest, are measured: a 1000 x 1000
        release has 300 000 audited cells."""
        table, model = self.table, self.cells
        metrics, header = table.fontMetrics(), table.horizontalHeader()
        header_metrics = header.fontMetrics()
        rows = min(model.rowCount(), FIT_ROWS)
        padding = 2 * table.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, table) + 12
        for column, name in enumerate(COLUMNS):
            widest = max((metrics.horizontalAdvance(model.text(row, column)) for row in range(rows)), default=0)
            table.setColumnWidth(column, max(widest, header_metrics.horizontalAdvance(name) + 8) + padding)

    @staticmethod
    def _assumptions(knowledge: AttackerKnowledge) -> str:
        bounds = (f"each value ± {figure(100 * knowledge.a_priori_range)} %" if knowledge.a_priori is APriori.RANGE
                  else A_PRIORI[knowledge.a_priori])
        parts = [f"a-priori bounds: {bounds}"]
        capacity = knowledge.capacity
        if capacity is not None:
            value = np.asarray(capacity.value, float)
            shown = (f"{figure(100 * float(value))} %" if capacity.kind is CapacityKind.RELATIVE
                     else figure(float(value)))
            parts.append(f"non-sensitive cells moved by at most {shown}" if value.ndim == 0 else
                         "non-sensitive cells moved by at most their capacities")
        if knowledge.percentage_known:
            parts.append("the rule's percentage")
        return "; ".join(parts)

    def clear(self, message: str = NO_AUDIT) -> None:
        """No audit shown; ``message`` says why."""
        self.summary.setText(message)
        self.cells.set_audit(None, None)
