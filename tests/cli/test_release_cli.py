"""`ctadesk solve/protect --release OUT.xlsx --internal OUT.xlsx [--widen/--no-widen] [--seed N]`
(issue 11: release and internal workbooks from any front end, secret widening on by default)."""

import json
import zipfile

import numpy as np
import openpyxl
import pytest

from ctadesk.cli import main
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.table.structure import TableStructure
from ctadesk.io.excel import import_table
from ctadesk.io.jj import write_jj
from tests.cli.test_rules_cli import FIRMS, RULES
from tests.io.test_release import INNER, leaks

SEED = "918273645"
SHARE = 0.2


@pytest.fixture
def instance(tmp_path):
    """A 3 x 3 table with margins; 4817, 162 and 31337 sensitive at 20 % of their value, bounded below by 0."""
    structure = TableStructure.flat(3, 3)
    values = structure.aggregate(np.vstack([np.hstack([INNER, np.zeros((3, 1))]), np.zeros((1, 4))]))
    sensitive = np.array([0, 4, 5])
    level = SHARE * values[sensitive]
    problem = CTAProblem(values, structure.relations(), lower=0.0, sensitive=sensitive, lower_protection=level,
                         upper_protection=level)
    write_jj(tmp_path / "table.jj", problem)
    return tmp_path / "table.jj", problem


def all_parts(path) -> str:
    with zipfile.ZipFile(path) as archive:
        return "".join(archive.read(name).decode("utf-8", "replace") for name in archive.namelist())


def method_sheet(path) -> dict:
    return dict(openpyxl.load_workbook(path)["Method"].iter_rows(min_row=2, values_only=True))


def test_solve_writes_a_release_and_an_internal_workbook_of_a_jj_table(instance, tmp_path, capsys):
    # was: --release and --internal did not exist (workbooks only from the GUI, only for Excel tables)
    path, problem = instance
    release, internal, out = tmp_path / "release.xlsx", tmp_path / "internal.xlsx", tmp_path / "out.json"
    assert main(["solve", str(path), "--method", "milp", "--json", str(out), "--release", str(release),
                 "--internal", str(internal), "--seed", SEED]) == 0
    adjusted = np.array(json.loads(out.read_text())["values"])
    np.testing.assert_allclose(import_table(release, "Table").values, adjusted, rtol=1e-12)
    assert leaks(release, problem.values[problem.sensitive]) == []
    assert SEED not in all_parts(release) and SEED in all_parts(internal)
    assert method_sheet(release)["protection levels widened by a secret factor"] == "yes"
    assert "widening seed (secret)" not in method_sheet(release)
    assert method_sheet(internal)["widening seed (secret)"] == SEED
    err = capsys.readouterr().err
    assert "release workbook release.xlsx" in err and "internal workbook internal.xlsx" in err
    assert "widened by a secret factor" in err and SEED not in err


def test_widening_moves_released_values_off_original_plus_or_minus_the_known_share(instance, tmp_path):
    # was: a released value sat at exactly original ± 20 %, so the original was one of two numbers
    path, problem = instance
    a = problem.values[problem.sensitive]

    def sensitive_changes(*options):
        out = tmp_path / "out.json"
        assert main(["solve", str(path), "--method", "milp", "--json", str(out), "--precision", "full", *options]) == 0
        return np.abs(np.array(json.loads(out.read_text())["values"])[problem.sensitive] - a)

    assert np.isclose(sensitive_changes("--no-widen"), SHARE * a).any()
    widened = sensitive_changes("--seed", SEED)
    assert not np.isclose(widened, SHARE * a).any() and np.all(widened >= SHARE * a - 1e-6)
    np.testing.assert_allclose(sensitive_changes("--seed", SEED), widened)  # the seed reproduces it


def test_widen_cost_reports_the_extra_change(instance, capsys):
    path, _ = instance
    assert main(["solve", str(path), "--method", "milp", "--seed", SEED, "--widen-cost"]) == 0
    assert "more weighted change" in capsys.readouterr().err


def test_protect_writes_release_and_internal_workbooks(tmp_path):
    # was: protect wrote only CSV/JSON records holding the originals
    data, hrc = tmp_path / "firms.csv", tmp_path / "region.hrc"
    data.write_text(FIRMS)
    hrc.write_text("N\n@ 1\n@ 2\nS\n@ 4\n")
    out, release, internal = tmp_path / "cells.json", tmp_path / "release.xlsx", tmp_path / "internal.xlsx"
    assert main(["protect", str(data), *RULES, "--hierarchy", f"Region={hrc}", "-o", str(out),
                 "--release", str(release), "--internal", str(internal), "--no-widen"]) == 0
    cells = json.loads(out.read_text())["cells"]
    book = openpyxl.load_workbook(release)
    released = [c.value for sheet in book.worksheets[:1] for row in sheet.iter_rows(min_row=4, min_col=2)
                for c in row]
    np.testing.assert_allclose(released, [cell["adjusted"] for cell in cells], rtol=1e-12)
    assert method_sheet(release)["protection levels widened by a secret factor"] == "no"
    statuses = [row[2] for row in openpyxl.load_workbook(internal)["Cells"].iter_rows(min_row=4, values_only=True)]
    assert statuses == ["sensitive" if cell["status"] == "unsafe" else "safe" for cell in cells]
    # no part of the release spells an original of a sensitive cell (unless a published value has that spelling)
    published = {round(cell["adjusted"], 9) for cell in cells}
    hidden = [cell["original"] for cell in cells
              if cell["status"] == "unsafe" and round(cell["original"], 9) not in published]
    assert hidden and leaks(release, hidden) == []
