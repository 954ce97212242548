"""Linked tables from one microdata set (ctadesk.app.linked_tables): Region x Size and Region x
Sector share every Region x Total cell, and protected together they publish it once.

The checks do not trust the linking: each table is tabulated here again with numpy from the
records, the frequency rule applied again, and the published tables checked for additivity and
protection against those."""

from __future__ import annotations

import numpy as np
import openpyxl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctadesk.app import ProtectionRequest, protect
from ctadesk.app.linked_tables import (
    cost_totals,
    export_linked_workbook,
    linked_problem,
    manual_cells,
    protect_linked,
    tabulate_linked,
)
from ctadesk.engine.errors import CTAError, ProblemError
from ctadesk.engine.rules.safety import SafetyRules, apply_rules, to_problem
from ctadesk.engine.table.microdata import Microdata, tabulate
from ctadesk.engine.table.structure import Dimension, TableStructure

MIN_FREQ, RANGE = 3, 20.0
RULES = SafetyRules(min_frequency=MIN_FREQ, frequency_safety_range=RANGE)
SPANS = (("A", "B"), ("A", "C"))


def microdata(sizes: tuple[int, int, int], codes: np.ndarray, values: np.ndarray) -> Microdata:
    """Records with leaf codes ``codes`` (records x 3) on flat variables A, B, C (total last)."""
    dims = tuple(Dimension.flat(name, [f"{name.lower()}{k}" for k in range(size)])
                 for name, size in zip("ABC", sizes))
    return Microdata(TableStructure(dims), tuple(codes.T), values)


def table_by_hand(sizes, codes, values, columns: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """Values and frequencies of the two-way table of variables ``columns``, totals last, C order."""
    shape = (sizes[columns[0]] + 1, sizes[columns[1]] + 1)
    total, freq = np.zeros(shape), np.zeros(shape)
    at = (codes[:, columns[0]], codes[:, columns[1]])
    np.add.at(total, at, values)
    np.add.at(freq, at, 1)
    for grid in (total, freq):
        grid[-1, :] = grid[:-1, :].sum(axis=0)
        grid[:, -1] = grid[:, :-1].sum(axis=1)
    return total.reshape(-1), freq.reshape(-1)


def unsafe_by_hand(freq: np.ndarray) -> np.ndarray:
    return (freq > 0) & (freq < MIN_FREQ)


@st.composite
def surveys(draw):
    sizes = tuple(draw(st.integers(2, 3)) for _ in range(3))
    n = draw(st.integers(4, 30))
    codes = np.column_stack([draw(st.lists(st.integers(0, size - 1), min_size=n, max_size=n)) for size in sizes])
    values = np.array(draw(st.lists(st.integers(1, 500), min_size=n, max_size=n)), float)
    return sizes, codes, values


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(surveys())
def test_linked_tables_publish_each_shared_cell_once_and_each_table_verifies(survey):
    sizes, codes, values = survey
    linked = protect_linked(tabulate_linked(microdata(sizes, codes, values), SPANS), RULES,
                            ProtectionRequest(seed=7))
    assert linked.protection.result.protected
    published = linked.published()
    originals = linked.original()
    for t, columns in enumerate(((0, 1), (0, 2))):
        original, freq = table_by_hand(sizes, codes, values, columns)
        np.testing.assert_allclose(originals[t], original)
        shape = (sizes[columns[0]] + 1, sizes[columns[1]] + 1)
        grid = published[t].reshape(shape)
        # additivity of the table's own relations, on the published values
        np.testing.assert_allclose(grid[:-1, :].sum(axis=0), grid[-1, :], atol=1e-6)
        np.testing.assert_allclose(grid[:, :-1].sum(axis=1), grid[:, -1], atol=1e-6)
        # every unsafe cell (the frequency rule, by hand) is sensitive and out of its interval
        unsafe = unsafe_by_hand(freq)
        np.testing.assert_array_equal(np.sort(linked.sensitive(t)), np.flatnonzero(unsafe))
        level = RANGE / 100 * np.abs(original[unsafe])
        moved = published[t][unsafe] - original[unsafe]
        assert np.all((moved >= level - 1e-6) | (moved <= -level + 1e-6))
    # the shared cells (A x Total, and the grand total) have one published value
    first = published[0].reshape(sizes[0] + 1, sizes[1] + 1)[:, -1]
    second = published[1].reshape(sizes[0] + 1, sizes[2] + 1)[:, -1]
    np.testing.assert_array_equal(first, second)


def one_by_one(data: Microdata, span: tuple[str, ...]) -> np.ndarray:
    """The table protected alone, as `ctadesk protect` did it for one span."""
    table = data.spanned_by(span)
    stats = tabulate(table)
    problem = to_problem(table.structure, stats, apply_rules(stats, RULES), RULES, weights="inverse")
    return protect(problem, ProtectionRequest(seed=7)).result.values


EXAMPLE_CODES = np.array([[0, 0, 0], [0, 0, 1], [0, 1, 0], [0, 1, 1], [0, 1, 1], [1, 0, 0], [1, 0, 1], [1, 1, 0],
                          [1, 1, 0], [1, 1, 1], [1, 0, 0], [0, 0, 0]])
EXAMPLE_VALUES = np.array([120, 40, 300, 15, 220, 80, 95, 410, 35, 60, 140, 75], float)


def test_protected_one_by_one_the_tables_publish_two_different_shared_totals():
    data = microdata((2, 2, 2), EXAMPLE_CODES, EXAMPLE_VALUES)
    alone = [one_by_one(data, span).reshape(3, 3)[:, -1] for span in SPANS]
    assert not np.allclose(alone[0], alone[1])      # A x Total published twice, differently
    together = protect_linked(tabulate_linked(data, SPANS), RULES, ProtectionRequest(seed=7)).published()
    np.testing.assert_array_equal(together[0].reshape(3, 3)[:, -1], together[1].reshape(3, 3)[:, -1])


def test_a_shared_cell_is_one_variable_with_one_status():
    tabulation = tabulate_linked(microdata((2, 2, 2), EXAMPLE_CODES, EXAMPLE_VALUES), SPANS)
    # 9 + 9 cells, A x Total (3 with the grand total) shared
    assert (tabulation.linked.n_cells, tabulation.linked.n_shared) == (15, 3)
    problem, rules = linked_problem(tabulation, RULES)
    assert problem.relations.shape == (6 + 6 - 1, 15)   # Total = sum of A at B=Total and at C=Total: once
    assert rules.flags.size == 15
    assert "(table 1)" in problem.relation_label(0)


def test_manual_cells_and_cost_variable():
    data = microdata((2, 2, 2), EXAMPLE_CODES, EXAMPLE_VALUES)
    tabulation = tabulate_linked(data, SPANS)
    cells = manual_cells(tabulation, [{"A": "a0"}, {"A": "a1", "C": "c0"}])
    assert [tabulation.linked.cell_label(i) for i in cells] == ["A=a0", "A=a1, C=c0"]
    with pytest.raises(CTAError, match="no table spans B, C"):
        manual_cells(tabulation, [{"B": "b0", "C": "c0"}])
    costs = cost_totals(data, tabulation, np.ones(data.n_records))
    np.testing.assert_array_equal(costs, tabulation.cells.freq)
    problem, _ = linked_problem(tabulation, RULES, cost=costs)
    np.testing.assert_array_equal(problem.weights, tabulation.cells.freq)


def test_refused_spans():
    data = microdata((2, 2, 2), EXAMPLE_CODES, EXAMPLE_VALUES)
    with pytest.raises(CTAError, match="both spanned by"):
        tabulate_linked(data, [("A", "B"), ("B", "A")])
    with pytest.raises(ProblemError, match="no spanning variable D"):
        tabulate_linked(data, [("A", "D")])


def test_release_workbook_has_a_sheet_per_table(tmp_path):
    data = microdata((2, 2, 2), EXAMPLE_CODES, EXAMPLE_VALUES)
    linked = protect_linked(tabulate_linked(data, SPANS), RULES, ProtectionRequest(seed=7))
    export_linked_workbook(tmp_path / "release.xlsx", linked)
    book = openpyxl.load_workbook(tmp_path / "release.xlsx")
    assert book.sheetnames[:2] == ["A x B", "A x C"]
    published = linked.published()
    for sheet, values in zip(book.sheetnames[:2], published):
        rows = [row[1:] for row in book[sheet].iter_rows(min_row=4, values_only=True)]
        np.testing.assert_array_equal(np.array(rows, float).reshape(-1), values)
    export_linked_workbook(tmp_path / "internal.xlsx", linked, internal=True)
    assert "A x C cells" in openpyxl.load_workbook(tmp_path / "internal.xlsx").sheetnames
