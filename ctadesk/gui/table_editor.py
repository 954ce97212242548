"""The table editor: slice selector, display choice, the audit's legend and the cell grid with
collapsible hierarchies."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QItemSelection, QItemSelectionModel, QLocale, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QFontMetrics, QFontMetricsF, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemDelegate,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QStyledItemDelegate,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from ctadesk.engine.audit import AuditResult
from ctadesk.gui.audit_risk import AuditLegend
from ctadesk.gui.naming import named
from ctadesk.gui.table_model import CellTableModel, Display, Glyphs, SliceLayout
from ctadesk.io.project import Project

MIN_COLUMN_WIDTH, MAX_COLUMN_WIDTH = 48, 320
#: sections at each end of a header its size hint is read from (SampledHeader)
SAMPLED_SECTIONS = 4
#: a slice of more cells is fitted at the next turn of the event loop, once for all the changes
#: made meanwhile (a table and its result shown: three), and after the grid has painted
FIT_NOW_CELLS = 100_000


class SliceSelector(QWidget):
    """Rows and columns dimension, and a code for every other dimension (tables of 3+ dimensions)."""

    changed = Signal(object)  # SliceLayout

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._layout = QHBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._shape: tuple[int, ...] = ()
        self._combos: dict[int, QComboBox] = {}
        self.rows = QComboBox()
        self.columns = QComboBox()
        self.rows.setObjectName("slice_rows")
        self.columns.setObjectName("slice_columns")
        for combo in (self.rows, self.columns):  # as wide as the longest dimension name of every table shown
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self._others = QHBoxLayout()
        for widget in (QLabel("Rows:"), self.rows, QLabel("Columns:"), self.columns):
            self._layout.addWidget(widget)
        self._layout.addLayout(self._others)
        self.rows.currentIndexChanged.connect(self._axes_changed)
        self.columns.currentIndexChanged.connect(self._axes_changed)
        self._project: Project | None = None
        self._quiet = False

    def set_project(self, project: Project) -> None:
        self._project = project
        self._shape = project.structure.shape
        names = [d.name for d in project.structure.dimensions]
        self._quiet = True
        for combo, default in ((self.rows, 0), (self.columns, 1)):
            combo.clear()
            combo.addItems(names)
            combo.setCurrentIndex(min(default, len(names) - 1))
            combo.setMinimumWidth(combo.sizeHint().width())  # never cut to "re", "in" in a narrow window
        self.columns.setEnabled(len(names) > 1)
        self._quiet = False
        self._rebuild_others()

    def layout_for(self, fixed: dict[int, int] | None = None) -> SliceLayout:
        fixed = fixed if fixed is not None else {d: combo.currentIndex() for d, combo in self._combos.items()}
        column = self.columns.currentIndex() if len(self._shape) > 1 else None
        return SliceLayout(self._shape, self.rows.currentIndex(), column, fixed)

    def show_cell(self, cell: int) -> None:
        """Switch the slice so that cell is in it."""
        coords = np.unravel_index(cell, self._shape)
        for d, combo in self._combos.items():
            combo.blockSignals(True)
            combo.setCurrentIndex(int(coords[d]))
            combo.blockSignals(False)
        self.changed.emit(self.layout_for())

    def _axes_changed(self) -> None:
        if self._quiet or len(self._shape) < 2:
            return
        if self.rows.currentIndex() == self.columns.currentIndex():
            other = next(d for d in range(len(self._shape)) if d != self.rows.currentIndex())
            self._quiet = True
            (self.columns if self.sender() is self.rows else self.rows).setCurrentIndex(other)
            self._quiet = False
        self._rebuild_others()

    def _rebuild_others(self) -> None:
        while self._others.count():
            item = self._others.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.deleteLater()
        self._combos = {}
        if self._project is None:
            return
        axes = {self.rows.currentIndex(), self.columns.currentIndex() if len(self._shape) > 1 else -1}
        for d, dimension in enumerate(self._project.structure.dimensions):
            if d in axes:
                continue
            combo = QComboBox()
            combo.setObjectName(f"slice_dim_{d}")
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
            combo.addItems(list(dimension.codes))
            combo.setCurrentIndex(dimension.size - 1 if dimension.is_leaf.sum() < dimension.size else 0)
            combo.currentIndexChanged.connect(lambda _=None: self.changed.emit(self.layout_for()))
            self._others.addWidget(QLabel(f"{dimension.name}:"))
            self._others.addWidget(combo)
            self._combos[d] = combo
        if not self.signalsBlocked():  # a slice of a large table is an index array of all its cells
            self.changed.emit(self.layout_for())


class NumberDelegate(QStyledItemDelegate):
    """Cells are edited as text (every digit of the value, CellTableModel's EditRole), right-aligned as shown."""

    def createEditor(self, parent, option, index) -> QWidget:
        editor = super().createEditor(parent, option, index)
        if isinstance(editor, QLineEdit):
            editor.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return editor


class SampledHeader(QHeaderView):
    """A header whose size hint is read from its first and last SAMPLED_SECTIONS sections.

    Qt's reads the first and the last hundred labels, each asked for four roles: on a table of
    1000 x 1000, some 1,600 calls into the model's headerData (and PySide's conversion of their
    arguments) each time the view lays itself out, twice a table shown.  The labels are one
    line each, so a few give the height of a row of column labels; the rows' labels are as
    wide as the editor makes them (TableEditor._width_rows_header)."""

    def sizeHint(self) -> QSize:
        count = self.count()
        if count <= 2 * SAMPLED_SECTIONS:
            return super().sizeHint()
        size = QSize(0, 0)
        for section in (*range(SAMPLED_SECTIONS), *range(count - SAMPLED_SECTIONS, count)):
            if not self.isSectionHidden(section):
                size = size.expandedTo(self.sectionSizeFromContents(section))
        return size


class TableEditor(QWidget):
    """Slice selector, display selector, the audit's legend (while an audit is shown) and the grid of one slice.

    Ctrl+C copies the selected cells as tab-separated text, as spreadsheets do (the rectangle
    around the selection, the values shown at the table's precision, without thousands
    separators); Ctrl+V asks (paste_requested(cells, values)) to set the original values of the
    range starting at the current cell from such text."""

    paste_requested = Signal(object, object)  # flat cells, values
    #: why a paste did nothing
    refused = Signal(str)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.model = CellTableModel(self)
        self.model.numbers_changed.connect(self._numbers_changed)
        self._fit_later = QTimer(self, singleShot=True, interval=0)
        self._fit_later.timeout.connect(self.fit_columns)
        #: columns whose width the user chose (kept until another table is shown)
        self._chosen_widths: set[int] = set()
        self._fitting = False
        self._labels_measured: tuple[SliceLayout | None, np.ndarray] = (None, np.zeros(0, np.int64))
        #: the margins the view adds to a cell's text ("plain") and an icon more ("icon"), once read
        self._margins: dict[str, int] = {}
        self.view = QTableView()
        self.view.setObjectName("table_view")
        self.view.setHorizontalHeader(SampledHeader(Qt.Orientation.Horizontal, self.view))
        self.view.setVerticalHeader(SampledHeader(Qt.Orientation.Vertical, self.view))
        self.view.setModel(self.model)
        self.view.setItemDelegate(NumberDelegate(self.view))
        self.view.setWordWrap(False)
        self.view.setIconSize(QSize(10, 10))
        self.view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.view.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        for header in (self.view.horizontalHeader(), self.view.verticalHeader()):
            header.setSectionsClickable(True)
        self.view.horizontalHeader().setDefaultSectionSize(84)
        self.view.horizontalHeader().sectionResized.connect(self._column_resized)
        self.view.verticalHeader().setDefaultSectionSize(22)
        vertical, horizontal = Qt.Orientation.Vertical, Qt.Orientation.Horizontal
        self.view.verticalHeader().sectionDoubleClicked.connect(lambda s: self.toggle_collapsed(vertical, s))
        self.view.horizontalHeader().sectionDoubleClicked.connect(lambda s: self.toggle_collapsed(horizontal, s))
        self.slices = SliceSelector()
        self.slices.changed.connect(self._set_layout)
        self.display = QComboBox()
        self.display.setObjectName("display_mode")
        self.display.addItems([d.value for d in Display])
        self.display.currentIndexChanged.connect(self._display_changed)
        top = QHBoxLayout()
        top.addWidget(self.slices)
        top.addStretch(1)
        top.addWidget(QLabel("Show:"))
        top.addWidget(self.display)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.audit_legend = AuditLegend()
        self.audit_legend.toggled.connect(self.model.set_colour_by_audit)
        layout.addLayout(top)
        layout.addWidget(self.audit_legend)
        layout.addWidget(self.view)
        self._collapsed: dict[Qt.Orientation, set[int]] = {vertical: set(), horizontal: set()}
        for name, keys, slot in (("copy", QKeySequence.StandardKey.Copy, self.copy),
                                 ("paste", QKeySequence.StandardKey.Paste, self.paste)):
            action = named(QAction(name.capitalize(), self.view), f"act_{name}_cells")
            action.setShortcut(keys)
            action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            action.triggered.connect(slot)
            self.view.addAction(action)

    # ------------------------------------------------------------- clipboard
    def selection_text(self) -> str:
        """The selected cells as rows of tab-separated values (the rectangle around the selection;
        a cell in it not selected is left empty)."""
        indexes = self.view.selectionModel().selectedIndexes()
        if not indexes:
            return ""
        rows = sorted({i.row() for i in indexes})
        columns = sorted({i.column() for i in indexes})
        chosen = {(i.row(), i.column()) for i in indexes}
        plain = QLocale(self.model.numbers.locale)
        plain.setNumberOptions(QLocale.NumberOption.OmitGroupSeparator)
        with_locale = self.model.numbers.locale
        self.model.numbers.locale = plain
        try:
            lines = ["\t".join(self.model.display_text(self.model.cell_at(r, c)) if (r, c) in chosen else ""
                               for c in range(columns[0], columns[-1] + 1))
                     for r in range(rows[0], rows[-1] + 1)]
        finally:
            self.model.numbers.locale = with_locale
        return "\n".join(lines) + "\n"

    def copy(self) -> None:
        """Ctrl+C: the selected cells to the clipboard as tab-separated text."""
        text = self.selection_text()
        if text:
            QGuiApplication.clipboard().setText(text)

    def paste(self) -> None:
        """Ctrl+V: tab-separated values from the clipboard into the original values from the current
        cell on (right and down, within the slice); empty fields leave their cell as it is."""
        reason = self.paste_text(QGuiApplication.clipboard().text())
        if reason:
            self.refused.emit(reason)

    def paste_text(self, text: str) -> str:
        """Ask to set the cells from ``text``; the reason nothing was pasted ('' when it was)."""
        model, index = self.model, self.view.currentIndex()
        if model.project is None or not index.isValid():
            return "Click the cell the pasted range starts at."
        if model.display is not Display.ORIGINAL or model.read_only:
            return "Values are pasted into the original values: show them (and wait for the run to end)."
        cells, values = [], []
        for r, line in enumerate(text.rstrip("\r\n").splitlines()):
            for c, field in enumerate(line.split("\t")):
                row, column = index.row() + r, index.column() + c
                if not field.strip():
                    continue
                number = model.numbers.parse(field)
                if number is None or not np.isfinite(number):
                    return f"Line {r + 1}, field {c + 1} of the pasted text is not a number: {field.strip()!r}."
                if row >= model.rowCount() or column >= model.columnCount():
                    return (f"The pasted range ({r + 1} x {c + 1} and more) runs past the table's last "
                            f"{'row' if row >= model.rowCount() else 'column'}.")
                cells.append(model.cell_at(row, column))
                values.append(number)
        if not cells:
            return "The clipboard holds no numbers."
        self.paste_requested.emit(np.asarray(cells, np.int64), np.asarray(values, float))
        return ""

    # ------------------------------------------------------------------ API
    def set_project(self, project: Project) -> None:
        """Show a table: the slice selector set first (quietly), then the model reset once on its slice."""
        self.slices.blockSignals(True)
        try:
            self.slices.set_project(project)
        finally:
            self.slices.blockSignals(False)
        self._chosen_widths = set()
        self._collapsed = {Qt.Orientation.Vertical: set(), Qt.Orientation.Horizontal: set()}
        self.model.set_project(project, self.slices.layout_for())
        self.audit_legend.show_audit(None)
        self._width_rows_header()

    def show_audit(self, audit: AuditResult | None) -> None:
        """Colour the audited cells by risk level and show the legend (None: back to the statuses)."""
        self.model.set_audit(audit)
        self.audit_legend.show_audit(audit)

    def set_display(self, display: Display) -> None:
        self.display.setCurrentIndex(list(Display).index(display))

    def commit_open_editor(self) -> None:
        """Hand what is being typed in a cell to the model (so starting a solve never drops it)."""
        index = self.view.currentIndex()
        editor = self.view.indexWidget(index) if index.isValid() else None
        if editor is not None:
            self.view.commitData(editor)
            self.view.closeEditor(editor, QAbstractItemDelegate.EndEditHint.NoHint)

    def selected_cells(self) -> np.ndarray:
        """Flat indices of the selected cells (ascending)."""
        indexes = self.view.selectionModel().selectedIndexes()
        if not indexes:
            return np.zeros(0, np.int64)
        rows = np.fromiter((i.row() for i in indexes), np.int64, len(indexes))
        columns = np.fromiter((i.column() for i in indexes), np.int64, len(indexes))
        return np.unique(self.model.shown_layout.cells_at(rows, columns))

    def select_cells(self, cells) -> None:
        """Select cells (flat indices), switching the slice to the first one's."""
        cells = np.atleast_1d(np.asarray(cells, dtype=np.int64))
        if cells.size == 0:
            return
        if self.model.shown_layout.position(int(cells[0])) is None:
            self.slices.show_cell(int(cells[0]))
        selection = QItemSelection()
        first = None
        for cell in cells:
            position = self.model.shown_layout.position(int(cell))
            if position is None:
                continue
            index = self.model.index(*position)
            first = first or index
            selection.select(index, index)
        model = self.view.selectionModel()
        if first is not None:  # before selecting: the view's setCurrentIndex would drop all but one cell
            model.setCurrentIndex(first, QItemSelectionModel.SelectionFlag.NoUpdate)
            self.view.scrollTo(first)
        model.select(selection, QItemSelectionModel.SelectionFlag.ClearAndSelect)

    def toggle_collapsed(self, orientation: Qt.Orientation, section: int) -> None:
        """Hide or show the codes below a subtotal (double-click on its header)."""
        layout = self.model.shown_layout
        dim = layout.row_dim if orientation == Qt.Orientation.Vertical else layout.column_dim
        if dim is None:
            return
        dimension = self.model.shown_project.structure.dimensions[dim]
        collapsed = self._collapsed[orientation]
        collapsed ^= {section}
        hidden = np.zeros(dimension.size, bool)
        for code in collapsed:
            hidden |= self._descendants(dimension.parents, code)
        setter = self.view.setRowHidden if orientation == Qt.Orientation.Vertical else self.view.setColumnHidden
        for position in range(dimension.size):
            setter(position, bool(hidden[position]))

    @staticmethod
    def _descendants(parents: np.ndarray, code: int) -> np.ndarray:
        below = np.zeros(parents.size, bool)
        frontier = parents == code
        while frontier.any():
            below |= frontier
            frontier = np.isin(parents, np.flatnonzero(frontier))
        return below

    def _set_layout(self, layout: SliceLayout) -> None:
        """Show another slice; every collapsed subtotal opens again (its codes may belong to another dimension)."""
        self._chosen_widths = set()
        self.model.set_layout(layout)  # fits the columns
        self._collapsed = {Qt.Orientation.Vertical: set(), Qt.Orientation.Horizontal: set()}
        for header in (self.view.verticalHeader(), self.view.horizontalHeader()):
            if header.hiddenSectionCount():
                for section in range(header.count()):
                    if header.isSectionHidden(section):
                        header.showSection(section)
        self._width_rows_header()

    def _display_changed(self, position: int) -> None:
        self.model.set_display(list(Display)[position])

    def _numbers_changed(self) -> None:
        """The texts may have changed width: fit the columns now, or a large slice's soon."""
        layout = self.model.layout_
        if layout is not None and layout.n_rows * layout.n_columns > FIT_NOW_CELLS:
            self._fit_later.start()
        else:
            self._fit_later.stop()
            self.fit_columns()

    def _column_resized(self, column: int, old: int, new: int) -> None:
        if not self._fitting:
            self._chosen_widths.add(column)

    def fit_columns(self) -> None:
        """Give every column the width of its label and of its widest text (a column the user
        resized keeps its width), with no text formatted or measured: a column's widest text is
        that of its largest or smallest number, and its width is added up from the advances of
        the digits, separators and signs it is made of (CellTableModel.column_text_widths), in
        bold (totals are), with the margins and the sense icon the view adds (_cell_margins).
        The labels' widths are worked out once a slice (_label_widths).  numpy reductions over
        the slice and a loop over the columns: a 1000 x 1000 slice in a few milliseconds."""
        model = self.model
        if model.project is None or not model.columnCount():
            return
        shown = model.slice_values()
        glyphs = Glyphs.measured(QFontMetricsF(model._bold), model.numbers)
        text = np.zeros(model.columnCount(), np.int64) if shown is None else model.column_text_widths(shown, glyphs)
        marked = model.slice_of(model.shown_project.sensitive).any(axis=0)
        margin, icon = self._cell_margins()
        widths = np.clip(np.maximum(self._label_widths(), text + margin + np.where(marked, icon, 0)),
                         MIN_COLUMN_WIDTH, MAX_COLUMN_WIDTH)
        header = self.view.horizontalHeader()
        self._fitting = True
        try:
            for column, width in enumerate(widths.tolist()):
                if column not in self._chosen_widths and header.sectionSize(column) != width:
                    header.resizeSection(column, width)
        finally:
            self._fitting = False

    def _label_widths(self) -> np.ndarray:
        """The widths the column labels of the slice shown need, once a slice: each label's
        characters' (fractional) advances added up, every character measured once, so a
        thousand labels cost a few dozen measurements."""
        layout = self.model.shown_layout
        if self._labels_measured[0] is not layout:
            metrics = QFontMetricsF(self.view.horizontalHeader().font())
            n_columns = layout.n_columns
            labels = self.model.column_labels()
            advance = {character: metrics.horizontalAdvance(character) for character in set("".join(labels))}
            widths = np.fromiter((sum(map(advance.__getitem__, label)) for label in labels), float, n_columns)
            self._labels_measured = (layout, np.ceil(widths).astype(np.int64) + 16)
        return self._labels_measured[1]

    def _cell_margins(self) -> tuple[int, int]:
        """What the view adds to a cell's text width (its margins) and what a sense icon adds
        more, read once from the view's size hints of a cell without and of a cell with an icon
        (in their fonts), in the first slice that has each (until then: 8 and the icon's width
        and 8), each with 2 px to spare.  Every sensitive cell's column is given the icon's room
        (a sensitive cell without a sense has none)."""
        model, project = self.model, self.model.shown_project
        if len(self._margins) < 2:
            flags = model.slice_of(project.sensitive & (project.senses != 0))  # the cells with a sense icon
            columns = flags.shape[1]

            def added(position: int) -> int:
                row, column = divmod(position, columns)
                index = model.index(row, column)
                font = model.data(index, Qt.ItemDataRole.FontRole) or self.view.font()
                text = QFontMetrics(font).horizontalAdvance(model.display_text(model.cell_at(row, column)))
                return self.view.sizeHintForIndex(index).width() - text

            plain, marked = int(np.argmin(flags)), int(np.argmax(flags))  # the first of each, if there is one
            if "plain" not in self._margins and not flags.flat[plain]:
                self._margins["plain"] = max(added(plain), 0)
            if "icon" not in self._margins and flags.flat[marked]:
                self._margins["icon"] = added(marked)
        margin = self._margins.get("plain", 8)
        icon = self._margins["icon"] - margin if "icon" in self._margins else self.view.iconSize().width() + 8
        return margin + 2, max(icon, 0) + 2

    def _width_rows_header(self) -> None:
        project = self.model.project
        if project is None:
            return
        dimension = project.structure.dimensions[self.model.shown_layout.row_dim]
        longest = max(len(c) + 2 * int(d) for c, d in zip(dimension.codes[:2000], dimension.depth[:2000]))
        self.view.verticalHeader().setFixedWidth(min(320, 12 + 8 * longest))
