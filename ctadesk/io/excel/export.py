"""Writing a protected table as a release or an internal workbook.

Two layouts: `export_workbook` rebuilds the source sheets of tables imported
from Excel (ctadesk.io.excel.source_sheet says what travels), and
`export_table_workbook` (ctadesk.io.excel.grid) lays out any table as rows x
columns with labels.  Both write side sheets: Quality, Method and Log (one
line per row).

A **release** reveals nothing it protects: no mark, style, note, comment,
defined name, formula, saved formula result or document property tells the
sensitive cells apart or carries an original value; whatever of the source is
left out is listed in the `ExportOutcome` returned (the release's Log sheet
only counts it: even a sheet's or a name's name may say too much).  An
**internal** workbook keeps the marks: sensitive cells shaded, original values
and differences, the secret settings (widening seed) and the solver log.
"""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np
import openpyxl
from openpyxl.styles import Font
from openpyxl.workbook.workbook import Workbook
from openpyxl.worksheet.worksheet import Worksheet

from ctadesk.io.errors import FileFormatError
from ctadesk.io.excel.figures import OriginalFigures
from ctadesk.io.excel.source_sheet import Dropped, SheetSource, copy_sheet
from ctadesk.io.excel.table import ExcelTable
from ctadesk.io.excel.text import write_text
from ctadesk.io.excel.workbook import open_workbook, sheet_has_formulas

#: document properties a release never copies from its source
_PROPERTIES = ("title", "subject", "creator", "keywords", "description", "lastModifiedBy", "category")

Row = tuple[str, object]


@dataclasses.dataclass(frozen=True)
class ExportReport:
    """What the side sheets say.

    quality            (measure, value) pairs safe to release (counts, status)
    internal_quality   further measures for the internal workbook only
    settings           method and options safe to release, as (name, value)
    internal_settings  settings for the internal workbook only (solver message, timings, widening seed)
    log                solver and ctadesk log lines (internal workbook only)
    """

    quality: tuple[Row, ...] = ()
    internal_quality: tuple[tuple[object, ...], ...] = ()
    settings: tuple[Row, ...] = ()
    internal_settings: tuple[Row, ...] = ()
    log: tuple[str, ...] = ()

    @classmethod
    def from_result(cls, result, original: np.ndarray, sensitive: np.ndarray,
                    settings: Mapping[str, object] | None = None, measures=None,
                    internal_settings: Iterable[Row] = ()) -> ExportReport:
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
        internal = (("weighted absolute change (objective)", float(result.objective)), (),
                    *(tuple(_plain(v) for v in row) for row in measures.rows()))
        options = (("method", result.method), *((str(k), v) for k, v in (settings or {}).items()))
        secret = (("message", result.message),
                  *((f"time {k} (s)", round(float(v), 3)) for k, v in result.timings.items()),
                  *internal_settings)
        return cls(quality, internal, options, secret, tuple(result.log.splitlines()))


def _plain(value: object) -> object:
    """A measure as a cell value (NaN and infinities as empty cells)."""
    return None if isinstance(value, float) and not np.isfinite(value) else value


@dataclasses.dataclass(frozen=True)
class ExportOutcome:
    """A written workbook and what of the source it left out (and why)."""

    path: Path
    internal: bool
    dropped: tuple[Dropped, ...] = ()

    def lines(self) -> list[str]:
        """The export report: one line for the workbook, one per thing left out."""
        if self.internal:
            return [f"internal workbook {self.path.name}: holds original values; keep it in the office"]
        head = f"release workbook {self.path.name}: " + (f"{len(self.dropped)} item(s) of the source left out"
                                                         if self.dropped else "nothing of the source left out")
        return [head, *(f"  left out {item}" for item in self.dropped)]


# ------------------------------------------------------------ source layout
def export_workbook(target: str | Path, tables: Sequence[ExcelTable], adjusted: Sequence[np.ndarray],
                    sensitive: Sequence[np.ndarray], *, internal: bool = False,
                    report: ExportReport | None = None) -> ExportOutcome:
    """Write the protected tables (one sheet each, in their source layout).

    adjusted[k]   adjusted values of tables[k] (its cells in C order)
    sensitive[k]  indices of the sensitive cells of tables[k]
    internal      shade the sensitive cells and add '<sheet> ORIGINAL' and '<sheet> DIFFERENCE' sheets
    """
    target = Path(target)
    figures = OriginalFigures(value for table, marked in zip(tables, sensitive, strict=True)
                              for value in table.values[np.asarray(marked, np.int64)])
    books = _SourceBooks()
    workbook = new_workbook()
    dropped: list[Dropped] = []
    for table, values, marked in zip(tables, adjusted, sensitive, strict=True):
        values = np.asarray(values, float)
        if values.shape != table.values.shape:
            raise FileFormatError(f"{values.size} adjusted values for a table of {table.values.size} cells",
                                  file=target, sheet=table.sheet)
        source = books.sheet(table)
        marked = np.asarray(marked, np.int64)
        copies = [(table.sheet, values)]
        if internal:
            copies += [(f"{table.sheet} ORIGINAL"[:31], table.values),
                       (f"{table.sheet} DIFFERENCE"[:31], values - table.values)]
        for title, cell_values in copies:
            dropped += copy_sheet(source, workbook.create_sheet(unique_title(workbook, title)), cell_values,
                                  marked, release=not internal, figures=figures)
    if not internal:
        dropped += books.extras({table.sheet for table in tables})
    outcome = ExportOutcome(target, internal, tuple(dropped))
    write_side_sheets(workbook, report or ExportReport(), outcome)
    workbook.save(target)
    return outcome


class _SourceBooks:
    """Each source workbook opened once, read both ways: saved results and formulas."""

    def __init__(self) -> None:
        self._books: dict[Path, Workbook] = {}
        self._formulas: dict[Path, Workbook] = {}

    def sheet(self, table: ExcelTable) -> SheetSource:
        if table.source not in self._books:
            self._books[table.source] = open_workbook(table.source)
        values = self._books[table.source][table.sheet]
        # a sheet without formulas reads the same both ways: no second loading of the workbook
        if not sheet_has_formulas(table.source, table.sheet):
            return SheetSource(table, values, values)
        if table.source not in self._formulas:
            self._formulas[table.source] = open_workbook(table.source, data_only=False)
        return SheetSource(table, values, self._formulas[table.source][table.sheet])

    def extras(self, exported: set[str]) -> list[Dropped]:
        """Workbook-level things of the sources a release leaves out, when they have them."""
        dropped = []
        for path, book in self._books.items():
            names = [*book.defined_names, *(name for sheet in book.worksheets for name in sheet.defined_names)]
            others = [sheet.title for sheet in book.worksheets if sheet.title not in exported]
            properties = [name for name in _PROPERTIES if getattr(book.properties, name, None)]
            for count, what in ((len(names), f"defined names ({', '.join(names)})"),
                                (len(others), f"sheets not exported ({', '.join(others)})"),
                                (len(properties), f"document properties ({', '.join(properties)})"),
                                (len(book.custom_doc_props), "custom document properties")):
                if count:
                    dropped.append(Dropped(path.name, f"{what}: a release carries none of the source's"))
        return dropped


# ------------------------------------------------------------ shared parts
def new_workbook() -> Workbook:
    """An empty workbook whose document properties name ctadesk and nothing else."""
    workbook = openpyxl.Workbook()
    workbook.remove(workbook.active)
    workbook.properties.creator = "ctadesk"
    return workbook


def unique_title(workbook: Workbook, title: str) -> str:
    """`title` (at most 31 characters), numbered when the workbook has a sheet of that name."""
    title = title[:31]
    name, k = title, 2
    while name in workbook.sheetnames:
        suffix = f" ({k})"
        name, k = title[:31 - len(suffix)] + suffix, k + 1
    return name


def write_side_sheets(workbook: Workbook, report: ExportReport, outcome: ExportOutcome) -> None:
    """Quality, Method and Log sheets; the internal-only parts only in an internal workbook."""
    internal = outcome.internal
    quality = [*report.quality, *(report.internal_quality if internal else ())]
    settings = [*report.settings, *(report.internal_settings if internal else ())]
    written = (f"{datetime.datetime.now():%Y-%m-%d %H:%M} written by ctadesk "
               f"({'internal workbook: holds ORIGINAL values' if internal else 'release workbook'})")
    left_out = (f"{len(outcome.dropped)} item(s) of the source were left out (see the export report)"
                if outcome.dropped else None)
    log = [written, *([left_out] if left_out else []), *(report.log if internal else ())]
    _write_rows(workbook.create_sheet("Quality"), [("Measure", "Value"), *quality])
    _write_rows(workbook.create_sheet("Method"), [("Setting", "Value"), *settings])
    _write_rows(workbook.create_sheet("Log"), [("Log",), *((line,) for line in log)])


def _write_rows(sheet: Worksheet, rows: Iterable[tuple[object, ...]]) -> None:
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
