"""Damaged and foreign input the readers once crashed on or misread (issue 10), and the
"no bound" marker: each test failed before the readers were fixed."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from ctadesk.engine.table.generate import cox_table
from ctadesk.io import cells
from ctadesk.io.csv_table import read_long_csv, read_wide_csv, write_long_csv, write_wide_csv
from ctadesk.io.errors import FileFormatError
from ctadesk.io.hierarchy import read_hrc, read_level_csv
from ctadesk.io.jj import read_jj, read_sol, read_weights, write_jj, write_sol
from ctadesk.io.microdata import MicrodataSpec, read_csv_microdata
from ctadesk.io.tauargus import read_cdl, read_rda, read_tab, write_tab

EXAMPLES = Path(__file__).resolve().parents[3] / "shared" / "formats" / "tauargus-examples"
if not EXAMPLES.exists():
    EXAMPLES = Path("/work/shared/formats/tauargus-examples")
needs_examples = pytest.mark.skipif(not EXAMPLES.exists(), reason="tau-argus examples not present")

JJ = """0
3
0 5 1 s 0 100 0 0 0
1 2 1 u 0 100 1 1 0
2 3 1 s 0 100 0 0 0
1
0 3 : 0 (-1) 1 (1) 2 (1)
"""


def write(tmp_path: Path, name: str, text: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


# ------------------------------------------------------------------ JJ counts and indices
@pytest.mark.parametrize("old, new, message", [
    ("0 3 :", "0 1e400 :", r"line 7: number of terms '1e400' must be a whole number"),  # was OverflowError
    ("\n1\n0 3", "\n1000000000000\n0 3", r"line 6: the file ends after 1 of its 1000000000000 relation lines"),
    ("\n1\n0 3", "\n1e12\n0 3", r"line 6: the number of relations '1e12' must be a whole number"),
    ("0\n3\n", "0\n99999999999\n", r"line 2: the file ends after 5 of its 99999999999 cell lines"),
    ("0\n3\n", "0\n3.0\n", r"line 2: the number of cells '3.0' must be a whole number"),
    ("0\n3\n", "0\n-3\n", r"line 2: the number of cells '-3' must be a whole number"),
    ("1 2 1 u", "1.5 2 1 u", r"line 4: cell index '1.5' must be a whole number"),  # was read as cell 1
    ("0 5 1 s", "1e-400 5 1 s", r"line 3: cell index '1e-400' must be a whole number"),  # was read as cell 0
    ("1 (1) 2", "1.5 (1) 2", r"line 7: cell index '1.5' must be a whole number"),
    ("1 (1) 2", "1e-400 (1) 2", r"line 7: cell index '1e-400' must be a whole number"),
    ("1 (1) 2", "99999999999999999999999 (1) 2", r"line 7: cell index '99999999999999999999999' is too large"),
])
def test_jj_counts_and_indices_must_be_whole_numbers_the_file_can_hold(tmp_path, old, new, message):
    assert old in JJ
    with pytest.raises(FileFormatError, match=message):
        read_jj(write(tmp_path, "t.jj", JJ.replace(old, new)))


@pytest.mark.parametrize("old, new, message", [
    ("0 5 1 s", "0 1e400 1 s", r"line 3: value '1e400' is out of range"),
    ("0 5 1 s", "0 nan 1 s", r"line 3: value 'nan' is not a number"),
    ("0 5 1 s 0 100", "0 5 inf s 0 100", r"line 3: cost 'inf' is not a number"),
    ("0 5 1 s 0 100", "0 5 1 s inf 100", r"line 3: lower bound 'inf' leaves the cell no value"),
    ("0 5 1 s 0 100", "0 5 1 s 0 -Infinity", r"line 3: upper bound '-Infinity' leaves the cell no value"),
    ("0 5 1 s 0 100", "0 5 1 s nan 100", r"line 3: lower bound 'nan' is not a number"),
    ("0 5 1 s 0 100 0 0 0", "0 5 1 s 0 100 0 0 nan", r"line 3: sliding protection level 'nan' is not"),
    ("0 3 :", "nan 3 :", r"line 7: right-hand side 'nan' is not a number"),
    ("(-1)", "(-1e400)", r"line 7: coefficient '-1e400' is out of range"),
])
def test_jj_numbers_must_be_finite(tmp_path, old, new, message):
    with pytest.raises(FileFormatError, match=message):
        read_jj(write(tmp_path, "t.jj", JJ.replace(old, new)))


def test_jj_status_is_one_letter(tmp_path):
    with pytest.raises(FileFormatError, match=r"line 3: cell 0 has status 'safe'"):
        read_jj(write(tmp_path, "t.jj", JJ.replace("0 5 1 s", "0 5 1 safe")))


# ------------------------------------------------------------------ the "no bound" marker
def test_jj_bounds_of_1e20_or_more_are_no_bounds(tmp_path):
    text = JJ.replace("0 5 1 s 0 100", "0 5 1 s -1e20 1e+20").replace("2 3 1 s 0 100", "2 3 1 s -3e25 5e30")
    problem = read_jj(write(tmp_path, "t.jj", text)).problem
    assert problem.lower.tolist() == [-np.inf, 0, -np.inf]
    assert problem.upper.tolist() == [np.inf, 100, np.inf]


@pytest.mark.parametrize("lower, upper", [("-inf", "inf"), ("-Infinity", "+Infinity"), ("-INF", "1e20"),
                                          ("-1e20", "Inf")])
@pytest.mark.parametrize("line_by_line", [False, True])
def test_jj_bounds_written_inf_are_no_bounds_like_1e20(tmp_path, lower, upper, line_by_line):
    # issue 29: '-inf'/'inf' were refused ("'inf' is not a number") although +-1e20 means no bound
    text = JJ.replace("0 5 1 s 0 100", f"0 5 1 s {lower} {upper}")
    if line_by_line:  # a line without its sliding level: the file is read line by line
        text = text.replace("2 3 1 s 0 100 0 0 0", "2 3 1 s 0 100 0 0")
    problem = read_jj(write(tmp_path, "t.jj", text)).problem
    reference = read_jj(write(tmp_path, "r.jj", JJ.replace("0 5 1 s 0 100", "0 5 1 s -1e20 1e20"))).problem
    np.testing.assert_array_equal(problem.lower, reference.lower)
    np.testing.assert_array_equal(problem.upper, reference.upper)
    assert problem.lower[0] == -np.inf and problem.upper[0] == np.inf


def test_jj_writer_writes_infinite_bounds_as_1e20_like_tau_argus(tmp_path):
    _, problem = cox_table((3, 3), seed=1)
    problem = problem.replace(lower=np.full(problem.n_cells, -np.inf), upper=np.full(problem.n_cells, np.inf))
    write_jj(tmp_path / "t.jj", problem)
    first = (tmp_path / "t.jj").read_text().splitlines()[2].split()
    assert first[4:6] == ["-1e+20", "1e+20"]
    again = read_jj(tmp_path / "t.jj").problem
    assert np.all(again.lower == -np.inf) and np.all(again.upper == np.inf)


# ------------------------------------------------------------------ .sol and weights files
@pytest.mark.parametrize("line, message", [
    ("1.5 2 2 1", r"line 2: cell index '1.5' must be a whole number"),
    ("1 2 nan 1", r"line 2: adjusted value 'nan' is not a number"),
    ("1 2 1e400 1", r"line 2: adjusted value '1e400' is out of range"),
    ("1 2 2 7", r"line 2: the sensitivity flag '7' must be 0 or 1"),
])
def test_sol_lines_are_checked(tmp_path, line, message):
    with pytest.raises(FileFormatError, match=message):
        read_sol(write(tmp_path, "x.sol", f"0 5 5 0\n{line}\n2 3 3 0\n"), 3)


def test_sol_with_fewer_lines_than_cells_is_refused_before_allocating(tmp_path):
    with pytest.raises(FileFormatError, match="1 lines for 1000000000000 cells"):
        read_sol(write(tmp_path, "x.sol", "0 5 5 0\n"), 10**12)


def test_weights_must_be_finite(tmp_path):
    with pytest.raises(FileFormatError, match=r"w\.txt, line 2: weight 'inf' is not a number"):
        read_weights(write(tmp_path, "w.txt", "1 2\ninf\n"), 3)


# ------------------------------------------------------------------ CSV tables
def test_long_csv_after_blank_lines_reads(tmp_path):  # was IndexError
    table = read_long_csv(write(tmp_path, "t.csv", "\n\n;\nregion;value\n\nTotal;3\n\nA;1\nB;2\n\n"))
    assert table.values.tolist() == [3, 1, 2]


@pytest.mark.parametrize("text, message", [
    ("r;v\nTotal;1e400\na;1\n", r"line 2: v '1e400' is out of range"),  # was read as inf
    ("r;v\nTotal;-1e400\na;1\n", r"line 2: v '-1e400' is out of range"),
    ("r;v\nTotal;nan\na;1\n", r"line 2: v 'nan' is not a number"),
    ("r;v\nTotal;inf\na;1\n", r"line 2: v 'inf' is not a number"),
])
def test_long_csv_refuses_numbers_that_are_not_finite(tmp_path, text, message):
    with pytest.raises(FileFormatError, match=message):
        read_long_csv(write(tmp_path, "t.csv", text))


def test_wide_csv_refuses_numbers_out_of_range(tmp_path):
    with pytest.raises(FileFormatError, match=r"w.csv, cell C2: '1e400' is out of range"):
        read_wide_csv(write(tmp_path, "w.csv", "r;a;b;Total\nx;1;1e400;2\nTotal;1;1;2\n"))


def test_csv_writers_refuse_non_finite_values(tmp_path):
    table = read_long_csv(write(tmp_path, "t.csv", "r;v\nTotal;3\na;1\nb;2\n"))
    with pytest.raises(FileFormatError, match=r"out.csv: cannot write the values: cell 1 is inf"):
        write_long_csv(tmp_path / "out.csv", table.structure, [3, np.inf, 2])
    wide = read_wide_csv(write(tmp_path, "w.csv", "r;a;b;Total\nx;1;1;2\ny;1;1;2\nTotal;2;2;4\n"))
    with pytest.raises(FileFormatError, match=r"cannot write the values: cell 0 is nan"):
        write_wide_csv(tmp_path / "o.csv", wide, np.full(wide.values.size, np.nan))


def test_a_few_codes_spanning_too_many_cells_are_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(cells, "MAX_TABLE_CELLS", 8)
    with pytest.raises(FileFormatError, match=r"the codes span a table of 9 cells \(3 x 3\), more than the 8"):
        read_long_csv(write(tmp_path, "t.csv", "r;c;v\na;x;1\nb;y;1\nc;z;1\n"))


# ------------------------------------------------------------------ encodings
LATIN = "Z\u00fcrich"


def test_latin_1_hrc_reads(tmp_path):  # was UnicodeDecodeError
    path = write(tmp_path, "r.hrc", f"{LATIN}\n@Gen\u00e8ve\n".encode("cp1252"))
    assert read_hrc(path, "R").codes == ("Total", LATIN, "Gen\u00e8ve")


def test_latin_1_microdata_csv_reads(tmp_path):  # was UnicodeDecodeError
    path = write(tmp_path, "m.csv", f"r;v\n{LATIN};1\nBern;2\n".encode("cp1252"))
    micro = read_csv_microdata(path, MicrodataSpec(("r",), "v"))
    assert LATIN in micro.structure.dimensions[0].codes


def test_an_explicit_encoding_wins_and_a_wrong_one_names_the_line(tmp_path):
    path = write(tmp_path, "m.csv", f"r;v\nBern;1\n{LATIN};2\n".encode("cp1252"))
    micro = read_csv_microdata(path, MicrodataSpec(("r",), "v"), encoding="latin-1")
    assert LATIN in micro.structure.dimensions[0].codes
    with pytest.raises(FileFormatError, match=r"m.csv, line 3: the text is not utf-8 \(byte 0xfc\)"):
        read_csv_microdata(path, MicrodataSpec(("r",), "v"), encoding="utf-8")


@pytest.mark.parametrize("encode", [
    lambda text: text.encode("cp1252"),
    lambda text: b"\xef\xbb\xbf" + text.encode("utf-8"),
    lambda text: text.encode("utf-16"),
    lambda text: text.replace("\n", "\r\n").encode("utf-8"),
], ids=["cp1252", "utf-8-bom", "utf-16", "crlf"])
def test_every_text_reader_decodes_office_encodings(tmp_path, encode):
    assert read_hrc(write(tmp_path, "r.hrc", encode(f"{LATIN}\n@a\n")), "R").codes == ("Total", LATIN, "a")
    assert read_level_csv(write(tmp_path, "l.csv", encode(f"@;Total\n@@;{LATIN}\n")), "R").codes == ("Total", LATIN)
    long = read_long_csv(write(tmp_path, "t.csv", encode(f"r;v\nTotal;3\n{LATIN};3\n")))
    assert long.structure.dimensions[0].codes == ("Total", LATIN)
    micro = read_csv_microdata(write(tmp_path, "m.csv", encode(f"r;v\n{LATIN};1\n")), MicrodataSpec(("r",), "v"))
    assert LATIN in micro.structure.dimensions[0].codes
    problem = read_jj(write(tmp_path, "t.jj", encode(JJ))).problem
    assert problem.n_cells == 3
    assert read_sol(write(tmp_path, "x.sol", encode("0 1 2 0\n")), 1).tolist() == [2.0]
    assert read_cdl(write(tmp_path, "r.cdl", encode(f"1,{LATIN}\n"))) == {"1": LATIN}


@needs_examples
def test_tab_files_in_cp1252_read(tmp_path):
    for name in ("pp.tab", "pp.rda", "region2.hrc"):
        shutil.copy(EXAMPLES / name, tmp_path)
    cdl = (EXAMPLES / "region.cdl").read_text().replace("Groningen", "Gr\u00f6ningen")
    write(tmp_path, "region.cdl", cdl.encode("cp1252"))
    assert read_tab(tmp_path / "pp.tab").labels[1][" 1"] == "Gr\u00f6ningen"


# ------------------------------------------------------------------ tau-argus
@needs_examples
@pytest.mark.parametrize("field, text, message", [
    (2, "1" + "0" * 400 + ",5", r"pp.tab, line 1: Var2 '10+,5' is out of range"),
    (2, "nan", r"pp.tab, line 1: Var2 'nan' is not a number"),
    (3, "1,5", r"pp.tab, line 1: FreqVar '1,5' must be a whole number"),
    (3, "-3", r"pp.tab, line 1: FreqVar '-3' must be a whole number"),
])
def test_tab_numbers_must_be_finite_and_frequencies_whole(tmp_path, field, text, message):
    for name in ("pp.rda", "region2.hrc", "region.cdl"):
        shutil.copy(EXAMPLES / name, tmp_path)
    lines = (EXAMPLES / "pp.tab").read_text().splitlines()
    fields = lines[0].split(";")
    fields[field] = text
    lines[0] = ";".join(fields)
    write(tmp_path, "pp.tab", "\n".join(lines) + "\n")
    with pytest.raises(FileFormatError, match=message):
        read_tab(tmp_path / "pp.tab")


@pytest.mark.parametrize("rda, message", [
    ("V\n    <NUMERIC>\n    <DECIMALS> 1000000000\n", r"line 3: V: <DECIMALS> '1000000000' must be a whole number"),
    ("V\n    <NUMERIC> <DECIMALS> 1e400\n", r"line 2: V: <DECIMALS> '1e400' must be a whole number"),
    ('    <SEPARATOR> ";;"\nV\n    <NUMERIC>\n', r"line 1: <SEPARATOR> ';;' must be one character"),
])
def test_rda_options_are_checked(tmp_path, rda, message):
    with pytest.raises(FileFormatError, match=message):
        read_rda(write(tmp_path, "t.rda", rda))


@needs_examples
def test_tab_writer_refuses_non_finite_values(tmp_path):
    table = read_tab(EXAMPLES / "pp.tab")
    values = table.values.copy()
    values[3] = np.nan
    with pytest.raises(FileFormatError, match="cannot write the values: cell 3 is nan"):
        write_tab(tmp_path / "out.tab", table, values)


def test_sol_writer_refuses_non_finite_values(tmp_path):
    _, problem = cox_table((2, 2), seed=1)
    adjusted = problem.values.copy()
    adjusted[2] = np.inf
    with pytest.raises(FileFormatError, match="cannot write the adjusted values: cell 2 is inf"):
        write_sol(tmp_path / "x.sol", problem, adjusted)


def test_a_stata_file_whose_text_is_not_utf_8_reads(tmp_path):  # was UnicodeDecodeError
    pd = pytest.importorskip("pandas")
    pyreadstat = pytest.importorskip("pyreadstat")
    from ctadesk.io.statfiles import read_statfile_columns

    pyreadstat.write_dta(pd.DataFrame({"region": [1.0, 2.0], "t": [1.0, 2.5]}), str(tmp_path / "s.dta"))
    raw = (tmp_path / "s.dta").read_bytes()
    write(tmp_path, "s.dta", raw.replace(b"%10.0g", b"\xe510.0g", 1))  # a display format in cp1252
    assert read_statfile_columns(tmp_path / "s.dta", "stata").columns["t"].tolist() == [1.0, 2.5]


# ------------------------------------------------------------------ values that break the relations
def test_a_jj_whose_values_break_a_relation_is_refused_naming_the_relation_line_and_amount(tmp_path):
    # issue 29: a table whose totals do not add up was protected as if they did
    path = write(tmp_path, "t.jj", JJ.replace("0 5 1 s", "0 7 1 s"))
    with pytest.raises(FileFormatError, match=r"t.jj: 1 relation\(s\) do not add up: relation 0 \(line 7\) is "
                                              r"off by \+2"):
        read_jj(path)
    assert read_jj(path, additive=False).problem.values[0] == 7  # read as it is when the caller says so


# ------------------------------------------------------------------ files that are not text
def test_a_workbook_renamed_for_a_text_reader_is_refused_in_one_line_naming_it(tmp_path):
    # issue 29: an .xlsx renamed .jj was refused as "line 1: the first line must be 0, found 'PK...'"
    import openpyxl

    workbook = tmp_path / "real.xlsx"
    openpyxl.Workbook().save(workbook)
    readers = {"t.jj": read_jj, "t.sol": read_sol, "t.csv": read_long_csv, "w.csv": read_wide_csv,
               "t.rda": read_rda, "t.hrc": lambda p: read_hrc(p, "x"), "t.cdl": read_cdl,
               "t.txt": lambda p: read_weights(p, 3)}
    for name, reader in readers.items():
        path = tmp_path / name
        shutil.copyfile(workbook, path)
        with pytest.raises(FileFormatError) as caught:
            reader(path)
        message = str(caught.value)
        assert message.startswith(f"{name}: this file is a zip archive (an Excel workbook") and "\n" not in message
        assert "PK" not in message
    legacy = write(tmp_path, "old.jj", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(200))
    with pytest.raises(FileFormatError, match=r"old.jj: this file is a legacy Office file \(.xls\)"):
        read_jj(legacy)
