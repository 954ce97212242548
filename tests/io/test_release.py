"""A release reveals nothing it protects (issue 11, "publish safely").

Every XML part of a release is searched for every spelling of every sensitive original;
sensitive and non-sensitive cells must look alike; the values must be the protected table.
Sources: an Excel sheet with formulas outside the table referencing sensitive cells (with their
saved results), a title formula, notes, marks on the sensitive cells, a defined name, a hidden
sheet and document properties; a JJ table (default layout); a tau-argus .tab.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import numpy as np
import openpyxl
import pytest
from openpyxl.comments import Comment
from openpyxl.styles import Font, PatternFill
from openpyxl.workbook.defined_name import DefinedName

from ctadesk.engine.methods import solve
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.result import SolveOptions
from ctadesk.engine.table.guess import guess_structure
from ctadesk.engine.table.structure import Dimension, TableStructure
from ctadesk.io.excel import ExportReport, export_table_workbook, export_workbook, import_table
from ctadesk.io.jj import read_jj, write_jj
from ctadesk.io.tauargus import read_tab, write_tab

INNER = np.array([[4817.0, 25613.0, 70422.0], [162.0, 31337.0, 58290.0], [19754.0, 8861.0, 44708.0]])
#: sheet cells of the sensitive originals 4817, 162 and 31337, and their table indices (4 x 4, margins last)
SENSITIVE_CELLS = ("B4", "B5", "C5")
SENSITIVE = np.array([0, 4, 5])
SEED = "918273645"
TAB = Path("/work/shared/formats/tauargus-examples/pp.tab")


# ------------------------------------------------------------------ sources
def _with_saved_results(path: Path, results: dict[str, object]) -> None:
    """Give formula cells of the first sheet the saved results Excel would have stored."""
    with zipfile.ZipFile(path) as archive:
        parts = {name: archive.read(name) for name in archive.namelist()}
    sheet = parts["xl/worksheets/sheet1.xml"].decode()
    for coordinate, value in results.items():
        kind = ' t="str"' if isinstance(value, str) else ""
        sheet, found = re.subn(rf'(<c r="{coordinate}")([^>]*)><f>(.*?)</f><v\s*/></c>',
                               lambda m, kind=kind, value=value: f"{m[1]}{m[2]}{kind}><f>{m[3]}</f><v>{value}</v></c>",
                               sheet)
        assert found == 1, coordinate
    parts["xl/worksheets/sheet1.xml"] = sheet.encode()
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in parts.items():
            archive.writestr(name, data)


def marked_book(path: Path) -> Path:
    """A sheet as a statistician left it: sensitive cells shaded, commented and flagged by their
    number format; formulas outside the table that show originals; a hidden sheet of originals."""
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Turnover"
    sheet["A1"] = '="Largest cell: "&MAX(B4:D6)'
    sheet["A1"].font = Font(bold=True, size=14)
    for j, name in enumerate(["Region", "Small", "Medium", "Large", "Total"]):
        sheet.cell(3, j + 1, name).font = Font(bold=True)
    full = np.vstack([INNER, INNER.sum(0)])
    full = np.hstack([full, full.sum(1, keepdims=True)])
    for i, name in enumerate(["North", "East", "South", "Total"]):
        sheet.cell(4 + i, 1, name)
        for j in range(4):
            sheet.cell(4 + i, 2 + j, float(full[i, j])).number_format = "#,##0"
    for coordinate in SENSITIVE_CELLS:
        sheet[coordinate].fill = PatternFill("solid", start_color="FFFF0000", end_color="FFFF0000")
        sheet[coordinate].number_format = '#,##0" *"'
        sheet[coordinate].comment = Comment(f"confidential: {sheet[coordinate].value:g}", "checker")
    sheet["A9"] = "Source: survey; East small was 162 before checks"
    sheet["A10"] = '="Check: "&B4'
    sheet["A11"] = "* confidential"
    sheet["H4"] = "=B4"
    hidden = book.create_sheet("Contributions")
    hidden.sheet_state = "hidden"
    hidden["A1"] = 31337.0
    book.defined_names["largest"] = DefinedName("largest", attr_text="Turnover!$C$5")
    book.properties.title = "Turnover (largest cell 31337)"
    book.save(path)
    _with_saved_results(path, {"A1": "Largest cell: 31337", "A10": "Check: 4817", "H4": 4817})
    return path


def protect(values: np.ndarray, relations, sensitive: np.ndarray = SENSITIVE):
    """The sensitive cells protected at 20 % of their value (MILP)."""
    level = 0.2 * values[sensitive]
    problem = CTAProblem(values, relations, lower=0.0, sensitive=sensitive, lower_protection=level,
                         upper_protection=level)
    result = solve(problem, "milp", SolveOptions(time_limit=30))
    assert result.protected
    return problem, result


def report_of(problem: CTAProblem, result) -> ExportReport:
    return ExportReport.from_result(result.replace(log="solver line one\nsolver line two"), problem.values,
                                    problem.sensitive, {"protection": "20 %"},
                                    internal_settings=[("widening seed (secret)", SEED)])


def excel_release(tmp_path: Path, internal: bool = False):
    table = import_table(marked_book(tmp_path / "source.xlsx"))
    assert table.values[SENSITIVE].tolist() == [4817, 162, 31337]
    problem, result = protect(table.values, table.structure.relations())
    outcome = export_workbook(tmp_path / ("internal.xlsx" if internal else "release.xlsx"), [table],
                              [result.values], [problem.sensitive], internal=internal,
                              report=report_of(problem, result))
    return table, problem, result, outcome


def jj_table(tmp_path: Path) -> tuple[TableStructure, CTAProblem]:
    """The same table, read back from a JJ file (no layout: the structure is recognised)."""
    structure = TableStructure.flat(3, 3)
    values = structure.aggregate(np.vstack([np.hstack([INNER, np.zeros((3, 1))]), np.zeros((1, 4))]))
    problem, _ = protect(values, structure.relations())
    write_jj(tmp_path / "table.jj", problem)
    problem = read_jj(tmp_path / "table.jj").problem
    return guess_structure(problem), problem


# ----------------------------------------------------------------- scanning
def spellings(value: float) -> set[str]:
    """Every way a number may be written down: repr, :g, rounded, with thousands separators."""
    whole = round(value)
    return {repr(value), f"{value:g}", str(whole), f"{whole:,}", f"{value:,.2f}", f"{value:.2f}",
            f"{whole:,}".replace(",", "."), f"{whole:,}".replace(",", " ")}


def leaks(path: Path, originals) -> list[tuple[str, str]]:
    """(part, spelling) for every spelling of an original found in any part of the archive."""
    found = []
    with zipfile.ZipFile(path) as archive:
        for name in archive.namelist():
            text = archive.read(name).decode("utf-8", "replace")
            for value in originals:
                for spelling in spellings(float(value)):
                    if re.search(rf"(?<![\d.,]){re.escape(spelling)}(?![\d]|[.,]\d)", text):
                        found.append((name, spelling))
    return found


def sheet_xml(path: Path, sheet: int = 1) -> str:
    with zipfile.ZipFile(path) as archive:
        return archive.read(f"xl/worksheets/sheet{sheet}.xml").decode()


def cell_attributes(xml: str, coordinate: str) -> str:
    """The attributes of a cell's <c> element other than its address and value type (its style)."""
    match = re.search(rf'<c r="{coordinate}"([^>]*)>', xml)
    return re.sub(r'\s(t)="[^"]*"', "", match[1]).strip()


def look(cell) -> tuple:
    """Everything about a cell's appearance a reader could compare."""
    return (repr(cell.font), repr(cell.fill), repr(cell.border), repr(cell.alignment), repr(cell.protection),
            cell.number_format, cell.comment)


# -------------------------------------------------------------------- Excel
def test_release_of_a_marked_excel_source_shows_no_original_anywhere(tmp_path):
    # was: the title formula's saved "Largest cell: 31337", the note "... was 162" and
    # "Check: 4817" were copied into the release
    table, problem, result, outcome = excel_release(tmp_path)
    originals = table.values[problem.sensitive]
    assert leaks(tmp_path / "source.xlsx", originals)  # the scan does find them in the source
    assert leaks(outcome.path, originals) == []
    with zipfile.ZipFile(outcome.path) as archive:
        everything = "".join(archive.read(name).decode("utf-8", "replace") for name in archive.namelist())
    assert not re.search(r"<f[\s>]|<definedName[\s>]|<comment[\s>]", everything)
    assert SEED not in everything and "solver line" not in everything and "Contributions" not in everything
    again = import_table(outcome.path, "Turnover")
    np.testing.assert_allclose(again.values, result.values, rtol=1e-12)


def test_release_cells_look_alike_whether_sensitive_or_not(tmp_path):
    # was: sensitive cells shaded, with the source's '#,##0" *"' flag and a note saying they were adjusted
    table, _, result, outcome = excel_release(tmp_path)
    sheet = openpyxl.load_workbook(outcome.path)["Turnover"]
    xml = sheet_xml(outcome.path)
    coordinates = [f"{openpyxl.utils.get_column_letter(c + 1)}{r + 1}"
                   for r, c in map(table.cell_position, range(table.values.size))]
    assert {look(sheet[c]) for c in coordinates} == {look(sheet["C4"])}  # one appearance for all cells
    assert {cell_attributes(xml, c) for c in coordinates} == {cell_attributes(xml, "C4")}
    texts = " ".join(str(c.value) for row in sheet.iter_rows() for c in row if isinstance(c.value, str))
    assert "sensitive" not in texts.lower() and "adjusted" not in texts.lower()
    np.testing.assert_allclose([sheet[c].value for c in coordinates], result.values, rtol=1e-12)


def test_the_export_report_lists_what_was_left_out_and_why(tmp_path):
    # was: export_workbook returned only the path; what it left out went unsaid
    _, _, _, outcome = excel_release(tmp_path)
    report = "\n".join(outcome.lines())
    for where, why in (("Turnover!A1", "formula"), ("Turnover!A10", "formula"), ("Turnover!H4", "formula"),
                       ("Turnover!A9", "text showing 162"), ("Turnover!B4", "comment"),
                       ("source.xlsx", "defined names (largest)"),
                       ("source.xlsx", "sheets not exported (Contributions)"),
                       ("source.xlsx", "document properties")):
        assert any(item.where == where and why in item.why for item in outcome.dropped), (where, why, report)
    assert "Turnover!A11" not in report  # a plain footnote without a figure is kept
    sheet = openpyxl.load_workbook(outcome.path)["Turnover"]
    assert sheet["A11"].value == "* confidential" and sheet["A3"].value == "Region"


def test_internal_workbook_keeps_the_marks_originals_secret_settings_and_one_log_line_a_row(tmp_path):
    # was: the Log sheet held one character per row (tuple() of the log string)
    *_, outcome = excel_release(tmp_path, internal=True)
    book = openpyxl.load_workbook(outcome.path)
    assert book.sheetnames == ["Turnover", "Turnover ORIGINAL", "Turnover DIFFERENCE", "Quality", "Method", "Log"]
    shaded = {c.coordinate for row in book["Turnover"].iter_rows() for c in row if c.fill.fgColor.rgb == "FFF8CBAD"}
    assert shaded == set(SENSITIVE_CELLS)
    assert [book["Turnover ORIGINAL"][c].value for c in SENSITIVE_CELLS] == [4817, 162, 31337]
    log = [row[0] for row in book["Log"].iter_rows(min_row=2, values_only=True)]
    assert log[-2:] == ["solver line one", "solver line two"]
    assert dict(book["Method"].iter_rows(min_row=2, values_only=True))["widening seed (secret)"] == SEED


# ------------------------------------------------------- default layout
def test_release_of_a_jj_table_in_the_default_layout(tmp_path):
    # was: release and internal workbooks existed only for tables imported from Excel
    structure, problem = jj_table(tmp_path)
    assert structure.shape == (4, 4)
    result = solve(problem, "milp", SolveOptions(time_limit=30))
    release = export_table_workbook(tmp_path / "release.xlsx", structure, problem.values, result.values,
                                    problem.sensitive, report=report_of(problem, result))
    assert leaks(release.path, problem.values[problem.sensitive]) == []
    again = import_table(release.path, "Table")
    np.testing.assert_allclose(again.values, result.values, rtol=1e-12)
    assert again.structure.dimensions[0].codes == structure.dimensions[0].codes
    sheet = openpyxl.load_workbook(release.path)["Table"]
    cells = [sheet.cell(4 + i, 2 + j) for i in range(4) for j in range(4)]
    assert len({look(c) for c in cells}) == 1
    xml = sheet_xml(release.path)
    assert len({cell_attributes(xml, c.coordinate) for c in cells}) == 1

    internal = export_table_workbook(tmp_path / "internal.xlsx", structure, problem.values, result.values,
                                     problem.sensitive, internal=True, report=report_of(problem, result))
    book = openpyxl.load_workbook(internal.path)
    assert book.sheetnames == ["Table", "Cells", "Quality", "Method", "Log"]
    rows = list(book["Cells"].iter_rows(min_row=4, values_only=True))
    assert [row[2] for row in rows].count("sensitive") == 3
    assert [row[3] for row in rows if row[2] == "sensitive"] == [4817, 162, 31337]
    assert sum(c.fill.fgColor.rgb == "FFF8CBAD" for row in book["Table"].iter_rows() for c in row) == 3


def test_three_dimensional_tables_get_a_sheet_per_slice_or_one_long_sheet(tmp_path, monkeypatch):
    from ctadesk.io.excel import grid

    structure = TableStructure((Dimension.flat("Year", ["2023", "2024"]), Dimension.flat("Region", ["N", "S"]),
                                Dimension.flat("Size", ["small", "large"])))
    values = structure.aggregate(np.arange(1.0, 28.0).reshape(3, 3, 3))
    adjusted = values + 0.5
    path = export_table_workbook(tmp_path / "cube.xlsx", structure, values, adjusted, np.array([0])).path
    assert openpyxl.load_workbook(path).sheetnames == ["2023", "2024", "Total", "Quality", "Method", "Log"]
    np.testing.assert_allclose(import_table(path, "2024").values, adjusted.reshape(3, 9)[1])

    monkeypatch.setattr(grid, "MAX_SLICE_SHEETS", 2)
    path = export_table_workbook(tmp_path / "long.xlsx", structure, values, adjusted, np.array([0])).path
    rows = list(openpyxl.load_workbook(path)["Table"].iter_rows(min_row=3, values_only=True))
    assert rows[0] == ("Year", "Region", "Size", "Value") and len(rows) == 1 + 27
    assert rows[1] == ("2023", "N", "small", adjusted[0])


# ---------------------------------------------------------------- tau-argus
@pytest.mark.skipif(not TAB.exists(), reason="tau-argus examples missing")
def test_a_release_tab_holds_codes_and_values_but_no_original_cost_or_contribution(tmp_path):
    # was: the cost field kept each original value, the top contributions and statuses stayed
    table, _ = read_tab(TAB).make_additive()
    problem = table.problem()
    result = solve(problem, "milp", SolveOptions(time_limit=30))
    assert result.protected
    written = write_tab(tmp_path / "release.tab", table, result.values)
    secrets = {*table.values[problem.sensitive].tolist(), *table.statistics.top[problem.sensitive].ravel().tolist()}
    fields = {field for line in written.read_text().splitlines() for field in line.split(";")}
    spelled = {f"{value:.2f}".replace(".", ",") for value in secrets if value}
    assert not fields & spelled
    assert all(line.count(";") == 2 for line in written.read_text().splitlines())  # two codes and the value
    rda = written.with_suffix(".rda").read_text()
    assert "<STATUS>" not in rda and "<MAXSCORE>" not in rda and "<COSTVAR>" not in rda
    again = read_tab(written)
    listed = table.lines > 0
    np.testing.assert_allclose(again.values[listed], result.values[listed], atol=0.005)
