"""Import dialogs: the detected layout of Excel sheets (corrected by the user before the table
is built) and the choice of variables for microdata.

The sheet preview is editable: a cell the reader refuses (an Eurostat ':' for a confidential
value, a stray text) can be given its number there, as the reader's message asks, without
editing the workbook; the edit changes what is imported, never the file.

Both keep what the user chose when building fails: the error is shown inside the dialog, which
stays open (or opens again, when the building ran in the window's job runner).  Neither reads or
builds on the window's thread what can take long: a sheet is read (and its layout detected) in
the dialog's own job runner when it is first shown, the preview saying so meanwhile; the preview
is a model over the sheet's grid (gui/sheet_preview.py); and the tables are built by what
``reader()`` returns, in a job.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QTableView,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ctadesk.gui.errors import plain_message
from ctadesk.gui.jobs import JobRunner
from ctadesk.gui.naming import named
from ctadesk.gui.sheet_preview import COLUMN_ROLES, ROLE_COLOURS, ROW_ROLES, SheetPreviewModel
from ctadesk.io.errors import FileFormatError
from ctadesk.io.excel import DetectedLayout, ExcelTable, SheetGrid, build_table, detect_layout, open_workbook, read_grid
from ctadesk.io.numbers import parse_number

#: the decimal marks a user can choose for numbers written as text
DECIMAL_MARKS = (("decimal point (1,234.5)", False), ("decimal comma (1.234,5)", True))
#: what an Excel import dialog ends with when the user chose to tabulate the workbook as microdata
AS_MICRODATA = 2
#: a sheet of more data rows than this, laid out as records (looks_like_microdata), is offered for tabulation
MICRODATA_ROWS = 500
#: the microdata dialog shows this many of the file's variables without scrolling (fewer where the file has fewer)
VARIABLES_IN_VIEW = 8


def set_row_role(layout: DetectedLayout, rows: set[int], role: str) -> DetectedLayout:
    """The layout with sheet rows `rows` (0-based) playing `role` (one of ROW_ROLES)."""
    keep = lambda items: [r for r in items if r not in rows]  # noqa: E731
    changed = dataclasses.replace(layout, title_rows=keep(layout.title_rows), header_rows=keep(layout.header_rows),
                                  data_rows=keep(layout.data_rows), heading_rows=keep(layout.heading_rows),
                                  hidden_rows=keep(layout.hidden_rows),
                                  total_rows={r for r in layout.total_rows if r not in rows})
    target = {"title": changed.title_rows, "header": changed.header_rows, "data": changed.data_rows,
              "total": changed.data_rows, "heading": changed.heading_rows}.get(role)
    if target is not None:
        target.extend(rows)
        target.sort()
    if role == "total":
        changed.total_rows |= rows
    return changed


def set_column_role(layout: DetectedLayout, columns: set[int], role: str) -> DetectedLayout:
    """The layout with sheet columns `columns` (0-based) playing `role` (one of COLUMN_ROLES; a
    code column holds the codes of the names in the label column right of it)."""
    keep = lambda items: [c for c in items if c not in columns]  # noqa: E731
    changed = dataclasses.replace(layout, label_columns=keep(layout.label_columns),
                                  data_columns=keep(layout.data_columns), code_columns=keep(layout.code_columns),
                                  flag_columns=keep(layout.flag_columns), hidden_columns=keep(layout.hidden_columns),
                                  total_columns={c for c in layout.total_columns if c not in columns})
    targets = {"label": [changed.label_columns], "code": [changed.label_columns, changed.code_columns],
               "data": [changed.data_columns], "total": [changed.data_columns]}.get(role, [])
    for target in targets:
        target.extend(columns)
        target.sort()
    if role == "total":
        changed.total_columns |= columns
    return changed


def detected(grid: SheetGrid) -> tuple[SheetGrid, DetectedLayout | None, str]:
    """A sheet's grid, its detected layout, and why none was found ('' when one was)."""
    try:
        return grid, detect_layout(grid), ""
    except Exception as error:
        return grid, None, plain_message(error)


def edited_grid(grid: SheetGrid, row: int, column: int, text: str, decimal_comma: bool | None) -> SheetGrid:
    """The grid with the cell at (row, column), 0-based, holding what the user typed: a number
    when the text reads as one (with the sheet's decimal mark), else the text (the reader then
    names the cell if it needs a number), None when emptied; an unreadable formula there is
    replaced too."""
    text = text.strip()
    number = parse_number(text, decimal_comma)
    value: object = None if not text else text if number is None else int(number) if number.is_integer() else number
    values = tuple(tuple(value if (r, c) == (row, column) else cell for c, cell in enumerate(cells)) if r == row
                   else cells for r, cells in enumerate(grid.values))
    unreadable = {where: why for where, why in grid.unreadable.items() if where != (row, column)}
    return dataclasses.replace(grid, values=values, unreadable=unreadable)


def read_sheet(workbook, sheet: str, path: Path) -> tuple[SheetGrid, DetectedLayout | None, str]:
    """A sheet of an open workbook read and its layout detected: what ExcelImportDialog shows first
    (slow on a large sheet, so the window reads it in its job runner and hands it over)."""
    return detected(read_grid(workbook, sheet, path))


def first_sheet(workbook) -> str | None:
    """The first visible sheet of an open workbook (the one the import dialog shows first)."""
    return next((ws.title for ws in workbook.worksheets if ws.sheet_state == "visible"), None)


def looks_like_microdata(layout: DetectedLayout | None) -> bool:
    """Whether a sheet's detected layout is that of records rather than a table: the first row
    names the columns, no title, group heading or total, and more rows than MICRODATA_ROWS (a
    workbook of microdata, to tabulate rather than to import as it is)."""
    return (layout is not None and layout.header_rows == [0] and not layout.title_rows and not layout.heading_rows
            and not layout.total_rows and not layout.total_columns and len(layout.data_rows) > MICRODATA_ROWS)


class ExcelImportDialog(QDialog):
    """Sheets to import (several make linked tables), each sheet's detected layout shown
    over its cells and correctable by selecting rows or columns and naming their role; a
    cell's value is corrected by typing over it in the preview (double-click, F2 or typing).

    A sheet not read yet is read in the dialog's job runner (``runner``) when it is shown, one at
    a time: the dialog answers meanwhile, its preview empty and its description saying which sheet
    is being read.  OK checks what can be checked at once (a sheet ticked, a layout found) and
    keeps the sheets chosen; ``reader()`` then builds their tables, in the window's job runner
    (building a large sheet takes a second).  A build that fails shows the dialog again with the message and every
    correction kept.  "Tabulate as microdata" ends the dialog with AS_MICRODATA: the window then
    asks how to tabulate the workbook's records."""

    def __init__(self, path: str | Path, parent: QWidget | None = None, workbook=None,
                 read: dict[str, tuple[SheetGrid, DetectedLayout | None, str]] | None = None) -> None:
        """``workbook``: the workbook at ``path`` opened already, and ``read``: sheets read
        already (read_sheet), both in the window's job runner; else the workbook is opened here
        and its first sheet read in the dialog's runner."""
        super().__init__(parent)
        self.path = Path(path)
        self.setWindowTitle(f"Import {self.path.name}")
        self.setObjectName("excel_import_dialog")
        self.workbook = open_workbook(self.path) if workbook is None else workbook
        self.grids: dict[str, SheetGrid] = {}
        self.layouts: dict[str, DetectedLayout | None] = {}
        self.problems: dict[str, str] = {}
        for sheet, (grid, found, problem) in (read or {}).items():
            self.grids[sheet], self.layouts[sheet] = grid, found
            if problem:
                self.problems[sheet] = problem
        #: the ticked sheets when OK was pressed, with their grids and layouts (None: not read yet)
        self.chosen: dict[str, tuple[SheetGrid | None, DetectedLayout | None]] = {}
        #: reads the sheets shown, one at a time; ``reading`` names the sheet it reads
        self.runner = JobRunner(self)
        self.runner.finished.connect(self._sheet_read)
        self.runner.failed.connect(self._sheet_failed)
        self.reading = ""

        self.sheets = named(QListWidget(), "import_sheets")
        for index, sheet in enumerate(ws.title for ws in self.workbook.worksheets if ws.sheet_state == "visible"):
            item = QListWidgetItem(sheet)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if index == 0 else Qt.CheckState.Unchecked)
            self.sheets.addItem(item)
        self.sheets.currentTextChanged.connect(self._show_sheet)
        self.model = SheetPreviewModel()
        self.model.edited.connect(self._edited)
        self.preview = named(QTableView(), "import_preview")
        self.preview.setModel(self.model)
        triggers = QAbstractItemView.EditTrigger
        self.preview.setEditTriggers(triggers.DoubleClicked | triggers.EditKeyPressed | triggers.AnyKeyPressed)
        self.preview.setToolTip("Select rows or columns and name their role below; double-click a cell "
                                "to correct its value (the workbook is not changed)")
        self.preview.horizontalHeader().setDefaultSectionSize(80)
        self.preview.verticalHeader().setDefaultSectionSize(20)
        self.description = named(QLabel("", wordWrap=True), "import_description")
        self.description.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.description.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error = named(QLabel("", wordWrap=True), "import_error")
        self.error.setStyleSheet("color: #b03a2e")
        self.microdata_hint = named(QLabel("This sheet looks like microdata (a line per respondent): "
                                           "Tabulate as microdata to choose the variables of a table.",
                                           wordWrap=True), "import_microdata_hint")
        self.microdata_hint.setStyleSheet("background: #fcf3cf; color: #7d6608; padding: 4px")
        self.microdata_hint.hide()

        roles = QGridLayout()
        roles.addWidget(QLabel("Selected rows are:"), 0, 0)
        for k, role in enumerate(ROW_ROLES):
            button = named(QPushButton(role), f"rows_{role}")
            button.setStyleSheet(f"background: {ROLE_COLOURS[role].name()}")
            button.clicked.connect(lambda _=False, r=role: self.mark_rows(self.selected_rows(), r))
            roles.addWidget(button, 0, k + 1)
        roles.addWidget(QLabel("Selected columns are:"), 1, 0)
        for k, role in enumerate(COLUMN_ROLES):
            button = named(QPushButton(role), f"columns_{role}")
            button.setStyleSheet(f"background: {ROLE_COLOURS[role].name()}")
            button.clicked.connect(lambda _=False, r=role: self.mark_columns(self.selected_columns(), r))
            roles.addWidget(button, 1, k + 1)
        redetect = named(QPushButton("Detect again"), "redetect")
        redetect.clicked.connect(self._detect_again)
        roles.addWidget(redetect, 0, len(ROW_ROLES) + 1)
        self.decimal_mark = named(QComboBox(), "import_decimal_mark")
        for text, comma in DECIMAL_MARKS:
            self.decimal_mark.addItem(text, comma)
        self.decimal_mark.activated.connect(lambda index: self.set_decimal_comma(self.decimal_mark.itemData(index)))
        roles.addWidget(QLabel("Numbers written as text use a"), 2, 0)
        roles.addWidget(self.decimal_mark, 2, 1, 1, 2)

        side = QWidget()
        side_layout = QVBoxLayout(side)
        side_layout.setContentsMargins(0, 0, 0, 0)
        side_layout.addWidget(QLabel("Sheets (tick several to link them):"))
        side_layout.addWidget(self.sheets, 1)
        side_layout.addWidget(QLabel("Detected layout:"))
        side_layout.addWidget(self.description, 1)
        splitter = QSplitter()
        splitter.addWidget(side)
        splitter.addWidget(self.preview)
        splitter.setSizes([240, 760])
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        tabulate = named(QPushButton("Tabulate as microdata…"), "import_tabulate")
        tabulate.setToolTip("The workbook holds records (a line per respondent): choose the variables of a table")
        tabulate.clicked.connect(lambda: self.done(AS_MICRODATA))
        buttons.addButton(tabulate, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.microdata_hint)
        layout.addWidget(splitter, 1)
        layout.addLayout(roles)
        layout.addWidget(self.error)
        layout.addWidget(buttons)
        self.resize(1100, 680)
        if self.sheets.count() == 0:
            raise FileFormatError("the workbook has no visible sheet", file=self.path)
        self.sheets.setCurrentRow(0)

    # --------------------------------------------------------------- sheets
    def current_sheet(self) -> str:
        return self.sheets.currentItem().text()

    def checked_sheets(self) -> list[str]:
        return [self.sheets.item(k).text() for k in range(self.sheets.count())
                if self.sheets.item(k).checkState() == Qt.CheckState.Checked]

    def set_checked(self, sheets: list[str]) -> None:
        for k in range(self.sheets.count()):
            item = self.sheets.item(k)
            item.setCheckState(Qt.CheckState.Checked if item.text() in sheets else Qt.CheckState.Unchecked)

    def looks_like_microdata(self) -> bool:
        """Whether the sheet shown looks like microdata (looks_like_microdata)."""
        return looks_like_microdata(self.layouts.get(self.current_sheet()))

    def _show_sheet(self, sheet: str) -> None:
        """Show a sheet: its cells and layout once read; else an empty preview saying it is being
        read (or why it could not be), the reading started."""
        if not sheet:
            return
        self.preview.clearSpans()
        grid = self.grids.get(sheet)
        if grid is None:
            self.model.clear()
            self._read_shown()
            self._paint()
            return
        self.model.set_grid(grid, self.layouts.get(sheet))
        rows, columns = self.model.rowCount(), self.model.columnCount()
        for r0, c0, r1, c1 in grid.merged:
            if r0 < rows and c0 < columns and (r1 > r0 or c1 > c0):
                self.preview.setSpan(r0, c0, min(r1, rows - 1) - r0 + 1, min(c1, columns - 1) - c0 + 1)
        self._paint()
        self.preview.resizeColumnToContents(0)
        self.preview.setColumnWidth(0, min(self.preview.columnWidth(0), 220))

    def _read_shown(self) -> None:
        """Read the sheet shown in the runner, unless it is read, could not be read, or another
        sheet is being read (the end of that reading comes back here)."""
        sheet = self.current_sheet()
        if sheet in self.grids or sheet in self.layouts or self.runner.running:
            return
        self.reading = sheet
        workbook, path = self.workbook, self.path
        self.runner.start(f"read sheet {sheet}", lambda feed: read_sheet(workbook, sheet, path))

    def _sheet_read(self, read: tuple[SheetGrid, DetectedLayout | None, str]) -> None:
        sheet = self.reading
        self.grids[sheet], self.layouts[sheet], problem = read
        self.problems.pop(sheet, None)
        if problem:
            self.problems[sheet] = problem
        self._after_reading(sheet)

    def _sheet_failed(self, error: BaseException) -> None:
        """A sheet that cannot be read: no layout, the reason kept (shown, and named if ticked at OK)."""
        sheet = self.reading
        self.layouts[sheet] = None
        self.problems[sheet] = plain_message(error)
        self._after_reading(sheet)

    def _after_reading(self, sheet: str) -> None:
        self.reading = ""
        if sheet == self.current_sheet():
            self._show_sheet(sheet)
        else:
            self._read_shown()  # the user moved on to a sheet not read yet

    def _detect_again(self) -> None:
        """Detect the shown sheet's layout again (corrections dropped); a sheet that could not be
        read is read again."""
        sheet = self.current_sheet()
        grid = self.grids.get(sheet)
        if grid is None:
            if sheet != self.reading:
                self.layouts.pop(sheet, None)
                self.problems.pop(sheet, None)
                self._show_sheet(sheet)
            return
        _, self.layouts[sheet], problem = detected(grid)
        self.problems.pop(sheet, None)
        if problem:
            self.problems[sheet] = problem
        self._paint()

    def _paint(self) -> None:
        """Colour the preview and describe the layout of the sheet shown."""
        sheet = self.current_sheet()
        layout = self.layouts.get(sheet)
        reading = sheet not in self.grids and sheet not in self.layouts
        self.description.setText(f"Reading sheet '{sheet}'…" if reading else layout.describe() if layout is not None
                                 else self.problems.get(sheet, ""))
        comma = layout.decimal_comma if layout is not None else None
        self.decimal_mark.setCurrentIndex(-1 if comma is None else [c for _, c in DECIMAL_MARKS].index(comma))
        self.model.set_layout(layout)
        self.microdata_hint.setVisible(looks_like_microdata(layout))

    # ----------------------------------------------------------- corrections
    def _edited(self, row: int, column: int, text: str) -> None:
        """A value typed in the preview replaces the cell's in what is imported; the layout as
        detected or corrected stays."""
        sheet = self.current_sheet()
        layout = self.layouts.get(sheet)
        comma = layout.decimal_comma if layout is not None else None
        self.grids[sheet] = edited_grid(self.grids[sheet], row, column, text, comma)
        self.model.set_grid(self.grids[sheet], layout)
        self.error.setText("")

    def selected_rows(self) -> set[int]:
        return {index.row() for index in self.preview.selectedIndexes()}

    def selected_columns(self) -> set[int]:
        return {index.column() for index in self.preview.selectedIndexes()}

    def mark_rows(self, rows: set[int], role: str) -> None:
        sheet = self.current_sheet()
        layout = self.layouts.get(sheet)
        if rows and layout is not None:
            self.layouts[sheet] = set_row_role(layout, set(rows), role)
            self._paint()

    def set_decimal_comma(self, comma: bool) -> None:
        """Read the current sheet's numbers written as text with a decimal comma (or point)."""
        sheet = self.current_sheet()
        layout = self.layouts.get(sheet)
        if layout is not None:
            self.layouts[sheet] = dataclasses.replace(layout, decimal_comma=comma)
            self._paint()

    def mark_columns(self, columns: set[int], role: str) -> None:
        sheet = self.current_sheet()
        layout = self.layouts.get(sheet)
        if columns and layout is not None:
            self.layouts[sheet] = set_column_role(layout, set(columns), role)
            self._paint()

    def accept(self) -> None:
        """Keep the ticked sheets, as read and corrected, for reader(); a sheet shown without a
        layout is refused here, naming it, and the dialog stays open."""
        sheets = self.checked_sheets()
        if not sheets:
            self.error.setText("Tick at least one sheet.")
            return
        for sheet in sheets:
            if sheet in self.layouts and self.layouts[sheet] is None:
                self.error.setText(f"Sheet '{sheet}': {self.problems[sheet]} Correct the layout of this sheet or "
                                   "untick it.")
                return
        self.chosen = {sheet: (self.grids.get(sheet), self.layouts.get(sheet)) for sheet in sheets}
        self.error.setText("")
        super().accept()

    def reader(self) -> Callable[[], list[ExcelTable]]:
        """What builds the tables of the sheets chosen (run in a job: it reads and detects the
        ticked sheets never shown, then builds every table; a sheet whose layout is not found is
        refused naming it)."""
        workbook, path, chosen = self.workbook, self.path, dict(self.chosen)

        def build() -> list[ExcelTable]:
            tables = []
            for sheet, (grid, layout) in chosen.items():
                grid = read_grid(workbook, sheet, path) if grid is None else grid
                if layout is None:
                    _, layout, problem = detected(grid)
                    if layout is None:
                        raise FileFormatError(f"{problem} Correct the layout of this sheet or untick it.",
                                              file=path, sheet=sheet)
                tables.append(build_table(grid, layout, path))
            return tables

        return build


class MicrodataDialog(QDialog):
    """Spanning variables (ticked, in the order the user ticks them, reorderable) with an optional
    hierarchy file each, the response, weight and holding variables.  The response is asked, never
    guessed: the file's last column is as often a weight or an identifier as the variable to sum,
    so Tabulate stays disabled until one is chosen.  Several tables of the microdata are listed with
    "Add table" (each the variables ticked when it was added): they share margins and become one
    linked project, protected together (ctadesk.app.linked_tables).  loader(dialog) builds the
    project; a failure is shown here and the dialog stays open with every choice kept."""

    def __init__(self, path: str | Path, columns: list[str], loader: Callable[[MicrodataDialog], Callable[[], Any]],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.path = Path(path)
        self.loader = loader
        self.project: Callable[[], Any] | None = None  # what the loader gave: it reads the project
        self.setWindowTitle(f"Tabulate {self.path.name}")
        self.setObjectName("microdata_dialog")
        self.variables = named(QTableWidget(len(columns), 2), "micro_variables")
        self.variables.setHorizontalHeaderLabels(["Spanning variable", "Hierarchy file (.hrc or level CSV)"])
        self.variables.horizontalHeader().setStretchLastSection(True)
        self.variables.setColumnWidth(0, 200)
        #: each variable's row of the table: its name (ticked or not) and its hierarchy file
        self.name_items = [QTableWidgetItem(name) for name in columns]
        self.file_items = [QTableWidgetItem("") for _ in columns]
        for row, (item, file_item) in enumerate(zip(self.name_items, self.file_items, strict=True)):
            item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsSelectable)
            item.setCheckState(Qt.CheckState.Unchecked)
            self.variables.setItem(row, 0, item)
            self.variables.setItem(row, 1, file_item)
        self.variables.itemChanged.connect(self._ticked)
        # up to VARIABLES_IN_VIEW variables in view without scrolling (the file's columns are the choice)
        self.variables.setMinimumHeight(
            self.variables.horizontalHeader().sizeHint().height() + 2 * self.variables.frameWidth()
            + min(len(columns), VARIABLES_IN_VIEW) * self.variables.verticalHeader().defaultSectionSize())
        #: the ticked variables in table order: the order ticked, then as moved up and down
        self.order = named(QListWidget(), "micro_order")
        self.order.setDragDropMode(QAbstractItemView.DragDropMode.InternalMove)
        self.order.setMaximumHeight(90)
        move_up = named(QPushButton("Up"), "micro_up")
        move_up.clicked.connect(lambda: self.move_selected(-1))
        move_down = named(QPushButton("Down"), "micro_down")
        move_down.clicked.connect(lambda: self.move_selected(1))
        browse = named(QPushButton("Hierarchy file for the selected variable…"), "micro_browse")
        browse.clicked.connect(self._browse)
        self.table_list = QListWidget()
        self.table_list.setObjectName("micro_tables")
        self.table_list.setMaximumHeight(90)
        add_table = QPushButton("Add table")
        add_table.setObjectName("micro_add_table")
        add_table.clicked.connect(self.add_table)
        remove_table = QPushButton("Remove table")
        remove_table.setObjectName("micro_remove_table")
        remove_table.clicked.connect(lambda: self.table_list.takeItem(self.table_list.currentRow()))
        self.response = named(QComboBox(), "micro_response")
        self.weight = named(QComboBox(), "micro_weight")
        self.holding = named(QComboBox(), "micro_holding")
        self.response.addItems(columns)
        self.response.setPlaceholderText("(choose the variable to sum)")
        self.response.setCurrentIndex(-1)
        for combo in (self.weight, self.holding):
            combo.addItem("(none)", "")
            for name in columns:
                combo.addItem(name, name)
        self.error = named(QLabel("", wordWrap=True), "micro_error")
        self.error.setStyleSheet("color: #b03a2e")
        form = QFormLayout()
        form.addRow("Response (numeric)", self.response)
        form.addRow("Sampling weight", self.weight)
        form.addRow("Holding (enterprise group)", self.holding)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.tabulate = buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.tabulate.setText("Tabulate")
        self.tabulate.setEnabled(False)
        self.tabulate.setToolTip("Choose the response variable first")
        self.response.currentIndexChanged.connect(self._update_tabulate)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Tick the spanning variables (the table's first dimension first):"))
        layout.addWidget(self.variables, 1)
        browse_row = QHBoxLayout()
        browse_row.addWidget(browse)
        browse_row.addStretch(1)
        layout.addLayout(browse_row)
        order = QHBoxLayout()
        order.addWidget(QLabel("Table order\n(drag, or Up/Down):"))
        order.addWidget(self.order, 1)
        order_buttons = QVBoxLayout()
        order_buttons.addWidget(move_up)
        order_buttons.addWidget(move_down)
        order_buttons.addStretch(1)
        order.addLayout(order_buttons)
        layout.addLayout(order)
        several = QLabel("Several tables (protected together, one value per shared cell): tick a table's "
                         "variables and add it; none added, the ticked variables make the table.")
        several.setWordWrap(True)
        layout.addWidget(several)
        tables = QHBoxLayout()
        tables.addWidget(self.table_list, 1)
        table_buttons = QVBoxLayout()
        table_buttons.addWidget(add_table)
        table_buttons.addWidget(remove_table)
        table_buttons.addStretch(1)
        tables.addLayout(table_buttons)
        layout.addLayout(tables)
        layout.addLayout(form)
        layout.addWidget(self.error)
        layout.addWidget(buttons)
        self.resize(640, 520)

    def set_spanning(self, names: list[str]) -> None:
        """Tick exactly ``names``, in that table order."""
        for item in self.name_items:
            if item.text() not in names:
                item.setCheckState(Qt.CheckState.Unchecked)
        for name in names:
            for item in self.variables.findItems(name, Qt.MatchFlag.MatchExactly):
                if item.column() == 0:
                    item.setCheckState(Qt.CheckState.Checked)
        ticked = self.spanning()
        self.order.clear()
        self.order.addItems([name for name in names if name in ticked])

    def spanning(self) -> list[str]:
        """The ticked variables in table order."""
        return [self.order.item(k).text() for k in range(self.order.count())]

    def _ticked(self, item: QTableWidgetItem) -> None:
        """A variable ticked goes last in the table order; one unticked leaves it."""
        if item.column() != 0:
            return
        listed = self.order.findItems(item.text(), Qt.MatchFlag.MatchExactly)
        if item.checkState() == Qt.CheckState.Checked and not listed:
            self.order.addItem(item.text())
        elif item.checkState() != Qt.CheckState.Checked:
            for found in listed:
                self.order.takeItem(self.order.row(found))

    def move_selected(self, step: int) -> None:
        """Move the variable selected in the table order one place up (-1) or down (1)."""
        row = self.order.currentRow()
        target = row + step
        if row < 0 or not 0 <= target < self.order.count():
            return
        self.order.insertItem(target, self.order.takeItem(row))
        self.order.setCurrentRow(target)

    def response_variable(self) -> str | None:
        """The response chosen, None until the user chooses one."""
        return self.response.currentText() if self.response.currentIndex() >= 0 else None

    def _update_tabulate(self) -> None:
        chosen = self.response_variable() is not None
        self.tabulate.setEnabled(chosen)
        self.tabulate.setToolTip("" if chosen else "Choose the response variable first")

    def add_table(self) -> None:
        """List the ticked variables as a table (refused when none is ticked or it is listed)."""
        span = self.spanning()
        if not span:
            self.error.setText("Tick the variables of the table first.")
            return
        if any(set(span) == set(listed) for listed in self.tables(listed_only=True)):
            self.error.setText(f"A table of {', '.join(span)} is listed already.")
            return
        item = QListWidgetItem(" × ".join(span))
        item.setData(Qt.ItemDataRole.UserRole, span)
        self.table_list.addItem(item)
        self.error.setText("")

    def tables(self, listed_only: bool = False) -> list[list[str]]:
        """The tables to tabulate: those listed, else the ticked variables (unless listed_only)."""
        listed = [self.table_list.item(r).data(Qt.ItemDataRole.UserRole) for r in range(self.table_list.count())]
        if listed or listed_only:
            return listed
        return [self.spanning()] if self.spanning() else []

    def hierarchy_files(self) -> dict[str, str]:
        used = {name for table in self.tables() for name in table}
        files = {item.text(): file_item.text().strip()
                 for item, file_item in zip(self.name_items, self.file_items, strict=True)}
        return {name: file for name, file in files.items() if file and name in used}

    def _browse(self) -> None:
        row = self.variables.currentRow()
        if row < 0:
            self.error.setText("Select a variable first.")
            return
        path, _ = QFileDialog.getOpenFileName(self, "Hierarchy file", str(self.path.parent),
                                              "Hierarchies (*.hrc *.csv);;All files (*)")
        if path:
            self.file_items[row].setText(path)

    def accept(self) -> None:
        if not self.tables():
            self.error.setText("Tick at least one spanning variable.")
            return
        if self.response_variable() is None:
            self.error.setText("Choose the response: the numeric variable whose sums make the table's cells.")
            return
        try:
            self.project = self.loader(self)
        except Exception as error:
            self.error.setText(plain_message(error))
            return
        super().accept()
