"""Reading CSV files: a long or wide table, microdata, a release."""

from __future__ import annotations

from pathlib import Path

from ctadesk.app.files import read_csv_table
from ctadesk.app.formats.model import Answers, Layout, Totals
from ctadesk.engine.table.microdata import Microdata
from ctadesk.engine.table.structure import TableStructure
from ctadesk.io.csv_table import csv_kind, read_csv_records
from ctadesk.io.microdata import MicrodataSpec, read_csv_microdata
from ctadesk.io.project import Project
from ctadesk.io.released import ReleasedTable, released_csv
from ctadesk.io.table_or_microdata import not_a_table


def table(path: Path, answers: Answers) -> Project:
    """A long or wide CSV table (answers.layout, else as ctadesk.io.csv_table.csv_kind guesses);
    unasked, a file that looks like microdata is refused (ctadesk.io.table_or_microdata)."""
    parsed = read_csv_records(path)     # once, for the kind and the table
    layout = answers.layout
    if layout is None:
        kind, why = csv_kind(parsed)
        if why is not None:
            raise not_a_table(path, why)
        layout = Layout(kind)
    return read_csv_table(parsed, layout.value, no_totals=answers.no_totals, decimal_comma=answers.decimal_comma,
                          keep_non_additive=answers.totals is Totals.KEEP)


def microdata(path: Path, spec: MicrodataSpec, answers: Answers) -> Microdata:
    return read_csv_microdata(path, spec)


def release(path: Path, structure: TableStructure, answers: Answers) -> ReleasedTable:
    return released_csv(path, structure)
