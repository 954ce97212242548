"""The app's importers check the structure on the data (issue 29): a table whose totals do not
add up is refused naming the file, sheet, relation and amount; hidden rows the totals include
stay in the table; a share column beside it is left out."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import openpyxl
import pytest

from ctadesk.app import files
from ctadesk.app.formats import read_table
from ctadesk.io.additivity import NonAdditiveError
from ctadesk.io.excel import build_table, export_workbook, import_table, read_layout
from ctadesk.io.tauargus import read_tab
from tests.io import office_books as office

SAMPLES = Path(__file__).resolve().parents[2] / "sample_data"
ROWS = [["Region", "Small", "Large", "Total"], ["North", 10, 51, 61], ["East", 4000, 4642, 8642],
        ["South", 30, 40, 70], ["Total", 4040, 4733, 8773]]


def adds_up(project) -> bool:
    return bool(np.all(np.abs(project.relations @ project.values - project.rhs) == 0))


def test_a_hidden_row_the_totals_include_stays_in_the_table_and_hidden_in_the_release(tmp_path):
    # was: the hidden row left out, the totals kept (61 -> 8 703, "optimal, verified")
    path = office.book(tmp_path / "h.xlsx", ROWS, hidden_rows=[5])
    project = files.project_from_excel([import_table(path)])
    assert project.structure.dimensions[0].codes == ("North", "East", "South", "Total") and adds_up(project)
    assert "hidden rows 5 are in the table: its totals include them" in project.log
    table = project.source.tables[0]
    release = export_workbook(tmp_path / "r.xlsx", [table], [table.values + 0], [np.zeros(0, int)]).path
    sheet = openpyxl.load_workbook(release)["Table"]
    assert sheet.row_dimensions[5].hidden and sheet["B5"].value == 4000


def test_a_share_column_beside_the_table_is_left_out_not_taken_as_a_part(tmp_path):
    rows = [[*ROWS[0], "Share %"]] + [[*row, round(row[3] / 8773, 4)] for row in ROWS[1:]]
    project = files.project_from_excel([import_table(office.book(tmp_path / "s.xlsx", rows))])
    assert project.structure.dimensions[1].codes == ("Small", "Large", "Total") and adds_up(project)
    assert "column(s) E ('Share %') left out of the table" in project.log


def test_a_table_whose_totals_do_not_add_up_is_refused_naming_sheet_relation_and_amount(tmp_path):
    rows = [list(row) for row in ROWS]
    rows[1][3] = 60  # North's total 60, its parts 61
    with pytest.raises(NonAdditiveError) as caught:
        files.project_from_excel([import_table(office.book(tmp_path / "bad.xlsx", rows))])
    message = str(caught.value)
    assert message.startswith("bad.xlsx, sheet 'Table': 2 relation(s) do not add up: ")
    assert "Columns=Total = sum of its parts at Region=North is off by -1" in message


def test_rows_ignored_in_the_import_layout_that_the_totals_include_are_refused(tmp_path):
    # was: Eurostat-style rows ignored as suggested left a total that no longer matched its parts
    grid, layout = read_layout(office.book(tmp_path / "e.xlsx", ROWS))
    layout.data_rows = [r for r in layout.data_rows if r != 4]  # East ignored
    with pytest.raises(NonAdditiveError, match=r"e.xlsx, sheet 'Table': 3 relation\(s\).*Region=Total = sum of "
                                               r"its parts at Columns=Small is off by \+4,000"):
        files.project_from_excel([build_table(grid, layout, tmp_path / "e.xlsx")])


def test_long_and_wide_csv_tables_are_checked_and_a_long_one_needs_a_total_code(tmp_path):
    long = tmp_path / "l.csv"
    long.write_text("region;size;v\nGesamt;klein;5\nA;klein;2\nB;klein;3\n", encoding="cp1252")
    assert adds_up(files.read_csv_table(long, "long"))
    long.write_text("region;size;v\nGesamt;klein;6\nA;klein;2\nB;klein;3\n")
    with pytest.raises(NonAdditiveError, match=r"l.csv: 1 relation\(s\) do not add up: region=Gesamt = sum of "
                                               r"its parts at size=klein is off by \+1"):
        files.read_csv_table(long, "long")
    long.write_text("region;size;v\nA;klein;2\nB;klein;3\n")
    with pytest.raises(NonAdditiveError.__mro__[1], match=r"l\.csv: no total code found in region, size"):
        files.read_csv_table(long, "long")
    assert files.read_csv_table(long, "long", no_totals=True).n_cells == 2
    wide = tmp_path / "w.csv"
    wide.write_text("Region,Small,Large,Total\nNorth,1,2,3\nSouth,3,4,7\nTotal,4,6,11\n")
    with pytest.raises(NonAdditiveError, match=r"w.csv: .*Region=Total = sum of its parts at Columns=Total"):
        files.read_csv_table(wide, "wide")


def test_a_non_additive_jj_is_refused_by_read_table(tmp_path):
    text = (SAMPLES / "thesis_3x4.jj").read_text().splitlines()
    fields = text[2].split()
    fields[1] = str(float(fields[1]) + 5)
    text[2] = " ".join(fields)
    (tmp_path / "t.jj").write_text("\n".join(text) + "\n")
    with pytest.raises(NonAdditiveError, match=r"t.jj: \d relation\(s\) do not add up: relation \d+ \(line \d+\) "
                                               r"is off by [-+]5"):
        read_table(tmp_path / "t.jj")


def test_a_tab_whose_totals_differ_is_refused_unless_the_user_keeps_them(tmp_path):
    for name in ("region_industry.tab", "region_industry.rda", "business_region.hrc", "business_industry.hrc"):
        shutil.copyfile(SAMPLES / name, tmp_path / name)
    lines = (tmp_path / "region_industry.tab").read_text().splitlines()
    lines[0] = lines[0].replace("100636149", "100636150")
    (tmp_path / "region_industry.tab").write_text("\n".join(lines) + "\n")
    table = read_tab(tmp_path / "region_industry.tab")
    with pytest.raises(NonAdditiveError, match=r"region_industry.tab: 2 relation\(s\) do not add up: "
                                               r"Region=Total = sum of its parts at Industry=Total is off by \+1"):
        files.project_from_tab(table)
    assert files.project_from_tab(table, keep_non_additive=True).values[0] == 100636150
    assert adds_up(files.project_from_tab(table.make_additive()[0]))
