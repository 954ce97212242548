"""Microdata and hierarchy files get the table readers' guards: size, zip bomb, encoding and
damage checks; every damaged input is one line naming the file (and sheet), never a traceback."""

from __future__ import annotations

import time
import tracemalloc
import zipfile
from pathlib import Path

import openpyxl
import pytest

from ctadesk.cli import main
from ctadesk.io.errors import FileFormatError
from ctadesk.io.hierarchy import read_hrc
from ctadesk.io.microdata import MicrodataSpec, read_csv_microdata, read_xlsx_microdata
from ctadesk.io.statfiles import read_statfile_microdata
from tests.timing import timed

SPEC = MicrodataSpec(spanning=("region",), response="turnover")
RULES = ["--span", "region", "--response", "turnover", "--min-freq", "2"]
SHEET = "xl/worksheets/sheet1.xml"


def workbook(path: Path) -> Path:
    book = openpyxl.Workbook()
    book.active.append(["region", "turnover"])
    for k in range(12):
        book.active.append([f"r{k % 3}", float(k)])
    book.save(path)
    return path


def replace_part(source: Path, target: Path, part: str, write) -> Path:
    """A copy of the workbook `source` whose `part` is written by `write(stream)` instead."""
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as new:
        for item in old.infolist():
            if item.filename == part:
                with new.open(item.filename, "w", force_zip64=True) as stream:
                    write(stream)
            else:
                new.writestr(item, old.read(item.filename))
    return target


def zip_bomb(tmp_path: Path, megabytes: int) -> Path:
    """A workbook whose sheet is `megabytes` MB of identical rows, packed some thousand times."""
    row = b'<row><c t="inlineStr"><is><t>a</t></is></c><c><v>1</v></c></row>'
    chunk = row * (2**20 // len(row))

    def write(stream):
        stream.write(b'<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>')
        for _ in range(megabytes):
            stream.write(chunk)
        stream.write(b"</sheetData></worksheet>")

    return replace_part(workbook(tmp_path / "plain.xlsx"), tmp_path / "bomb.xlsx", SHEET, write)


def refused(capsys, path: Path, *message: str) -> str:
    """`ctadesk rules` on path ends with exit 2 and one line naming the file (and `message`)."""
    assert main(["rules", str(path), *RULES]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith(f"ctadesk: error: {path.name}"), err
    for text in message:
        assert text in err, err
    return err


@timed
def test_rules_on_a_zip_bomb_refuses_at_once_with_little_memory(tmp_path, capsys, timed):
    bomb = zip_bomb(tmp_path, 64)
    tracemalloc.start()
    start = time.perf_counter()
    try:
        refused(capsys, bomb, "zip bomb")
        elapsed = time.perf_counter() - start
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20 * 2**20
    assert not timed or elapsed < 2.0


def test_a_workbook_unpacking_beyond_the_size_cap_is_refused(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("ctadesk.io.excel.workbook.MAX_UNCOMPRESSED_BYTES", 1000)
    refused(capsys, workbook(tmp_path / "m.xlsx"), "unpacks to", "more than the 0 MB ctadesk reads")


def test_a_sheet_declaring_too_many_cells_is_refused_before_reading(tmp_path, capsys):
    def write(stream):
        stream.write(b'<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
                     b'<dimension ref="A1:Z1000000"/><sheetData/></worksheet>')

    path = replace_part(workbook(tmp_path / "m.xlsx"), tmp_path / "wide.xlsx", SHEET, write)
    refused(capsys, path, "sheet 'Sheet': the sheet spans 1000000 rows x 26 columns")


def test_a_sheet_holding_too_many_cells_is_cut_while_reading(tmp_path, monkeypatch):
    monkeypatch.setattr("ctadesk.io.microdata.MAX_CELLS", 10)
    with pytest.raises(FileFormatError, match=r"m.xlsx, sheet 'Sheet': the sheet (spans|holds) .* 10 cells"):
        read_xlsx_microdata(workbook(tmp_path / "m.xlsx"), SPEC)


def test_a_truncated_workbook_is_one_line(tmp_path, capsys):
    raw = workbook(tmp_path / "m.xlsx").read_bytes()
    (tmp_path / "cut.xlsx").write_bytes(raw[:len(raw) // 2])
    refused(capsys, tmp_path / "cut.xlsx", "not an .xlsx workbook, or the file is damaged")


def test_a_csv_renamed_xlsx_is_one_line(tmp_path, capsys):
    (tmp_path / "m.xlsx").write_text("region,turnover\nr1,5\n", encoding="latin-1")
    refused(capsys, tmp_path / "m.xlsx", "not an .xlsx workbook")


def test_an_encrypted_or_legacy_workbook_is_one_line(tmp_path, capsys):
    (tmp_path / "m.xlsx").write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(600))
    refused(capsys, tmp_path / "m.xlsx", "password-protected (encrypted) or a legacy .xls")


def test_malformed_sheet_xml_is_one_line_naming_the_sheet(tmp_path, capsys):
    source = workbook(tmp_path / "m.xlsx")
    with zipfile.ZipFile(source) as archive:
        xml = archive.read(SHEET)
    path = replace_part(source, tmp_path / "bad.xlsx", SHEET, lambda stream: stream.write(xml[:len(xml) // 2]))
    refused(capsys, path, "sheet 'Sheet': the workbook is damaged and cannot be read")


def test_a_csv_file_beyond_the_size_cap_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr("ctadesk.io.microdata.MAX_BYTES", 10)
    (tmp_path / "m.csv").write_text("region,turnover\nr1,5\n")
    with pytest.raises(FileFormatError, match=r"m\.csv: the file is 0 MB, more than"):
        read_csv_microdata(tmp_path / "m.csv", SPEC)


def test_a_latin_1_csv_with_a_latin_1_hierarchy_reads(tmp_path):
    (tmp_path / "m.csv").write_bytes("region;turnover\nGröningen;5\nZéland;7\n".encode("latin-1"))
    (tmp_path / "r.hrc").write_bytes("Nörd\n@Gröningen\n@Zéland\n".encode("latin-1"))
    spec = MicrodataSpec(spanning=("region",), response="turnover",
                         hierarchies={"region": read_hrc(tmp_path / "r.hrc", "region")})
    micro = read_csv_microdata(tmp_path / "m.csv", spec)
    assert micro.structure.dimensions[0].codes == ("Total", "Nörd", "Gröningen", "Zéland")


def test_a_hierarchy_file_beyond_the_size_cap_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr("ctadesk.io.hierarchy.MAX_BYTES", 4)
    (tmp_path / "r.hrc").write_text("A\n@a1\n")
    with pytest.raises(FileFormatError, match=r"r\.hrc: the file is 0 MB, more than"):
        read_hrc(tmp_path / "r.hrc", "region")


def test_a_table_spanning_too_many_cells_is_refused_before_tabulating(tmp_path, monkeypatch):
    monkeypatch.setattr("ctadesk.io.cells.MAX_TABLE_CELLS", 20)
    (tmp_path / "m.csv").write_text("a,b,v\n" + "".join(f"{k},{k},1\n" for k in range(5)))
    with pytest.raises(FileFormatError, match=r"m.csv: the codes span a table of 36 cells \(6 x 6\)"):
        read_csv_microdata(tmp_path / "m.csv", MicrodataSpec(spanning=("a", "b"), response="v"))


# ---------------------------------------------------------------- SPSS, Stata
@pytest.fixture
def frame():
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyreadstat")
    return pd.DataFrame({"region": ["Grxningen", "Grxningen", "Zxland"], "turnover": [1.0, 2.0, 3.0]})


@pytest.mark.parametrize("suffix", [".sav", ".dta"])
def test_a_statistical_file_with_latin_1_text_reads(tmp_path, frame, suffix):
    import pyreadstat

    path = tmp_path / f"m{suffix}"
    (pyreadstat.write_sav if suffix == ".sav" else pyreadstat.write_dta)(frame, str(path))
    path.write_bytes(path.read_bytes().replace(b"Grx", b"Gr\xf6"))  # latin-1 text in a UTF-8 file
    micro, _ = read_statfile_microdata(path, SPEC, "spss" if suffix == ".sav" else "stata")
    assert micro.structure.dimensions[0].codes[0] == "Gr\u00f6ningen"


def test_a_compressed_spss_file_with_too_many_values_is_refused_from_its_record_count(tmp_path, frame,
                                                                                      monkeypatch):
    import pyreadstat

    monkeypatch.setattr("ctadesk.io.statfiles.MAX_VALUES", 4)
    pyreadstat.write_sav(frame, str(tmp_path / "m.zsav"), compress=True)
    with pytest.raises(FileFormatError, match=r"m\.zsav: more than 2 records of the variables read"):
        read_statfile_microdata(tmp_path / "m.zsav", SPEC, "spss")


@pytest.mark.parametrize("suffix", [".sav", ".dta", ".sas7bdat"])
def test_damaged_statistical_files_are_one_line(tmp_path, capsys, frame, suffix):
    import pyreadstat

    path = tmp_path / f"m{suffix}"
    if suffix == ".sas7bdat":
        path.write_bytes("région;turnover\n".encode("latin-1") * 40)
    else:
        (pyreadstat.write_sav if suffix == ".sav" else pyreadstat.write_dta)(frame, str(path))
        path.write_bytes(path.read_bytes()[:300])
    refused(capsys, path, "cannot be read")


LAUGHS = (b'<!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
          b'<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>')


@pytest.mark.parametrize("part", [SHEET, "xl/workbook.xml", "xl/styles.xml", "[Content_Types].xml",
                                  "xl/_rels/workbook.xml.rels"])
def test_a_billion_laughs_workbook_is_one_line_naming_the_file_and_part_for_every_reader(tmp_path, part):
    # issue 29: openpyxl with defusedxml raised a three-line "could not read ... invalid XML" message
    from ctadesk.io.excel import import_table
    from ctadesk.io.microdata import xlsx_columns

    source = workbook(tmp_path / "m.xlsx")
    with zipfile.ZipFile(source) as archive:
        xml = archive.read(part)
    head, _, rest = xml.partition(b"?>")
    bomb = replace_part(source, tmp_path / "bomb.xlsx", part,
                        lambda stream: stream.write(head + b"?>" + LAUGHS + rest if rest else LAUGHS + xml))
    for reader in (lambda p: read_xlsx_microdata(p, SPEC), xlsx_columns, import_table):
        with pytest.raises(FileFormatError) as caught:
            reader(bomb)
        message = str(caught.value)
        assert message.startswith("bomb.xlsx") and "\n" not in message, message
        assert f"its part '{part}' declares a document type or XML entities" in message
