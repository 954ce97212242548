"""Workbooks and CSV files laid out the way statistical offices publish tables.

Each maker writes one file (openpyxl for workbooks) with a title above the
table and a footnote below it, and returns its path; the expected table is
given beside it as the values by row and the parent of each row and column.
Results of formulas are stored by `store_results`, which writes them into the
sheet's XML the way Excel does (openpyxl writes formulas without results).
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path

import openpyxl
from openpyxl.styles import Alignment, Font

TITLE = "Table 3. Enterprises by activity, 2023"
FOOTNOTE = "Source: structural business statistics. 1) provisional"


def book(path: Path, rows: Sequence[Sequence[object]], *, merges: Sequence[str] = (),
         indents: Mapping[str, int] | None = None, hidden_rows: Sequence[int] = (),
         hidden_columns: Sequence[str] = (), sheet: str = "Table") -> Path:
    """A workbook of one sheet: the title, a blank row, `rows` from row 3, a blank row and the
    footnote.  merges/indents/hidden_columns name cells and columns ('B3:E3', 'A7', 'C');
    hidden_rows are sheet rows (1-based)."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = sheet
    ws["A1"] = TITLE
    ws["A1"].font = Font(bold=True, size=13)
    for r, row in enumerate(rows, start=3):
        for c, value in enumerate(row, start=1):
            if value is not None:
                ws.cell(r, c, value)
    ws.cell(len(rows) + 4, 1, FOOTNOTE)
    for cells in merges:
        ws.merge_cells(cells)
    for cell, indent in (indents or {}).items():
        ws[cell].alignment = Alignment(indent=indent)
    for r in hidden_rows:
        ws.row_dimensions[r].hidden = True
    for column in hidden_columns:
        ws.column_dimensions[column].hidden = True
    wb.save(path)
    return path


def csv_file(path: Path, lines: Sequence[str], encoding: str = "utf-8") -> Path:
    path.write_text("\n".join(lines) + "\n", encoding=encoding)
    return path


def store_results(path: Path, results: Mapping[str, float]) -> Path:
    """Write the results of formula cells ('B9' -> 200.0) into the sheet XML, as Excel stores them."""
    with zipfile.ZipFile(path) as archive:
        parts = {name: archive.read(name) for name in archive.namelist()}
    xml = parts["xl/worksheets/sheet1.xml"].decode()
    for cell, value in results.items():
        xml, count = re.subn(rf'(<c r="{cell}"[^>]*>\s*<f>[^<]*</f>)\s*<v\s*/>', rf"\g<1><v>{value}</v>", xml)
        assert count == 1, f"no formula in {cell}"
    parts["xl/worksheets/sheet1.xml"] = xml.encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in parts.items():
            archive.writestr(name, data)
    return path


# ------------------------------------------------------------------ flags
def flag_column_book(path: Path) -> Path:
    """Eurostat download layout: each year a value column and a flag column beside it (its header
    merged over both), flags in the first data row."""
    rows = [["GEO (Labels)", 2021, None, 2022, None],
            ["Region A", 120, "e", 130, "p"],
            ["Region B", 80, None, 60, None],
            ["Total", 200, None, 190, None]]
    return book(path, rows, merges=["B3:C3", "D3:E3"])


# ------------------------------------------------------------------ codes and names
ACTIVITIES = [  # code, name, enterprises, persons employed
    ("01", "Crop and animal production", 30, 310),
    ("011", "Non-perennial crops", 12, 100),
    ("012", "Perennial crops", 18, 210),
    ("02", "Forestry and logging", 9, 41),
    ("021", "Silviculture", 4, 11),
    ("022", "Logging", 5, 30),
]
TOTAL_ACTIVITY = ("TOTAL", "All activities", 39, 351)


def code_name_rows(totals_last: bool = False, total_code: str | None = "TOTAL") -> list[list[object]]:
    """Code column, name column, two data columns; the total row's code as given."""
    header = ["Code", "Activity", "Enterprises", "Persons employed"]
    total = [total_code, TOTAL_ACTIVITY[1], *TOTAL_ACTIVITY[2:]]
    rows = [list(a) for a in ACTIVITIES]
    if totals_last:  # children before their parents, the total last
        rows = [rows[1], rows[2], rows[0], rows[4], rows[5], rows[3]]
        return [header, *rows, total]
    return [header, total, *rows]


REGIONS = [  # code, name, indent, value 2022, value 2023
    ("NL0", "Netherlands", 0, 100, 110),
    ("R1", "North", 1, 40, 45),
    ("R11", "Groningen", 2, 25, 27),
    ("R12", "Friesland", 2, 15, 18),
    ("R2", "South", 1, 60, 65),
    ("R21", "Limburg", 2, 60, 65),
]


# ------------------------------------------------------------------ merged headers
def quarter_rows() -> list[list[object]]:
    """Region x (year > quarter, with each year's total 'Year', and a grand total)."""
    quarters = {"North": [(1, 2, 3, 4), (5, 6, 7, 8)], "South": [(2, 3, 4, 5), (6, 7, 8, 9)]}
    header = [["Region", 2022, None, None, None, None, 2023, None, None, None, None, "Total"],
              [None, "Q1", "Q2", "Q3", "Q4", "Year", "Q1", "Q2", "Q3", "Q4", "Year", None]]
    rows = []
    for name, years in quarters.items():
        row = [name]
        for year in years:
            row += [*year, sum(year)]
        rows.append([*row, sum(map(sum, years))])
    total = ["Total", *[a + b for a, b in zip(rows[0][1:], rows[1][1:])]]
    return header + rows + [total]


QUARTER_MERGES = ["B3:F3", "G3:K3", "L3:L4"]
