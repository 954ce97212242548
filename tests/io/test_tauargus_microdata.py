"""tau-argus microdata (.asc + .rda) read into the engine's Microdata: tau-argus's own test data
(tests/data/tauargus, from sdcTools/checkTauArgus) and fixed-width files in the layout of
tau-argus's Tau_TestW.rda (shared/formats/tauargus-examples)."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctadesk.engine.table.microdata import tabulate
from ctadesk.io.errors import FileFormatError
from ctadesk.io.tauargus_microdata import read_asc

DATA = Path(__file__).resolve().parents[1] / "data" / "tauargus"
EXAMPLES = Path("/work/shared/formats/tauargus-examples")
EX2 = DATA / "ex2"


def value(table, stats, **codes) -> float:
    index = tuple(d.codes.index(codes.get(d.name, "Total")) for d in table.structure.dimensions)
    return float(stats.values[np.ravel_multi_index(index, table.structure.shape)])


def test_free_format_example_tabulates_as_tau_argus():
    """checkTauArgus ex2: tau-argus's output starts with the total 10484.95 of num1."""
    data = read_asc(EX2 / "microdata_ex2.asc", EX2 / "metadata_ex2.rda")
    table = data.table(["region", "gender"], "num1")
    stats = tabulate(table.microdata)
    assert data.n_records == 100
    assert [d.codes for d in table.structure.dimensions] == [("Total", "A", "B", "C", "D"), ("Total", "male", "female")]
    assert value(table, stats) == pytest.approx(10484.95)
    assert int(stats.freq[table.structure.dimensions[1].codes.index("female") + 3]) == 2  # A x female


def fixed_record(year: str, industry: str, size: str, region: str, weight: str, values: list[int],
                 request: str = " ") -> str:
    """A record in Tau_TestW.rda's columns (Year 1-2, IndustryCode 4-8, Size 9-10, Region 12-13,
    Wgt 15-18, Var1 19-27, Var2..Var8 28-97 by 10, Request 99)."""
    line = f"{year:>2} {industry:>5}{size:>2} {region:>2} {weight:>4}{values[0]:>9}"
    line += "".join(f"{v:>10}" for v in values[1:8])
    return line + " " + request


@pytest.fixture
def testw(tmp_path: Path) -> Path:
    for name in ("Tau_TestW.rda", "region2.hrc", "region.cdl"):
        shutil.copy(EXAMPLES / name, tmp_path / name)
    return tmp_path


def write_asc(folder: Path, records: list[str]) -> Path:
    path = folder / "tau_testW.asc"
    path.write_text("\n".join(records) + "\n")
    return path


def test_fixed_width_with_hierarchies_weights_and_requests(testw: Path):
    records = [fixed_record("1", "11111", "1", "1", "2.5", [1, 100, 0, 0, 0, 0, 0, 0], "1"),
               fixed_record("1", "11112", "2", "4", "1.0", [1, 40, 0, 0, 0, 0, 0, 0]),
               fixed_record("1", "21111", "1", "12", "4.0", [1, 7, 0, 0, 0, 0, 0, 0], "2"),
               fixed_record("1", "21111", "1", "12", "9999", [1, 5, 0, 0, 0, 0, 0, 0])]
    data = read_asc(write_asc(testw, records), testw / "Tau_TestW.rda")
    table = data.table(["IndustryCode", "Region"], "Var2")
    stats = tabulate(table.microdata)
    industry, region = table.structure.dimensions
    assert {"111", "1111", "11111", "211", "2111", "21111"} <= set(industry.codes)   # <HIERLEVELS> 3 1 1
    assert region.codes[region.parents.tolist().index(-1)] == "Total" and "Nr" in region.codes  # region2.hrc
    assert value(table, stats) == 147                       # the record with a missing weight left out
    assert value(table, stats, Region="Nr") == 100 and value(table, stats, IndustryCode="2111") == 7
    assert np.allclose(table.microdata.weight, [2.5, 1.0, 4.0])
    assert table.microdata.request.tolist() == [1, 0, 2]
    assert any("missing weight" in note for note in table.notes)
    assert table.labels[1]["1"] == "Groningen"
    assert data.table(["Region"], "Var2", weighted=False).microdata.weight is None


def test_a_field_that_is_not_a_number_is_named_with_its_line_and_columns(testw: Path):
    records = [fixed_record("1", "11111", "1", "1", "1", [1, 100, 0, 0, 0, 0, 0, 0]),
               fixed_record("1", "11111", "1", "1", "1", [1, 0, 0, 0, 0, 0, 0, 0])
               .replace("         0", "      1x0", 1)]
    data = read_asc(write_asc(testw, records), testw / "Tau_TestW.rda")
    with pytest.raises(FileFormatError, match=r"tau_testW.asc, line 2: Var2 \(columns 28-37\)"):
        data.table(["Region"], "Var2")


def test_an_unknown_variable_and_a_wrong_field_count_are_refused(tmp_path: Path):
    for name in ("metadata_ex2.rda", "hier_region_ex2.hrc", "hier_gender_ex2.hrc"):
        shutil.copy(EX2 / name, tmp_path / name)
    asc = tmp_path / "micro.asc"
    asc.write_text("A,male,1,2,3.5,4\nA,male,1,2,3.5\n")
    with pytest.raises(FileFormatError, match=r"micro.asc, line 2: 5 fields, the metadata describes 6"):
        read_asc(asc, tmp_path / "metadata_ex2.rda")
    asc.write_text("A,male,1,2,3.5,4\n")
    data = read_asc(asc, tmp_path / "metadata_ex2.rda")
    with pytest.raises(FileFormatError, match=r"metadata_ex2\.rda: no response variable 'num9'"):
        data.table(["region"], "num9")
    with pytest.raises(FileFormatError, match="'num1' is not a spanning variable"):
        data.table(["num1"], "num2")


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("ABCD"), st.sampled_from(["male", "female"]),
                          st.integers(0, 99999)), min_size=1, max_size=30))
def test_totals_are_the_sums_of_the_records(tmp_path_factory, rows):
    """Any free-format file: the grand total is the sum of num1 and each region's frequency its records."""
    folder = tmp_path_factory.mktemp("asc")
    for name in ("metadata_ex2.rda", "hier_region_ex2.hrc", "hier_gender_ex2.hrc"):
        shutil.copy(EX2 / name, folder / name)
    asc = folder / "m.asc"
    asc.write_text("".join(f"{r},{g:>6},  1,  1,{v / 100:.2f},1.00\n" for r, g, v in rows))
    table = read_asc(asc, folder / "metadata_ex2.rda").table(["region", "gender"], "num1")
    stats = tabulate(table.microdata)
    assert value(table, stats) == pytest.approx(sum(v for *_, v in rows) / 100)
    region = table.structure.dimensions[0]
    for code in region.codes[1:]:
        cell = np.ravel_multi_index((region.codes.index(code), 0), table.structure.shape)
        assert stats.freq[cell] == sum(r == code for r, *_ in rows)


def test_a_hierarchy_list_without_a_file_name_is_named_with_the_metadata_file(tmp_path: Path):
    """`<HIERCODELIST>` with no file after it: was an AttributeError from deep in the reader."""
    for name in ("microdata_ex2.asc", "hier_gender_ex2.hrc"):
        shutil.copy(EX2 / name, tmp_path / name)
    metadata = (EX2 / "metadata_ex2.rda").read_text().replace("<HIERCODELIST> hier_region_ex2.hrc", "<HIERCODELIST>")
    (tmp_path / "metadata_ex2.rda").write_text(metadata)
    data = read_asc(tmp_path / "microdata_ex2.asc", tmp_path / "metadata_ex2.rda")
    with pytest.raises(FileFormatError, match=r"metadata_ex2\.rda: region: <HIERCODELIST> names no \.hrc file"):
        data.table(["region"], "num1")


def test_a_hierarchical_variable_without_its_hierarchy_is_refused_naming_the_metadata_file(tmp_path: Path):
    """`<HIERARCHICAL>` with neither a `<HIERCODELIST>` nor `<HIERLEVELS>`: was read flat."""
    for name in ("microdata_ex2.asc", "hier_gender_ex2.hrc"):
        shutil.copy(EX2 / name, tmp_path / name)
    metadata = (EX2 / "metadata_ex2.rda").read_text().replace("<HIERCODELIST> hier_region_ex2.hrc", "")
    assert "<HIERARCHICAL>" in metadata
    (tmp_path / "metadata_ex2.rda").write_text(metadata)
    data = read_asc(tmp_path / "microdata_ex2.asc", tmp_path / "metadata_ex2.rda")
    with pytest.raises(FileFormatError, match=r"metadata_ex2\.rda: region: <HIERARCHICAL> with neither "
                                              r"<HIERCODELIST> nor <HIERLEVELS>"):
        data.table(["region"], "num1")


def test_a_code_outside_the_hierarchy_goes_under_the_total_with_a_note_naming_file_and_line(tmp_path: Path):
    """Both tau-argus readers place such a code the same way (tauargus.with_codes_under_total)."""
    for name in ("microdata_ex2.asc", "metadata_ex2.rda", "hier_gender_ex2.hrc"):
        shutil.copy(EX2 / name, tmp_path / name)
    (tmp_path / "hier_region_ex2.hrc").write_text("A\nB\nC\n")
    first_d = next(k for k, line in enumerate((EX2 / "microdata_ex2.asc").read_text().splitlines(), 1)
                   if line.startswith("D,"))
    data = read_asc(tmp_path / "microdata_ex2.asc", tmp_path / "metadata_ex2.rda")
    table = data.table(["region"], "num1")
    region = table.structure.dimensions[0]
    assert region.codes == ("Total", "A", "B", "C", "D")
    assert region.parents[region.codes.index("D")] == region.codes.index("Total")
    assert table.notes == (f"microdata_ex2.asc, line {first_d}: code 'D' of region is not in hier_region_ex2.hrc; "
                           f"its cell was added directly under Total",)
