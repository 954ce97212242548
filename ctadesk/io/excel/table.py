"""A table read from a sheet: its structure, its values, and where each cell sits.

What a data cell gives the table (ctadesk.io.numbers.read_cell): a number, also
one with a footnote flag ('12 e': 12); an empty cell or a zero mark ('-') 0; a
mark of a value not available or confidential (':', 'x', 'c', '..', 'NaN') and
any other text are refused, naming the cell.  A formula whose result was not
stored is computed when it only adds and subtracts, else refused naming the
cell.  When the decimal mark of numbers written as text is undecided, a table
that holds such numbers is refused naming one of them.

Row labels from a code column and a name column make one label ('01
Agriculture'); when the names are not indented and the codes nest ('01' holds
'011' and '012'), the codes give the hierarchy, provided the values add up
along it (rounded values within their rounding); when no code total adds up the
codes are taken for plain labels, and when some do and some do not the table
is refused naming the first that does not.

The structure is checked on the data (ctadesk.io.additivity): hidden rows and
columns are left out of the table while it adds up without them, and taken in
(they stay hidden in the release) where the totals include them; a column
inside a total's group whose values are exactly what that total's parts are
off by -- a share, ratio or flag column beside the table, not a part of its
sums -- is left out, with a note naming it.  (Rows are not: an "of which" row
a user took in is theirs to lay out.)  What still does not add up is
left for the importer to refuse (ctadesk.app.files.check_additive).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ctadesk.engine.table.structure import Dimension, TableStructure
from ctadesk.io.additivity import non_additive
from ctadesk.io.errors import FileFormatError
from ctadesk.io.excel.labels import column_paths, dimension_from_paths, row_paths
from ctadesk.io.excel.layout import DetectedLayout, detect_layout, is_total_label, text_cells
from ctadesk.io.excel.workbook import SheetGrid, coordinate, open_workbook, read_grid
from ctadesk.io.numbers import Kind, not_a_number, number_style, read_cell, unknown_value
from ctadesk.io.table_or_microdata import grid_records, refuse_records

_CODE_SEPARATORS = re.compile(r"[.\-_/ ]")


@dataclasses.dataclass(frozen=True, eq=False)
class ExcelTable:
    """A two-dimensional table found on a sheet.

    structure  rows x columns (TableStructure, cells in C order)
    values     cell values (n,), C order
    rows       sheet row (0-based) of each table row; columns likewise
    notes      what the reader decided that a user should know (flags left out, ...)
    """

    source: Path
    layout: DetectedLayout
    structure: TableStructure
    values: np.ndarray
    rows: tuple[int, ...]
    columns: tuple[int, ...]
    notes: tuple[str, ...] = ()

    @property
    def sheet(self) -> str:
        return self.layout.sheet

    def cell_position(self, i: int) -> tuple[int, int]:
        """Sheet (row, column), 0-based, of cell i."""
        r, c = np.unravel_index(i, self.structure.shape)
        return self.rows[r], self.columns[c]

    def cell_label(self, i: int) -> str:
        row, column = self.cell_position(i)
        return f"{self.sheet}!{coordinate(row, column)}: {self.structure.cell_label(i)}"


def build_table(grid: SheetGrid, layout: DetectedLayout, source: str | Path | None = None) -> ExcelTable:
    """The table a (possibly corrected) layout describes, its structure checked on the data:
    hidden rows and columns the totals include are taken in, columns that are not parts of a
    total's sum are left out (see the module's docstring)."""
    table, error = None, None
    try:
        table = _build(grid, layout, source)
    except FileFormatError as failure:  # perhaps only without the hidden rows the totals include
        if not (layout.hidden_rows or layout.hidden_columns):
            raise
        error = failure
    if table is None or not _adds_up(table):
        for rows, columns in ((True, False), (False, True), (True, True)):
            if (rows and not layout.hidden_rows) or (columns and not layout.hidden_columns):
                continue
            try:
                other = _build(grid, _with_hidden(grid, layout, rows, columns), source)
            except FileFormatError:
                continue
            if _adds_up(other):
                included = (_rows_text(layout.hidden_rows) if rows else []) + (
                    _columns_text(layout.hidden_columns) if columns else [])
                note = (f"hidden {' and '.join(included)} are in the table: its totals include them "
                        "(they stay hidden in the release)")
                return dataclasses.replace(other, notes=(*other.notes, note))
        if table is None:
            assert error is not None, "a table is None only when _build failed"
            raise error
    return _without_non_parts(grid, table, source)


def _rows_text(rows: list[int]) -> list[str]:
    return [f"rows {', '.join(str(r + 1) for r in rows)}"]


def _columns_text(columns: list[int]) -> list[str]:
    return [f"columns {', '.join(coordinate(0, c)[:-1] for c in columns)}"]


def _adds_up(table: ExcelTable) -> bool:
    """Do the table's values satisfy its relations (ctadesk.io.additivity)?"""
    structure = table.structure
    return not non_additive(structure.relations(), table.values, structure.relation_label)


def _with_hidden(grid: SheetGrid, layout: DetectedLayout, rows: bool, columns: bool) -> DetectedLayout:
    """The layout with its hidden rows (rows) and hidden columns (columns) taken into the table:
    a hidden row holding something in the data columns is a data row, a hidden column holding
    something in the data rows a data column; either is a total when its label says so."""
    filled = grid.kinds.kinds != 0
    add_columns = [c for c in layout.hidden_columns if columns and filled[layout.data_rows, c].any()]
    data_columns = sorted(set(layout.data_columns) | set(add_columns))
    add_rows = [r for r in layout.hidden_rows if rows and filled[r, data_columns].any()]
    total_rows = {r for r in add_rows if is_total_label(_label_text(next(
        (grid.merged_value(r, c) for c in reversed(layout.label_columns) if grid.merged_value(r, c) is not None),
        None)))}
    total_columns = {c for c in add_columns if any(is_total_label(_label_text(grid.merged_value(h, c)))
                                                   for h in layout.header_rows)}
    return dataclasses.replace(
        layout, data_rows=sorted(set(layout.data_rows) | set(add_rows)), data_columns=data_columns,
        total_rows=layout.total_rows | total_rows, total_columns=layout.total_columns | total_columns,
        hidden_rows=[r for r in layout.hidden_rows if not rows], hidden_columns=[c for c in layout.hidden_columns
                                                                                 if not columns])


def _non_parts(dimension: Dimension, grid: np.ndarray, tolerance: float) -> list[int]:
    """Leaf entries of `dimension` (axis 0 of grid) inside a total's group whose values are, in
    every line across, exactly what that total's parts are off by: not parts of its sum."""
    found: list[int] = []
    parents = dimension.parents
    for total in np.unique(parents[parents >= 0]).tolist():
        parts = np.flatnonzero(parents == total)
        off = grid[parts].sum(axis=0) - grid[total]
        if np.all(np.abs(off) <= tolerance):
            continue
        leaves = [k for k in parts.tolist() if not np.any(parents == k)]
        found += [k for k in leaves if np.all(np.abs(grid[k] - off) <= tolerance)][:1]
    return found


def _without_non_parts(grid: SheetGrid, table: ExcelTable, source: str | Path | None) -> ExcelTable:
    """The table without the columns that are not parts of the sums they sit in (_non_parts),
    when leaving them out makes the table add up; else the table as it is."""
    if _adds_up(table):
        return table
    values = table.values.reshape(table.structure.shape)
    tolerance = 1e-9 * max(1.0, float(np.abs(values).max(initial=0)))
    out_columns = [table.columns[k] for k in _non_parts(table.structure.dimensions[1], values.T, tolerance)]
    if not out_columns:
        return table
    layout = table.layout
    narrower = dataclasses.replace(layout, data_columns=[c for c in layout.data_columns if c not in out_columns])
    try:
        other = _build(grid, narrower, source)
    except FileFormatError:
        return table
    if not _adds_up(other):
        return table
    said = [f"{coordinate(0, c)[:-1]} ('{_column_title(grid, layout, c)}')" for c in out_columns]
    note = (f"column(s) {', '.join(said)} left out of the table: the values are not parts of the totals beside "
            "them (shares, ratios or flags), and the table adds up without them")
    return dataclasses.replace(other, notes=(*other.notes, note))


def _column_title(grid: SheetGrid, layout: DetectedLayout, c: int) -> str | None:
    """The innermost label above column c."""
    return next((_label_text(grid.merged_value(h, c)) for h in reversed(layout.header_rows)
                 if grid.merged_value(h, c) is not None), None)


def _build(grid: SheetGrid, layout: DetectedLayout, source: str | Path | None = None) -> ExcelTable:
    """The table a layout describes, as it describes it."""
    data_set = set(layout.data_rows)
    body = sorted(data_set | set(layout.heading_rows))
    data_rows = [r for r in body if r in data_set]
    columns = sorted(layout.data_columns)
    values, notes = _values(grid, layout, data_rows, columns)
    row_dimension = _row_dimension(grid, layout, body, values)
    column_dimension = _column_dimension(grid, layout, columns)
    structure = TableStructure((row_dimension, column_dimension))
    return ExcelTable(Path(source or grid.file), layout, structure, values.reshape(-1),
                      tuple(data_rows), tuple(columns), tuple(notes) + _layout_notes(layout))


def _layout_notes(layout: DetectedLayout) -> tuple[str, ...]:
    """What the layout leaves out, for the user to know."""
    notes = []
    if layout.hidden_rows:
        notes.append(f"hidden rows {', '.join(str(r + 1) for r in layout.hidden_rows)} were left out")
    if layout.hidden_columns:
        notes.append(f"hidden columns {', '.join(coordinate(0, c)[:-1] for c in layout.hidden_columns)} "
                     "were left out")
    if layout.flag_columns:
        notes.append(f"flag columns {', '.join(coordinate(0, c)[:-1] for c in layout.flag_columns)} were left out")
    return tuple(notes)


def _values(grid: SheetGrid, layout: DetectedLayout, data_rows: list[int],
            columns: list[int]) -> tuple[np.ndarray, list[str]]:
    """The numbers of the data cells (rows x columns) and a note on footnote flags left out.
    Numbers stored as numbers are taken as they are; every other cell is read one by one."""
    decimal_comma = layout.decimal_comma
    if decimal_comma is None:
        decimal_comma, why = number_style(text_cells(grid, data_rows, columns))
        if decimal_comma is None:
            raise grid.error(why)
    values = grid.kinds.numbers[np.ix_(data_rows, columns)]
    flagged = []
    for i, j in np.argwhere(~np.isfinite(values)).tolist():
        r, c = data_rows[i], columns[j]
        values[i, j], flag = _cell_number(grid, r, c, decimal_comma)
        if flag:
            flagged.append(f"'{grid.values[r][c]}' in {coordinate(r, c)}")
    notes = [f"{len(flagged)} number(s) carry a footnote flag ({', '.join(flagged[:3])}"
             f"{', ...' if len(flagged) > 3 else ''}); the numbers were read, the flags left out"] if flagged else []
    return values, notes


def _cell_number(grid: SheetGrid, r: int, c: int, decimal_comma: bool) -> tuple[float, str]:
    """The number of a data cell and its footnote flag ('' when none); FileFormatError naming
    the cell when it holds no number."""
    if (r, c) in grid.unreadable:
        raise grid.error(grid.unreadable[r, c], r, c)
    value = grid.values[r][c]
    reading = read_cell(value, decimal_comma)
    if reading.kind in (Kind.EMPTY, Kind.ZERO):
        return 0.0, ""
    if reading.kind is Kind.NUMBER and reading.number is not None:  # a NUMBER always has one
        return reading.number, reading.flag
    if reading.kind is Kind.UNKNOWN:
        raise grid.error(f"'{value}' is not a number: {unknown_value()}", r, c)
    raise grid.error(not_a_number(value, decimal_comma), r, c)


def _row_dimension(grid: SheetGrid, layout: DetectedLayout, body: list[int], values: np.ndarray) -> Dimension:
    """The row variable: label paths from label columns, indentation or codes."""
    data_set, total_set = set(layout.data_rows), set(layout.total_rows)
    labels = [_row_entries(grid, layout, r) for r in body]
    for r, row_labels in zip(body, labels):
        if not row_labels and r in data_set:
            raise grid.error("this row has numbers but no label", r, layout.label_columns[0]
                             if layout.label_columns else 0)
    heading = [r not in data_set for r in body]
    totals = [r in total_set for r in body]
    keep = [k for k, r in enumerate(body) if not heading[k]]
    every_path = row_paths(labels, heading, totals)
    paths = [every_path[k] for k in keep]
    totals = [totals[k] for k in keep]
    coded = _code_hierarchy(grid, layout, [body[k] for k in keep], [labels[k] for k in keep], totals, values)
    if coded is not None:
        paths, totals = coded
    return dimension_from_paths(layout.row_name, paths, totals, [f"row {body[k] + 1}" for k in keep],
                                error=lambda m: grid.error(m))


def _row_entries(grid: SheetGrid, layout: DetectedLayout, r: int) -> list[tuple[int, str]]:
    """The (level, text) labels of row r; a code and its name make one label ('01 Agriculture')."""
    entries = []
    for rank, c in enumerate(layout.label_columns):
        if c in layout.code_columns:
            continue
        text = _label_text(grid.merged_value(r, c))
        if c - 1 in layout.code_columns:
            text = " ".join(t for t in (_label_text(grid.merged_value(r, c - 1)), text) if t) or None
        if text:
            entries.append((rank * 1000 + grid.indents[r][c], text))
    return entries


def _column_dimension(grid: SheetGrid, layout: DetectedLayout, columns: list[int]) -> Dimension:
    """The column variable from the header rows (merged cells span their group)."""
    header = [[_label_text(grid.merged_value(h, c)) for h in layout.header_rows] for c in columns]
    column_totals = [c in layout.total_columns for c in columns]
    for c, labels_c in zip(columns, header):
        if not any(labels_c):
            raise grid.error("this column has numbers but no label above it", layout.header_rows[-1], c)
    return dimension_from_paths(
        layout.column_name, column_paths(header, column_totals), column_totals,
        [f"column {coordinate(0, c)[:-1]}" for c in columns], error=lambda m: grid.error(m))


def _code_hierarchy(grid: SheetGrid, layout: DetectedLayout, rows: list[int], labels: list[list[tuple[int, str]]],
                    totals: list[bool], values: np.ndarray) -> tuple[list[tuple[str, ...]], list[bool]] | None:
    """Label paths and totals of the data rows from nesting codes, or None when the codes do
    not give the hierarchy (no code column beside the only name column, indented names,
    group headings, codes that do not nest, or no code total that adds up)."""
    if (len(layout.code_columns) != 1 or len(layout.label_columns) != 2 or layout.heading_rows
            or len({grid.indents[r][layout.label_columns[1]] for r in rows}) > 1):
        return None
    codes = [None if total else _label_text(grid.merged_value(r, layout.code_columns[0]))
             for r, total in zip(rows, totals)]
    parents = code_parents(codes)
    if all(p is None for p in parents):
        return None
    wrong = _not_adding_up(parents, values)
    if len(wrong) == len(set(parents) - {None}):  # no code total adds up: the codes do not nest by design
        return None
    if wrong:
        parent, children, column = wrong[0]
        where = coordinate(rows[parent], sorted(layout.data_columns)[column])
        raise grid.error(
            f"by its code '{codes[parent]}', row {rows[parent] + 1} is the total of rows "
            f"{', '.join(str(rows[k] + 1) for k in children)}, but its {values[parent, column]:g} in {where} is not "
            f"their sum {values[children, column].sum():g}; correct the values, or read the code column as a "
            "plain label column")
    own = [entries[-1][1] for entries in labels]

    def path(k: int) -> tuple[str, ...]:
        parent = parents[k]
        return (path(parent) if parent is not None else ()) + (own[k],)

    return [path(k) for k in range(len(rows))], [total and parent is None for total, parent in zip(totals, parents)]


def code_parents(codes: Sequence[str | None]) -> list[int | None]:
    """The position of each code's parent: the longest other code that is a prefix of it, by
    characters ('NL1' of 'NL12'), or by parts where some code continues another after a
    separator ('1.1' of '1.1.2', and then not '1' of '10').  None: no code, or no parent."""
    present = {code for code in codes if code}
    by_parts = any(code[:m.start()] in present for code in present for m in _CODE_SEPARATORS.finditer(code))

    def parts(code: str) -> tuple[str, ...]:
        return tuple(_CODE_SEPARATORS.split(code)) if by_parts else tuple(code)

    position = {parts(code): k for k, code in enumerate(codes) if code}
    parents: list[int | None] = []
    for code in codes:
        own = parts(code) if code else ()
        parents.append(next((position[own[:cut]] for cut in range(len(own) - 1, 0, -1) if own[:cut] in position),
                            None))
    return parents


def _not_adding_up(parents: list[int | None], values: np.ndarray) -> list[tuple[int, list[int], int]]:
    """(parent, children, column) of each code total whose children do not add up to it."""
    grid = values.reshape(len(parents), -1)
    unit = _rounding_unit(grid)
    families: dict[int, list[int]] = {}
    for k, parent in enumerate(parents):
        if parent is not None:
            families.setdefault(parent, []).append(k)
    wrong = []
    for parent, children in sorted(families.items()):
        gap = np.abs(grid[parent] - grid[children].sum(axis=0))
        allowed = 0.5 * unit * (len(children) + 1) + 1e-9 * np.abs(grid[[parent, *children]]).sum(axis=0)
        bad = np.flatnonzero(gap > allowed)
        if bad.size:
            wrong.append((parent, children, int(bad[0])))
    return wrong


def _rounding_unit(values: np.ndarray) -> float:
    """The unit the values are rounded to (1 for whole numbers, 0.1 for one decimal, ...), 0 if finer."""
    for decimals in range(7):
        scaled = values * 10.0**decimals
        if np.all(np.abs(scaled - np.round(scaled)) <= 1e-6 * np.maximum(1, np.abs(scaled))):
            return 10.0**-decimals
    return 0.0


def import_table(path: str | Path, sheet: str | None = None, layout: DetectedLayout | None = None, *,
                 decimal_comma: bool | None = None, include_hidden: bool = False) -> ExcelTable:
    """Read one sheet's table, detecting its layout unless one is given (decimal_comma and
    include_hidden as detect_layout takes them); a sheet of microdata, read without a single
    relation, is refused (ctadesk.io.table_or_microdata)."""
    workbook = open_workbook(path)
    grid = read_grid(workbook, sheet if layout is None else layout.sheet, path)
    layout = layout or detect_layout(grid, decimal_comma=decimal_comma, include_hidden=include_hidden)
    table = build_table(grid, layout, path)
    refuse_records(path, table.structure, *grid_records(grid.values), sheet=grid.sheet, unit="row")
    return table


def import_workbook(path: str | Path, sheets: Sequence[str] | None = None) -> list[ExcelTable]:
    """The table of every visible sheet (or of the sheets named)."""
    workbook = open_workbook(path)
    names = list(sheets) if sheets is not None else [
        ws.title for ws in workbook.worksheets if ws.sheet_state == "visible"]
    tables = []
    for name in names:
        grid = read_grid(workbook, name, path)
        tables.append(build_table(grid, detect_layout(grid), path))
    return tables


def read_layout(path: str | Path, sheet: str | None = None) -> tuple[SheetGrid, DetectedLayout]:
    """The grid and detected layout of a sheet, for a user to inspect and correct."""
    grid = read_grid(open_workbook(path), sheet, path)
    return grid, detect_layout(grid)


def _label_text(value: object) -> str | None:
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    text = str(value).strip()
    return text or None
