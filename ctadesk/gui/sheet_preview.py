"""The Excel import dialog's preview of a sheet: its first rows and columns, each cell coloured by
the role the detected (or corrected) layout gives it, and editable.

A model over the sheet's grid rather than a table of items: the view asks only for the cells it
draws, so showing a sheet of 20,000 rows (microdata saved as a workbook, say) costs what showing
one of twenty does.  The roles of the cells shown are computed at once with numpy whenever the
layout changes (a layout lists its data rows, 20,000 of them in such a sheet, so looking each
cell's row up in those lists at every repaint would hold the window).
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont

from ctadesk.io.excel import DetectedLayout, SheetGrid
from ctadesk.io.excel.workbook import coordinate

#: rows and columns of a sheet shown in the preview
PREVIEW_ROWS, PREVIEW_COLUMNS = 300, 60
ROW_ROLES = ("title", "header", "data", "total", "heading", "ignore")
COLUMN_ROLES = ("label", "code", "data", "total", "ignore")
#: every role a cell of the preview can have, in the order of cell_roles' codes
CELL_ROLES = ("title", "header", "label", "heading", "data", "total", "ignore")
ROLE_COLOURS = {"title": QColor(225, 225, 225), "header": QColor(190, 210, 240), "label": QColor(215, 235, 250),
                "code": QColor(215, 235, 250),
                "data": QColor(255, 255, 255), "total": QColor(250, 225, 150), "heading": QColor(210, 240, 200),
                "ignore": QColor(245, 245, 245)}
_BOLD_ROLES = {CELL_ROLES.index("header"), CELL_ROLES.index("total")}

Index = QModelIndex | QPersistentModelIndex


def _member(items, n: int) -> np.ndarray:
    """Which of 0..n-1 are among ``items`` (sheet rows or columns)."""
    mask = np.zeros(n, bool)
    listed = np.fromiter(items, np.int64)
    mask[listed[(listed >= 0) & (listed < n)]] = True
    return mask


def cell_roles(layout: DetectedLayout | None, n_rows: int, n_columns: int) -> np.ndarray:
    """The role of each of the first ``n_rows`` x ``n_columns`` sheet cells under ``layout``, as
    indices into CELL_ROLES: title and header rows; label columns beside data rows (heading
    beside a group heading row); data cells, totals when in a total row or column; the rest
    ignored (every cell when there is no layout)."""
    ignore = CELL_ROLES.index("ignore")
    if layout is None:
        return np.full((n_rows, n_columns), ignore, np.int8)
    row = lambda items: _member(items, n_rows)[:, None]  # noqa: E731
    column = lambda items: _member(items, n_columns)[None, :]  # noqa: E731
    title, header, data, heading = row(layout.title_rows), row(layout.header_rows), row(layout.data_rows), \
        row(layout.heading_rows)
    label = column(layout.label_columns)
    total = row(layout.total_rows) | column(layout.total_columns)
    data_cell = data & column(layout.data_columns)
    shape = (n_rows, n_columns)
    conditions = [np.broadcast_to(c, shape) for c in
                  (title, header, label & heading, label & data, data_cell & total, data_cell)]
    codes = [CELL_ROLES.index(r) for r in ("title", "header", "heading", "label", "total", "data")]
    return np.select(conditions, codes, ignore).astype(np.int8)


def cell_text(grid: SheetGrid, row: int, column: int) -> str:
    """A sheet cell as the preview shows it: text indented as in the sheet, numbers as read."""
    value = grid.values[row][column]
    if value is None:
        return ""
    return " " * 2 * grid.indents[row][column] + str(value).strip() if isinstance(value, str) else str(value)


class SheetPreviewModel(QAbstractTableModel):
    """The first PREVIEW_ROWS x PREVIEW_COLUMNS cells of a sheet's grid, coloured by their role;
    a cell typed over emits ``edited(row, column, text)`` (the dialog then shows the grid with
    the new value)."""

    edited = Signal(int, int, str)

    def __init__(self) -> None:
        super().__init__()
        self.grid: SheetGrid | None = None
        self._roles = np.zeros((0, 0), np.int8)
        self._brushes = [QBrush(ROLE_COLOURS[role]) for role in CELL_ROLES]
        self._bold = QFont()
        self._bold.setBold(True)

    def set_grid(self, grid: SheetGrid, layout: DetectedLayout | None) -> None:
        """Show ``grid`` under ``layout`` (a new sheet, or the same sheet with a cell edited)."""
        self.beginResetModel()
        self.grid = grid
        self._roles = cell_roles(layout, self.rowCount(), self.columnCount())
        self.endResetModel()

    def clear(self) -> None:
        """Show no sheet (while one is being read)."""
        self.beginResetModel()
        self.grid = None
        self._roles = np.zeros((0, 0), np.int8)
        self.endResetModel()

    def set_layout(self, layout: DetectedLayout | None) -> None:
        """Colour the cells shown by ``layout`` (corrected or detected again)."""
        self._roles = cell_roles(layout, self.rowCount(), self.columnCount())
        if self._roles.size:
            self.dataChanged.emit(self.index(0, 0), self.index(self.rowCount() - 1, self.columnCount() - 1))

    def role_of(self, row: int, column: int) -> str:
        """The role the layout gives a cell shown (one of CELL_ROLES)."""
        return CELL_ROLES[int(self._roles[row, column])]

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if self.grid is None or parent.isValid() else min(self.grid.n_rows, PREVIEW_ROWS)

    def columnCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if self.grid is None or parent.isValid() else min(self.grid.n_columns, PREVIEW_COLUMNS)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole):
        if self.grid is None or not index.isValid():
            return None
        row, column = index.row(), index.column()
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            return cell_text(self.grid, row, column)
        if role == Qt.ItemDataRole.BackgroundRole:
            return self._brushes[self._roles[row, column]]
        if role == Qt.ItemDataRole.FontRole and int(self._roles[row, column]) in _BOLD_ROLES:
            return self._bold
        return None

    def setData(self, index: Index, value, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if role != Qt.ItemDataRole.EditRole or not index.isValid():
            return False
        self.edited.emit(index.row(), index.column(), str(value))
        return True

    def flags(self, index: Index) -> Qt.ItemFlag:
        return super().flags(index) | Qt.ItemFlag.ItemIsEditable

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole):
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal:
            return coordinate(0, section)[:-1]
        return str(section + 1)
