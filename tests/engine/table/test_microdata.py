"""Tabulation of microdata into per-cell statistics."""

import itertools

import numpy as np
import pytest

from ctadesk.engine.errors import ProblemError
from ctadesk.engine.table.microdata import Microdata, tabulate
from ctadesk.engine.table.structure import Dimension, TableStructure


def hierarchical_structure():
    region = Dimension.from_levels("Region", [1, 2, 2, 1, 2, 2, 2], ["N", "N1", "N2", "S", "S1", "S2", "S3"])
    size = Dimension.flat("Size", ["1", "2", "3"])
    sector = Dimension.from_levels("Sector", [1, 2, 3, 3, 2, 1], ["A", "A1", "A11", "A12", "A2", "B"])
    return TableStructure((region, size, sector))


def random_microdata(structure, records, seed=0, weights=False, holdings=False):
    rng = np.random.default_rng(seed)
    codes = tuple(rng.choice(np.flatnonzero(d.is_leaf), records) for d in structure.dimensions)
    response = rng.integers(-5, 100, records).astype(float)
    return Microdata(structure, codes, response,
                     weight=rng.uniform(0.5, 4, records) if weights else None,
                     holding=rng.integers(-1, records // 4, records) if holdings else None)


def cells_of_record(structure, micro, r):
    """Every cell record r lies in (brute force: its codes and their ancestors)."""
    chains = []
    for dimension, column in zip(structure.dimensions, micro.codes):
        chain, code = [], int(column[r])
        while code >= 0:
            chain.append(code)
            code = int(dimension.parents[code])
        chains.append(chain)
    return [np.ravel_multi_index(c, structure.shape) for c in itertools.product(*chains)]


def brute_force(structure, micro, k):
    members = [[] for _ in range(structure.n_cells)]
    for r in range(micro.n_records):
        for cell in cells_of_record(structure, micro, r):
            members[cell].append(r)
    values = np.array([micro.response[m].sum() for m in members])
    freq = np.array([len(m) for m in members])
    top = np.full((structure.n_cells, k), np.nan)
    for cell, m in enumerate(members):
        x = np.sort(micro.response[m])[::-1][:k]
        top[cell, :x.size] = x
    return members, values, freq, top


def test_table_from_microdata_equals_a_brute_force_group_by_and_is_additive():
    structure = hierarchical_structure()
    micro = random_microdata(structure, 300, seed=1)
    stats = tabulate(micro, top_k=3)
    _, values, freq, top = brute_force(structure, micro, 3)
    np.testing.assert_allclose(stats.values, values)
    np.testing.assert_array_equal(stats.freq, freq)
    np.testing.assert_array_equal(stats.top, top)
    assert np.abs(structure.relations() @ stats.values).max() < 1e-9


def test_grand_total_holds_every_record():
    structure = TableStructure((Dimension.flat("A", ["x", "y"]), Dimension.flat("B", ["u", "v"])))
    micro = Microdata.from_code_columns(structure, [["x", "y", "y"], ["u", "u", "v"]], [5, 7, 11])
    stats = tabulate(micro, top_k=2)
    total = structure.n_cells - 1
    assert stats.values[total] == 23 and stats.freq[total] == 3
    assert list(stats.top[total]) == [11, 7]


def test_weighted_values_and_top_weights_match_brute_force():
    structure = hierarchical_structure()
    micro = random_microdata(structure, 200, seed=2, weights=True)
    stats = tabulate(micro, top_k=2)
    members, *_ = brute_force(structure, micro, 2)
    for cell, m in enumerate(members):
        assert stats.weighted_values[cell] == pytest.approx((micro.response[m] * micro.weight[m]).sum())
        assert stats.weight_sums[cell] == pytest.approx(micro.weight[m].sum())
        if m:
            best = m[int(np.argmax(micro.response[m]))]
            assert stats.top[cell, 0] == micro.response[best]
            # the weight travels with its contribution (ties share the value, so compare by value)
            tied = [r for r in m if micro.response[r] == micro.response[best]]
            assert stats.top_weights[cell, 0] in micro.weight[tied]


def test_holding_statistics_match_brute_force():
    structure = hierarchical_structure()
    micro = random_microdata(structure, 200, seed=3, holdings=True)
    stats = tabulate(micro, top_k=2)
    members, *_ = brute_force(structure, micro, 2)
    for cell, m in enumerate(members):
        sums = {}
        for r in m:
            key = int(micro.holding[r]) if micro.holding[r] >= 0 else ("solo", r)
            sums[key] = sums.get(key, 0.0) + micro.response[r]
        assert stats.holding_freq[cell] == len(sums)
        expected = sorted(sums.values(), reverse=True)[:2]
        np.testing.assert_allclose(stats.holding_top[cell, :len(expected)], expected)
        assert np.isnan(stats.holding_top[cell, len(expected):]).all()


def test_subtotal_takes_its_largest_contributions_from_different_children():
    region = Dimension.from_levels("R", [1, 2, 2], ["N", "N1", "N2"])
    structure = TableStructure((region,))
    micro = Microdata.from_code_columns(structure, [["N1", "N1", "N2", "N2"]], [9, 1, 8, 7])
    stats = tabulate(micro, top_k=3)
    n = region.index("N")
    assert list(stats.top[n]) == [9, 8, 7] and stats.freq[n] == 4


def test_unknown_code_is_reported_with_its_record_numbers():
    structure = TableStructure((Dimension.flat("Size", ["1", "2"]),))
    with pytest.raises(ProblemError, match=r"Size: code '7' is not in the hierarchy \(records 2, 4\)"):
        Microdata.from_code_columns(structure, [["1", "7", "2", "7"]], [1, 2, 3, 4])


def test_missing_code_is_reported_with_its_record_numbers():
    structure = TableStructure((Dimension.flat("Size", ["1", "2"]),))
    with pytest.raises(ProblemError, match=r"Size: missing code in record 3"):
        Microdata.from_code_columns(structure, [["1", "2", "99"]], [1, 2, 3], missing={"Size": ["99"]})


def test_records_must_carry_leaf_codes():
    region = Dimension.from_levels("R", [1, 2], ["N", "N1"])
    with pytest.raises(ProblemError, match="'N' has sub-codes"):
        Microdata.from_code_columns(TableStructure((region,)), [["N1", "N"]], [1, 2])


def test_missing_response_is_reported():
    structure = TableStructure((Dimension.flat("Size", ["1"]),))
    with pytest.raises(ProblemError, match="record 2"):
        Microdata.from_code_columns(structure, [["1", "1"]], [1.0, np.nan])


def test_microdata_without_a_response_tabulate_to_a_frequency_table():
    structure = hierarchical_structure()
    counted = random_microdata(structure, 300, seed=4)
    frequencies = Microdata(structure, counted.codes, None)
    np.testing.assert_array_equal(frequencies.response, np.ones(300))
    stats = tabulate(frequencies)
    np.testing.assert_array_equal(stats.values, tabulate(counted).freq)
    np.testing.assert_array_equal(stats.values, stats.freq)
