"""Writing a protected table back in the layout and formatting it came in.

The workbook is built afresh, cell by cell, from the source sheet: titles,
headers and labels with their fonts, fills, borders, alignment, number formats,
merged ranges, column widths and row heights; the data cells get the adjusted
values.  Nothing else of the source travels along, so a **release** workbook
holds no original values, contributions, protection levels, formulas, comments,
hidden sheets or defined names.  An **internal** workbook adds, clearly named,
the original values and the differences in the same layout.  Both carry sheets
for the quality report, the method and options, and the log.
"""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Mapping, Sequence
from copy import copy
from pathlib import Path

import numpy as np
import openpyxl
from openpyxl.styles import Font, PatternFill
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.worksheet import Worksheet

from ctadesk.io.errors import FileFormatError
from ctadesk.io.excel.table import ExcelTable
from ctadesk.io.excel.workbook import open_workbook

#: fill of adjusted sensitive cells
SENSITIVE_FILL = PatternFill("solid", start_color="FFF8CBAD", end_color="FFF8CBAD")
SENSITIVE_NOTE = "Shaded cells were sensitive; their values were adjusted to protect confidentiality."
_FORMULA_STARTS = ("=", "+", "-", "@")


@dataclasses.dataclass(frozen=True)
class ExportReport:
    """What the side sheets say.

    quality           (measure, value) pairs safe to release (counts, status)
    internal_quality  further measures for the internal workbook only
    settings          method and options as (name, value)
    log               log lines (solver and ctadesk)
    """

    quality: tuple[tuple[str, object], ...] = ()
    internal_quality: tuple[tuple[str, object], ...] = ()
    settings: tuple[tuple[str, object], ...] = ()
    log: tuple[str, ...] = ()

    @classmethod
    def from_result(cls, result, original: np.ndarray, sensitive: np.ndarray,
                    settings: Mapping[str, object] | None = None, measures=None) -> ExportReport:
        """The report of a `CTAResult` on the unique cells `original` with sensitive indices;
        measures is its `ctadesk.engine.quality.QualityReport` (default: over all cells)."""
        from ctadesk.engine.problem import CTAProblem
        from ctadesk.engine.quality import quality_report

        original = np.asarray(original, float)
        if measures is None:
            measures = quality_report(CTAProblem(original, np.zeros((0, original.size)), sensitive=sensitive),
                                     result.values)
        changed = np.abs(np.asarray(result.values) - original) > 1e-9 * np.maximum(1, np.abs(original))
        quality = (("cells", original.size), ("sensitive cells", int(np.size(sensitive))),
                   ("cells changed", int(changed.sum())), ("status", result.status.value),
                   ("verified", "yes" if result.verified else "no"))
        plain = lambda v: None if isinstance(v, float) and not np.isfinite(v) else v  # noqa: E731
        internal = (("weighted absolute change (objective)", float(result.objective)), (),
                    *(tuple(plain(v) for v in row) for row in measures.rows()))
        options = [("method", result.method), ("message", result.message)]
        options += [(str(k), v) for k, v in (settings or {}).items()]
        options += [(f"time {k} (s)", round(float(v), 3)) for k, v in result.timings.items()]
        return cls(quality, internal, tuple(options), tuple(result.log))


def export_workbook(target: str | Path, tables: Sequence[ExcelTable], adjusted: Sequence[np.ndarray],
                    sensitive: Sequence[np.ndarray], *, internal: bool = False,
                    report: ExportReport | None = None, mark_sensitive: bool = True) -> Path:
    """Write the protected tables (one sheet each, in their source layout).

    adjusted[k]   adjusted values of tables[k] (its cells in C order)
    sensitive[k]  indices of the sensitive cells of tables[k]
    internal      also write '<sheet> ORIGINAL' and '<sheet> DIFFERENCE' sheets
    """
    target = Path(target)
    report = report or ExportReport()
    workbook = openpyxl.Workbook()
    workbook.remove(workbook.active)
    workbook.properties.creator = "ctadesk"
    sources = {}
    log = [f"{datetime.datetime.now():%Y-%m-%d %H:%M} written by ctadesk "
           f"({'internal workbook: holds ORIGINAL values' if internal else 'release workbook'})"]
    for table, values, marked in zip(tables, adjusted, sensitive, strict=True):
        values = np.asarray(values, float)
        if values.shape != table.values.shape:
            raise FileFormatError(f"{values.size} adjusted values for a table of {table.values.size} cells",
                                  file=target, sheet=table.sheet)
        if table.source not in sources:
            sources[table.source] = open_workbook(table.source)
        source = sources[table.source][table.sheet]
        marked = np.asarray(marked, np.int64)
        copies = [(table.sheet, values, marked if mark_sensitive else None)]
        if internal:
            copies += [(f"{table.sheet} ORIGINAL"[:31], table.values, marked),
                       (f"{table.sheet} DIFFERENCE"[:31], values - table.values, marked)]
        for title, cell_values, shaded in copies:
            dropped = _copy_sheet(source, workbook.create_sheet(_unique_title(workbook, title)),
                                  table, cell_values, shaded, keep_other_numbers=internal)
            if dropped and title == table.sheet:
                log.append(f"sheet '{table.sheet}': {dropped} number(s) or formula(s) outside the table "
                           "were not copied")
    quality = list(report.quality) + (list(report.internal_quality) if internal else [])
    _write_rows(workbook.create_sheet("Quality"), [("Measure", "Value"), *quality])
    _write_rows(workbook.create_sheet("Method"), [("Setting", "Value"), *report.settings])
    _write_rows(workbook.create_sheet("Log"), [("Log",), *((line,) for line in (*log, *report.log))])
    workbook.save(target)
    return target


def _unique_title(workbook, title: str) -> str:
    name, k = title, 2
    while name in workbook.sheetnames:
        suffix = f" ({k})"
        name, k = title[:31 - len(suffix)] + suffix, k + 1
    return name


def _copy_sheet(source: Worksheet, sheet: Worksheet, table: ExcelTable, values: np.ndarray,
                shaded: np.ndarray | None, *, keep_other_numbers: bool) -> int:
    """Copy layout and formatting of `source`, with `values` in the table's cells.
    Returns how many numbers/formulas outside the table were left out."""
    layout = table.layout
    data_cells = {(r, c) for r in table.rows for c in table.columns}
    label_area = set(layout.title_rows) | set(layout.header_rows)
    label_columns = set(layout.label_columns)
    merged_inside = set()
    for merged in source.merged_cells.ranges:
        sheet.merge_cells(str(merged))
        for r in range(merged.min_row, merged.max_row + 1):
            for c in range(merged.min_col, merged.max_col + 1):
                if (r, c) != (merged.min_row, merged.min_col):
                    merged_inside.add((r - 1, c - 1))
    dropped = 0
    for row in source.iter_rows():
        for cell in row:
            r, c = cell.row - 1, cell.column - 1
            target = sheet.cell(cell.row, cell.column)
            if cell.has_style:
                target.font = copy(cell.font)
                target.border = copy(cell.border)
                target.fill = copy(cell.fill)
                target.number_format = cell.number_format
                target.protection = copy(cell.protection)
                target.alignment = copy(cell.alignment)
            if (r, c) in merged_inside or (r, c) in data_cells:
                continue
            value = cell.value
            if value is None:
                continue
            if isinstance(value, str):
                write_text(target, value)
            elif r in label_area or c in label_columns or keep_other_numbers:
                target.value = value
            else:
                dropped += 1
    shape = table.structure.shape
    grid = np.asarray(values, float).reshape(shape)
    shaded_cells = set() if shaded is None else {np.unravel_index(i, shape) for i in shaded.tolist()}
    for i, r in enumerate(table.rows):
        for j, c in enumerate(table.columns):
            value = float(grid[i, j])
            target = sheet.cell(r + 1, c + 1)
            target.value = int(value) if value.is_integer() and abs(value) < 2**53 else value
            if (i, j) in shaded_cells:
                target.fill = copy(SENSITIVE_FILL)
    if shaded is not None and len(shaded_cells):
        note_row = max(source.max_row, max(table.rows) + 1) + 2
        write_text(sheet.cell(note_row, 1), SENSITIVE_NOTE).font = Font(italic=True)
    for key, dimension in source.column_dimensions.items():
        sheet.column_dimensions[key].width = dimension.width
        sheet.column_dimensions[key].hidden = dimension.hidden
    for key, dimension in source.row_dimensions.items():
        if dimension.height is not None:
            sheet.row_dimensions[key].height = dimension.height
    sheet.freeze_panes = source.freeze_panes
    return dropped


def write_text(cell, text: str):
    """Put text in a cell so that Excel shows it as text, never runs it as a formula."""
    cell.value = text
    if text.startswith(_FORMULA_STARTS):
        cell.data_type = "s"
        cell.quotePrefix = True
    return cell


def _write_rows(sheet: Worksheet, rows) -> None:
    for r, row in enumerate(rows, start=1):
        for c, value in enumerate(row, start=1):
            cell = sheet.cell(r, c)
            if isinstance(value, str):
                write_text(cell, value)
            elif value is not None:
                cell.value = value if isinstance(value, (int, float)) else str(value)
        if r == 1:
            for cell in sheet[1]:
                cell.font = Font(bold=True)
    sheet.column_dimensions["A"].width = 36 if sheet.max_column > 1 else 120
    if sheet.max_column > 1:
        sheet.column_dimensions["B"].width = 30
