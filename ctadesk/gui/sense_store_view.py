"""File > Open sense store (issue 14, Castro & González 2011, §4): the tables an on-line table server has
published and the sense stored for every sensitive cell (ctadesk.app.online.SenseStore), as
read-only tables that sort and filter; an SQLite file or a PostgreSQL database (a
``postgresql://`` URL, File > Open sense store in a database).  The store is read once and
closed; Refresh reads it again (a server may be publishing meanwhile)."""

from __future__ import annotations

import datetime
import html
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, QSortFilterProxyModel, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ctadesk.app.online import open_store
from ctadesk.app.online.cells import ASSIGN, ESCAPE, SEPARATOR
from ctadesk.app.online.store import SenseRecord, TableRecord, is_postgres
from ctadesk.gui.naming import named

STORE_FILTER = "Sense stores (*.db *.sqlite *.sqlite3);;All files (*)"
SENSE_WORDS = {1: "▲ up (published above)", -1: "▼ down (published below)"}


def key_parts(key: str) -> list[tuple[str, str]]:
    """The (variable, code) pairs of a cell key (ctadesk.app.online.cells), escapes undone;
    [] for the grand total."""
    parts: list[tuple[str, str]] = []
    name, text, escaped = None, [], False
    for character in key:
        if escaped:
            text.append(character)
            escaped = False
        elif character == ESCAPE:
            escaped = True
        elif character == ASSIGN and name is None:
            name, text = "".join(text), []
        elif character == SEPARATOR:
            parts.append((name or "", "".join(text)))
            name, text = None, []
        else:
            text.append(character)
    if key:
        parts.append((name or "", "".join(text)))
    return parts


def store_name(location: str | Path) -> str:
    """A store's short name: the file's, or the database URL without its password."""
    if is_postgres(location):
        from ctadesk.app.online.store_postgres import shown_url
        return shown_url(str(location))
    return Path(location).name


def when(stamp: str | None) -> str:
    """'2026-11-23 02:48:42' for the store's ISO 8601 UTC time stamp; 'not published' for None."""
    if stamp is None:
        return "not published"
    try:
        return datetime.datetime.fromisoformat(stamp).strftime("%Y-%m-%d %H:%M:%S")
    except ValueError:
        return stamp


def cell_text(key: str) -> str:
    """'Region=N1, Size=2' for a cell key; 'grand total' for the empty key."""
    return ", ".join(f"{name}={code}" for name, code in key_parts(key)) or "grand total"


class RecordsModel(QAbstractTableModel):
    """Rows of (shown text, sort value) pairs under fixed headers, read-only."""

    def __init__(self, headers: Sequence[str], parent=None) -> None:
        super().__init__(parent)
        self.headers = tuple(headers)
        self.rows: list[tuple[tuple[str, Any], ...]] = []

    def set_rows(self, rows: list[tuple[tuple[str, Any], ...]]) -> None:
        self.beginResetModel()
        self.rows = rows
        self.endResetModel()

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.headers)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole):
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return self.headers[section]
        return None

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        text, key = self.rows[index.row()][index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return text
        if role == Qt.ItemDataRole.UserRole:
            return key
        return None


def _table_view(model: RecordsModel, name: str) -> tuple[QTableView, QSortFilterProxyModel]:
    proxy = QSortFilterProxyModel()
    proxy.setSourceModel(model)
    proxy.setSortRole(Qt.ItemDataRole.UserRole)
    proxy.setFilterKeyColumn(-1)
    proxy.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
    view = named(QTableView(), name)
    view.setModel(proxy)
    view.setSortingEnabled(True)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.verticalHeader().hide()
    view.verticalHeader().setDefaultSectionSize(22)
    view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    view.horizontalHeader().setStretchLastSection(True)
    return view, proxy


class SenseStoreDialog(QDialog):
    """The published tables and stored senses of one sense store, a file or a database URL
    (a window of its own)."""

    def __init__(self, location: str | Path, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("sense_store_dialog")
        self.setWindowFlag(Qt.WindowType.Window)
        self.location = location
        #: the store as shown: its file, or its URL without the password (refresh() sets it)
        self.shown_location = ""
        self.setWindowTitle(f"Sense store — {store_name(location)}")
        self.header = named(QLabel(wordWrap=True), "store_header")
        self.header.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.tables = RecordsModel(("Table", "Measure", "Spanning variables", "Requested (UTC)", "Published (UTC)",
                                    "Senses first chosen"), self)
        self.senses = RecordsModel(("Measure", "Cell", "Sense", "Chosen by", "First table"), self)
        self.tables_view, self.tables_proxy = _table_view(self.tables, "store_tables")
        self.senses_view, self.senses_proxy = _table_view(self.senses, "store_senses")
        self.filter = named(QLineEdit(placeholderText="Filter senses: a code, a variable, up, down…",
                                      clearButtonEnabled=True), "store_filter")
        self.filter.textChanged.connect(self.senses_proxy.setFilterFixedString)
        self.tables_view.doubleClicked.connect(self._show_senses_of_table)
        senses_page = QWidget()
        senses_column = QVBoxLayout(senses_page)
        senses_column.setContentsMargins(0, 4, 0, 0)
        senses_column.addWidget(self.filter)
        senses_column.addWidget(self.senses_view)
        self.tabs = named(QTabWidget(), "store_tabs")
        self.tabs.addTab(self.tables_view, "Published tables")
        self.tabs.addTab(senses_page, "Senses")
        self.refresh_button = named(QPushButton("Refresh"), "store_refresh")
        self.refresh_button.clicked.connect(self.refresh)
        close = QPushButton("Close")
        close.clicked.connect(self.close)
        buttons = QHBoxLayout()
        buttons.addWidget(QLabel("Read-only: the store is changed only by the table server (ctadesk online)."))
        buttons.addStretch(1)
        buttons.addWidget(self.refresh_button)
        buttons.addWidget(close)
        column = QVBoxLayout(self)
        column.addWidget(self.header)
        column.addWidget(self.tabs, 1)
        column.addLayout(buttons)
        self.resize(1000, 620)
        self.refresh()

    def refresh(self) -> None:
        """Read the store again (StoreError naming it when it is missing or no sense store)."""
        with open_store(self.location) as store:
            tables, senses = store.tables(), store.sense_records()
            self.shown_location = store.location
        self.show_records(tables, senses)

    def show_records(self, tables: list[TableRecord], senses: list[SenseRecord]) -> None:
        spanning = {table.id: " × ".join(table.spanning) for table in tables}
        first_chosen = Counter(record.first_table for record in senses)
        self.tables.set_rows([((str(t.id), t.id), (t.measure, t.measure), (spanning[t.id], spanning[t.id]),
                               (when(t.requested), t.requested), (when(t.published), t.published or ""),
                               (f"{first_chosen[t.id]:,}", first_chosen[t.id])) for t in tables])
        self.senses.set_rows([((s.measure, s.measure), (cell_text(s.cell), s.cell),
                               (SENSE_WORDS.get(s.sense, str(s.sense)), s.sense), (s.chosen_by, s.chosen_by),
                               (f"{s.first_table}: {spanning.get(s.first_table, '?')}", s.first_table))
                              for s in senses])
        self.tables_view.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        self.senses_view.sortByColumn(1, Qt.SortOrder.AscendingOrder)
        for view in (self.tables_view, self.senses_view):
            view.resizeColumnsToContents()
        published = sum(t.published is not None for t in tables)
        ups = sum(s.sense == 1 for s in senses)
        measures = sorted({s.measure for s in senses} | {t.measure for t in tables})
        self.header.setText(f"<b>{html.escape(self.shown_location)}</b><br>"
                            f"{len(tables):,} table(s) requested, {published:,} published; "
                            f"{len(senses):,} sense(s) stored ({ups:,} up, {len(senses) - ups:,} down)"
                            + (f"; measures: {', '.join(measures)}" if measures else ""))

    def _show_senses_of_table(self, index: QModelIndex) -> None:
        """Double-click on a table: the senses first chosen for it."""
        table_id = self.tables_proxy.data(self.tables_proxy.index(index.row(), 0), Qt.ItemDataRole.UserRole)
        self.tabs.setCurrentIndex(1)
        self.filter.setText("")
        self.senses_view.sortByColumn(4, Qt.SortOrder.AscendingOrder)
        for row in range(self.senses_proxy.rowCount()):
            if self.senses_proxy.data(self.senses_proxy.index(row, 4), Qt.ItemDataRole.UserRole) == table_id:
                self.senses_view.selectRow(row)
                self.senses_view.scrollTo(self.senses_proxy.index(row, 0), QAbstractItemView.ScrollHint.PositionAtTop)
                break
