"""The dialect of a CSV file from its first lines, the rest held to it (ctadesk.io.csv_dialect),
and long CSV files read with it."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from ctadesk.engine.table.structure import Dimension, TableStructure
from ctadesk.io.csv_dialect import (
    SAMPLE_BYTES,
    decimal_mark,
    detect_dialect,
    plain_numbers,
    sample_lines,
    sample_text,
    sniff_dialect,
)
from ctadesk.io.csv_table import read_long_csv
from ctadesk.io.errors import FileFormatError
from ctadesk.io.numbers import number_style, read_cell
from ctadesk.io.released import released_csv

#: texts of numbers as offices write them, and what is not a number, to draw from
NUMBER_TEXTS = st.one_of(
    st.text(alphabet="0123456789.,-+ e'", max_size=12),
    st.sampled_from(["1.234", "5,678", "12,5", "12.5", "1.234,5", "1,234.5", "0.000", "0,000", "950", "1234",
                     "12 e", "7 bep", "x", ":", "-", "", "1e308", "2e308", "1" + "0" * 308, "2" + "0" * 308]))


def long_lines(values: list[str], delimiter: str = ";") -> list[str]:
    """A long table's lines: a header, then one line per value with codes of their own."""
    return ["region;industry;value".replace(";", delimiter)] + [
        f"R{k // 100:04d}{delimiter}I{k % 100:02d}{delimiter}{v}" for k, v in enumerate(values)]


def write(tmp_path: Path, lines: list[str], name: str = "t.csv") -> Path:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return path


def test_the_sample_is_the_first_lines_whole_and_at_most_sample_bytes():
    text = "".join(f"line {k}\n" for k in range(20_000))
    head = sample_text(text)
    assert len(head) <= SAMPLE_BYTES and text.startswith(head) and head.endswith("\n")
    assert text[len(head):].startswith(f"line {head.count(chr(10))}\n")
    assert sample_lines(text) == head.count("\n")
    assert sample_text("a;b\n1;2") == "a;b\n1;2" and sample_lines("a;b\n1;2") == 2
    one_long_line = "x" * (SAMPLE_BYTES + 10) + "\nnext\n"
    assert sample_text(one_long_line) == "x" * (SAMPLE_BYTES + 10) + "\n"


@settings(max_examples=300, deadline=None)
@given(texts=st.lists(NUMBER_TEXTS, min_size=1, max_size=60), comma_likely=st.booleans())
@example(texts=["2" + "0" * 308, "1" + "0" * 308, "1.234"], comma_likely=False)   # inf, then 10^308: same shape
@example(texts=["2e308", "1e308", "1,5"], comma_likely=False)
def test_the_decimal_mark_from_the_first_text_of_each_shape_is_number_styles_on_every_text(texts, comma_likely):
    lines = list(range(2, len(texts) + 2))
    told, why = number_style(((t, f"line {k}") for t, k in zip(texts, lines)), comma_likely)
    if told is None:
        with pytest.raises(FileFormatError) as refused:
            decimal_mark(Path("t.csv"), texts, lines, lines[-1], comma_likely)
        assert why in str(refused.value)
    else:
        assert decimal_mark(Path("t.csv"), texts, lines, lines[-1], comma_likely) is told


@settings(max_examples=300, deadline=None)
@given(texts=st.lists(NUMBER_TEXTS, max_size=30), decimal_comma=st.booleans())
def test_plain_numbers_are_read_as_read_cell_reads_them(texts, decimal_comma):
    for text, number in zip(texts, plain_numbers(texts, decimal_comma).tolist()):
        if not math.isnan(number):
            assert read_cell(text, decimal_comma).number == number and read_cell(text, decimal_comma).flag == ""


@settings(max_examples=25, deadline=None)
@given(delimiter=st.sampled_from([";", ",", "\t", "|"]), comma=st.booleans(), decimals=st.integers(0, 3),
       lines=st.integers(6000, 9000), seed=st.integers(0, 2**32 - 1))
def test_the_dialect_of_the_first_lines_is_the_whole_files_for_well_formed_tables(delimiter, comma, decimals,
                                                                                   lines, seed):
    comma = comma and delimiter != ","
    values = 10 ** np.random.default_rng(seed).uniform(0, 7, lines)
    texts = [f"{v:.{decimals}f}".replace(".", "," if comma else ".") for v in values]
    text = "\n".join(long_lines(texts, delimiter)) + "\n"
    assert len(sample_text(text)) < len(text)
    assert sniff_dialect(text) == detect_dialect(text)


def test_a_later_number_with_the_other_decimal_mark_is_refused_naming_its_line(tmp_path):
    values = [f"{k % 997},{k % 89:02d}" for k in range(8000)]
    values[7000] = "12.5"
    path = write(tmp_path, long_lines(values))
    assert sample_lines(path.read_text()) < 7002
    with pytest.raises(FileFormatError, match=r"t\.csv, line 7002: '12\.5' is written with a decimal point, but "
                                              r"the numbers of the first \d+ lines use a decimal comma"):
        read_long_csv(path, no_totals=True)
    with pytest.raises(FileFormatError, match=r"line 7002: '12\.5' is written with a decimal point"):
        released_csv(path, _structure(len(values)))


def test_a_later_line_with_another_delimiter_is_refused_naming_its_line(tmp_path):
    values = [f"{k % 997},5" for k in range(8000)]
    lines = long_lines(values)
    lines[7001] = lines[7001].replace(";", ",")
    with pytest.raises(FileFormatError, match=r"t\.csv, line 7002: 1 fields, the header has 3"):
        read_long_csv(write(tmp_path, lines), no_totals=True)


def test_first_lines_that_do_not_tell_the_mark_leave_it_to_the_first_later_number_that_does(tmp_path):
    values = [str(k % 997) for k in range(8000)]
    values[7000] = "12,5"
    table = read_long_csv(write(tmp_path, long_lines(values)), no_totals=True)
    assert table.dialect.decimal_comma is True and 12.5 in table.values


def test_first_lines_that_tell_the_mark_by_its_grouping_only_are_held_to_it(tmp_path):
    # '1.234' beside '950' (no plain integer of 1000 or more): the dot groups thousands, so a decimal comma
    values = ["1.234" if k % 2 else "950" for k in range(8000)]
    values[7000] = "3.5"
    with pytest.raises(FileFormatError, match=r"line 7002: '3\.5' is written with a decimal point"):
        read_long_csv(write(tmp_path, long_lines(values, "\t")), no_totals=True)


def test_long_values_grouped_flagged_or_marked_are_read_one_by_one(tmp_path):
    table = read_long_csv(write(tmp_path, ["r;v", "Total;1.234,5", "a;-", "b;1.234,5 e", "c;0"]))
    assert table.values.tolist() == [1234.5, 0, 1234.5, 0]
    assert any("footnote flag" in message for message in table.messages)


def test_a_cell_listed_twice_or_an_unknown_code_is_refused_naming_its_line(tmp_path):
    with pytest.raises(FileFormatError, match=r"line 4: the cell .* is listed again \(first on line 2\)"):
        read_long_csv(write(tmp_path, ["r;c;v", "Total;x;3", "a;x;1", "Total;x;3"]))
    region = Dimension.flat("r", ["a", "b"], total="Total")
    with pytest.raises(FileFormatError, match=r"line 3: code 'z' of r is not in its hierarchy"):
        read_long_csv(write(tmp_path, ["r;v", "Total;3", "z;1", "a;2"], "u.csv"), hierarchies={"r": region})


def test_codes_with_surrounding_spaces_are_located_as_without(tmp_path):
    table = read_long_csv(write(tmp_path, ["r;v", "Total;3", " a ;1", "b;2"]))
    assert table.values.tolist() == [3, 1, 2] and table.lines.tolist() == [2, 3, 4]


def _structure(n: int) -> TableStructure:
    """The table long_lines lists n values of (each region 100 industries), with totals."""
    regions = Dimension.flat("region", [f"R{k:04d}" for k in range((n + 99) // 100)])
    industries = Dimension.flat("industry", [f"I{k:02d}" for k in range(100)])
    return TableStructure((regions, industries))


def test_a_first_line_of_cells_instead_of_column_names_is_refused_naming_it(tmp_path):
    # read as names, its cell was lost: 'Total' and 'a' became the names of the code columns
    lines = ["Total;a;4", "Total;b;6", "Total;Total;10", "A;a;4", "A;b;6", "A;Total;10"]
    with pytest.raises(FileFormatError, match=r"t\.csv, line 1: the first line \(Total, a, 4\) reads as a line of "
                                              "cells"):
        read_long_csv(write(tmp_path, lines))
    with pytest.raises(FileFormatError, match=r"line 1: the first line reads as a line of cells"):
        released_csv(write(tmp_path, lines), TableStructure((Dimension.flat("r", ["A"]),
                                                             Dimension.flat("s", ["a", "b"]))))


def test_column_names_that_are_numbers_or_codes_used_below_are_names_still(tmp_path):
    table = read_long_csv(write(tmp_path, ["region;2023", "Total;10", "A;4", "B;6"]))
    assert table.values.tolist() == [10, 4, 6]
    table = read_long_csv(write(tmp_path, ["Total;value", "Total;10", "A;4", "B;6"], "names.csv"))
    assert [d.name for d in table.structure.dimensions] == ["Total"]
