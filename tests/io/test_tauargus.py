"""Reading tau-argus .tab/.rda/.cdl files (shared/formats/tauargus-examples) and writing a .tab back."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from ctadesk.engine.methods import solve
from ctadesk.io.errors import FileFormatError
from ctadesk.io.tauargus import read_cdl, read_rda, read_tab, write_tab

EXAMPLES = Path(__file__).resolve().parents[3] / "shared" / "formats" / "tauargus-examples"
if not EXAMPLES.exists():
    EXAMPLES = Path("/work/shared/formats/tauargus-examples")
PP = EXAMPLES / "pp.tab"


def cell(table, size: str, region: str) -> int:
    size_dim, region_dim = table.structure.dimensions
    return int(np.ravel_multi_index((size_dim.index(size), region_dim.index(region)), table.structure.shape))


def test_pp_rda_lists_spanning_variables_and_the_separator():
    metadata = read_rda(EXAMPLES / "pp.rda")
    assert metadata.separator == ";"
    assert [v.name for v in metadata.spanning] == ["Size", "Region"]
    assert [v.name for v in metadata.variables][2:] == [
        "Var2", "FreqVar", "Var2_Shadow", "Var2_Cost", "Top1", "Top2", "StatusVar", "LowerProtLevel",
        "UpperProtLevel"]
    region = metadata.spanning[1]
    assert region.option("HIERCODELIST") == "region2.hrc" and region.option("HIERLEADSTRING") == "@"


def test_fixed_column_microdata_rda_keeps_positions_and_options():
    metadata = read_rda(EXAMPLES / "Tau_TestW.rda")
    assert metadata.separator is None
    industry = next(v for v in metadata.variables if v.name == "IndustryCode")
    assert industry.position == ("4", "5", "99999")
    assert industry.options["HIERLEVELS"] == ["3", "1", "1", "0", "0"]
    assert next(v for v in metadata.variables if v.name == "Request").options["REQUEST"] == ["1", "2"]


def test_pp_tab_reads_hierarchy_values_with_decimal_comma_and_statistics():
    table = read_tab(PP)
    size, region = table.structure.dimensions
    assert table.structure.shape == (9, 18)
    assert size.codes[:3] == ("Total", "2", "4")  # codes trimmed as tau-argus does (" 2" is "2")
    nr = region.index("Nr")
    assert [region.codes[k] for k in np.flatnonzero(region.parents == nr)] == ["1", "2", "3"]
    i = cell(table, "Total", "Total")
    assert table.values[i] == 16847646.84 and table.statistics.freq[i] == 42723
    assert table.statistics.top[i].tolist() == [175677.0, 141482.0]
    j = cell(table, "9", "4")
    assert table.status[j] == "U" and table.upper_protection[j] == 1288.15
    assert (table.status == "U").sum() == 9
    assert table.labels[1][" 1"] == "Groningen" and table.labels[1]["Zd"] == "South"


def test_codes_missing_from_the_hierarchy_are_reported_and_placed_under_the_total():
    table = read_tab(PP)
    assert any("'99'" in message and "region2.hrc" in message for message in table.messages)
    region = table.structure.dimensions[1]
    assert region.parents[region.index("99")] == region.index("Total")


def test_pp_tab_non_additive_relations_are_reported_with_their_difference():
    broken = read_tab(PP).non_additive()
    labels = {relation.label: relation.difference for relation in broken}
    assert labels["Region=Total = sum of its parts at Size=4"] == pytest.approx(1.0)  # 25 vs 24
    assert len(broken) == 3


def test_pp_tab_made_additive_on_request_recomputes_the_totals():
    table = read_tab(PP)
    additive, changed = table.make_additive()
    assert additive.non_additive() == []
    assert additive.values[cell(table, "4", "Total")] == 24.0
    assert cell(table, "4", "Total") in changed and len(changed) == 4
    assert table.values[cell(table, "4", "Total")] == 25.0  # the original is left alone


def test_pp_problem_protects_the_unsafe_cells_and_writes_back_a_release_tab(tmp_path):
    table, _ = read_tab(PP).make_additive()
    problem = table.problem()
    assert problem.n_sensitive == 9
    result = solve(problem, "milp")  # empty cells are fixed; the LP's sense heuristic finds no table here
    assert result.protected
    written = write_tab(tmp_path / "adjusted.tab", table, result.values)
    again = read_tab(written)  # with the adjusted.rda written beside it (and the codelists copied)
    listed = table.lines > 0
    np.testing.assert_allclose(again.values[listed], result.values[listed], atol=0.005)
    assert set(again.status[listed]) == {"S"} and again.statistics.top.shape == (table.values.size, 0)
    first = written.read_text().splitlines()[0]
    assert first.startswith('"Total";"Total";') and first.count(";") == 2  # codes and the value only


def test_codelist_keeps_codes_and_labels():
    labels = read_cdl(EXAMPLES / "region.cdl")
    assert labels[" 1"] == "Groningen" and labels["12"] == "Limburg" and len(labels) == 16


def test_a_line_with_the_wrong_number_of_fields_names_the_line(tmp_path):
    for name in ("pp.rda", "region2.hrc", "region.cdl"):
        shutil.copy(EXAMPLES / name, tmp_path)
    lines = PP.read_text().splitlines()
    lines[4] = lines[4].rsplit(";", 1)[0]
    (tmp_path / "pp.tab").write_text("\n".join(lines))
    with pytest.raises(FileFormatError, match=r"pp\.tab, line 5: 10 fields, the metadata describes 11"):
        read_tab(tmp_path / "pp.tab")


@pytest.mark.parametrize("named", ["../region2.hrc", "/etc/region2.hrc", "C:\\\\tau\\\\data\\\\region2.hrc"])
def test_files_an_rda_names_are_read_and_written_only_next_to_it(tmp_path, named):
    """A folder part in a name the .rda gives (absolute, '..', a Windows path) is not followed:
    the file is looked for beside the .rda, and a release's copies land beside the release."""
    import shutil

    source = tmp_path / "in"
    source.mkdir()
    for name in ("pp.tab", "region.cdl", "region2.hrc"):
        shutil.copy(EXAMPLES / name, source / name)
    (source / "pp.rda").write_text((EXAMPLES / "pp.rda").read_text().replace("region2.hrc", named))
    (tmp_path / "region2.hrc").write_text("nonsense that must not be read\n")
    table, _ = read_tab(source / "pp.tab").make_additive()
    assert table.structure.n_cells == read_tab(PP).structure.n_cells
    out = tmp_path / "out"
    out.mkdir()
    write_tab(out / "adjusted.tab", table, table.values)
    assert (out / "region2.hrc").read_text() == (EXAMPLES / "region2.hrc").read_text()
    assert (tmp_path / "region2.hrc").read_text() == "nonsense that must not be read\n"


def test_a_tab_line_with_a_code_outside_the_hierarchy_is_said_naming_file_and_line(tmp_path):
    # issue 29: such a line added a cell under the total without a word (the app logged nothing)
    from ctadesk.app.files import project_from_tab

    samples = Path(__file__).resolve().parents[2] / "sample_data"
    for name in ("region_industry.tab", "region_industry.rda", "business_region.hrc", "business_industry.hrc"):
        shutil.copyfile(samples / name, tmp_path / name)
    tab = tmp_path / "region_industry.tab"
    lines = tab.read_text().splitlines()
    region = lines[5].split(";")[0]
    lines.insert(5, lines[5].replace(f"{region};", '"ZZ9";', 1))
    tab.write_text("\n".join(lines) + "\n")
    table = read_tab(tab, )
    said = "region_industry.tab, line 6: code 'ZZ9' of Region is not in business_region.hrc; its cell was added " \
           "directly under Total"
    assert said in table.messages
    assert said in project_from_tab(table, keep_non_additive=True).log


def test_a_table_built_elsewhere_is_written_as_a_tab_that_reads_back_with_its_hierarchy(tmp_path):
    from ctadesk.engine.table.structure import Dimension, TableStructure
    from ctadesk.io.tauargus import write_table_tab

    region = Dimension.from_levels("Region", [1, 2, 2, 1, 2], ["N", "N1", "N2", "S", "S1"])
    size = Dimension.flat("Size", ["small", "large"], total="All")
    structure = TableStructure((region, size))
    values = structure.aggregate(np.arange(structure.n_cells, dtype=float).reshape(structure.shape) * 1.25)
    path = write_table_tab(tmp_path / "out.tab", structure, values, "Turnover", 2)
    table = read_tab(path)
    assert table.metadata.spanning[0].option("HIERCODELIST") == "out_Region.hrc"
    assert (tmp_path / "out_Region.hrc").read_text() == "N\n@N1\n@N2\nS\n@S1\n"
    back = table.structure
    assert [d.codes for d in back.dimensions] == [region.codes, ("All", "small", "large")]
    assert np.array_equal(back.dimensions[0].parents, region.parents)
    mine = {(region.codes[i], size.codes[j]): values[i * 3 + j] for i in range(region.size) for j in range(3)}
    read = {(back.dimensions[0].codes[i], back.dimensions[1].codes[j]): table.values[i * 3 + j]
            for i in range(region.size) for j in range(3)}
    assert read == mine and not table.non_additive()


def test_a_table_without_a_single_total_is_refused_naming_the_variable(tmp_path):
    from ctadesk.engine.table.structure import Dimension, TableStructure
    from ctadesk.io.tauargus import write_table_tab

    structure = TableStructure((Dimension.flat("Region", ["a", "b"], total=None),))
    with pytest.raises(FileFormatError, match="Region has 2 top codes"):
        write_table_tab(tmp_path / "out.tab", structure, np.array([1.0, 2.0]), "Turnover", 0)


@pytest.mark.parametrize("declared, said", [
    ('<HIERCODELIST> ""', r"<HIERCODELIST> names no \.hrc file"),
    ("", r"<HIERARCHICAL> with neither <HIERCODELIST> nor <HIERLEVELS>"),
    ("<HIERLEVELS> 1 1", r"a table's hierarchy is read from a <HIERCODELIST> \.hrc file, not from <HIERLEVELS>"),
])
def test_a_hierarchical_variable_whose_hierarchy_is_not_given_is_refused_naming_the_rda(tmp_path, declared, said):
    """pp.tab's Region read flat, its subtotals as ordinary codes, was protected and called verified."""
    for name in ("pp.tab", "region.cdl", "region2.hrc"):
        shutil.copy(EXAMPLES / name, tmp_path / name)
    rda = (EXAMPLES / "pp.rda").read_text()
    assert '<HIERCODELIST> "region2.hrc"' in rda
    (tmp_path / "pp.rda").write_text(rda.replace('<HIERCODELIST> "region2.hrc"', declared))
    with pytest.raises(FileFormatError, match=r"pp\.rda: Region: " + said):
        read_tab(tmp_path / "pp.tab")
