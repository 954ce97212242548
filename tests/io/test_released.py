"""Released tables read back over the original's cells: published values and suppressed cells."""

from __future__ import annotations

import numpy as np
import pytest

from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.table.structure import Dimension, TableStructure
from ctadesk.io.errors import FileFormatError
from ctadesk.io.jj import write_jj, write_sol
from ctadesk.io.released import released_csv, released_jj, released_sol, released_tab, released_xlsx

ROWS, COLUMNS = ["I", "II", "III"], ["A", "B", "C"]
VALUES = np.array([[20, 50, 10, 80], [8, 19, 22, 49], [17, 32, 12, 61], [45, 101, 44, 190]], dtype=float)
STRUCTURE = TableStructure((Dimension.flat("Row", ROWS), Dimension.flat("Col", COLUMNS)))
RDA = """   <SEPARATOR> ";"
Row
    <RECODEABLE>
    <TOTCODE> "Total"
Col
    <RECODEABLE>
    <TOTCODE> "Total"
Value
    <NUMERIC>
    <DECIMALS> 0
Status
    <STATUS>
"""


def lines(value=lambda r, c: f"{VALUES[r, c]:g}", status=lambda r, c: "S", separator=";"):
    codes = [*ROWS, "Total"], [*COLUMNS, "Total"]
    return [separator.join([f'"{codes[0][r]}"', f'"{codes[1][c]}"', value(r, c), status(r, c)])
            for r in range(4) for c in range(4)]


def cell(row: int, column: int) -> int:
    return row * 4 + column


def test_a_tab_release_marks_suppressed_statuses_and_blank_values(tmp_path):
    statuses = {(0, 0): "U", (0, 1): "m", (1, 0): "D"}
    text = lines(value=lambda r, c: "" if (r, c) == (1, 1) else f"{VALUES[r, c]:g}",
                 status=lambda r, c: statuses.get((r, c), "S"))
    (tmp_path / "release.tab").write_text("\n".join(text) + "\n")
    (tmp_path / "release.rda").write_text(RDA)
    release = released_tab(tmp_path / "release.tab", STRUCTURE)
    assert np.flatnonzero(release.missing).tolist() == [cell(0, 0), cell(0, 1), cell(1, 0), cell(1, 1)]
    assert np.isnan(release.published[release.missing]).all()
    assert release.published[cell(3, 3)] == 190 and release.messages == ()


def test_a_csv_release_reads_blanks_and_marks_as_suppressed_and_names_unlisted_cells(tmp_path):
    body = [f"{r};{c};{'x' if (r, c) == ('I', 'A') else ('' if (r, c) == ('II', 'B') else '1')}"
            for r in [*ROWS, "Total"] for c in [*COLUMNS, "Total"] if (r, c) != ("III", "C")]
    (tmp_path / "release.csv").write_text("\n".join(["Row;Col;Value", *body]) + "\n")
    release = released_csv(tmp_path / "release.csv", STRUCTURE)
    assert np.flatnonzero(release.missing).tolist() == [cell(0, 0), cell(1, 1), cell(2, 2)]
    assert release.messages == ("1 cell(s) the file does not list were taken as not published",)


def test_a_jj_release_suppresses_its_u_and_m_cells_and_a_sol_release_publishes_all(tmp_path):
    problem = CTAProblem(VALUES.reshape(-1), STRUCTURE.relations(), sensitive=[0])
    statuses = np.full(16, "s")
    statuses[[0, 5]] = ["u", "m"]
    write_jj(tmp_path / "release.jj", problem, statuses)
    release = released_jj(tmp_path / "release.jj", STRUCTURE)
    assert np.flatnonzero(release.missing).tolist() == [0, 5]
    write_sol(tmp_path / "release.sol", problem, VALUES.reshape(-1) + 1)
    adjusted = released_sol(tmp_path / "release.sol", STRUCTURE)
    assert not adjusted.missing.any() and adjusted.published[0] == 21


def test_text_in_a_value_field_is_refused_naming_the_line(tmp_path):
    text = lines(value=lambda r, c: "n.a. here" if (r, c) == (2, 1) else "1")
    (tmp_path / "release.tab").write_text("\n".join(text) + "\n")
    (tmp_path / "release.rda").write_text(RDA)
    with pytest.raises(FileFormatError, match=r"release.tab, line 10: 'n.a. here' is neither a number"):
        released_tab(tmp_path / "release.tab", STRUCTURE)


def test_a_code_the_original_lacks_is_refused_naming_the_line(tmp_path):
    (tmp_path / "release.csv").write_text("Row;Col;Value\nI;A;1\nIV;A;2\n")
    with pytest.raises(FileFormatError, match=r"release.csv, line 3: code 'IV' of Row is not in its hierarchy"):
        released_csv(tmp_path / "release.csv", STRUCTURE)


# ---------------------------------------------------------------- xlsx release workbooks
def write_release(path, structure: TableStructure, published: np.ndarray, blank=()) -> None:
    """The release workbook ctadesk writes for ``structure``, with the cells ``blank`` emptied
    (as a statistician publishing suppressions would)."""
    import openpyxl

    from ctadesk.io.excel import export_table_workbook

    export_table_workbook(path, structure, published, published, np.zeros(0, np.int64))
    if len(blank):
        book = openpyxl.load_workbook(path)
        from ctadesk.io.excel.grid import HEADER_ROW, grid_sheets

        plans = grid_sheets(structure)
        for i in blank:
            if plans is None:
                book["Table"].cell(HEADER_ROW + 1 + int(i), len(structure.dimensions) + 1).value = None
                continue
            for plan in plans:
                where = np.argwhere(plan.cells == i)
                if where.size:
                    r, c = where[0]
                    book[plan.title].cell(HEADER_ROW + 1 + int(r), 2 + int(c)).value = None
        book.save(path)


@pytest.mark.parametrize("shape", [(3,), (3, 4), (2, 3, 4), (60, 2, 2)], ids=["1-D", "2-D", "3-D sheets", "long"])
def test_an_xlsx_release_reads_back_every_value_and_its_blanks_as_suppressed(tmp_path, shape):
    structure = TableStructure.flat(*shape)
    rng = np.random.default_rng(len(shape))
    published = np.round(rng.uniform(0, 1e6, structure.n_cells), rng.integers(0, 4))
    blank = rng.choice(structure.n_cells, size=min(5, structure.n_cells - 1), replace=False)
    write_release(tmp_path / "release.xlsx", structure, published, blank)
    released = released_xlsx(tmp_path / "release.xlsx", structure)
    expected = published.copy()
    expected[blank] = np.nan
    assert np.array_equal(released.missing, np.isnan(expected))
    assert np.array_equal(released.published[~released.missing], expected[~np.isnan(expected)])


def test_an_xlsx_release_of_another_table_is_refused_naming_the_sheet_and_cell(tmp_path):
    write_release(tmp_path / "release.xlsx", STRUCTURE, VALUES.reshape(-1))
    other = TableStructure((Dimension.flat("Row", ["I", "II", "IV"]), Dimension.flat("Col", COLUMNS)))
    with pytest.raises(FileFormatError, match=r"release.xlsx, sheet 'Table', cell A6: expected 'IV' \(the codes "
                                              r"of Row.*found 'III'"):
        released_xlsx(tmp_path / "release.xlsx", other)


def test_text_in_a_value_cell_of_an_xlsx_release_is_refused_naming_the_cell(tmp_path):
    import openpyxl

    write_release(tmp_path / "release.xlsx", STRUCTURE, VALUES.reshape(-1))
    book = openpyxl.load_workbook(tmp_path / "release.xlsx")
    book["Table"]["C5"] = "twelve"
    book["Table"]["D6"] = "x"
    book.save(tmp_path / "release.xlsx")
    with pytest.raises(FileFormatError, match=r"release.xlsx, sheet 'Table', cell C5: 'twelve' is neither a number"):
        released_xlsx(tmp_path / "release.xlsx", STRUCTURE)
    book["Table"]["C5"] = 19
    book.save(tmp_path / "release.xlsx")
    released = released_xlsx(tmp_path / "release.xlsx", STRUCTURE)
    assert released.missing.tolist() == [i == cell(2, 2) for i in range(16)]   # D6: row III, column C
