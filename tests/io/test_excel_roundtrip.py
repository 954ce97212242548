"""Import -> protect (LP) -> export -> re-import keeps layout and gives the adjusted values."""

from __future__ import annotations

import re
import zipfile

import numpy as np
import openpyxl
import pytest

from ctadesk.engine.methods import solve
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.table.linked import LinkedTables
from ctadesk.io.excel import ExportReport, export_workbook, import_table, import_workbook
from tests.io import excel_books as books

BOOKS = {
    "flat, totals last": lambda p: books.flat_book(p, total_first=False),
    "flat, totals first": lambda p: books.flat_book(p, total_first=True),
    "hierarchical rows, indented, totals first": lambda p: books.hierarchical_rows_book(p, True),
    "hierarchical rows, headings and subtotals last": lambda p: books.hierarchical_rows_book(p, False),
    "hierarchical rows in two label columns": books.two_label_columns_book,
    "hierarchical columns under merged headers": books.hierarchical_columns_book,
}


def protect(values: np.ndarray, relations, inner: np.ndarray):
    """Small inner cells (< 40) are sensitive with 25 % protection; LP method."""
    sensitive = np.flatnonzero(inner & (values < 40))
    level = np.maximum(0.25 * values[sensitive], 1.0)
    problem = CTAProblem(values, relations, lower=np.zeros(values.size), sensitive=sensitive,
                         lower_protection=level, upper_protection=level)
    result = solve(problem, "lp")
    assert result.protected
    return problem, result


def sheet_snapshot(path, sheet):
    ws = openpyxl.load_workbook(path)[sheet]
    labels = {c.coordinate: c.value for row in ws.iter_rows() for c in row if isinstance(c.value, str)}
    formats = {c.coordinate: c.number_format for row in ws.iter_rows() for c in row
               if isinstance(c.value, (int, float))}
    return labels, sorted(str(r) for r in ws.merged_cells.ranges), formats


@pytest.mark.parametrize("name", list(BOOKS))
def test_round_trip_gives_adjusted_values_in_the_same_layout(tmp_path, name):
    source = BOOKS[name](tmp_path / "in.xlsx")
    table = import_table(source)
    problem, result = protect(table.values, table.structure.relations(), table.structure.inner_mask())
    assert problem.n_sensitive >= 2
    target = export_workbook(tmp_path / "out.xlsx", [table], [result.values], [problem.sensitive]).path

    again = import_table(target, table.sheet)
    np.testing.assert_allclose(again.values, result.values, rtol=1e-12)
    assert not np.allclose(again.values, table.values)
    for before, after in zip(table.structure.dimensions, again.structure.dimensions):
        assert after.codes == before.codes
        assert after.parents.tolist() == before.parents.tolist()
    labels_in, merged_in, _ = sheet_snapshot(source, table.sheet)
    labels_out, merged_out, formats_out = sheet_snapshot(target, table.sheet)
    assert merged_out == merged_in
    assert {k: v for k, v in labels_out.items() if k in labels_in} == {
        k: v for k, v in labels_in.items() if k in labels_out or k not in formats_out}
    assert all(formats_out[k] == books.NUMBER_FORMAT for k in formats_out if k not in labels_in)


def test_sensitive_cells_are_shaded_and_explained_in_the_internal_workbook(tmp_path):
    table = import_table(books.flat_book(tmp_path / "in.xlsx"))
    problem, result = protect(table.values, table.structure.relations(), table.structure.inner_mask())
    target = export_workbook(tmp_path / "out.xlsx", [table], [result.values], [problem.sensitive],
                             internal=True).path
    ws = openpyxl.load_workbook(target)[table.sheet]
    shaded = sorted(c.coordinate for row in ws.iter_rows() for c in row if c.fill.fgColor.rgb == "FFF8CBAD")
    expected = sorted(openpyxl.utils.get_column_letter(table.cell_position(i)[1] + 1)
                      + str(table.cell_position(i)[0] + 1) for i in problem.sensitive)
    assert shaded == expected
    assert any(isinstance(c.value, str) and "adjusted" in c.value for row in ws.iter_rows() for c in row)


def test_two_linked_sheets_share_their_region_totals_and_stay_consistent(tmp_path):
    tables = import_workbook(books.linked_book(tmp_path / "in.xlsx"))
    linked = LinkedTables.link([t.structure for t in tables])
    assert linked.n_shared == 5  # four region totals and the grand total
    values = linked.gather([t.values for t in tables])
    inner = np.zeros(linked.n_cells, bool)
    for t, cell_map in zip(tables, linked.cell_maps):
        inner[cell_map[t.structure.inner_mask()]] = True
    problem, result = protect(values, linked.relations(), inner)
    per_table = linked.scatter(result.values)
    sensitive = [linked.table_indices(problem.sensitive, k) for k in range(len(tables))]
    target = export_workbook(tmp_path / "out.xlsx", tables, per_table, sensitive).path

    again = import_workbook(target, [t.sheet for t in tables])
    for table, expected in zip(again, per_table):
        np.testing.assert_allclose(table.values, expected, rtol=1e-12)
    size_totals = again[0].values.reshape(again[0].structure.shape)[:, -1]
    sector_totals = again[1].values.reshape(again[1].structure.shape)[:, -1]
    np.testing.assert_allclose(size_totals, sector_totals)
    assert abs(linked.relations() @ linked.gather([t.values for t in again])).max() < 1e-6


def _all_workbook_text(path) -> str:
    with zipfile.ZipFile(path) as archive:
        return "\n".join(archive.read(name).decode("utf-8", "replace") for name in archive.namelist())


def _numbers_in_values_and_texts(path) -> set[float]:
    """Every number in a cell value (<v>) or a text (<t>) of any part of the archive."""
    raw = _all_workbook_text(path)
    contents = re.findall(r"<v>([^<]*)</v>", raw) + re.findall(r"<t[^>]*>([^<]*)</t>", raw)
    return {float(token) for text in contents for token in re.findall(r"-?\d+(?:\.\d+)?", text)}


def test_release_workbook_holds_no_original_value_of_a_sensitive_cell_anywhere(tmp_path):
    source = books.flat_book(tmp_path / "in.xlsx")
    wb = openpyxl.load_workbook(source)
    ws = wb["Turnover"]
    secret = wb.create_sheet("Contributions")
    secret.sheet_state = "hidden"
    secret["A1"] = float(books.INNER[1, 1])
    ws["G5"] = float(books.INNER[3, 1])
    ws["G6"] = "=C5*2"
    ws["A5"].comment = openpyxl.comments.Comment(f"was {books.INNER[1, 1]:g}", "someone")
    wb.defined_names["secret"] = openpyxl.workbook.defined_name.DefinedName("secret", attr_text="Contributions!$A$1")
    wb.save(source)
    table = import_table(source, "Turnover")
    problem, result = protect(table.values, table.structure.relations(), table.structure.inner_mask())
    original = table.values[problem.sensitive]
    assert np.all(np.abs(result.values[problem.sensitive] - original) > 0.2 * original)
    report = ExportReport.from_result(result, table.values, problem.sensitive, {"protection": "25 %"})
    target = export_workbook(tmp_path / "release.xlsx", [table], [result.values], [problem.sensitive],
                             report=report).path

    released = openpyxl.load_workbook(target)
    assert released.sheetnames == ["Turnover", "Quality", "Method", "Log"]
    assert not released.defined_names
    numbers, texts = [], []
    for sheet in released.worksheets:
        assert sheet.sheet_state == "visible"
        for row in sheet.iter_rows():
            for cell in row:
                assert cell.comment is None
                assert cell.data_type != "f"
                (numbers if isinstance(cell.value, (int, float)) else texts).append(cell.value)
    for value in original:
        assert value not in numbers
    assert set(original.tolist()) <= _numbers_in_values_and_texts(source)
    assert not set(original.tolist()) & _numbers_in_values_and_texts(target)
    raw = _all_workbook_text(target)
    assert "Contributions" not in raw and "C5*2" not in raw


def test_internal_workbook_holds_originals_and_differences_clearly_named(tmp_path):
    table = import_table(books.flat_book(tmp_path / "in.xlsx"))
    problem, result = protect(table.values, table.structure.relations(), table.structure.inner_mask())
    target = export_workbook(tmp_path / "internal.xlsx", [table], [result.values], [problem.sensitive],
                             internal=True).path
    assert openpyxl.load_workbook(target).sheetnames == [
        "Turnover", "Turnover ORIGINAL", "Turnover DIFFERENCE", "Quality", "Method", "Log"]
    original = import_table(target, "Turnover ORIGINAL")
    difference = import_table(target, "Turnover DIFFERENCE")
    np.testing.assert_allclose(original.values, table.values)
    np.testing.assert_allclose(difference.values, result.values - table.values, atol=1e-9)


def test_text_that_looks_like_a_formula_is_written_as_text(tmp_path):
    source = books.flat_book(tmp_path / "in.xlsx")
    wb = openpyxl.load_workbook(source)
    wb["Turnover"]["A14"] = "'=HYPERLINK(\"http://x\")"
    wb["Turnover"]["A14"].value = "=HYPERLINK(\"http://x\")"
    wb["Turnover"]["A14"].data_type = "s"
    wb["Turnover"]["A15"] = "-5 % compared with 2022"
    wb["Turnover"]["A16"] = "@mention"
    wb.save(source)
    table = import_table(source)
    target = export_workbook(tmp_path / "out.xlsx", [table], [table.values], [np.zeros(0, int)]).path
    ws = openpyxl.load_workbook(target)["Turnover"]
    assert ws["A14"].value == "=HYPERLINK(\"http://x\")" and ws["A14"].data_type == "s"
    assert ws["A15"].data_type == "s" and ws["A16"].data_type == "s"
    assert "<f>" not in _all_workbook_text(target)
