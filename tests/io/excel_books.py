"""Hand-made workbooks laid out the way offices lay out tables (written with openpyxl)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import openpyxl
from openpyxl.styles import Alignment, Font

NUMBER_FORMAT = "#,##0"

# Inner values: 4 regions (1..4; North = 1+2, South = 3+4) x 3 sizes
INNER = np.array([[120.0, 35.5, 980.0],
                  [64.0, 12.25, 430.0],
                  [210.0, 3.75, 1250.0],
                  [45.0, 18.5, 77.0]])
SIZES = ["Small", "Medium", "Large"]


def _write(ws, rows, columns, inner, *, first_row: int, label_columns: int, header_rows: int,
           text_cells=(), row_name: str | None = "Region"):
    """rows/columns: lists of (labels per label column/header row, indent, leaf indices)."""
    for j, (labels, _, _) in enumerate(columns):
        for h, text in enumerate(labels):
            if text is not None:
                cell = ws.cell(first_row + h, label_columns + 1 + j, text)
                cell.font = Font(bold=True)
                cell.alignment = Alignment(horizontal="center")
    if row_name:
        ws.cell(first_row + header_rows - 1, 1, row_name).font = Font(bold=True)
    r = first_row + header_rows
    for labels, indent, row_leaves in rows:
        if labels is None:
            r += 1  # spacer
            continue
        for k, text in enumerate(labels):
            if text is not None:
                ws.cell(r, 1 + k, text).alignment = Alignment(indent=indent)
        if row_leaves is not None:
            for j, (_, _, col_leaves) in enumerate(columns):
                value = inner[np.ix_(row_leaves, col_leaves)].sum()
                cell = ws.cell(r, label_columns + 1 + j)
                cell.value = f"{value:,.2f}" if (r, j) in text_cells else float(value)
                cell.number_format = NUMBER_FORMAT
        r += 1
    return r


def flat_rows(total_first: bool):
    rows = [((f"Region {k + 1}",), 0, [k]) for k in range(4)]
    total = (("Total",), 0, [0, 1, 2, 3])
    return [total, *rows] if total_first else [*rows, (None, 0, None), total]


def size_columns(total_first: bool, inner_columns=SIZES):
    columns = [((name,), 0, [k]) for k, name in enumerate(inner_columns)]
    total = (("Total",), 0, list(range(len(inner_columns))))
    return [total, *columns] if total_first else [*columns, total]


def flat_book(path: Path, total_first: bool = False) -> Path:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Turnover"
    ws["A1"] = "Table 1. Turnover by region and size class (EUR 1000)"
    ws.merge_cells("A1:E1")
    ws["A1"].font = Font(bold=True, size=14)
    end = _write(ws, flat_rows(total_first), size_columns(total_first), INNER, first_row=3,
                 label_columns=1, header_rows=1, text_cells={(6, 2)})
    ws.cell(end + 1, 1, "Source: structural business survey")
    ws.column_dimensions["A"].width = 24
    wb.save(path)
    return path


def indented_rows(total_first: bool):
    """Total, North (1, 2), South (3, 4) by indentation."""
    north = (("North",), 1, [0, 1])
    south = (("South",), 1, [2, 3])
    leaves = [((f"{k + 1}",), 2, [k]) for k in range(4)]
    total = (("Total",), 0, [0, 1, 2, 3])
    if total_first:
        return [total, north, leaves[0], leaves[1], south, leaves[2], leaves[3]]
    return [(("North",), 0, None), leaves[0], leaves[1], (("Total North",), 1, [0, 1]),
            (("South",), 0, None), leaves[2], leaves[3], (("Total South",), 1, [2, 3]), total]


def hierarchical_rows_book(path: Path, total_first: bool = True) -> Path:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "By province"
    ws["A1"] = "Turnover by province"
    _write(ws, indented_rows(total_first), size_columns(False), INNER, first_row=3, label_columns=1,
           header_rows=1)
    wb.save(path)
    return path


def two_label_columns_book(path: Path) -> Path:
    """Province in column A (written once), region in column B, subtotal rows last."""
    rows = [(("North", "1"), 0, [0]), ((None, "2"), 0, [1]), (("North", "Total"), 0, [0, 1]),
            (None, 0, None),
            (("South", "3"), 0, [2]), ((None, "4"), 0, [3]), (("South", "Total"), 0, [2, 3]),
            (None, 0, None),
            (("Total", None), 0, [0, 1, 2, 3])]
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Two label columns"
    ws["A1"] = "Turnover"
    _write(ws, rows, size_columns(True), INNER, first_row=3, label_columns=2, header_rows=1)
    wb.save(path)
    return path


def hierarchical_columns_book(path: Path) -> Path:
    """Rows: sizes; columns: North (1, 2, Total) and South (3, 4, Total) under merged headers, then Total."""
    inner = INNER.T
    columns = [(("North", "1"), 0, [0]), ((None, "2"), 0, [1]), ((None, "Total"), 0, [0, 1]),
               (("South", "3"), 0, [2]), ((None, "4"), 0, [3]), ((None, "Total"), 0, [2, 3]),
               (("Total", None), 0, [0, 1, 2, 3])]
    rows = [((name,), 0, [k]) for k, name in enumerate(SIZES)] + [(("Total",), 0, [0, 1, 2])]
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Columns"
    ws["A1"] = "Turnover by size and province"
    _write(ws, rows, columns, inner, first_row=3, label_columns=1, header_rows=2, row_name="Size")
    ws.merge_cells("B3:D3")
    ws.merge_cells("E3:G3")
    ws.merge_cells("H3:H4")
    wb.save(path)
    return path


SECTORS_INNER = np.array([[100.0, 1035.5], [500.0, 6.25], [1400.0, 63.75], [40.0, 100.5]])


def linked_book(path: Path) -> Path:
    """Sheet 'Size' (Region x Size) and sheet 'Sector' (Region x Sector); both have the Region totals."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Size"
    ws["A1"] = "Turnover by region and size"
    _write(ws, flat_rows(False), size_columns(False), INNER, first_row=3, label_columns=1, header_rows=1)
    second = wb.create_sheet("Sector")
    second["A1"] = "Turnover by region and sector"
    _write(second, flat_rows(False), size_columns(False, ["Industry", "Services"]), SECTORS_INNER,
           first_row=3, label_columns=1, header_rows=1)
    wb.save(path)
    return path
