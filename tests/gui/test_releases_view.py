"""Issue 15 in the app: Tools > Optimal releases opens a count table, finds a release in a worker
and shows the lattice of 2^K sub-tables (released or withheld, coloured by critical width), the
bounds of the at-risk cells under the release, and exports the released sub-tables as CSV."""

import csv
import itertools
import threading

import numpy as np
import pytest
from PySide6.QtGui import QColor

import ctadesk.app.count_releases as count_releases
from ctadesk.resources import samples_dir

CZECH = samples_dir() / "czech_autoworkers.csv"
FACTORS = ["A_smoking", "B_strenuous_mental_work", "C_strenuous_physical_work", "D_systolic_blood_pressure",
           "E_beta_alpha_lipoprotein_ratio", "F_family_anamnesis_CHD"]
RED, YELLOW, GREEN = QColor(192, 57, 43), QColor(244, 208, 63), QColor(39, 174, 96)


def _czech_counts() -> tuple[np.ndarray, list[list[str]]]:
    """The 2^6 counts read with the csv module, the categories in order of first appearance."""
    with CZECH.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    labels = [sorted({row[f] for row in rows}, key=[row[f] for row in rows].index) for f in FACTORS]
    counts = np.zeros([len(axis) for axis in labels], np.int64)
    for row in rows:
        counts[tuple(axis.index(row[f]) for axis, f in zip(labels, FACTORS))] += int(row["count"])
    return counts, labels


@pytest.fixture
def releases(qtbot, window):
    view = window.show_releases()
    qtbot.addWidget(view)
    assert view.open_counts(CZECH)
    qtbot.waitUntil(lambda: not view.running and len(view.lattice.nodes) == 64, timeout=20_000)
    return view


def _find(qtbot, view, threshold=2, alpha=3.0, search="decomposable"):
    view.threshold.setValue(threshold)
    view.alpha.setValue(alpha)
    view.search.setCurrentIndex(view.search.findData(search))
    with qtbot.waitSignal(view.searched, timeout=60_000) as blocker:
        view.find_release()
    return blocker.args[0]


def _released(frontier, subtable) -> bool:
    """Released iff inside a frontier sub-table (checked with plain sets)."""
    return any(set(subtable) <= set(top) for top in frontier)


def test_the_tools_menu_opens_one_releases_window(window):
    tools = next(action.menu() for action in window.menuBar().actions() if action.text() == "&Tools")
    assert [a.objectName() for a in tools.actions()] == ["act_releases"]
    tools.actions()[0].trigger()
    first = window.releases_window
    assert first.isVisible() and window.show_releases() is first


def test_opening_the_czech_table_draws_64_sub_tables_none_released(releases):
    counts, _ = _czech_counts()
    table = releases.table
    assert table.names == tuple(FACTORS) and np.array_equal(table.counts, counts) and table.total == 1841
    assert "cell_index_gRbase_Forder" in releases.file_label.text()  # left out, and the user is told
    nodes = releases.lattice.nodes
    assert sorted(map(len, nodes)) == sorted(len(c) for k in range(7) for c in itertools.combinations(range(6), k))
    assert not any(node.released for node in nodes.values())
    assert not releases.export_button.isEnabled()


def test_the_search_runs_in_a_worker_and_the_lattice_shows_the_release_it_found(qtbot, releases, monkeypatch):
    threads = []
    search = count_releases.choose_release

    def recording(*args, **kwargs):
        threads.append(threading.current_thread())
        return search(*args, **kwargs)

    monkeypatch.setattr("ctadesk.gui.releases_window.choose_release", recording)
    choice = _find(qtbot, releases)
    assert threads and threads[0] is not threading.main_thread()
    # Karr, Dobra & Sanil (undated slides): the largest decomposable release of the Czech table holds 48 sub-tables
    release = choice.releases[0]
    assert choice.exact and len(release) == 48 and choice.risk.risk >= 3
    frontier = [sorted(top) for top in release.frontier]
    nodes = releases.lattice.nodes
    assert len(nodes) == 2 ** 6
    assert sum(node.released for node in nodes.values()) == 48
    for subtable, node in nodes.items():
        assert node.released == _released(frontier, subtable)
        assert node.frontier == (sorted(subtable) in frontier)
    assert "48 of 64" in releases.summary.text() and "proven optimal" in releases.summary.text()


def test_nodes_are_coloured_by_critical_width_red_at_zero_yellow_at_alpha_green_from_twice_alpha(qtbot, releases):
    choice = _find(qtbot, releases, alpha=3.0)
    widths = choice.critical_widths
    nodes = releases.lattice.nodes
    counts, _ = _czech_counts()
    assert widths[frozenset(range(6))] == 0  # the full table publishes every small cell exactly
    # MPR of the grand total is the six 1-way margins: Fréchet bounds of a cell given them alone
    n = counts.sum()
    one_way = [counts.sum(axis=tuple(b for b in range(6) if b != a)) for a in range(6)]
    at_risk = np.argwhere((counts > 0) & (counts <= 2))
    margins = np.array([[one_way[a][cell[a]] for a in range(6)] for cell in at_risk])
    width = np.min(margins.min(axis=1) - np.maximum(0, margins.sum(axis=1) - 5 * n))
    assert widths[frozenset()] == width
    for subtable, node in nodes.items():
        expected = RED if widths[subtable] == 0 else YELLOW if widths[subtable] == 3 else \
            GREEN if widths[subtable] >= 6 else None
        if expected is not None:
            assert node.colour.name() == expected.name(), releases.table.subtable_name(subtable)
        fill = node.brush().color()
        assert (fill == node.colour) == node.released  # withheld nodes are drawn faded
    assert any(node.colour.name() == YELLOW.name() for node in nodes.values())


def test_the_bounds_table_lists_every_at_risk_cell_of_the_release_within_its_bounds(qtbot, releases):
    choice = _find(qtbot, releases)
    counts, labels = _czech_counts()
    small = np.argwhere((counts > 0) & (counts <= 2))
    table = releases.bounds
    assert table.rowCount() == len(small) == 3
    letters = "ABCDEF"
    expected_cells = {", ".join(f"{letters[a]}={labels[a][i]}" for a, i in enumerate(cell)): int(counts[tuple(cell)])
                      for cell in small}
    widths = []
    for row in range(table.rowCount()):
        cell, count, lower, upper, width = (table.item(row, c).text() for c in range(5))
        assert expected_cells[cell] == int(count)
        assert float(lower) <= int(count) <= float(upper) and float(width) == float(upper) - float(lower) >= 3
        widths.append(float(width))
    assert widths == sorted(widths) and widths[0] == choice.risk.risk


def test_choosing_another_equally_good_release_redraws_the_lattice(qtbot, releases):
    choice = _find(qtbot, releases)
    assert len(choice.releases) > 1 and releases.alternatives.isEnabled()
    with qtbot.waitSignal(releases.shown, timeout=20_000) as blocker:
        releases.alternatives.setCurrentIndex(1)
    other = blocker.args[0]
    assert other is choice.releases[1]
    frontier = [sorted(top) for top in other.frontier]
    for subtable, node in releases.lattice.nodes.items():
        assert node.released == _released(frontier, subtable)


def _margin_rows(counts, labels, axes) -> list[list]:
    """The rows a sub-table over ``axes`` must have: categories then count, in C order (numpy)."""
    margin = counts.sum(axis=tuple(a for a in range(6) if a not in axes))
    return [[*(labels[a][i] for a, i in zip(axes, position)), int(margin[position])]
            for position in np.ndindex(margin.shape)]


@pytest.mark.parametrize("kind", ["csv", "xlsx"])
def test_export_writes_every_released_sub_table_with_its_margin(qtbot, releases, tmp_path, kind):
    choice = _find(qtbot, releases, search="ordered")
    release = releases.release
    assert release is choice.releases[0] and releases.export_button.isEnabled()
    assert [a.text() for a in releases.export_button.menu().actions()][1].startswith("As an Excel workbook")
    counts, labels = _czech_counts()
    target = tmp_path / ("release.xlsx" if kind == "xlsx" else "release")
    releases.export_to(target)
    if kind == "xlsx":
        from openpyxl import load_workbook

        book = load_workbook(target, read_only=True)
        tables = {title: [list(row) for row in book[title].iter_rows(values_only=True)] for title in book.sheetnames}
    else:
        tables = {}
        for path in target.iterdir():
            with path.open(newline="") as handle:
                rows = list(csv.reader(handle))
            tables[path.stem] = [rows[0], *([*row[:-1], int(row[-1])] for row in rows[1:])]
    assert len(tables) == len(release)
    for subtable in release.subtables():
        axes = sorted(subtable)
        rows = tables["".join("ABCDEF"[a] for a in axes) or "total"]
        assert rows[0] == [*(FACTORS[a] for a in axes), "count"]
        assert rows[1:] == _margin_rows(counts, labels, axes)


def test_a_file_without_a_count_column_is_refused_naming_it(qtbot, window, tmp_path):
    view = window.show_releases()
    path = tmp_path / "people.csv"
    path.write_text("region,size\nN,1\nS,2\n")
    view.report_error = lambda title, error: setattr(view, "last_error", str(error))
    assert view.open_counts(path, count="count") is False
    assert "no count column 'count'" in view.last_error and view.table is None
