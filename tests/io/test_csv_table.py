"""CSV tables: long and wide formats, delimiter and decimal comma detection."""

from __future__ import annotations

import numpy as np
import pytest

from ctadesk.engine.table.structure import Dimension
from ctadesk.io.csv_dialect import detect_dialect
from ctadesk.io.csv_table import read_long_csv, read_wide_csv, write_long_csv, write_wide_csv
from ctadesk.io.errors import FileFormatError

LONG = """region;size;turnover
Total;Total;1341,5
Total;small;1000
Total;large;341,5
A;Total;600,25
A;small;500
A;large;100,25
B;Total;741,25
B;small;500
B;large;241,25
"""


@pytest.mark.parametrize("text, delimiter, comma", [
    ("a;b;c\n1;2,5;3\n", ";", True),
    ("a,b,c\n1,2.5,3\n", ",", False),
    ("a\tb\tc\n1\t2.5\t3\n", "\t", False),
    ("a|b\n1.000,5|2\n", "|", True),
    ("a;b\n1,234;2\n", ";", False),  # '1,234' could be either: a decimal point is assumed
])
def test_delimiter_and_decimal_comma_are_detected(text, delimiter, comma):
    dialect = detect_dialect(text)
    assert (dialect.delimiter, dialect.decimal_comma) == (delimiter, comma)


def test_long_csv_with_decimal_comma_gives_an_additive_table(tmp_path):
    (tmp_path / "t.csv").write_text(LONG)
    table = read_long_csv(tmp_path / "t.csv")
    assert [d.codes for d in table.structure.dimensions] == [("Total", "A", "B"), ("Total", "small", "large")]
    assert table.values.tolist() == [1341.5, 1000, 341.5, 600.25, 500, 100.25, 741.25, 500, 241.25]
    assert abs(table.structure.relations() @ table.values).max() == 0
    assert table.messages == ()


def test_long_csv_uses_a_given_hierarchy(tmp_path):
    text = "region,value\nTotal,10\nN,4\n1,1\n2,3\nS,6\n3,6\n"
    (tmp_path / "h.csv").write_text(text)
    region = Dimension.from_levels("region", [1, 2, 2, 1, 2], ["N", "1", "2", "S", "3"])
    table = read_long_csv(tmp_path / "h.csv", hierarchies={"region": region})
    assert table.structure.relations().shape[0] == 3
    assert abs(table.structure.relations() @ table.values).max() == 0


def test_long_csv_reports_missing_cells_and_bad_numbers(tmp_path):
    (tmp_path / "m.csv").write_text("r;c;v\nTotal;x;1\nTotal;y;2\na;x;1\n")
    table = read_long_csv(tmp_path / "m.csv")
    assert "1 cell(s) not in the file were taken as 0" in table.messages
    (tmp_path / "bad.csv").write_text("r;v\na;1\nb;lots\n")
    with pytest.raises(FileFormatError, match=r"bad\.csv, line 3: v 'lots' is not a number"):
        read_long_csv(tmp_path / "bad.csv")


def test_long_csv_round_trip_keeps_codes_and_values(tmp_path):
    (tmp_path / "t.csv").write_text(LONG)
    table = read_long_csv(tmp_path / "t.csv")
    adjusted = table.values + np.arange(table.values.size) * 0.5
    write_long_csv(tmp_path / "out.csv", table.structure, adjusted, value="turnover", decimal_comma=True)
    again = read_long_csv(tmp_path / "out.csv")
    np.testing.assert_allclose(again.values, adjusted)
    assert again.dialect.decimal_comma


def test_wide_csv_with_indented_labels_builds_the_hierarchy(tmp_path):
    text = ("Turnover 2023\n\nRegion,Small,Large,Total\nTotal,30,70,100\n  North,10,30,40\n    1,4,10,14\n"
            "    2,6,20,26\n  South,20,40,60\n    3,20,40,60\n")
    (tmp_path / "w.csv").write_text(text)
    table = read_wide_csv(tmp_path / "w.csv")
    rows = table.structure.dimensions[0]
    assert rows.codes == ("Total", "North", "1", "2", "South", "3")
    assert rows.parents.tolist() == [-1, 0, 1, 1, 0, 4]
    assert abs(table.structure.relations() @ table.values).max() == 0


def test_wide_csv_written_back_keeps_the_layout_and_guards_formulas(tmp_path):
    text = "Region;A;B;Total\n=cmd;1,5;2;3,5\nx;1;1;2\nTotal;2,5;3;5,5\n"
    (tmp_path / "w.csv").write_text(text)
    table = read_wide_csv(tmp_path / "w.csv")
    adjusted = table.values + 1
    out = write_wide_csv(tmp_path / "o.csv", table, adjusted)
    lines = out.read_text().splitlines()
    assert lines[0] == "Region;A;B;Total" and lines[1].startswith("'=cmd;2,5;3;4,5")
    np.testing.assert_allclose(read_wide_csv(out).values, adjusted)


# ------------------------------------------------------------------ total codes (issue 29)
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from ctadesk.io.excel.layout import TOTAL_CODES  # noqa: E402

FOREIGN_TOTALS = ["Total", "Totaal", "Gesamt", "Insgesamt", "Ensemble", "Totale", "Yhteensä", "Razem",
                  "Total general", "Summe", "All", "Alle", "Tous", "Tutti", "Kaikki", "Totalt", "Celkem", "Összesen"]


def long_text(total: str, size_total: str, delimiter: str = ";") -> str:
    lines = ["region;size;turnover", f"{total};{size_total};100", f"{total};small;40", f"{total};large;60",
             f"A;{size_total};70", "A;small;30", "A;large;40", f"B;{size_total};30", "B;small;10", "B;large;20"]
    return "\n".join(line.replace(";", delimiter) for line in lines) + "\n"


@settings(max_examples=40, deadline=None)
@given(total=st.sampled_from(FOREIGN_TOTALS), other=st.sampled_from(FOREIGN_TOTALS),
       case=st.sampled_from([str.upper, str.lower, str.title, lambda t: t]),
       encoding=st.sampled_from(["utf-8", "utf-8-sig", "cp1252"]), delimiter=st.sampled_from([";", ",", "\t"]))
def test_long_csv_total_codes_of_every_language_case_and_encoding_make_the_relations(
        tmp_path_factory, total, other, case, encoding, delimiter):
    # was: only 'Total' was a total; 'Gesamt', cp1252 or a BOM gave a table with no relations
    if encoding == "cp1252" and any(ch not in "".join(map(chr, range(256))) for ch in total + other):
        encoding = "utf-8"
    path = tmp_path_factory.mktemp("csv") / "t.csv"
    path.write_bytes(long_text(case(total), case(other), delimiter).encode(encoding))
    table = read_long_csv(path)
    assert [d.codes[0] for d in table.structure.dimensions] == [case(total), case(other)]
    relations = table.structure.relations()
    assert relations.shape[0] == 6 and abs(relations @ table.values).max() == 0
    assert table.values[0] == 100 and table.messages == ()


def test_a_long_csv_without_a_total_code_is_refused_naming_the_codes_looked_for(tmp_path):
    path = tmp_path / "plain.csv"
    path.write_text("region;size;turnover\nA;small;30\nA;large;40\nB;small;10\nB;large;20\n")
    with pytest.raises(FileFormatError) as caught:
        read_long_csv(path)
    message = str(caught.value)
    assert message.startswith("plain.csv: no total code found in region, size")
    assert all(code in message for code in ("Total", "Gesamt", "Yhteensä", "Összesen"))
    table = read_long_csv(path, no_totals=True)  # the caller says it has none
    assert table.structure.relations().shape[0] == 0 and table.values.tolist() == [30, 40, 10, 20]
    with pytest.raises(FileFormatError, match=r"no total code found in region, size.*looked for 'Sum'"):
        read_long_csv(path, total="Sum")


def test_two_codes_naming_a_total_in_one_column_are_refused_naming_both(tmp_path):
    path = tmp_path / "two.csv"
    path.write_text("region;v\nTotal;3\nGesamt;3\nA;1\nB;2\n")
    with pytest.raises(FileFormatError, match=r"two.csv: region: the codes 'Total', 'Gesamt' all name a total"):
        read_long_csv(path)
    assert read_long_csv(path, total="Total").structure.dimensions[0].codes[0] == "Total"


def test_the_total_codes_looked_for_hold_the_languages_of_the_issue():
    assert {code.casefold() for code in FOREIGN_TOTALS} <= {code.casefold() for code in TOTAL_CODES}


# ------------------------------------------------------------ a long file parsed once
from ctadesk.io.csv_table import csv_kind, read_csv_records  # noqa: E402


@settings(max_examples=40, deadline=None)
@given(regions=st.integers(1, 4), sizes=st.integers(1, 3), seed=st.integers(0, 2**16),
       delimiter=st.sampled_from([";", ",", "\t"]))
def test_a_long_file_parsed_once_reads_every_padded_code_in_order_of_first_appearance(
        tmp_path_factory, regions, sizes, seed, delimiter):
    # the kind and the table are read from one parse; codes padded with spaces on some lines
    # (looked up again without them), blank lines anywhere, the cells in any order
    rng = np.random.default_rng(seed)
    region_codes = ["Total"] + [f"R{k}" for k in range(regions)]
    size_codes = ["Total"] + [f"S{k}" for k in range(sizes)]
    inner = rng.integers(1, 99, (regions, sizes)).astype(float)
    full = np.zeros((regions + 1, sizes + 1))
    full[1:, 1:], full[0, 1:], full[1:, 0], full[0, 0] = inner, inner.sum(0), inner.sum(1), inner.sum()
    cells = [(i, j) for i in range(regions + 1) for j in range(sizes + 1)]
    order = rng.permutation(len(cells))
    lines = [f"region{delimiter}size{delimiter}value"]
    for k in order:
        i, j = cells[k]
        pad = rng.integers(0, 3, 2)
        lines.append(f"{' ' * pad[0]}{region_codes[i]}{delimiter}{size_codes[j]}{' ' * pad[1]}{delimiter}"
                     f"{full[i, j]:g}")
        if rng.random() < 0.2:
            lines.append("" if rng.random() < 0.5 else delimiter * 2)
    path = tmp_path_factory.mktemp("csv") / "t.csv"
    path.write_text("\n".join(lines) + "\n")
    parsed = read_csv_records(path)
    assert csv_kind(parsed) == csv_kind(path) == ("long", None)
    table = read_long_csv(parsed)
    expected = []
    for axis, names in enumerate((region_codes, size_codes)):     # in order of first appearance, the
        seen = [names[i] for i in dict.fromkeys(cells[k][axis] for k in order)]   # total first or last
        expected.append(seen if seen[0] == "Total" else [c for c in seen if c != "Total"] + ["Total"])
    assert [list(d.codes) for d in table.structure.dimensions] == expected
    grid = table.values.reshape(table.structure.shape)
    for i, j in cells:
        assert grid[expected[0].index(region_codes[i]), expected[1].index(size_codes[j])] == full[i, j]
    assert abs(table.structure.relations() @ table.values).max() == 0
