"""Every file in sample_data/ opens with the app's readers and shows what sample_data/README.md
says it shows; the microdata tabulate to the same table from each of their three formats."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from ctadesk.app import files
from ctadesk.app.formats import read_table
from ctadesk.engine.rules.safety import SafetyRules, apply_rules
from ctadesk.io.excel import import_table
from ctadesk.io.hierarchy import read_hrc
from ctadesk.io.senses import read_senses
from ctadesk.io.tauargus import read_tab
from ctadesk.resources import samples_dir

SAMPLES = samples_dir()
THESIS_SENSITIVE = {"thesis_10x15": 20, "thesis_20x30": 20, "thesis_50x75": 100, "thesis_70x100": 100,
                    "thesis_100x120": 100}  # Petrenko 2017, Table 6.3
HIERARCHIES = {"region": str(SAMPLES / "business_region.hrc"), "industry": str(SAMPLES / "business_industry.hrc")}
CZECH_FACTORS = ["A_smoking", "B_strenuous_mental_work", "C_strenuous_physical_work", "D_systolic_blood_pressure",
                 "E_beta_alpha_lipoprotein_ratio", "F_family_anamnesis_CHD"]
#: files that are not samples
NOT_SAMPLES = {"README.md", "make_samples.py"}
#: every sample, by the test that opens it
COVERED = {
    *(f"{name}.jj" for name in THESIS_SENSITIVE), "thesis_3x4.jj", "thesis_3x4.senses", "cox_20x20.jj",
    "cox_6x8x10.jj", "region_industry.tab", "region_industry.rda", "business_region.hrc", "business_industry.hrc",
    "business_microdata.csv", "business_microdata.xlsx", "business_microdata.sav", "office_turnover.xlsx",
    "czech_autoworkers.csv",
}


def make_samples():
    """sample_data/make_samples.py as a module."""
    spec = importlib.util.spec_from_file_location("make_samples", SAMPLES / "make_samples.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_file_in_sample_data_is_opened_by_a_test_here():
    present = {path.name for path in SAMPLES.iterdir() if path.is_file()} - NOT_SAMPLES
    assert present == COVERED


@pytest.mark.parametrize("name", sorted(THESIS_SENSITIVE))
def test_thesis_tables_have_the_sizes_and_sensitive_cells_of_table_6_3(name):
    rows, columns = map(int, name.removeprefix("thesis_").split("x"))
    problem = read_table(SAMPLES / f"{name}.jj").to_problem()
    assert problem.n_cells == (rows + 1) * (columns + 1)
    assert problem.sensitive.size == THESIS_SENSITIVE[name]
    assert int(problem.fixed.sum()) == rows + columns + 1          # the totals
    assert np.all(problem.lower[~problem.fixed] == 0)


def test_the_thesis_10x15_sample_is_what_make_samples_makes(tmp_path):
    from ctadesk.io.jj import write_jj

    maker = make_samples()
    write_jj(tmp_path / "thesis_10x15.jj", maker.thesis_problem((10, 15), 20, maker.SEED))
    assert (tmp_path / "thesis_10x15.jj").read_bytes() == (SAMPLES / "thesis_10x15.jj").read_bytes()


def test_the_thesis_3x4_senses_name_its_two_sensitive_cells():
    problem = read_table(SAMPLES / "thesis_3x4.jj").to_problem()
    senses = read_senses(SAMPLES / "thesis_3x4.senses", problem)
    assert list(senses) == [1, 1]


@pytest.mark.parametrize("name, cells", [("cox_20x20.jj", 21 * 21), ("cox_6x8x10.jj", 7 * 9 * 11)])
def test_cox_tables_have_30_percent_of_inner_cells_sensitive(name, cells):
    problem = read_table(SAMPLES / name).to_problem()
    inner = {21 * 21: 400, 7 * 9 * 11: 480}[cells]
    assert problem.n_cells == cells
    assert problem.sensitive.size == round(0.3 * inner)


def test_the_region_industry_tab_is_hierarchical_and_flags_the_dominant_machinery_maker():
    table = read_tab(SAMPLES / "region_industry.tab")
    project = files.project_from_tab(table)
    region, industry = table.structure.dimensions
    assert (region.size, industry.size) == (11, 16)                 # 7 regions + 3 macro + total; 11 + 4 + total
    assert project.statistics.freq[0] == 20_000
    result = apply_rules(project.statistics, SafetyRules(dominance=((1, 75.0),)))
    region_at, industry_at = region.codes.index("C3"), industry.codes.index("C28")
    cell = np.ravel_multi_index((region_at, industry_at), table.structure.shape)
    assert result.rule_names(cell) == ["dominance"]


def test_hierarchy_files_nest_regions_and_divisions():
    assert read_hrc(SAMPLES / "business_region.hrc", "region").size == 1 + 3 + 7
    assert read_hrc(SAMPLES / "business_industry.hrc", "industry").size == 1 + 4 + 11


@pytest.fixture(scope="module")
def microdata_tables():
    """The region x industry turnover table tabulated from each microdata format."""
    return {suffix: files.read_microdata_file(SAMPLES / f"business_microdata{suffix}", ["region", "industry"],
                                              "turnover", weight="weight", holding="holding",
                                              hierarchy_files=HIERARCHIES)
            for suffix in (".csv", ".xlsx", ".sav")}


def test_microdata_tabulate_20000_enterprises_with_weights_and_holdings(microdata_tables):
    project = microdata_tables[".csv"]
    statistics = project.statistics
    assert project.n_cells == 11 * 16
    assert statistics.freq.max() == 20_000                          # the grand total
    assert statistics.weight_sums.max() > 20_000                    # small enterprises are sampled
    assert statistics.holding_freq.max() < 20_000                    # enterprises of a group count once


@pytest.mark.parametrize("suffix", [".xlsx", ".sav"])
def test_every_microdata_format_gives_the_same_table(microdata_tables, suffix):
    csv_table, other = microdata_tables[".csv"], microdata_tables[suffix]
    np.testing.assert_allclose(other.values, csv_table.values)
    np.testing.assert_array_equal(other.statistics.freq, csv_table.statistics.freq)


def test_the_office_workbook_reads_as_regions_under_macro_regions_by_size_class():
    table = import_table(SAMPLES / "office_turnover.xlsx")
    regions, sizes = table.structure.dimensions
    assert sizes.codes == ("0-9", "10-49", "50-249", "250+", "Total")
    assert regions.codes[regions.parents[regions.codes.index("Midlands")]] == "Centre"
    assert not table.notes
    values = table.values.reshape(table.structure.shape)
    np.testing.assert_allclose(values[:, :4].sum(axis=1), values[:, 4])


def test_the_czech_auto_workers_table_tabulates_to_1841_men():
    project = files.read_microdata_file(SAMPLES / "czech_autoworkers.csv", CZECH_FACTORS, "count")
    assert project.n_cells == 3 ** 6
    assert project.values.max() == 1841
