"""Tables and microdata in the same CSV layout (a header line over records): tables are read as
tables, microdata are refused naming the file and the command that tabulates them (issue 32)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctadesk.app.formats import Answers, read_table
from ctadesk.io.csv_table import csv_kind, read_long_csv, read_wide_csv
from ctadesk.io.errors import FileFormatError
from ctadesk.io.table_or_microdata import microdata_reason

PROPERTY = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
codes = st.lists(st.sampled_from(["A", "B", "North", "South", "C10", "G47", "x1", "x2", "y", "zz"]),
                 min_size=1, max_size=4, unique=True)
delimiters = st.sampled_from([";", ",", "\t"])


def _additive(inner: np.ndarray) -> np.ndarray:
    """inner values with a total first along every axis (the sum of the others)."""
    full = inner
    for axis in range(inner.ndim):
        full = np.concatenate([full.sum(axis=axis, keepdims=True), full], axis=axis)
    return full


@PROPERTY
@given(spans=st.lists(codes, min_size=1, max_size=3), seed=st.integers(0, 2**16), delimiter=delimiters,
       shuffle=st.booleans())
def test_a_long_table_with_totals_is_read_as_a_table(tmp_path, spans, seed, delimiter, shuffle):
    rng = np.random.default_rng(seed)
    values = _additive(rng.integers(0, 1000, [len(c) for c in spans]))
    names = [f"v{d}" for d in range(len(spans))]
    lines = [[*cell, str(values[index])] for index, cell in zip(
        itertools.product(*(range(len(c) + 1) for c in spans)),
        itertools.product(*(["Total", *c] for c in spans)))]
    if shuffle:
        rng.shuffle(lines)
    path = tmp_path / "long.csv"
    path.write_text("\n".join(delimiter.join(line) for line in [[*names, "value"], *lines]) + "\n")
    assert csv_kind(path)[0] != "microdata"
    project = read_table(path, Answers())  # one variable may be read as a wide table of one column
    assert project.structure.n_cells == values.size and sorted(project.values) == sorted(values.ravel())
    assert project.relations.shape[0] > 0


@PROPERTY
@given(rows=codes.filter(lambda c: len(c) > 1), columns=codes, seed=st.integers(0, 2**16), delimiter=delimiters,
       totals=st.sampled_from(["row", "column", "both"]))
def test_a_wide_table_with_totals_is_read_as_a_table(tmp_path, rows, columns, seed, delimiter, totals):
    inner = np.random.default_rng(seed).integers(0, 1000, (len(rows), len(columns)))
    full = _additive(inner)
    keep_rows = slice(None) if totals != "column" else slice(1, None)
    keep_columns = slice(None) if totals != "row" else slice(1, None)
    table = full[keep_rows, keep_columns]
    row_labels = (["Total"] if totals != "column" else []) + rows
    column_labels = (["Total"] if totals != "row" else []) + [f"c {c}" for c in columns]
    lines = [["region", *column_labels]] + [[label, *map(str, row)] for label, row in zip(row_labels, table)]
    path = tmp_path / "wide.csv"
    path.write_text("\n".join(delimiter.join(line) for line in lines) + "\n")
    assert csv_kind(path)[0] != "microdata"
    read = read_wide_csv(path)
    assert read.structure.shape == table.shape and sorted(read.values) == sorted(table.ravel())


@PROPERTY
@given(spans=st.lists(codes, min_size=2, max_size=3), seed=st.integers(0, 2**16))
def test_a_long_table_without_totals_listing_its_cells_is_not_taken_for_microdata(tmp_path, spans, seed):
    """One line per cell, every cell listed: a table the caller may read saying it has no totals."""
    values = np.random.default_rng(seed).integers(1, 1000, [len(c) for c in spans])
    lines = [[*cell, str(v)] for cell, v in zip(itertools.product(*spans), values.ravel())]
    path = tmp_path / "plain.csv"
    path.write_text("\n".join(";".join(line) for line in [[*map("v{}".format, range(len(spans))), "n"], *lines]))
    assert csv_kind(path)[1] is None
    assert read_long_csv(path, no_totals=True).values.tolist() == values.ravel().tolist()


@PROPERTY
@given(n=st.integers(12, 300), regions=st.integers(2, 6), with_id=st.booleans(), seed=st.integers(0, 2**16),
       delimiter=delimiters, last=st.sampled_from(["weight", "holding"]))
def test_microdata_are_refused_naming_the_file_and_the_command(tmp_path, n, regions, with_id, seed, delimiter, last):
    rng = np.random.default_rng(seed)
    header = ["id"] * with_id + ["region", "size", "turnover", last]
    records = []
    for i in range(n):
        tail = f"{rng.uniform(1, 20):.2f}" if last == "weight" else rng.choice(["", "H1", "H2"])
        records.append([f"E{i:05d}"] * with_id + [f"R{rng.integers(regions)}", str(rng.integers(1, 5)),
                                                   str(rng.integers(0, 10**6)), tail])
    path = tmp_path / "survey.csv"
    path.write_text("\n".join(delimiter.join(line) for line in [header, *records]) + "\n")
    kind, why = csv_kind(path)
    assert kind == "microdata" and why is not None
    with pytest.raises(FileFormatError, match=r"^survey.csv: this looks like microdata.*ctadesk protect survey.csv "
                                              r"--span VAR \[VAR \.\.\.\] --response VAR"):
        read_table(path)


def test_the_reason_names_the_column_and_the_lines():
    header = ["id", "region", "turnover"]
    body = [(2, ["E1", "N", "10"]), (3, ["E2", "S", "4"]), (4, ["E3", "N", "7"]), (6, ["E4", "W", "1"])]
    assert microdata_reason(header, body) == (
        "'region' repeats its codes ('N' on lines 2 and 4), and no line or column is a total")
    assert microdata_reason(header, body[:3]) is None  # as well a long table of 3 x 2 cells, 3 listed
    body[2] = (4, ["Total", "N", "7"])  # a total: a table (to be read, or refused, as one)
    assert microdata_reason(header, body) is None
    assert microdata_reason(["region", "size", "n"], [(2, ["N", "1", "3"]), (5, ["N", "1", "4"])]) == (
        "lines 2 and 5 hold the same codes (N, 1): several records per cell, and nothing is a total")


def test_the_sample_microdata_are_not_taken_for_a_table():
    kind, why = csv_kind("sample_data/business_microdata.csv")
    assert kind == "microdata" and "'region' repeats its codes ('C3' on lines 2 and 3)" in why
    with pytest.raises(FileFormatError, match=r"business_microdata.xlsx, sheet 'enterprises': this looks like "
                                              r"microdata.*'C3' on rows 2 and 3"):
        read_table("sample_data/business_microdata.xlsx")
