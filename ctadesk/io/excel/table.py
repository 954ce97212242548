"""A table read from a sheet: its structure, its values, and where each cell sits."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ctadesk.engine.structure import TableStructure
from ctadesk.io.errors import FileFormatError
from ctadesk.io.excel.labels import column_paths, dimension_from_paths, row_paths
from ctadesk.io.excel.layout import DetectedLayout, detect_layout
from ctadesk.io.excel.workbook import SheetGrid, coordinate, open_workbook, read_grid
from ctadesk.io.numbers import ZERO_MARKS, parse_number


@dataclasses.dataclass(frozen=True, eq=False)
class ExcelTable:
    """A two-dimensional table found on a sheet.

    structure  rows x columns (TableStructure, cells in C order)
    values     cell values (n,), C order
    rows       sheet row (0-based) of each table row; columns likewise
    """

    source: Path
    layout: DetectedLayout
    structure: TableStructure
    values: np.ndarray
    rows: tuple[int, ...]
    columns: tuple[int, ...]

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
    """The table a (possibly corrected) layout describes."""
    body = sorted(set(layout.data_rows) | set(layout.heading_rows))
    data_set, total_set = set(layout.data_rows), set(layout.total_rows)
    labels, heading, totals = [], [], []
    for r in body:
        row_labels = []
        for rank, c in enumerate(layout.label_columns):
            value = grid.merged_value(r, c)
            text = _label_text(value)
            if text:
                row_labels.append((rank * 1000 + grid.indents[r][c], text))
        if not row_labels and r in data_set:
            raise grid.error("this row has numbers but no label", r, layout.label_columns[0]
                             if layout.label_columns else 0)
        labels.append(row_labels)
        heading.append(r not in data_set)
        totals.append(r in total_set)
    paths = row_paths(labels, heading, totals)
    data_rows = [r for r in body if r in data_set]
    keep = [k for k, r in enumerate(body) if not heading[k]]
    row_dimension = dimension_from_paths(
        layout.row_name, [paths[k] for k in keep], [totals[k] for k in keep],
        [f"row {body[k] + 1}" for k in keep], error=lambda m: grid.error(m))

    columns = sorted(layout.data_columns)
    header = [[_label_text(grid.merged_value(h, c)) for h in layout.header_rows] for c in columns]
    column_totals = [c in layout.total_columns for c in columns]
    for c, labels_c in zip(columns, header):
        if not any(labels_c):
            raise grid.error("this column has numbers but no label above it", layout.header_rows[-1], c)
    column_dimension = dimension_from_paths(
        layout.column_name, column_paths(header, column_totals), column_totals,
        [f"column {coordinate(0, c)[:-1]}" for c in columns], error=lambda m: grid.error(m))

    values = np.empty((len(data_rows), len(columns)))
    for i, r in enumerate(data_rows):
        for j, c in enumerate(columns):
            values[i, j] = _cell_number(grid, r, c, layout.decimal_comma)
    structure = TableStructure((row_dimension, column_dimension))
    return ExcelTable(Path(source or grid.file), layout, structure, values.reshape(-1),
                      tuple(data_rows), tuple(columns))


def import_table(path: str | Path, sheet: str | None = None,
                 layout: DetectedLayout | None = None) -> ExcelTable:
    """Read one sheet's table, detecting its layout unless one is given."""
    workbook = open_workbook(path)
    grid = read_grid(workbook, sheet if layout is None else layout.sheet, path)
    return build_table(grid, layout or detect_layout(grid), path)


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


def _cell_number(grid: SheetGrid, r: int, c: int, decimal_comma: bool) -> float:
    value = grid.values[r][c]
    if value is None or (isinstance(value, str) and (not value.strip() or value.strip() in ZERO_MARKS)):
        return 0.0
    number = parse_number(value, decimal_comma)
    if number is None:
        raise FileFormatError(f"'{value}' is not a number", file=grid.file, sheet=grid.sheet,
                              cell=coordinate(r, c))
    return number
