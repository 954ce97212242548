"""Tables laid out as offices publish them are read to the right table or refused naming the cell.

Each test is one way a workbook or CSV was silently misread (a wrong table,
no error): flags taken for headers, dot thousands for decimals, code columns
that broke the hierarchy, year > quarter headers without relations, formula
totals without stored results dropped, text numbers taken for labels, hidden
rows and columns read into the table.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from ctadesk.io.csv_dialect import detect_dialect
from ctadesk.io.csv_table import read_long_csv, read_wide_csv
from ctadesk.io.errors import FileFormatError
from ctadesk.io.excel import import_table, read_layout
from tests.io import office_books as office


def grid_of(table) -> np.ndarray:
    return table.values.reshape(table.structure.shape)


def assert_adds_up(table, totals: tuple[int, int]) -> None:
    """The rows and columns have as many totals (codes with parts) as given, and every relation holds."""
    assert tuple(len(set(d.parents[d.parents >= 0].tolist())) for d in table.structure.dimensions) == totals
    assert np.abs(table.structure.relations() @ table.values).max() == 0


# ------------------------------------------------------------------ flags
def test_footnote_flags_and_zero_marks_in_the_first_data_row_are_cells_not_headers(tmp_path):
    rows = [["GEO (Labels)", "2021", "2022", "2023"],
            ["Region A", "120 e", "130", "140 p"],
            ["Region B", 80, "-", "7 bep"],
            ["Total", 200, "130 e", "147"]]
    table = import_table(office.book(tmp_path / "e.xlsx", rows))
    assert table.layout.header_rows == [2]
    assert table.structure.dimensions[0].codes == ("Region A", "Region B", "Total")
    np.testing.assert_array_equal(grid_of(table), [[120, 130, 140], [80, 0, 7], [200, 130, 147]])
    assert_adds_up(table, (1, 0))
    assert any("footnote flag" in note and "'120 e' in B4" in note for note in table.notes)


@pytest.mark.parametrize("mark", [":", "c", "x", "NaN", "..", ".", ": c", "(D)", "#N/A"])
def test_a_cell_whose_value_is_a_flag_is_refused_naming_it(tmp_path, mark):
    rows = [["GEO (Labels)", "2021", "2022", "2023"], ["Region A", 120, mark, 140], ["Region B", 80, 60, 7],
            ["Total", 200, 190, 147]]
    path = office.book(tmp_path / "e.xlsx", rows)
    with pytest.raises(FileFormatError, match=rf"cell C4: '{re.escape(mark)}' is not a number: it marks a value "
                                              "that is not available or confidential"):
        import_table(path)


def test_flags_in_a_long_csv_keep_their_numbers_and_marks_are_refused_naming_the_line(tmp_path):
    table = read_long_csv(office.csv_file(tmp_path / "t.csv", ["region;value", "Total;12,5 p", "A;-", "B;12,5 e"]))
    assert table.values.tolist() == [12.5, 0, 12.5]
    assert any("2 value(s) carry a footnote flag" in message for message in table.messages)
    with pytest.raises(FileFormatError, match=r"u.csv, line 3: value ':' is not a number: it marks a value"):
        read_long_csv(office.csv_file(tmp_path / "u.csv", ["region;value", "Total;12", "A;:", "B;12"]))


def test_flag_columns_beside_the_values_are_left_out(tmp_path):
    table = import_table(office.flag_column_book(tmp_path / "f.xlsx"))
    assert table.structure.dimensions[1].codes == ("2021", "2022")
    np.testing.assert_array_equal(grid_of(table), [[120, 130], [80, 60], [200, 190]])
    assert_adds_up(table, (1, 0))
    assert table.layout.flag_columns == [2, 4]
    assert "flag columns C, E were left out" in table.notes


# ------------------------------------------------------------------ number formats
GERMAN = [["Region", "Klein", "Groß", "Insgesamt"],
          ["Nord", "1.234", "950", "2.184"],
          ["Süd", "12.345", "655", "13.000"],
          ["Insgesamt", "13.579", "1.605", "15.184"]]


def test_dot_thousands_in_a_german_sheet_are_thousands(tmp_path):
    table = import_table(office.book(tmp_path / "de.xlsx", GERMAN))
    np.testing.assert_array_equal(grid_of(table), [[1234, 950, 2184], [12345, 655, 13000], [13579, 1605, 15184]])
    assert_adds_up(table, (1, 1))
    assert table.layout.decimal_comma is True


def test_dot_thousands_in_a_semicolon_csv_are_thousands(tmp_path):
    lines = [";".join(row) for row in GERMAN]
    lines[2] = "Süd;12.345;1.655;14.000"  # no integer below 1000: the semicolon decides
    lines[1] = "Nord;1.234;1.950;3.184"
    lines[3] = "Insgesamt;13.579;3.605;17.184"
    table = read_wide_csv(office.csv_file(tmp_path / "de.csv", lines))
    np.testing.assert_array_equal(grid_of(table), [[1234, 1950, 3184], [12345, 1655, 14000], [13579, 3605, 17184]])
    assert_adds_up(table, (1, 1))
    long = office.csv_file(tmp_path / "long.csv", ["region;value", "Total;13.579", "Nord;1.234", "Süd;12.345"])
    assert read_long_csv(long).values.tolist() == [13579, 1234, 12345]


def test_the_number_format_is_decided_from_all_lines_of_a_file(tmp_path):
    lines = ["region\tvalue"] + [f"R{k}\t{k}.{k:03d}" for k in range(1, 61)] + ["R61\t950"]
    table = read_long_csv(office.csv_file(tmp_path / "t.csv", lines), no_totals=True)
    assert table.values[:2].tolist() == [1001, 2002] and table.values[-1] == 950
    assert table.dialect.decimal_comma is True
    assert detect_dialect((tmp_path / "t.csv").read_text()).decimal_comma is True


@pytest.mark.parametrize("separator", [",", ".", " ", "\u00a0", "\u202f", "'"])
def test_text_numbers_with_thousands_separators_of_every_locale_are_numbers(tmp_path, separator):
    rows = [["Region", "Turnover", "Staff", "Total"],
            ["North", f"1{separator}234", 66, 1300],
            ["South", "750", 50, 800],
            ["Total", f"1{separator}984", 116, 2100]]
    table = import_table(office.book(tmp_path / "t.xlsx", rows))
    assert table.layout.label_columns == [0]
    np.testing.assert_array_equal(grid_of(table), [[1234, 66, 1300], [750, 50, 800], [1984, 116, 2100]])
    assert_adds_up(table, (1, 1))


def test_text_numbers_with_decimals_beside_stored_numbers_are_numbers(tmp_path):
    rows = [["Region", "Turnover", "Staff"],
            ["North", "1 234", 10],
            ["South", "56,789.5", 20],
            ["Total", "58,023.5", 30]]
    table = import_table(office.book(tmp_path / "t.xlsx", rows))
    np.testing.assert_array_equal(grid_of(table), [[1234, 10], [56789.5, 20], [58023.5, 30]])
    assert_adds_up(table, (1, 0))


def test_a_decimal_mark_nothing_decides_is_refused_naming_the_cell_until_chosen(tmp_path):
    rows = [["Region", "Turnover", "Staff"], ["North", "1.234", 10], ["South", "2.500", 20], ["Total", "3.734", 30]]
    path = office.book(tmp_path / "t.xlsx", rows)
    with pytest.raises(FileFormatError, match=r"cannot tell whether '1.234' in B4 is 1234 or 1.234"):
        import_table(path)
    assert grid_of(import_table(path, decimal_comma=True))[:, 0].tolist() == [1234, 2500, 3734]
    assert grid_of(import_table(path, decimal_comma=False))[:, 0].tolist() == [1.234, 2.5, 3.734]


# ------------------------------------------------------------------ codes and names
def expected_activities(table) -> None:
    rows = table.structure.dimensions[0]
    parent = {code.split()[0]: rows.codes[p].split()[0] if p >= 0 else None
              for code, p in zip(rows.codes, rows.parents)}
    assert parent == {"TOTAL": None, "01": "TOTAL", "011": "01", "012": "01", "02": "TOTAL", "021": "02",
                      "022": "02"}
    assert "01 Crop and animal production" in rows.codes
    assert_adds_up(table, (3, 0))


@pytest.mark.parametrize("totals_last", [False, True])
def test_a_code_column_beside_a_name_column_gives_the_hierarchy(tmp_path, totals_last):
    table = import_table(office.book(tmp_path / "c.xlsx", office.code_name_rows(totals_last)))
    expected_activities(table)
    assert table.structure.dimensions[0].name == "Activity"
    assert table.layout.code_columns == [0] and table.layout.label_columns == [0, 1]


def test_a_total_row_without_code_heads_the_coded_rows(tmp_path):
    table = import_table(office.book(tmp_path / "c.xlsx", office.code_name_rows(total_code=None)))
    rows = table.structure.dimensions[0]
    assert rows.codes[0] == "All activities" and rows.parents.tolist() == [-1, 0, 1, 1, 0, 4, 4]
    assert_adds_up(table, (3, 0))


def test_codes_and_names_in_a_csv_keep_their_leading_zeros(tmp_path):
    lines = [";".join("" if v is None else str(v) for v in row) for row in office.code_name_rows()]
    table = read_wide_csv(office.csv_file(tmp_path / "c.csv", lines))
    expected_activities(table)


def test_codes_beside_indented_names_take_the_hierarchy_from_the_indentation(tmp_path):
    rows = [["Code", "Region", 2022, 2023]] + [[code, name, a, b] for code, name, _, a, b in office.REGIONS]
    indents = {f"B{4 + k}": indent for k, (_, _, indent, _, _) in enumerate(office.REGIONS)}
    table = import_table(office.book(tmp_path / "r.xlsx", rows, indents=indents))
    assert table.structure.dimensions[0].parents.tolist() == [-1, 0, 1, 1, 0, 4]
    assert_adds_up(table, (3, 0))


def test_eurostat_geo_codes_nest_by_characters_beside_an_aggregate_with_a_separator(tmp_path):
    rows = [["GEO (Codes)", "GEO (Labels)", "2022", "2023"], ["EU27_2020", "European Union - 27 countries", 900, 950],
            ["BE", "Belgium", 30, 32], ["BE1", "Brussels region", 10, 11], ["BE10", "Brussels", 10, 11],
            ["BE2", "Flemish Region", 20, 21], ["BE21", "Antwerpen", 20, 21]]
    table = import_table(office.book(tmp_path / "geo.xlsx", rows))
    assert table.structure.dimensions[0].parents.tolist() == [-1, -1, 1, 2, 1, 4]
    assert_adds_up(table, (3, 0))


def test_codes_that_only_look_nested_are_plain_labels_and_half_nested_codes_are_refused(tmp_path):
    months = [["Code", "Month", "Sales"], ["1", "January", 5], ["2", "February", 7], ["10", "October", 9],
              ["11", "November", 4], ["", "Total", 25]]
    table = import_table(office.book(tmp_path / "m.xlsx", months))
    assert table.structure.dimensions[0].parents.tolist() == [4, 4, 4, 4, -1]  # '1' is no total of '10', '11'
    assert_adds_up(table, (1, 0))
    rows = office.code_name_rows()
    rows[6][2] = 8  # 021 Silviculture: 02 = 9 is no longer 8 + 5
    with pytest.raises(FileFormatError, match=r"by its code '02', row 8 is the total of rows 9, 10, but its 9 in "
                                              r"C8 is not their sum 13"):
        import_table(office.book(tmp_path / "c.xlsx", rows))


# ------------------------------------------------------------------ merged headers
def test_year_over_quarter_headers_with_year_totals_give_the_relations(tmp_path):
    table = import_table(office.book(tmp_path / "q.xlsx", office.quarter_rows(), merges=office.QUARTER_MERGES))
    columns = table.structure.dimensions[1]
    assert columns.codes == ("2022 / Q1", "2022 / Q2", "2022 / Q3", "2022 / Q4", "2022",
                             "2023 / Q1", "2023 / Q2", "2023 / Q3", "2023 / Q4", "2023", "Total")
    assert columns.parents.tolist() == [4, 4, 4, 4, 10, 9, 9, 9, 9, 10, -1]
    assert_adds_up(table, (1, 3))


# ------------------------------------------------------------------ formulas
FORMULA_ROWS = [["Region", "Small", "Large", "Total"],
                ["North", 10, 20, "=B4+C4"],
                ["South", 30, 40, "=B5+C5"],
                ["Total", "=SUM(B4:B5)", "=SUM(C4:C5)", "=SUM(D4:D5)"]]


def test_formula_totals_without_stored_results_are_computed(tmp_path):
    table = import_table(office.book(tmp_path / "f.xlsx", FORMULA_ROWS))
    np.testing.assert_array_equal(grid_of(table), [[10, 20, 30], [30, 40, 70], [40, 60, 100]])
    assert_adds_up(table, (1, 1))


def test_stored_results_are_read_and_missing_ones_computed(tmp_path):
    path = office.store_results(office.book(tmp_path / "f.xlsx", FORMULA_ROWS), {"D4": 30, "B6": 40, "D6": 100})
    table = import_table(path)
    np.testing.assert_array_equal(grid_of(table), [[10, 20, 30], [30, 40, 70], [40, 60, 100]])
    assert_adds_up(table, (1, 1))


@pytest.mark.parametrize("formula, why", [("=ROUND(SUM(D4:D5),0)", "only SUM and"),
                                          ("=D4+Sheet2!D5", "only SUM and"),
                                          ("=D4+A5", "A5 holds 'South', not a number")])
def test_a_formula_total_that_cannot_be_computed_is_refused_naming_the_cell(tmp_path, formula, why):
    rows = [list(row) for row in FORMULA_ROWS]
    rows[3][3] = formula
    with pytest.raises(FileFormatError, match=rf"cell D6: the formula {re.escape(formula)} has no stored result.*"
                                              rf"{re.escape(why)}"):
        import_table(office.book(tmp_path / "f.xlsx", rows))


# ------------------------------------------------------------------ hidden rows and columns
HIDDEN_ROWS = [["Region", "Small", "Share %", "Large", "Total"],
               ["North", 10, 0.33, 20, 30],
               ["of which exports", 4, 0.1, 5, 9],
               ["South", 30, 0.43, 40, 70],
               ["Total", 40, 0.4, 60, 100]]


def test_hidden_rows_and_columns_are_left_out_unless_chosen(tmp_path):
    path = office.book(tmp_path / "h.xlsx", HIDDEN_ROWS, hidden_rows=[5], hidden_columns=["C"])
    table = import_table(path)
    assert table.structure.dimensions[0].codes == ("North", "South", "Total")
    assert table.structure.dimensions[1].codes == ("Small", "Large", "Total")
    np.testing.assert_array_equal(grid_of(table), [[10, 20, 30], [30, 40, 70], [40, 60, 100]])
    assert_adds_up(table, (1, 1))
    assert table.layout.hidden_rows == [4] and table.layout.hidden_columns == [2]
    assert "hidden rows (left out): 5" in table.layout.describe()
    chosen = import_table(path, include_hidden=True)
    assert chosen.structure.shape == (4, 4) and chosen.layout.hidden_rows == []
    grid, layout = read_layout(path)
    assert layout.hidden_columns == [2] and 2 in grid.hidden_columns

