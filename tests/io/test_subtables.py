"""Released sub-tables written as CSV files and as one workbook: every released marginal, and
nothing else, with the counts a brute-force sum over the full table gives."""

from __future__ import annotations

import csv
import itertools

import numpy as np
import openpyxl
from hypothesis import given, settings
from hypothesis import strategies as st

from ctadesk.app.count_releases import write_subtables
from ctadesk.engine.releases import CountTable, Release


def expected_subtables(table: CountTable, release: Release) -> dict[str, list[list[object]]]:
    """Per released sub-table (named by its letters), its header and rows, summed cell by cell."""
    letters = "ABCDEFGH"
    expected = {}
    for size in range(table.n_axes + 1):
        for axes in itertools.combinations(range(table.n_axes), size):
            if not any(set(axes) <= top for top in release.frontier):
                continue
            rows = []
            for categories in itertools.product(*(range(table.shape[a]) for a in axes)):
                count = sum(int(table.counts[cell]) for cell in np.ndindex(table.shape)
                            if all(cell[a] == k for a, k in zip(axes, categories)))
                rows.append([*(table.labels[a][k] for a, k in zip(axes, categories)), count])
            expected["".join(letters[a] for a in axes) or "total"] = [[*(table.names[a] for a in axes), "count"], *rows]
    return expected


@st.composite
def tables_and_releases(draw):
    n_axes = draw(st.integers(1, 4))
    shape = tuple(draw(st.lists(st.integers(2, 3), min_size=n_axes, max_size=n_axes)))
    counts = np.array(draw(st.lists(st.integers(0, 9), min_size=int(np.prod(shape)), max_size=int(np.prod(shape)))))
    table = CountTable(counts.reshape(shape), [f"V{a}" for a in range(n_axes)],
                       [tuple(f"c{a}{k}" for k in range(d)) for a, d in enumerate(shape)])
    frontier = draw(st.lists(st.sets(st.integers(0, n_axes - 1)), min_size=0, max_size=3))
    return table, Release.of(n_axes, frontier)


@settings(max_examples=25, deadline=None)
@given(case=tables_and_releases())
def test_csv_files_and_workbook_sheets_hold_exactly_the_released_marginals(case, tmp_path_factory):
    table, release = case
    folder = tmp_path_factory.mktemp("subtables")
    expected = expected_subtables(table, release)
    written = write_subtables(table, release, folder / "csv")
    assert sorted(path.stem for path in written) == sorted(expected)
    for path in written:
        with path.open(newline="") as handle:
            rows = list(csv.reader(handle))
        assert rows == [[str(v) for v in row] for row in expected[path.stem]]
    (book_path,) = write_subtables(table, release, folder / "release.xlsx")
    book = openpyxl.load_workbook(book_path)
    assert sorted(book.sheetnames) == sorted(expected)
    for name in book.sheetnames:
        assert [list(row) for row in book[name].iter_rows(values_only=True)] == expected[name]
