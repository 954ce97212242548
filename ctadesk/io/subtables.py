"""The released marginal sub-tables of a count table, written out (Karr, Dobra & Sanil (undated), "OTR components":
a release is a set of marginal sub-tables): one long CSV per sub-table in a folder, or one
workbook with a sheet per sub-table (ctadesk.io.excel.writer).  Each holds the sub-table's
variables, one row per marginal cell with its categories, and its count; a sub-table is named by
the letters of its attributes as Karr, Dobra & Sanil (undated) writes them ('ACD'; 'total' for the grand total).
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
from openpyxl.styles import Font

from ctadesk.engine.releases import CountTable, Release, Subtable
from ctadesk.io.excel.export import unique_title
from ctadesk.io.excel.sheet_part import ColumnFormat
from ctadesk.io.excel.styles import CellFormat
from ctadesk.io.excel.writer import WorkbookWriter, column_letters


def subtable_name(table: CountTable, subtable: Subtable) -> str:
    """'ACD' for the sub-table of axes 0, 2, 3 ('A_B' beyond 26 axes); 'total' for the grand total."""
    return table.subtable_name(subtable).strip("[]").replace(",", "_") or "total"


def released_subtables(release: Release) -> list[Subtable]:
    """The sub-tables of ``release``, smallest first (the grand total, the 1-way tables, ...)."""
    return sorted(release.subtables(), key=lambda s: (len(s), sorted(s)))


def _rows(table: CountTable, subtable: Subtable) -> tuple[list[str], list[list[object]]]:
    """The header (variable names and 'count') and one row per marginal cell."""
    axes = sorted(subtable)
    marginal = table.marginal(axes)
    header = [*(table.names[a] for a in axes), "count"]
    return header, [[*(table.labels[a][i] for a, i in zip(axes, position)), int(marginal[position])]
                    for position in np.ndindex(marginal.shape)]


def write_subtables_csv(table: CountTable, release: Release, folder: str | Path) -> list[Path]:
    """Every released sub-table as ``folder``/<name>.csv; the files written."""
    target = Path(folder)
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for subtable in released_subtables(release):
        header, rows = _rows(table, subtable)
        path = target / f"{subtable_name(table, subtable)}.csv"
        with path.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle, lineterminator="\n")
            writer.writerow(header)
            writer.writerows(rows)
        written.append(path)
    return written


def write_subtables_xlsx(table: CountTable, release: Release, path: str | Path) -> Path:
    """Every released sub-table as a sheet of one workbook (sheets named as the CSV files)."""
    path = Path(path)
    with WorkbookWriter(path) as writer:
        bold = writer.styles.add(CellFormat(font=Font(bold=True)))
        for subtable in released_subtables(release):
            header, rows = _rows(table, subtable)
            letters = column_letters(len(header))
            sheet = writer.add_sheet(unique_title(writer.titles, subtable_name(table, subtable)),
                                     [ColumnFormat(0, len(header) - 1, 16.0)], frozen="A2")
            sheet.row(1, "".join(writer.cell(f"{letter}1", name, bold) for letter, name in zip(letters, header)))
            for r, row in enumerate(rows, start=2):
                sheet.row(r, "".join(writer.cell(f"{letter}{r}", value) for letter, value in zip(letters, row)))
    return path
