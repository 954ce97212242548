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
and differences, the secret settings (widening seed), the solver log and, when the
release was audited, an Audit sheet (the summary, then each sensitive cell's attacker
interval and verdict: a release never holds it, since it singles out the sensitive cells).
"""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np
from openpyxl.styles import Font

from ctadesk.io.errors import FileFormatError
from ctadesk.io.excel.figures import OriginalFigures
from ctadesk.io.excel.package import WorkbookFile
from ctadesk.io.excel.sheet_part import SheetPart
from ctadesk.io.excel.source_sheet import Dropped, SheetCopy, SourceSheet
from ctadesk.io.excel.styles import CellFormat
from ctadesk.io.excel.table import ExcelTable
from ctadesk.io.excel.workbook import open_workbook, read_sheet
from ctadesk.io.excel.writer import ColumnFormat, WorkbookWriter, column_letters
from ctadesk.io.numbers import finite_values

Row = tuple[str, object]


@dataclasses.dataclass(frozen=True)
class ExportReport:
    """What the side sheets say.

    quality            (measure, value) pairs safe to release (counts, status)
    internal_quality   further measures for the internal workbook only
    settings           method and options safe to release, as (name, value)
    internal_settings  settings for the internal workbook only (solver message, timings, widening seed)
    log                solver and ctadesk log lines (internal workbook only)
    audit              the audit of the release (internal workbook only), or None
    """

    quality: tuple[Row, ...] = ()
    internal_quality: tuple[tuple[object, ...], ...] = ()
    settings: tuple[Row, ...] = ()
    internal_settings: tuple[Row, ...] = ()
    log: tuple[str, ...] = ()
    audit: AuditSheet | None = None

    @classmethod
    def from_result(cls, result, original: np.ndarray, sensitive: np.ndarray,
                    settings: Mapping[str, object] | None = None, measures=None,
                    internal_settings: Iterable[Row] = ()) -> ExportReport:
        """The report of a `CTAResult` on the unique cells `original` with sensitive indices;
        measures is its `ctadesk.engine.quality.measures.QualityReport` (default: over all cells)."""
        from ctadesk.engine.problem import CTAProblem
        from ctadesk.engine.quality.measures import quality_report

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


@dataclasses.dataclass(frozen=True)
class AuditSheet:
    """What the Audit sheet of an internal workbook says: the summary (cells audited, at risk by
    reason, smallest relative width, time) and one row per audited cell under ``header``."""

    summary: tuple[Row, ...]
    header: tuple[str, ...]
    cells: tuple[tuple[object, ...], ...]

    @classmethod
    def from_result(cls, result, cell_label: Callable[[int], str] | None = None) -> AuditSheet:
        """The sheet of an `ctadesk.engine.audit.AuditResult`; ``cell_label`` names a cell."""
        from ctadesk.engine.audit.result import FAILURES

        width, narrowest = result.smallest_relative_width()
        summary = (("cells audited", result.n_audited), ("cells at risk", result.n_at_risk),
                   *((f"  {FAILURES[name]}", count) for name, count in result.counts().items() if count),
                   ("smallest relative interval width", _plain(width)),
                   ("  at cell", "" if narrowest is None else _label(narrowest, cell_label)),
                   ("audit time (s)", round(float(result.seconds), 3)), ("LPs solved", result.lps))
        header = ("cell", "original", "published", "attacker lower", "attacker upper", "width", "relative width",
                  "lower protection", "upper protection", "at risk", "reasons")
        relative, at_risk = result.relative_width, result.at_risk
        columns = (result.original, result.published, result.lower, result.upper, result.width, relative,
                   result.lower_protection, result.upper_protection)
        numbers = [[_plain(v) for v in column.tolist()] for column in columns]
        cells = tuple((_label(int(i), cell_label), *(column[k] for column in numbers),
                       "yes" if at_risk[k] else "no", "; ".join(result.reasons(k)))
                      for k, i in enumerate(result.cells.tolist()))
        return cls(summary, header, cells)


def _label(cell: int, cell_label: Callable[[int], str] | None) -> str:
    return f"{cell} {cell_label(cell)}" if cell_label is not None else str(cell)


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
    sources = _Sources()
    dropped: list[Dropped] = []
    with WorkbookWriter(target) as writer:
        for table, values, marked in zip(tables, adjusted, sensitive, strict=True):
            values = finite_values(values, "adjusted values", target)
            if values.shape != table.values.shape:
                raise FileFormatError(f"{values.size} adjusted values for a table of {table.values.size} cells",
                                      file=target, sheet=table.sheet)
            sheet = SheetCopy(sources.sheet(table), writer, np.asarray(marked, np.int64), release=not internal,
                              figures=figures)
            dropped += sheet.dropped
            copies = [(table.sheet, values)]
            if internal:
                copies += [(f"{table.sheet} ORIGINAL", table.values),
                           (f"{table.sheet} DIFFERENCE", values - table.values)]
            for title, cell_values in copies:
                sheet.write(unique_title(writer.titles, title), cell_values)
        if not internal:
            dropped += sources.extras({table.sheet for table in tables})
        outcome = ExportOutcome(target, internal, tuple(dropped))
        write_side_sheets(writer, report or ExportReport(), outcome)
    return outcome


class _Sources:
    """Each source workbook opened once, each source sheet read once."""

    def __init__(self) -> None:
        self._books: dict[Path, WorkbookFile] = {}
        self._parts: dict[tuple[Path, str], SheetPart] = {}

    def sheet(self, table: ExcelTable) -> SourceSheet:
        """The table with its source sheet."""
        if table.source not in self._books:
            self._books[table.source] = open_workbook(table.source)
        book, key = self._books[table.source], (table.source, table.sheet)
        if key not in self._parts:
            self._parts[key] = read_sheet(book, table.sheet)
        return SourceSheet(table, book, book.sheet(table.sheet), self._parts[key])

    def extras(self, exported: set[str]) -> list[Dropped]:
        """Workbook-level things of the sources a release leaves out, when they have them."""
        dropped = []
        for path, book in self._books.items():
            others = [sheet.title for sheet in book.sheets if sheet.title not in exported]
            for count, what in ((len(book.defined_names), f"defined names ({', '.join(book.defined_names)})"),
                                (len(others), f"sheets not exported ({', '.join(others)})"),
                                (len(book.properties), f"document properties ({', '.join(book.properties)})"),
                                (book.custom_properties, "custom document properties")):
                if count:
                    dropped.append(Dropped(path.name, f"{what}: a release carries none of the source's"))
        return dropped


# ------------------------------------------------------------ shared parts
def unique_title(titles: Sequence[str], title: str) -> str:
    """`title` (at most 31 characters), numbered when a sheet of that name (in any case) exists."""
    taken = {name.casefold() for name in titles}
    title = title[:31]
    name, k = title, 2
    while name.casefold() in taken:
        suffix = f" ({k})"
        name, k = title[:31 - len(suffix)] + suffix, k + 1
    return name


def write_side_sheets(writer: WorkbookWriter, report: ExportReport, outcome: ExportOutcome) -> None:
    """Quality, Method and Log sheets; the internal-only parts only in an internal workbook."""
    internal = outcome.internal
    quality = [*report.quality, *(report.internal_quality if internal else ())]
    settings = [*report.settings, *(report.internal_settings if internal else ())]
    written = (f"{datetime.datetime.now():%Y-%m-%d %H:%M} written by ctadesk "
               f"({'internal workbook: holds ORIGINAL values' if internal else 'release workbook'})")
    left_out = (f"{len(outcome.dropped)} item(s) of the source were left out (see the export report)"
                if outcome.dropped else None)
    log = [written, *([left_out] if left_out else []), *(report.log if internal else ())]
    _write_rows(writer, "Quality", [("Measure", "Value"), *quality])
    _write_rows(writer, "Method", [("Setting", "Value"), *settings])
    _write_rows(writer, "Log", [("Log",), *((line,) for line in log)])
    if internal and report.audit is not None:
        audit = report.audit
        _write_rows(writer, "Audit", [("Audit of the release", "Value"), *audit.summary, (), audit.header,
                                      *audit.cells])


def _write_rows(writer: WorkbookWriter, title: str, rows: Sequence[tuple[object, ...]]) -> None:
    """A small sheet of rows, the first in bold."""
    wide = max(map(len, rows)) > 1
    columns = [ColumnFormat(0, 0, 36.0), ColumnFormat(1, 1, 30.0)] if wide else [ColumnFormat(0, 0, 120.0)]
    sheet = writer.add_sheet(unique_title(writer.titles, title), columns)
    bold = writer.styles.add(CellFormat(font=Font(bold=True)))
    letters = column_letters(max(map(len, rows)))
    for r, row in enumerate(rows, start=1):
        sheet.row(r, "".join(writer.cell(f"{letters[c]}{r}", value, bold if r == 1 else 0)
                             for c, value in enumerate(row)))
