"""ctadesk.app.count_releases: a count table read from a long file and a release chosen by the
search the user names (Karr, Dobra & Sanil, undated slides)."""

import csv
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctadesk.app.count_releases import choose_release, read_count_file
from ctadesk.engine.errors import CTAError
from ctadesk.engine.releases import CountTable
from ctadesk.resources import samples_dir

CZECH = samples_dir() / "czech_autoworkers.csv"


def _write_long(path, counts: np.ndarray, names) -> None:
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow([*names, "count"])
        for position in np.ndindex(counts.shape):
            writer.writerow([*(f"{name}{k}" for name, k in zip(names, position)), int(counts[position])])


@settings(max_examples=30, deadline=None)
@given(shape=st.lists(st.integers(2, 3), min_size=1, max_size=3), seed=st.integers(0, 10_000),
       repeated=st.booleans())
def test_a_long_file_is_read_with_its_rows_of_one_cell_summed(tmp_path_factory, shape, seed, repeated):
    counts = np.random.default_rng(seed).integers(0, 6, size=shape)
    names = [f"V{a}" for a in range(len(shape))]
    path = tmp_path_factory.mktemp("long") / "t.csv"
    _write_long(path, counts, names)
    if repeated:  # every cell once more: the table is counted twice
        lines = path.read_text().splitlines()
        path.write_text("\n".join([*lines, *lines[1:]]) + "\n")
    table, notes = read_count_file(path)
    assert table.names == tuple(names) and notes == []
    assert np.array_equal(table.counts, counts * (2 if repeated else 1))
    assert table.labels == tuple(tuple(f"{name}{k}" for k in range(size)) for name, size in zip(names, shape))


def test_the_czech_table_is_read_as_the_releases_command_reads_it():
    table, notes = read_count_file(CZECH)
    assert table.shape == (2,) * 6 and table.total == 1841
    assert table.names[0] == "A_smoking" and table.names[-1] == "F_family_anamnesis_CHD"
    assert len(notes) == 1 and "cell_index_gRbase_Forder" in notes[0]
    assert sorted(table.counts.reshape(-1)[table.at_risk(2)].tolist()) == [1, 2, 2]


def test_a_missing_count_column_and_a_bad_search_are_refused_by_name(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("a,b,n\nx,y,1\nx,z,2\n")
    with pytest.raises(CTAError, match=r"no count column 'count' .*columns: a, b, n"):
        read_count_file(path)
    table, _ = read_count_file(path, count="n", variables=["a", "b"])
    with pytest.raises(CTAError, match="unknown search 'best'"):
        choose_release(table, 1.0, search="best")
    with pytest.raises(CTAError, match="threshold 0"):
        choose_release(table, 1.0, threshold=0)


def test_the_largest_decomposable_czech_release_has_48_sub_tables_as_in_the_slides():
    table, _ = read_count_file(CZECH)
    choice = choose_release(table, alpha=3, threshold=2)
    assert choice.exact and choice.utility == 48 and all(len(r) == 48 for r in choice.releases)
    assert choice.risk.risk >= 3 and set(choice.critical_widths) == {frozenset(c) for k in range(7)
                                                                     for c in itertools.combinations(range(6), k)}


def test_ordered_marginals_stop_at_the_full_table_of_a_2x2x2_table_bounded_by_its_2_way_margins():
    """Tables with the 2-way margins of n are n + t s, s = (-1)^(i+j+k); n >= 0 holds for
    -1 <= t <= 3 (the smallest cells of either sign are 1 and 3), so every cell's width is 4."""
    counts = np.array([[[1, 5], [4, 6]], [[3, 2], [7, 8]]])
    choice = choose_release(CountTable(counts, ("A", "B", "C")), alpha=2, search="ordered")
    assert not choice.exact and choice.evaluations == 0
    assert choice.refused == (frozenset({0, 1, 2}),)
    assert choice.releases[0].frontier == {frozenset({0, 1}), frozenset({0, 2}), frozenset({1, 2})}
    assert choice.risk.risk == 4 and sorted(choice.risk.bounds.width.tolist()) == [4.0, 4.0]
