"""Hierarchy readers: tau-argus .hrc, sdcTable level CSVs, digit positions."""

from pathlib import Path

import numpy as np
import pytest

from ctadesk.engine.errors import ProblemError
from ctadesk.io.errors import FileFormatError
from ctadesk.io.hierarchy import digit_levels, flat_dimension, read_hrc, read_level_csv

EXAMPLES = Path("/work/shared/formats/tauargus-examples")


def children(dimension, code):
    parent = dimension.index(code)
    return [c for c, p in zip(dimension.codes, dimension.parents) if p == parent]


@pytest.mark.skipif(not EXAMPLES.exists(), reason="tau-argus examples not present")
def test_region2_hrc_has_four_provinces_with_their_regions_and_keeps_leading_spaces():
    region = read_hrc(EXAMPLES / "region2.hrc", "Region")
    assert children(region, "Total") == ["Nr", "Os", "Ws", "Zd"]
    assert children(region, "Nr") == [" 1", " 2", " 3"]
    assert children(region, "Os") == [" 4", " 5", " 6", " 7"]
    assert children(region, "Zd") == ["11", "12"]
    assert region.size == 1 + 4 + 12


@pytest.mark.skipif(not EXAMPLES.exists(), reason="tau-argus examples not present")
def test_region_hrc_three_groups():
    region = read_hrc(EXAMPLES / "Region.hrc", "Region")
    assert children(region, "B") == ["3", "4", "5"]
    assert int(region.is_leaf.sum()) == 8


def test_hrc_with_three_levels_and_other_lead(tmp_path):
    path = tmp_path / "h.hrc"
    path.write_text("A\n#A1\n##A11\n##A12\n#A2\nB\n")
    dim = read_hrc(path, "H", lead="#")
    assert children(dim, "A1") == ["A11", "A12"]
    assert list(dim.depth[[dim.index(c) for c in ("Total", "A", "A1", "A11", "B")]]) == [0, 1, 2, 3, 1]


def test_hrc_skipping_a_level_names_the_line(tmp_path):
    path = tmp_path / "bad.hrc"
    path.write_text("A\n@@A1\n")
    with pytest.raises(FileFormatError, match=r"bad\.hrc"):
        read_hrc(path, "H")


def test_hrc_duplicate_code_names_both_lines(tmp_path):
    path = tmp_path / "dup.hrc"
    path.write_text("A\n@x\nB\n@x\n")
    with pytest.raises(FileFormatError, match=r"dup.hrc, line 4: code 'x' appears twice \(first on line 2\)"):
        read_hrc(path, "H")


def test_level_csv_with_total_listed_as_root(tmp_path):
    path = tmp_path / "h.csv"
    path.write_text("levels,codes\n@,Total\n@@,A\n@@@,A1\n@@@,A2\n@@,B\n")
    dim = read_level_csv(path, "H")
    assert dim.codes == ("Total", "A", "A1", "A2", "B")
    assert list(dim.parents) == [-1, 0, 1, 1, 0]


def test_level_csv_without_total_gets_one(tmp_path):
    path = tmp_path / "h.csv"
    path.write_text("@;A\n@@;A1\n@;B\n")
    dim = read_level_csv(path, "H", total="All")
    assert dim.codes == ("All", "A", "A1", "B")


def test_digit_levels_3_1_1():
    dim = digit_levels("Industry", ["12345", "12346", "12350", "99911"], [3, 1, 1, 0, 0])
    assert children(dim, "Total") == ["123", "999"]
    assert children(dim, "123") == ["1234", "1235"]
    assert children(dim, "1234") == ["12345", "12346"]
    assert np.flatnonzero(dim.is_leaf).size == 4


def test_digit_levels_reject_codes_of_the_wrong_length():
    with pytest.raises(ProblemError, match="code '123' has 3 characters"):
        digit_levels("Industry", ["12345", "123"], [3, 1, 1])


def test_flat_dimension_orders_numbers_by_value():
    assert flat_dimension("Size", ["10", "2", "1"]).codes == ("1", "2", "10", "Total")


def test_flat_dimension_orders_what_int_reads_and_keeps_the_rest_in_text_order():
    """A code with a separator control character (found by the microdata reader's fuzz test) is
    numeric once stripped, as int() reads it; a superscript digit is a digit to isdigit() but not
    a number to int(): the codes stay in text order."""
    assert flat_dimension("Size", ["\x1c4", "10", "2", "-3"]).codes == ("-3", "2", "\x1c4", "10", "Total")
    assert flat_dimension("Size", ["\u00b2", "1"]).codes == ("1", "\u00b2", "Total")
