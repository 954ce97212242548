"""tau-argus tables through the safety rules as tau-argus applies them: tau-argus's own pp.tab
(sdcTools/tauargus, data/tableinput), a table without frequencies, right-justified codes.

Reference for pp.tab: its StatusVar, LowerProtLevel and UpperProtLevel columns are tau-argus's
own output -- every safe cell carries the level 0.01 = 10^-<DECIMALS>, the floor libtauargus's
CTable::SetProtectionLevelCell gives (MinLPL), and cell Size 9 x Region 4 carries
1288.15 = 0.15 * 11401 - (11968 - 11401 - 145), the p% = 15 level.  The rules that reproduce
the statuses, p% = 15 with a minimum frequency of 3 (derived by hand from the file: the three
unsafe cells the p% rule leaves safe have one contributor, cells with three are safe), are
applied to the shadow variable (manual §4.4.4).  Four cells' responses differ from their shadow
(the file is deliberately a little non-additive); for them the expected levels are derived by
hand from tau-argus's formula, level = |response| * (level on the shadow) / shadow.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ctadesk.cli import main
from ctadesk.engine.rules.safety import SafetyRules, apply_rules
from ctadesk.io.tauargus import read_tab

EXAMPLES = Path(__file__).resolve().parents[3] / "shared" / "formats" / "tauargus-examples"
if not EXAMPLES.exists():
    EXAMPLES = Path("/work/shared/formats/tauargus-examples")
PP = EXAMPLES / "pp.tab"
pytestmark = pytest.mark.skipif(not PP.exists(), reason="tau-argus examples missing")

P15 = SafetyRules(p_percent=[15])
P15_FREQUENCY = SafetyRules(p_percent=[15], min_frequency=3, frequency_safety_range=15)


def cell(table, size: str, region: str) -> int:
    size_dim, region_dim = table.structure.dimensions
    return int(np.ravel_multi_index((size_dim.index(size), region_dim.index(region)), table.structure.shape))


def statuses(table, result) -> np.ndarray:
    """S/U/E per cell, as tau-argus's status column writes them."""
    return np.where(result.flags != 0, "U", np.where(result.empty, "E", "S"))


def test_pp_p_percent_on_the_shadow_flags_size_2_region_6():
    # shadow 10 with top contributions 5 and 5: remainder 0 < 0.15 * 5, level 0.75 on the shadow;
    # the response 11 would leave 1 >= 0.75 (safe)
    table = read_tab(PP)
    result = apply_rules(table.statistics, P15)
    i = cell(table, "2", "6")
    assert result.status(i) == "unsafe: p%"
    assert result.upper_protection[i] == pytest.approx(0.75 * 11 / 10)


def test_pp_statuses_are_tau_argus_own_cell_for_cell():
    table = read_tab(PP)
    result = apply_rules(table.statistics, P15_FREQUENCY)
    np.testing.assert_array_equal(statuses(table, result), table.status)
    assert (table.status == "U").sum() == 9


def test_pp_protection_levels_are_tau_argus_own_where_the_response_is_the_shadow():
    table = read_tab(PP)
    result = apply_rules(table.statistics, P15_FREQUENCY)
    unsafe = result.flags != 0
    same = unsafe & (table.statistics.values == table.statistics.shadow)
    assert same.sum() == 5
    np.testing.assert_allclose(result.upper_protection[same], table.upper_protection[same])
    np.testing.assert_allclose(result.lower_protection[same], table.lower_protection[same])


def test_pp_protection_levels_where_the_response_differs_from_the_shadow():
    table = read_tab(PP)
    result = apply_rules(table.statistics, P15_FREQUENCY)
    expected = {("2", "6"): 0.75 * 11 / 10,  # p% (flagged by frequency too: the p% level)
                ("2", "4"): 0.15 * 4, ("4", "Os"): 0.15 * 4, ("4", "6"): 0.15 * 4}  # frequency: 15 % of 4
    for (size, region), level in expected.items():
        assert result.upper_protection[cell(table, size, region)] == pytest.approx(level), (size, region)


def test_pp_rules_on_the_command_line_with_the_largest_level(tmp_path):
    out = tmp_path / "pp.csv"
    args = ["rules", str(PP), "--p-percent", "15", "--min-freq", "3", "--freq-range", "15", "-o", str(out)]
    assert main(args) == 0
    rows = {(r.split(",")[0], r.split(",")[1]): r.split(",") for r in out.read_text().splitlines()[1:]}
    assert float(rows["2", "6"][-1]) == pytest.approx(0.825)
    assert main([*args, "--largest-level"]) == 0
    rows = {(r.split(",")[0], r.split(",")[1]): r.split(",") for r in out.read_text().splitlines()[1:]}
    assert float(rows["2", "6"][-1]) == pytest.approx(0.15 * 11)  # the frequency range is larger


# ---------------------------------------------------------------- no frequency column
RDA_WITHOUT_FREQUENCY = """   <SEPARATOR> ";"
Region
    <RECODEABLE>
    <TOTCODE> "Total"
Turnover
    <NUMERIC>
Top1
    <MAXSCORE>
Top2
    <MAXSCORE>
"""
TAB_WITHOUT_FREQUENCY = """"Total";130;100;20
"a";110;100;5
"b";20;20;0
"""


def test_a_tab_without_frequencies_has_one_contribution_per_cell(tmp_path):
    (tmp_path / "t.rda").write_text(RDA_WITHOUT_FREQUENCY)
    (tmp_path / "t.tab").write_text(TAB_WITHOUT_FREQUENCY + '"c";0;0;0\n')
    table = read_tab(tmp_path / "t.tab")
    assert table.structure.dimensions[0].codes == ("Total", "a", "b", "c")
    assert table.statistics.freq.tolist() == [1, 1, 1, 1]
    result = apply_rules(table.statistics, SafetyRules(dominance=[(1, 80)]))
    # c has a contributor of 0: safe, not empty
    assert [result.status(i) for i in range(4)] == ["safe", "unsafe: dominance", "unsafe: dominance", "safe"]


def test_a_tab_without_frequencies_leaves_unlisted_and_empty_marked_cells_empty(tmp_path):
    rda = RDA_WITHOUT_FREQUENCY.replace("Turnover", "Size\n    <RECODEABLE>\n    <TOTCODE> \"Total\"\nTurnover")
    (tmp_path / "t.rda").write_text(rda + "Status\n    <STATUS>\n")
    (tmp_path / "t.tab").write_text('"Total";"Total";5;5;0;S\n"Total";"x";5;5;0;S\n"a";"Total";5;5;0;S\n'
                                    '"a";"x";5;5;0;S\n"b";"Total";0;0;0;E\n')  # b x is not listed
    table = read_tab(tmp_path / "t.tab")
    region, size = table.structure.dimensions
    assert region.codes == ("Total", "a", "b") and size.codes == ("Total", "x")
    assert table.statistics.freq.reshape(3, 2).tolist() == [[1, 1], [1, 1], [0, 0]]


# ---------------------------------------------------------------- right-justified codes
RDA_PADDED = """   <SEPARATOR> ";"
Size
    <RECODEABLE>
    <TOTCODE> "Total"
Region
    <RECODEABLE>
    <TOTCODE> "Total"
    <HIERARCHICAL>
    <HIERCODELIST> "region.hrc"
    <HIERLEADSTRING> "@"
Turnover
    <NUMERIC>
Freq
    <FREQUENCY>
"""
HRC_PADDED = "Nr\n@ 1\n@ 2\nZd\n@11\n"


REGION = {"Total": 7, "Nr": 3, "1": 1, "2": 2, "Zd": 4, "11": 4}
SIZE = {"Total": 7, "1": 3, "2": 4}


def padded_tab(width: int) -> str:
    """An additive Size x Region table with its codes right-justified to `width`, as rtauargus
    writes fixed-width files."""
    return "".join(f'"{s:>{width}}";"{r:>{width}}";{SIZE[s] * REGION[r]};1\n' for s in SIZE for r in REGION)


@pytest.mark.parametrize("width", [5, 11])
def test_right_justified_codes_and_total_codes_are_trimmed(tmp_path, width):
    (tmp_path / "t.rda").write_text(RDA_PADDED)
    (tmp_path / "region.hrc").write_text(HRC_PADDED)
    (tmp_path / "t.tab").write_text(padded_tab(width))
    table = read_tab(tmp_path / "t.tab")
    size, region = table.structure.dimensions
    assert size.codes == ("Total", "1", "2")
    assert region.codes == ("Total", "Nr", "1", "2", "Zd", "11")
    assert table.non_additive() == [] and table.messages == ()
    assert (table.lines > 0).all()
