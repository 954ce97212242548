"""Hierarchy levels of a requested table ("Region:1"): the cells of a cut table are the cells of
the same codes in the whole hierarchy, with the same records and the same keys."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctadesk.app.online import OnlineError, cell_keys
from ctadesk.app.online.levels import cut, levels, requested_level
from ctadesk.app.online.service import table_microdata
from ctadesk.engine.table.microdata import Microdata
from ctadesk.engine.table.structure import Dimension, TableStructure
from tests.app.online.checker import original_table
from tests.app.online.synthetic import firms


@st.composite
def hierarchies(draw):
    """A hierarchy from random pre-order levels (each code at most one below the one before)."""
    depths = [1]
    for _ in range(draw(st.integers(1, 14))):
        depths.append(draw(st.integers(1, depths[-1] + 1)))
    total = draw(st.sampled_from(["Total", None]))
    if total is None:
        depths = [d - 1 for d in depths]
    return Dimension.from_levels("Region", depths, [f"c{k}" for k in range(len(depths))], total=total)


@settings(max_examples=60, deadline=None)
@given(dimension=hierarchies(), seed=st.integers(0, 1000), records=st.integers(1, 40), data=st.data())
def test_a_cut_table_is_the_whole_table_at_the_codes_it_keeps(dimension, seed, records, data):
    level = data.draw(st.integers(1, levels(dimension)))
    rng = np.random.default_rng(seed)
    size = Dimension.flat("Size", ["1", "2"])
    codes = (rng.choice(np.flatnonzero(dimension.is_leaf), records), rng.choice([0, 1], records))
    whole = Microdata(TableStructure((dimension, size)), codes, rng.lognormal(2.0, 1.0, records))
    cut_dimension, cut_codes = cut(dimension, whole.codes[0], level)
    shown = Microdata(TableStructure((cut_dimension, size)), (cut_codes, whole.codes[1]), whole.response)
    kept = [dimension.codes.index(code) for code in cut_dimension.codes]
    np.testing.assert_allclose(original_table(shown)[0], original_table(whole)[0][kept], rtol=1e-12)
    roots = np.flatnonzero(dimension.parents < 0)
    has_total = roots.size == 1 and not dimension.is_leaf[roots[0]]      # level 1 lies below it
    assert np.all(dimension.depth[kept] + (0 if has_total else 1) <= level)
    assert cell_keys(shown.structure) == [key for k, key in enumerate(cell_keys(whole.structure))
                                          if k // size.size in kept]


def test_region_at_level_one_keeps_its_groups():
    microdata = table_microdata(firms(seed=0), ("Region:1", "Size"))
    region = microdata.structure.dimensions[0]
    assert region.codes == ("Total", "N", "S")
    assert {region.codes[c] for c in microdata.codes[0]} <= {"N", "S"}


@pytest.mark.parametrize("item, expected", [("Region", ("Region", None)), ("Region:2", ("Region", 2)),
                                            ("Size : 1", ("Size", 1)), ("A:1", ("A:1", None))])
def test_a_level_is_read_after_the_colon_unless_the_name_holds_it(item, expected):
    assert requested_level(item, ["Region", "Size", "A:1"]) == expected


@pytest.mark.parametrize("item, message", [("Region:0", "whole number from 1"), ("Region:x", "whole number from 1"),
                                           ("Region:\u00b2", "digits 0-9"), ("Region:\u0661", "digits 0-9"),
                                           ("Region:" + "9" * 5000, "from 1 to 99"), ("Region:100", "from 1 to 99"),
                                           ("Region:3", "Region has levels 1 to 2")])
def test_a_level_that_is_not_there_is_named(item, message):
    with pytest.raises(OnlineError, match=message):
        table_microdata(firms(seed=0), (item, "Size"))


def test_a_variable_asked_for_at_two_levels_is_named():
    with pytest.raises(OnlineError, match="names a variable twice"):
        table_microdata(firms(seed=0), ("Region:1", "Region"))
