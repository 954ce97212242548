"""A-priori (.hst) files applied to a table's CTA problem: status, bounds, levels and costs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.table.structure import Dimension, TableStructure
from ctadesk.io.apriori import apply_apriori, read_apriori
from ctadesk.io.errors import FileFormatError

STRUCTURE = TableStructure((Dimension.flat("Region", ["A", "B"], total_first=True),
                            Dimension.flat("Size", ["1", "2"], total_first=True)))
#          Total   1   2
VALUES = [[60, 25, 35],     # Total
          [20, 5, 15],      # A
          [40, 20, 20]]     # B


def cell(region: str, size: str) -> int:
    r, s = STRUCTURE.dimensions
    return int(np.ravel_multi_index((r.codes.index(region), s.codes.index(size)), STRUCTURE.shape))


def problem() -> CTAProblem:
    values = np.array(VALUES, float).reshape(-1)
    return CTAProblem(values, STRUCTURE.relations(), lower=0.0, sensitive=[cell("A", "1")],
                      lower_protection=[2.0], upper_protection=[2.0],
                      cell_label=STRUCTURE.cell_label)


def hst(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "table.hst"
    path.write_text(text)
    return path


def test_each_type_changes_what_it_names(tmp_path: Path):
    path = hst(tmp_path, "A;1;S\nB;2;U\nB;2;PL;3;4\nA;Total;P\nB;1;C;7\nTotal;2;AB;30;40\nA;2;ML\n")
    apriori = read_apriori(path, STRUCTURE)
    empty = np.zeros(9, bool)
    protected, notes = apply_apriori(problem(), apriori, empty, manual_range=10)
    assert protected.sensitive.tolist() == [cell("B", "2")]
    assert protected.lower_protection.tolist() == [3.0] and protected.upper_protection.tolist() == [4.0]
    assert protected.fixed[cell("A", "Total")]
    assert protected.weights[cell("B", "1")] == 7
    assert (protected.lower[cell("Total", "2")], protected.upper[cell("Total", "2")]) == (30, 40)
    assert "1 S, 1 U, 1 P, 1 ML, 1 C, 1 AB, 1 PL" in notes[0]
    assert any("secondary suppression has no meaning for CTA" in note for note in notes)


def test_unsafe_gets_the_manual_safety_range(tmp_path: Path):
    protected, _ = apply_apriori(problem(), read_apriori(hst(tmp_path, "B;Total;U\n"), STRUCTURE),
                                 np.zeros(9, bool), manual_range=10)
    assert protected.sensitive.tolist() == [cell("A", "1"), cell("B", "Total")]
    assert protected.upper_protection[1] == pytest.approx(4.0)


def test_lines_that_cannot_apply_are_errors_naming_the_line_or_notes(tmp_path: Path):
    path = hst(tmp_path, "A;1;S\nC;1;U\nA;1;P\nA;2;AB;0;3\n")
    with pytest.raises(FileFormatError, match=r"table.hst, line 2: Region has no code 'C'"):
        read_apriori(path, STRUCTURE, ignore_errors=False)
    apriori = read_apriori(path, STRUCTURE)
    assert "line 2: Region has no code 'C'" in apriori.notes[0]
    with pytest.raises(FileFormatError, match=r"line 4: .*bounds \[0, 3\] do not hold the cell's value 15"):
        apply_apriori(problem(), apriori, np.zeros(9, bool), ignore_errors=False)
    with pytest.raises(FileFormatError, match=r"table.hst, line 1: .*an empty cell cannot be made safe"):
        apply_apriori(problem(), apriori, np.ones(9, bool), ignore_errors=False)
    unsafe = hst(tmp_path, "A;1;P\n")
    _, notes = apply_apriori(problem(), read_apriori(unsafe, STRUCTURE), np.zeros(9, bool))
    assert any("an unsafe cell cannot be made protected" in note for note in notes)


def test_a_wrong_type_or_number_is_named(tmp_path: Path):
    with pytest.raises(FileFormatError, match="line 1: type 'X' is not one of"):
        read_apriori(hst(tmp_path, "A;1;X\n"), STRUCTURE, ignore_errors=False)
    with pytest.raises(FileFormatError, match="line 1: type PL needs 2 number"):
        read_apriori(hst(tmp_path, "A;1;PL;3\n"), STRUCTURE, ignore_errors=False)
    with pytest.raises(FileFormatError, match="line 1: type C: 'x' holds something that is not a number"):
        read_apriori(hst(tmp_path, "A;1;C;x\n"), STRUCTURE, ignore_errors=False)
