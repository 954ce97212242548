"""Optimal tabular releases as a front end drives them (Karr, Dobra & Sanil (undated);
ctadesk.engine.releases): read a count table from a file and run the chosen search, with every
sub-table's critical width and the chosen release's risk.  The app's releases view calls these;
they hold no Qt.  The released sub-tables are written by ctadesk.io.subtables.

    table, notes = read_count_file("czech_autoworkers.csv")
    choice = choose_release(table, alpha=3, threshold=2)
    write_subtables(table, choice.releases[0], "release.xlsx")     # one workbook
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ctadesk.engine.errors import CTAError
from ctadesk.engine.releases import (
    DEFAULT_THRESHOLD,
    UTILITIES,
    CountTable,
    Release,
    RiskReport,
    Subtable,
    critical_widths,
    decomposable_release,
    disclosure_risk,
    optimal_release,
    ordered_marginals,
)
from ctadesk.engine.releases.search import MAX_EVALUATIONS
from ctadesk.engine.table.microdata import Microdata

#: the searches, as the releases command names them: decomposable releases (Karr, Dobra & Sanil
#: (undated) "Alternative 1"), all releases (exact best-first), ordered marginals ("Alternative 2")
SEARCHES = {"decomposable": "Largest decomposable release", "optimal": "Largest release (all releases)",
            "ordered": "Ordered marginals"}


def _leaf_positions(microdata: Microdata) -> tuple[list[np.ndarray], list[tuple[str, ...]]]:
    """Per variable, each record's category among the variable's most detailed codes, and those codes."""
    codes, labels = [], []
    for dimension, column in zip(microdata.structure.dimensions, microdata.codes):
        leaves = np.flatnonzero(dimension.is_leaf)
        rank = np.full(dimension.size, -1)
        rank[leaves] = np.arange(leaves.size)
        codes.append(rank[column])
        labels.append(tuple(dimension.codes[i] for i in leaves))
    return codes, labels


def count_table(microdata: Microdata, drop_identifiers: bool = False) -> tuple[CountTable, list[str]]:
    """The count table of records read as microdata: its response summed per cell (none: each
    record counts 1), and notes for the user.  ``drop_identifiers`` leaves out any variable holding
    a different value on every row (a cell number, not a variable) unless every variable does."""
    names = [dimension.name for dimension in microdata.structure.dimensions]
    codes, labels = _leaf_positions(microdata)
    counts = microdata.response
    notes, keep = [], list(range(len(names)))
    if drop_identifiers and counts.size > 1:
        identifiers = [i for i, c in enumerate(codes) if np.unique(c).size == counts.size]
        if len(identifiers) < len(names):
            keep = [i for i in keep if i not in identifiers]
            if identifiers:
                notes.append("left out (a different value on every row: cell numbers, not variables): "
                             + ", ".join(names[i] for i in identifiers))
    return CountTable.from_cells([names[i] for i in keep], [codes[i] for i in keep], [labels[i] for i in keep],
                                 counts), notes


def read_count_file(path: str | Path, count: str = "count",
                    variables: Sequence[str] | None = None) -> tuple[CountTable, list[str]]:
    """The count table of a long file (CSV, xlsx or a statistical package's file: one column per
    variable and a ``count`` column; rows of the same cell are summed), and notes for the user.

    Without ``variables`` the variables are the columns other than the count, less any column
    holding a different value on every row (a cell number, not a variable) -- as
    ``ctadesk releases COUNTS`` reads it."""
    from ctadesk.app.formats import read_microdata
    from ctadesk.io.microdata import MicrodataSpec

    candidates = count_variables(path, count, variables)
    micro = read_microdata(path, MicrodataSpec(spanning=tuple(candidates), response=count))
    return count_table(micro, drop_identifiers=not variables)


def write_subtables(table: CountTable, release: Release, target: str | Path) -> list[Path]:
    """The released sub-tables as one workbook when ``target`` is an Excel workbook (by the format
    registry), else as CSV files in the folder ``target``; the files written."""
    from ctadesk.app.formats import output_format
    from ctadesk.io.subtables import write_subtables_csv, write_subtables_xlsx

    if output_format(target).key == "excel":
        return [write_subtables_xlsx(table, release, target)]
    return write_subtables_csv(table, release, target)


def count_variables(path: str | Path, count: str, variables: Sequence[str] | None) -> list[str]:
    """The variables of a long count file: ``variables``, else every column but ``count``
    (CTAError when the count column is missing or stands alone)."""
    from ctadesk.app.formats import microdata_columns

    columns = microdata_columns(path)
    if count not in columns:
        raise CTAError(f"{path}: no count column '{count}' (columns: {', '.join(columns)})")
    candidates = list(variables or [c for c in columns if c != count])
    if not candidates:
        raise CTAError(f"{path}: no variable column beside the count column '{count}'")
    return candidates


@dataclasses.dataclass(frozen=True)
class Found:
    """What a search returned: the releases (best first), whether proven best, the releases
    evaluated, and (ordered marginals) the sub-tables refused for breaking alpha."""

    releases: tuple[Release, ...]
    exact: bool
    evaluations: int
    refused: tuple[Subtable, ...] = ()


def search_releases(table: CountTable, alpha: float, threshold: int = DEFAULT_THRESHOLD,
                    search: str = "decomposable", integer: bool = False, utility: str = "subtables",
                    max_evaluations: int = MAX_EVALUATIONS, seed: int | None = None,
                    keep_going: bool = False) -> Found:
    """The releases of largest utility with DR(R) >= alpha that ``search`` (SEARCHES) finds;
    ``keep_going``: ordered marginals skip a sub-table that breaks alpha instead of stopping."""
    if threshold < 1:
        raise CTAError(f"threshold {threshold}: cells at risk have 0 < count <= threshold, so it must be at least 1")
    if search not in SEARCHES:
        raise CTAError(f"unknown search '{search}'; choose one of {', '.join(SEARCHES)}")
    if utility not in UTILITIES:
        raise CTAError(f"unknown utility '{utility}'; choose one of {', '.join(sorted(UTILITIES))}")
    if search == "ordered":
        ordered = ordered_marginals(table, alpha, threshold, integer=integer, keep_going=keep_going)
        return Found((ordered.release,), False, 0, tuple(ordered.refused))
    measure = UTILITIES[utility]
    found = (optimal_release(table, alpha, threshold, measure, "integer" if integer else "lp", max_evaluations)
             if search == "optimal" else
             decomposable_release(table, alpha, threshold, measure, max_evaluations, seed=seed))
    if not found.releases:
        raise CTAError(f"no release found within {max_evaluations} evaluations; allow more evaluations "
                       "or search decomposable releases or ordered marginals")
    return Found(tuple(found.releases), found.exact, found.evaluations)


@dataclasses.dataclass(frozen=True, eq=False)
class ReleaseChoice:
    """What a search found for a count table (Karr, Dobra & Sanil (undated), "Optimization formulation").

    releases         the best releases found, best first (all of the optimal utility when exact)
    utility          DU of the first release
    exact            the search proved them optimal (ordered marginals: a procedure, never exact)
    evaluations      releases whose risk was evaluated (0 for ordered marginals)
    refused          ordered marginals: the sub-tables refused for breaking alpha
    critical_widths  CW(T) of every one of the 2^K sub-tables ("Alternative 2")
    risk             DR and the at-risk cells' bounds under the first release
    seconds          wall time of the search and the reports
    """

    search: str
    threshold: int
    alpha: float
    integer: bool
    releases: tuple[Release, ...]
    utility: float
    exact: bool
    evaluations: int
    refused: tuple[Subtable, ...]
    critical_widths: dict[Subtable, float]
    risk: RiskReport
    seconds: float


def release_risk(table: CountTable, release: Release, threshold: int, integer: bool = False) -> RiskReport:
    """DR(R) and the bounds of every at-risk cell under ``release`` (Fréchet where decomposable,
    else LP; MILP bounds when ``integer``)."""
    return disclosure_risk(table, release, threshold, "integer" if integer else "auto")


def choose_release(table: CountTable, alpha: float, threshold: int = DEFAULT_THRESHOLD,
                   search: str = "decomposable", integer: bool = False, utility: str = "subtables",
                   max_evaluations: int = MAX_EVALUATIONS, seed: int | None = None) -> ReleaseChoice:
    """The release of largest utility with DR(R) >= alpha that ``search`` finds (search_releases),
    with every sub-table's critical width and the risk of the release found."""
    started = time.perf_counter()
    found = search_releases(table, alpha, threshold, search, integer, utility, max_evaluations, seed)
    widths = critical_widths(table, threshold)
    risk = release_risk(table, found.releases[0], threshold, integer)
    return ReleaseChoice(search, threshold, float(alpha), integer, found.releases,
                         UTILITIES[utility](table, found.releases[0]), found.exact, found.evaluations, found.refused,
                         widths, risk, time.perf_counter() - started)
