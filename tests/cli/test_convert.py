"""`ctadesk convert`: tables between formats."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np

from ctadesk.cli import main
from ctadesk.io.csv_table import read_long_csv
from ctadesk.io.excel import import_table
from ctadesk.io.jj import read_jj
from tests.io import excel_books

EXAMPLES = Path("/work/shared/formats/tauargus-examples")


def test_xlsx_to_long_csv_keeps_every_cell(tmp_path):
    source = excel_books.hierarchical_rows_book(tmp_path / "t.xlsx")
    assert main(["convert", str(source), str(tmp_path / "t.csv")]) == 0
    table = import_table(source)
    np.testing.assert_allclose(read_long_csv(tmp_path / "t.csv").values, table.values)


def test_non_additive_tab_is_refused_for_jj_then_made_additive(tmp_path, capsys):
    for name in ("pp.tab", "pp.rda", "region2.hrc", "region.cdl"):
        shutil.copy(EXAMPLES / name, tmp_path)
    assert main(["convert", str(tmp_path / "pp.tab"), str(tmp_path / "pp.jj")]) == 2
    assert "3 relation(s) do not add up" in capsys.readouterr().err
    assert main(["convert", str(tmp_path / "pp.tab"), str(tmp_path / "pp.jj"), "--make-additive"]) == 0
    problem = read_jj(tmp_path / "pp.jj").problem
    assert problem.n_cells == 9 * 18 and problem.n_sensitive == 9
