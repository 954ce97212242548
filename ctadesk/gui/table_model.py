"""The table editor's model: one 2-D slice of a project's cells, read from numpy on demand.

Qt asks only for the cells it shows (Qt's model/view), so a 1000 x 1000 table costs
one index array of the slice and nothing per cell until it scrolls into view.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import math

import numpy as np
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, QPointF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QIcon, QPainter, QPixmap, QPolygonF

from ctadesk.engine.audit import AuditResult
from ctadesk.gui.audit_risk import RISK_COLOURS, RISK_NAMES, RiskLevel, cell_risk_levels, text_colour
from ctadesk.gui.numbers import MISSING, PLAIN_LIMIT, TableFormat, figure, table_decimals
from ctadesk.io.project import Project


class Display(str, enum.Enum):
    """What the cells show."""

    ORIGINAL = "Original values"
    ADJUSTED = "Adjusted values"
    DIFFERENCE = "Difference (adjusted - original)"
    RELATIVE = "Relative difference (%)"


class CellStatus(enum.IntEnum):
    SAFE = 0
    SENSITIVE = 1
    FIXED = 2
    ADJUSTED = 3


STATUS_COLOURS = {
    CellStatus.SENSITIVE: QColor(244, 170, 160),
    CellStatus.FIXED: QColor(205, 205, 205),
    CellStatus.ADJUSTED: QColor(170, 205, 240),
}
#: colour of a sensitive cell by the (first) safety rule that flagged it (ctadesk.engine.rules.safety.RULE_NAMES)
RULE_COLOURS = {
    "frequency": QColor(244, 170, 160), "dominance": QColor(240, 196, 120), "p%": QColor(214, 170, 230),
    "pq": QColor(190, 160, 220), "zero": QColor(200, 225, 160), "request": QColor(160, 220, 215),
    "manual": QColor(244, 170, 160), "holding frequency": QColor(235, 150, 150),
    "holding dominance": QColor(225, 175, 100), "holding p%": QColor(200, 150, 215),
    "holding pq": QColor(175, 140, 205),
}
STATUS_NAMES = {CellStatus.SAFE: "safe", CellStatus.SENSITIVE: "sensitive (primary)",
                CellStatus.FIXED: "fixed (may not change)", CellStatus.ADJUSTED: "adjusted"}
SENSE_NAMES = {1: "up", -1: "down", 0: "free"}
#: colour of the triangle showing a sensitive cell's sense
SENSE_COLOUR = QColor(90, 40, 30)
#: what a label is indented by at each level of its hierarchy
INDENT = "  "
#: most contributions the cell information lists
SHOWN_CONTRIBUTIONS = 5
#: the roles data() answers, as the ints the view passes
_DISPLAY, _EDIT, _DECORATION, _BACKGROUND, _FOREGROUND, _TOOLTIP, _ALIGNMENT, _FONT = (int(role.value) for role in (
    Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole, Qt.ItemDataRole.DecorationRole,
    Qt.ItemDataRole.BackgroundRole, Qt.ItemDataRole.ForegroundRole, Qt.ItemDataRole.ToolTipRole,
    Qt.ItemDataRole.TextAlignmentRole, Qt.ItemDataRole.FontRole))
#: a cell's flags, shown and editable (combined once: the view asks for every cell it paints)
_SHOWN = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
_EDITABLE = _SHOWN | Qt.ItemFlag.ItemIsEditable
_RIGHT = int((Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter).value)


def editable_text(value: float) -> str:
    """The shortest text that reads back as exactly value (10.3456, 0.004, 852): what the cell editor shows."""
    text = repr(float(value))
    return text[:-2] if text.endswith(".0") else text


def sense_icon(sense: int, colour: QColor = SENSE_COLOUR) -> QIcon:
    """A small triangle pointing up (sense +1) or down (-1)."""
    pixmap = QPixmap(10, 10)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(colour)
    tip, base = (1.0, 9.0) if sense > 0 else (9.0, 1.0)
    painter.drawPolygon(QPolygonF([QPointF(5.0, tip), QPointF(0.5, base), QPointF(9.5, base)]))
    painter.end()
    return QIcon(pixmap)


def relative_change(original: np.ndarray, adjusted: np.ndarray) -> np.ndarray:
    """(x - a) / |a| in percent; 0 where nothing changed, inf where a zero cell moved or the
    change overflows (NaN, shown as missing, where both are infinite)."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        change = adjusted - original
        relative = np.where(change == 0, 0.0, 100.0 * change / np.abs(original))
    return relative


@dataclasses.dataclass(frozen=True)
class Glyphs:
    """Advances (px, fractional) in one font and locale of what the grid's number texts are made of: the
    widest digit, the group separator, the decimal point, the signs; and the whole texts of
    numbers that are not ordinary (the widest exponent form without its sign, missing,
    infinities)."""

    digit: float
    group: float
    point: float
    minus: float
    plus: float
    exponent: float
    missing: float
    infinity: float
    minus_infinity: float

    @classmethod
    def measured(cls, metrics: QFontMetricsF, numbers: TableFormat) -> Glyphs:
        """The advances in ``metrics``' font (fractional: whole pixels added up drift by one a
        character) of the characters ``numbers`` writes."""
        locale, advance = numbers.locale, metrics.horizontalAdvance
        return cls(max(advance(str(d)) for d in range(10)), advance(locale.groupSeparator()),
                   advance(locale.decimalPoint()), advance(locale.negativeSign()), advance("+"),
                   advance(numbers.text(8.88888e288)), advance(MISSING), advance("∞"), advance("−∞"))


class SliceLayout:
    """Which dimensions are rows and columns and the code chosen on every other one.

    A cell of the slice is ``offset + row * row_stride + column * column_stride`` in the flat
    (C-order) index: ``cell(row, column)`` works it out; ``cells``, the (rows x columns) array
    of them, is made only when asked for (on a 1000 x 1000 table, 8 MB the window would fill
    every time it shows the table).
    """

    def __init__(self, shape: tuple[int, ...], row_dim: int = 0, column_dim: int | None = None,
                 fixed: dict[int, int] | None = None) -> None:
        self.shape = shape
        self.row_dim = row_dim
        self.column_dim = column_dim if len(shape) > 1 else None
        if self.column_dim is None and len(shape) > 1:
            self.column_dim = 1 if row_dim != 1 else 0
        self.fixed = {d: (fixed or {}).get(d, 0) for d in range(len(shape)) if d not in (row_dim, self.column_dim)}
        strides = np.cumprod((1, *shape[:0:-1]))[::-1]  # of the flat (C-order) index
        self.offset = sum(int(k) * int(strides[d]) for d, k in self.fixed.items())
        self.row_stride = int(strides[row_dim])
        self.n_rows = int(shape[row_dim])
        self.column_stride = int(strides[self.column_dim]) if self.column_dim is not None else 0
        self.n_columns = int(shape[self.column_dim]) if self.column_dim is not None else 1

    def cell(self, row: int, column: int) -> int:
        """The flat index of the slice's cell at (row, column)."""
        return self.offset + row * self.row_stride + column * self.column_stride

    def cells_at(self, rows: np.ndarray, columns: np.ndarray) -> np.ndarray:
        """The flat indices of the slice's cells at (rows[k], columns[k])."""
        return self.offset + rows * self.row_stride + columns * self.column_stride

    @functools.cached_property
    def cells(self) -> np.ndarray:
        """The (rows x columns) array of the slice's flat cell indices."""
        rows = np.arange(self.n_rows, dtype=np.int64) * self.row_stride + self.offset
        return rows[:, None] + np.arange(self.n_columns, dtype=np.int64)[None, :] * self.column_stride

    @property
    def in_order(self) -> bool:
        """Whether the slice is the whole table in its flat order (a 2-D table's first slice)."""
        return not self.fixed and self.row_stride == self.n_columns and self.column_stride in (0, 1)

    def position(self, cell: int) -> tuple[int, int] | None:
        """(row, column) of a flat cell in this slice, or None when it lies in another slice."""
        coords = np.unravel_index(cell, self.shape)
        if any(coords[d] != k for d, k in self.fixed.items()):
            return None
        column = int(coords[self.column_dim]) if self.column_dim is not None else 0
        return int(coords[self.row_dim]), column


class CellTableModel(QAbstractTableModel):
    """Cells of a Project's current slice; edits are requested, not applied (the undo stack applies them).

    Every number shows in the table's one format (``numbers``: the decimals of its values and of
    the adjusted ones, the locale's separators); ``numbers_changed`` says the texts may have
    changed width (the editor fits its columns again)."""

    edit_requested = Signal(int, float)
    numbers_changed = Signal()

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.project: Project | None = None
        self.layout_: SliceLayout | None = None
        self.display = Display.ORIGINAL
        self.read_only = False
        self._bold = QFont()
        self._bold.setBold(True)
        self._inner = np.zeros(0, bool)
        self._brushes = {status: QBrush(colour) for status, colour in STATUS_COLOURS.items()}
        self._rule_brushes = {rule: QBrush(colour) for rule, colour in RULE_COLOURS.items()}
        self.sense_icons = {1: sense_icon(1), -1: sense_icon(-1)}
        self.numbers = TableFormat()
        self.audit: AuditResult | None = None
        self.colour_by_audit = True
        self._risk = np.zeros(0, np.int8)
        self._audited = np.zeros(0, np.int64)
        self._risk_brushes = {int(level): QBrush(colour) for level, colour in RISK_COLOURS.items()}
        self._risk_text = {int(level): text_colour(level) for level in RISK_COLOURS}

    @property
    def shown_project(self) -> Project:
        """The project shown, for what runs only once one is set (the view has no cell to ask about before)."""
        if self.project is None:
            raise RuntimeError("the table model shows no project")
        return self.project

    @property
    def shown_layout(self) -> SliceLayout:
        """The slice shown, set with the project."""
        if self.layout_ is None:
            raise RuntimeError("the table model shows no slice")
        return self.layout_

    # ---------------------------------------------------------------- setup
    def set_project(self, project: Project, layout: SliceLayout | None = None) -> None:
        self.beginResetModel()
        self.project = project
        self.layout_ = layout or SliceLayout(project.structure.shape)
        self._set_audit(None)
        self._inner = project.structure.inner_mask()
        self._set_numbers()
        self.endResetModel()
        self.numbers_changed.emit()

    def _set_numbers(self) -> None:
        """The table's format: the decimals that show its values and its adjusted values exactly."""
        adjusted = self.adjusted_values()
        values = self.shown_project.values
        shown = (values,) if adjusted is None else (values, adjusted)
        self.numbers = TableFormat(table_decimals(*shown), self.numbers.locale)

    def set_layout(self, layout: SliceLayout) -> None:
        """Show another slice: its shape may differ, so the view starts afresh (only its visible cells are read)."""
        self.beginResetModel()
        self.layout_ = layout
        self.endResetModel()
        self.numbers_changed.emit()

    def set_display(self, display: Display) -> None:
        """Show other numbers of the same cells: their texts (and widths) change, the table does not."""
        self.display = display
        self._repaint()
        self.numbers_changed.emit()

    def set_audit(self, audit: AuditResult | None) -> None:
        """Show (or, with None, stop showing) the disclosure audit of the project's protected table:
        audited cells coloured by risk level while colour_by_audit, their interval in the facts.
        Only colours change: the view repaints the cells it shows."""
        self._set_audit(audit)
        self._repaint()

    def _set_audit(self, audit: AuditResult | None) -> None:
        """The audit's per-cell arrays (empty without an audit: no cell audited)."""
        self.audit = audit
        if audit is None:
            self._risk, self._audited, self._audit_relative = np.zeros(0, np.int8), np.zeros(0, np.int64), np.zeros(0)
            return
        n_cells = self.shown_project.n_cells
        self._risk = cell_risk_levels(audit, n_cells)
        self._audited = np.full(n_cells, -1, np.int64)
        self._audited[audit.cells] = np.arange(audit.cells.size)
        self._audit_relative = audit.relative_width

    def set_colour_by_audit(self, on: bool) -> None:
        self.colour_by_audit = on
        self._repaint()

    def risk_level(self, cell: int) -> RiskLevel:
        """How the cell fares in the audit shown (NOT_AUDITED without one, or for a cell not audited)."""
        return RiskLevel(int(self._risk[cell])) if self._risk.size else RiskLevel.NOT_AUDITED

    def refresh(self) -> None:
        """The values (or the result) changed: the table's format again, and every cell may show
        another number (the view re-reads only what it shows; the editor fits its columns again)."""
        if self.project is not None:
            self._set_numbers()
        self._repaint()
        self.numbers_changed.emit()

    def _repaint(self) -> None:
        """Tell the view every cell may look different: one dataChanged over the slice, not a reset."""
        if self.rowCount() and self.columnCount():
            self.dataChanged.emit(self.index(0, 0), self.index(self.rowCount() - 1, self.columnCount() - 1))

    # ------------------------------------------------------------- reading
    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if self.layout_ is None or parent.isValid() else self.layout_.n_rows

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if self.layout_ is None or parent.isValid() else self.layout_.n_columns

    def cell_at(self, row: int, column: int) -> int:
        return self.shown_layout.cell(row, column)

    def adjusted_values(self) -> np.ndarray | None:
        if self.project is None:
            return None
        result = self.project.result
        if result is None or result.values is None or result.values.shape != self.project.values.shape:
            return None
        return result.values

    def status(self, cell: int) -> CellStatus:
        project = self.shown_project
        if project.fixed[cell]:
            return CellStatus.FIXED
        if project.sensitive[cell]:
            return CellStatus.SENSITIVE
        adjusted = self.adjusted_values()
        if adjusted is not None and adjusted[cell] != project.values[cell]:
            return CellStatus.ADJUSTED
        return CellStatus.SAFE

    def shown_values(self, cells: np.ndarray | slice) -> np.ndarray | None:
        """What the current display shows for cells (flat indices or a slice); None without a result to show."""
        original = self.shown_project.values[cells]
        if self.display is Display.ORIGINAL:
            return original
        adjusted = self.adjusted_values()
        if adjusted is None:
            return None
        if self.display is Display.ADJUSTED:
            return adjusted[cells]
        if self.display is Display.DIFFERENCE:
            with np.errstate(invalid="ignore"):  # infinite both: NaN, shown as missing
                return adjusted[cells] - original
        return relative_change(original, adjusted[cells])

    def slice_values(self) -> np.ndarray | None:
        """What the current display shows for the slice's cells, rows x columns (None without a
        result to show); a view of the values, not a copy, when the slice is the table in order."""
        layout = self.shown_layout
        shown = self.shown_values(np.s_[:] if layout.in_order else layout.cells.reshape(-1))
        return None if shown is None else shown.reshape(layout.n_rows, layout.n_columns)

    def slice_of(self, array: np.ndarray) -> np.ndarray:
        """A per-cell array of the project (its flags, say) over the slice, rows x columns: a view
        when the slice is the table in order, else a copy."""
        layout = self.shown_layout
        return array.reshape(layout.n_rows, layout.n_columns) if layout.in_order else array[layout.cells]

    def shown_value(self, cell: int) -> float | None:
        """What the current display shows for one cell (None without a result to show): scalar
        arithmetic, as the view asks cell by cell."""
        a = float(self.shown_project.values[cell])
        if self.display is Display.ORIGINAL:
            return a
        adjusted = self.adjusted_values()
        if adjusted is None:
            return None
        x = float(adjusted[cell])
        if self.display is Display.ADJUSTED:
            return x
        if self.display is Display.DIFFERENCE or x == a:
            return x - a
        return 100.0 * (x - a) / abs(a) if a else math.copysign(math.inf, x - a)

    def display_text(self, cell: int) -> str:
        """What the grid shows in a cell: the table's format; relative changes in % with 2 decimals."""
        return self.text_of(self.shown_value(cell))

    def text_widths(self, values: np.ndarray, glyphs: Glyphs) -> np.ndarray:
        """The widths (whole px, in the font ``glyphs`` was measured in) of the grid's texts of ``values``
        (numbers of the current display), computed with numpy from what the texts are made of:
        sign, integer digits with a group separator every three, point and decimals of the
        rounded number (a number from PLAIN_LIMIT on: the widest exponent form; one not finite:
        its symbol).  Digits count at the widest digit's advance, so a text is never wider than
        this; no text is formatted."""
        decimals = 2 if self.display is Display.RELATIVE else self.numbers.decimals
        plain = np.abs(values) < PLAIN_LIMIT  # as fixed() decides, on the number before rounding
        rounded = np.round(np.where(plain, values, 0.0), decimals)
        magnitude = np.abs(rounded)
        digits = np.floor(np.log10(np.maximum(magnitude, 1.0))) + 1
        digits -= (digits > 1) & (10.0 ** (digits - 1) > magnitude)  # log10 rounded up to a power of 10
        signed = np.where(plain, rounded, values)  # a number in exponent form keeps its sign
        signs = (signed < 0) * glyphs.minus
        if self.display in (Display.DIFFERENCE, Display.RELATIVE):
            signs = signs + (signed > 0) * glyphs.plus
        widths = signs + np.where(plain, digits * glyphs.digit + (digits - 1) // 3 * glyphs.group
                                  + ((glyphs.point + decimals * glyphs.digit) if decimals else 0), glyphs.exponent)
        special = np.where(np.isnan(values), glyphs.missing,
                           np.where(values > 0, glyphs.infinity, glyphs.minus_infinity))
        return np.ceil(np.where(np.isfinite(values), widths, special)).astype(np.int64)

    def column_text_widths(self, shown: np.ndarray, glyphs: Glyphs) -> np.ndarray:
        """The width (px) of the widest text of each column of ``shown`` (the slice's numbers,
        rows x columns).  Of ordinary numbers (finite, below PLAIN_LIMIT) a column's widest text
        is that of its largest or of its smallest (more digits, or a sign), so only those two are
        measured (text_widths), found with one reduction each over the slice (a million cells:
        about a millisecond).  A column whose extremes are not ordinary is looked at again: the
        extremes of its ordinary numbers, and the texts of the others (symbols, exponent forms)."""
        with np.errstate(invalid="ignore"):
            high, low = shown.max(axis=0), shown.min(axis=0)
        widths = np.maximum(self.text_widths(high, glyphs), self.text_widths(low, glyphs))
        odd = np.flatnonzero(~((np.abs(high) < PLAIN_LIMIT) & (np.abs(low) < PLAIN_LIMIT)))  # NaN compares False
        if odd.size:
            columns = shown[:, odd]
            ordinary = np.abs(columns) < PLAIN_LIMIT
            high = np.where(ordinary, columns, -np.inf).max(axis=0)
            low = np.where(ordinary, columns, np.inf).min(axis=0)
            extremes = np.where(ordinary.any(axis=0),
                                np.maximum(self.text_widths(high, glyphs), self.text_widths(low, glyphs)), 0)
            others = np.where(ordinary, 0, self.text_widths(columns, glyphs)).max(axis=0)
            widths[odd] = np.maximum(extremes, others)
        return widths

    def text_of(self, value: float | None) -> str:
        """A number of the current display as the grid shows it ('' for None: no result to show)."""
        if value is None:
            return ""
        if self.display is Display.RELATIVE:
            return self.numbers.percent(value)
        if self.display is Display.DIFFERENCE:
            return self.numbers.signed(value)
        return self.numbers.text(value)

    def cell_facts(self, cell: int) -> list[tuple[str, str]]:
        """(name, text) of everything known about a cell: label, original and adjusted value,
        status, and for a sensitive cell the rules that flagged it, its sense and protection
        interval; frequency and largest contributions when the table has statistics; bounds, weight."""
        project, number = self.shown_project, self.numbers.text
        a = float(project.values[cell])
        facts = [("cell", project.structure.cell_label(cell)), ("original", number(a))]
        adjusted = self.adjusted_values()
        if adjusted is not None:
            x = float(adjusted[cell])
            facts.append(("adjusted", f"{number(x)} (change {self.numbers.signed(x - a)})"))
        facts.append(("status", STATUS_NAMES[self.status(cell)]))
        if project.sensitive[cell]:
            facts.append(("flagged by", project.flagged_by[cell] or "manual"))
            sense = SENSE_NAMES[int(project.senses[cell])]
            if adjusted is not None and adjusted[cell] != a:
                sense += f"; the adjusted value went {'up' if adjusted[cell] > a else 'down'}"
            facts.append(("sense", sense))
            facts.append(("protection interval", f"({figure(a - project.lower_protection[cell])}, "
                                                 f"{figure(a + project.upper_protection[cell])})"))
        facts.extend(self.audit_facts(cell))
        statistics = project.statistics
        if statistics is not None and statistics.freq.shape == project.values.shape:
            facts.append(("frequency", f"{int(statistics.freq[cell]):,}"))
            if statistics.holding_freq is not None:
                facts.append(("holdings", f"{int(statistics.holding_freq[cell]):,}"))
            top = statistics.top[cell, :SHOWN_CONTRIBUTIONS]
            top = top[np.isfinite(top)]
            if top.size:
                facts.append(("largest contributions", self.numbers.items(top)))
        facts.append(("bounds", f"[{figure(project.lower[cell])}, {figure(project.upper[cell])}]"))
        facts.append(("weight", figure(project.weights[cell])))
        return facts

    def audit_facts(self, cell: int) -> list[tuple[str, str]]:
        """(name, text) of the audit of a cell: the attacker's interval, its width (relative to
        the original value), and the verdict with its reasons; nothing for a cell not audited."""
        audit = self.audit
        k = int(self._audited[cell]) if self._audited.size else -1
        if audit is None or k < 0:
            return []
        low, high = float(audit.lower[k]), float(audit.upper[k])
        relative = float(self._audit_relative[k])
        width = f"width {figure(high - low)}" + (f", {figure(100 * relative, 3)} % of the value"
                                                 if np.isfinite(relative) else "")
        level = self.risk_level(cell)
        reasons = audit.reasons(k)
        verdict = RISK_NAMES[level] + (f": {', '.join(reasons)}" if reasons and level is RiskLevel.AT_RISK else "")
        return [("attacker interval", f"[{figure(low)}, {figure(high)}] ({width})"), ("audit", verdict)]

    def tooltip(self, cell: int) -> str:
        return "\n".join(f"{name}: {text}" if name != "cell" else text for name, text in self.cell_facts(cell))

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        """One role of one cell (the view asks for the roles of the cells it paints at once: multiData)."""
        layout = self.layout_
        if self.project is None or layout is None or not index.isValid():
            return None
        return self._cell_data(layout.cell(index.row(), index.column()), int(role))

    def multiData(self, index: QModelIndex | QPersistentModelIndex, span) -> None:
        """Every role the view asks for one cell it paints (Qt's item delegate asks seven at once):
        one call from the view into Python a cell, not one a role."""
        layout = self.layout_
        if self.project is None or layout is None or not index.isValid():
            return
        cell = layout.cell(index.row(), index.column())
        for item in span:  # the delegate keeps its span from cell to cell: every role is answered or cleared
            value = self._cell_data(cell, item.role())
            if value is None:
                item.clearData()
            else:
                item.setData(value)

    def _cell_data(self, cell: int, role: int):
        """One role of a cell of the project shown (roles compared as ints)."""
        project = self.shown_project
        if role == _DISPLAY:
            return self.display_text(cell)
        if role == _ALIGNMENT:
            return _RIGHT
        if role == _FONT:
            return None if self._inner[cell] else self._bold
        if role == _BACKGROUND:
            if self.colour_by_audit and self._risk.size and self._risk[cell] >= 0:
                return self._risk_brushes[int(self._risk[cell])]
            status = self.status(cell)
            if status is CellStatus.SENSITIVE:
                rule = str(project.flagged_by[cell]).split(",")[0]
                return self._rule_brushes.get(rule, self._brushes[status])
            return self._brushes.get(status)
        if role == _FOREGROUND:
            if self.colour_by_audit and self._risk.size and self._risk[cell] >= 0:
                return self._risk_text[int(self._risk[cell])]
            return None
        if role == _DECORATION:
            return self.sense_icons.get(int(project.senses[cell])) if project.sensitive[cell] else None
        if role == _EDIT:
            return editable_text(project.values[cell])
        if role == _TOOLTIP:
            return self.tooltip(cell)
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole):
        project, layout = self.project, self.layout_
        if project is None or layout is None or role != Qt.ItemDataRole.DisplayRole:
            return None
        dim = layout.row_dim if orientation == Qt.Orientation.Vertical else layout.column_dim
        if dim is None:
            return "Value"
        dimension = project.structure.dimensions[dim]
        return INDENT * int(dimension.depth[section]) + dimension.codes[section]

    def column_labels(self) -> list[str]:
        """Every column label of the slice shown, as headerData gives them (without a call a label)."""
        dim = self.shown_layout.column_dim
        if dim is None:
            return ["Value"]
        dimension = self.shown_project.structure.dimensions[dim]
        return [INDENT * depth + code for depth, code in zip(dimension.depth.tolist(), dimension.codes)]

    def flags(self, index: QModelIndex | QPersistentModelIndex) -> Qt.ItemFlag:
        return _EDITABLE if self.display is Display.ORIGINAL and not self.read_only else _SHOWN

    def setData(self, index: QModelIndex | QPersistentModelIndex, value, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if role != Qt.ItemDataRole.EditRole or not index.isValid() or self.read_only:
            return False
        number = float(value) if isinstance(value, (int, float)) else self.numbers.parse(str(value))
        if number is None or not np.isfinite(number):
            return False
        cell = self.cell_at(index.row(), index.column())
        if number != self.shown_project.values[cell]:  # an editor closed without a change is no edit
            self.edit_requested.emit(cell, number)
        return True
