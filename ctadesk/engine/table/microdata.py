"""Microdata (one record per respondent) and its tabulation into CellStatistics.

A record lies in one inner cell and in every cell above it (its codes' ancestors
in each dimension), so totals and subtotals are sums of inner cells and their
largest contributions are the largest among their children's.  Tabulation is a
few group-bys over records (numpy sorts and bincounts, no loop over records):

* values, weighted values, weight sums and frequencies: bincount into inner
  cells, then ``TableStructure.aggregate``;
* top-k contributions: sort records by (inner cell, -value), keep k per cell,
  then climb one dimension at a time — copy every kept entry to the ancestors
  of its code in that dimension and keep again the k largest per cell;
* holdings (enterprise groups): a holding's contributions to a cell are summed
  before ranking (tau-argus; Hundepool et al. 2012 §4.2.3), so the climb merges
  (cell, holding) pairs by summing instead of pruning.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

import numpy as np
from numpy.typing import ArrayLike

from ctadesk.engine.errors import ProblemError
from ctadesk.engine.table.statistics import CellStatistics
from ctadesk.engine.table.structure import TableStructure

#: request codes: 0 no request, 1 and 2 the two request classes of tau-argus <REQUEST> "1" "2"
REQUEST_CODES = (1, 2)


def _records_message(rows: np.ndarray, first: int | Sequence[int] | np.ndarray = 1, word: str = "record",
                     limit: int = 5) -> str:
    """'records 3, 7' for record positions ``rows``, numbered from ``first`` or, when ``first`` is
    an array, by its entries (the line each record is on)."""
    numbers = rows + first if np.ndim(first) == 0 else np.asarray(first)[rows]
    shown = ", ".join(str(int(n)) for n in numbers[:limit])
    more = f" and {rows.size - limit} more" if rows.size > limit else ""
    return f"{word}{'s' if rows.size > 1 else ''} {shown}{more}"


@dataclasses.dataclass(frozen=True, eq=False, init=False)
class Microdata:
    """Records of a table: leaf-code positions per dimension and the response.

    codes       one int array per dimension of ``structure``: the position (in
                Dimension.codes) of each record's code, always a leaf
    response    the numeric response variable (records,); None for a frequency table:
                each record counts 1 (the response becomes ones)
    weight      sampling weights (records,), or None
    holding     holding identifier per record (records,), -1 for a record that
                belongs to no holding (it then counts as a holding of its own)
    request     0, 1 or 2 per record: no request / request code 1 / code 2
    """

    structure: TableStructure
    codes: tuple[np.ndarray, ...]
    response: np.ndarray
    weight: np.ndarray | None
    holding: np.ndarray | None
    request: np.ndarray | None

    def __init__(self, structure: TableStructure, codes: Sequence[ArrayLike], response: ArrayLike | None,
                 weight: ArrayLike | None = None, holding: ArrayLike | None = None,
                 request: ArrayLike | None = None) -> None:
        set_ = lambda name, value: object.__setattr__(self, name, value)  # noqa: E731
        set_("structure", structure)
        if response is None:
            if not codes:
                raise ProblemError("a frequency table needs at least one code column")
            values = np.ones(np.asarray(codes[0]).size)
        else:
            values = np.asarray(response, dtype=float).reshape(-1)
        n = values.size
        bad = np.flatnonzero(~np.isfinite(values))
        if bad.size:
            raise ProblemError(f"the response is missing or not finite in {_records_message(bad)}")
        set_("response", values)
        dims = structure.dimensions
        if len(codes) != len(dims):
            raise ProblemError(f"{len(codes)} code columns for a {len(dims)}-dimensional table")
        positions = []
        for dimension, given in zip(dims, codes):
            column = np.asarray(given, dtype=np.int64).reshape(-1)
            if column.size != n:
                raise ProblemError(f"{dimension.name} has {column.size} records, the response {n}")
            outside = np.flatnonzero((column < 0) | (column >= dimension.size))
            if outside.size:
                raise ProblemError(f"{dimension.name}: code position out of range in {_records_message(outside)}")
            not_leaf = np.flatnonzero(~dimension.is_leaf[column])
            if not_leaf.size:
                raise ProblemError(
                    f"{dimension.name}: code '{dimension.codes[column[not_leaf[0]]]}' has sub-codes, "
                    f"records must carry a most detailed code ({_records_message(not_leaf)})")
            positions.append(column)
        set_("codes", tuple(positions))
        set_("weight", None)
        set_("holding", None)
        set_("request", None)
        if weight is not None:
            weights = np.asarray(weight, dtype=float).reshape(-1)
            if weights.size != n:
                raise ProblemError(f"the weight has {weights.size} records, the response {n}")
            bad = np.flatnonzero(~np.isfinite(weights) | (weights < 0))
            if bad.size:
                raise ProblemError(f"the weight is missing or negative in {_records_message(bad)}")
            set_("weight", weights)
        if holding is not None:
            holdings = np.asarray(holding, dtype=np.int64).reshape(-1)
            if holdings.size != n:
                raise ProblemError(f"the holding has {holdings.size} records, the response {n}")
            set_("holding", holdings)
        if request is not None:
            flags = np.asarray(request, dtype=np.int8).reshape(-1)
            if flags.size != n:
                raise ProblemError(f"the request flag has {flags.size} records, the response {n}")
            if np.any((flags < 0) | (flags > 2)):
                raise ProblemError("request flags must be 0, 1 or 2")
            set_("request", flags)

    @classmethod
    def from_code_columns(cls, structure: TableStructure, code_columns: Sequence[Sequence[str] | np.ndarray],
                          response, weight=None, holding: Sequence | np.ndarray | None = None,
                          request=None, missing: Mapping[str, Sequence[str]] | None = None,
                          first_record: int | Sequence[int] | np.ndarray = 1, record_word: str = "record") -> Microdata:
        """Microdata from code *strings*, one column per dimension (in table order).

        Codes are matched exactly against the dimension's leaf codes; a missing
        code (empty, or listed in ``missing`` for that dimension) or a code the
        hierarchy does not know raises ProblemError naming the records, numbered
        from ``first_record`` (or by its entries, one per record) and called
        ``record_word`` (a file reader passes the line of each record and "line").
        Holdings may be any labels; empty labels mean "no holding".
        """
        missing = missing or {}
        numbers = first_record if np.ndim(first_record) == 0 else np.asarray(first_record, np.int64)
        positions = []
        for dimension, column in zip(structure.dimensions, code_columns):
            labels = np.asarray(column, dtype=str)
            uniques, inverse = np.unique(labels, return_inverse=True)
            absent = set(missing.get(dimension.name, ())) | {""}
            lookup = {code: i for i, code in enumerate(dimension.codes)}
            mapped = np.array([lookup.get(code, -1) if code not in absent else -2 for code in uniques], np.int64)
            per_record = mapped[inverse]
            gone = np.flatnonzero(per_record == -2)
            if gone.size:
                raise ProblemError(f"{dimension.name}: missing code in "
                                   f"{_records_message(gone, numbers, record_word)}")
            unknown = np.flatnonzero(per_record == -1)
            if unknown.size:
                raise ProblemError(f"{dimension.name}: code '{labels[unknown[0]]}' is not in the hierarchy "
                                   f"({_records_message(unknown, numbers, record_word)})")
            not_leaf = np.flatnonzero(~dimension.is_leaf[per_record])
            if not_leaf.size:
                raise ProblemError(f"{dimension.name}: code '{labels[not_leaf[0]]}' has sub-codes, records must "
                                   f"carry a most detailed code ({_records_message(not_leaf, numbers, record_word)})")
            positions.append(per_record)
        holding_ids = None
        if holding is not None:
            labels = np.asarray(holding, dtype=str)
            uniques, holding_ids = np.unique(labels, return_inverse=True)
            holding_ids = holding_ids.astype(np.int64)
            empty = np.flatnonzero(uniques == "")
            if empty.size:
                holding_ids[holding_ids == empty[0]] = -1
        return cls(structure, tuple(positions), response, weight, holding_ids, request)

    @property
    def n_records(self) -> int:
        return int(self.response.size)

    def inner_cells(self) -> np.ndarray:
        """The (C-order) cell of each record."""
        return np.ravel_multi_index(self.codes, self.structure.shape)

    def spanned_by(self, names: Sequence[str]) -> Microdata:
        """The same records spanned by the dimensions ``names`` only, in that order: the table of
        a subset of the variables (one of several tables of one microdata set)."""
        positions = {dimension.name: d for d, dimension in enumerate(self.structure.dimensions)}
        unknown = [name for name in names if name not in positions]
        if unknown:
            raise ProblemError(f"no spanning variable {unknown[0]} in the microdata "
                               f"(variables: {', '.join(positions)})")
        if len(set(names)) != len(names):
            raise ProblemError(f"a table spans {', '.join(names)}: a variable named twice")
        chosen = [positions[name] for name in names]
        return dataclasses.replace(self, structure=TableStructure(tuple(self.structure.dimensions[d] for d in chosen)),
                                   codes=tuple(self.codes[d] for d in chosen))


# ---------------------------------------------------------------- group-bys
def _keep_largest(cells: np.ndarray, values: np.ndarray, k: int) -> np.ndarray:
    """Indices of the k largest values of each cell, ordered by (cell, value desc)."""
    by_value = np.argsort(-values, kind="stable")
    order = by_value[np.argsort(cells[by_value], kind="stable")]
    sorted_cells = cells[order]
    starts = np.r_[0, np.flatnonzero(sorted_cells[1:] != sorted_cells[:-1]) + 1]
    rank = np.arange(order.size) - np.repeat(starts, np.diff(np.r_[starts, order.size]))
    return order[rank < k]


def _ancestor_table(structure: TableStructure) -> list[np.ndarray]:
    """Per dimension, rows [code, parent, grandparent, ..., -1 padding]."""
    tables = []
    for dimension in structure.dimensions:
        depth = int(dimension.depth.max()) if dimension.size else 0
        table = np.full((dimension.size, depth + 1), -1, np.int64)
        current = np.arange(dimension.size)
        for level in range(depth + 1):
            table[:, level] = current
            current = np.where(current >= 0, dimension.parents[np.maximum(current, 0)], -1)
        tables.append(table)
    return tables


def _climb(structure: TableStructure, cells: np.ndarray, dimension: int,
           ancestors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Copy entries at ``cells`` to every ancestor of their code along ``dimension``.

    Returns (new cells, index of the source entry of each copy)."""
    stride = int(np.prod(structure.shape[dimension + 1:], dtype=np.int64))
    position = (cells // stride) % structure.shape[dimension]
    targets = ancestors[position]
    valid = targets >= 0
    source = np.broadcast_to(np.arange(cells.size)[:, None], targets.shape)[valid]
    new_cells = cells[source] + (targets[valid] - position[source]) * stride
    return new_cells, source


def _top_contributions(structure: TableStructure, cells: np.ndarray, values: np.ndarray,
                       extra: np.ndarray | None, k: int) -> tuple[np.ndarray, np.ndarray | None]:
    """(n_cells, k) largest values per cell over all levels, and the matching ``extra``."""
    n = structure.n_cells
    top = np.full((n, k), np.nan)
    top_extra = None if extra is None else np.full((n, k), np.nan)
    if k == 0 or cells.size == 0:
        return top, top_extra
    keep = _keep_largest(cells, values, k)
    cells, values = cells[keep], values[keep]
    extra = None if extra is None else extra[keep]
    for d, ancestors in enumerate(_ancestor_table(structure)):
        cells, source = _climb(structure, cells, d, ancestors)
        values = values[source]
        extra = None if extra is None else extra[source]
        keep = _keep_largest(cells, values, k)
        cells, values = cells[keep], values[keep]
        extra = None if extra is None else extra[keep]
    starts = np.r_[0, np.flatnonzero(cells[1:] != cells[:-1]) + 1]
    rank = np.arange(cells.size) - np.repeat(starts, np.diff(np.r_[starts, cells.size]))
    top[cells, rank] = values
    if top_extra is not None:
        top_extra[cells, rank] = extra
    return top, top_extra


def _holding_statistics(structure: TableStructure, cells: np.ndarray, holdings: np.ndarray,
                        values: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Distinct holdings per cell and the k largest holding sums, largest first.

    A record that is its holding's only record (or has no holding) is its own
    holding everywhere: those records take the pruned path of plain
    contributions; only holdings with several records are merged exactly."""
    n = structure.n_cells
    counts = np.bincount(np.maximum(holdings, 0), minlength=1)
    single = (holdings < 0) | (counts[np.maximum(holdings, 0)] == 1)
    solo_freq = np.bincount(cells[single], minlength=n).reshape(structure.shape)
    freq = np.rint(structure.aggregate(solo_freq)).astype(np.int64)
    solo_top, _ = _top_contributions(structure, cells[single], values[single], None, k)

    group_ids, group_holdings = np.unique(holdings[~single], return_inverse=True)
    n_groups = max(group_ids.size, 1)

    def merge(cells: np.ndarray, holdings: np.ndarray, values: np.ndarray):
        pairs, inverse = np.unique(cells * n_groups + holdings, return_inverse=True)
        sums = np.bincount(inverse.reshape(-1), weights=values, minlength=pairs.size)
        return pairs // n_groups, pairs % n_groups, sums

    group_cells, group_holdings, group_values = merge(cells[~single], group_holdings.reshape(-1), values[~single])
    for d, ancestors in enumerate(_ancestor_table(structure)):
        group_cells, source = _climb(structure, group_cells, d, ancestors)
        group_cells, group_holdings, group_values = merge(group_cells, group_holdings[source], group_values[source])
    freq += np.bincount(group_cells, minlength=n)
    # the k largest of (solo top-k) and (group sums) per cell
    solo_cells, solo_rank = np.nonzero(~np.isnan(solo_top))
    all_cells = np.r_[solo_cells, group_cells]
    all_values = np.r_[solo_top[solo_cells, solo_rank], group_values]
    top = np.full((n, k), np.nan)
    if k and all_cells.size:
        keep = _keep_largest(all_cells, all_values, k)
        kept_cells = all_cells[keep]
        starts = np.r_[0, np.flatnonzero(kept_cells[1:] != kept_cells[:-1]) + 1]
        rank = np.arange(keep.size) - np.repeat(starts, np.diff(np.r_[starts, keep.size]))
        top[kept_cells, rank] = all_values[keep]
    return freq, top


def tabulate(microdata: Microdata, top_k: int = 2, holding_top_k: int | None = None) -> CellStatistics:
    """Every cell's value, frequency and ``top_k`` largest contributions (inner
    cells, subtotals and totals alike), with weighted values, holding-level and
    request statistics when the microdata carry them."""
    structure = microdata.structure
    shape = structure.shape
    n = structure.n_cells
    cells = microdata.inner_cells()

    def summed(weights: np.ndarray | None) -> np.ndarray:
        return structure.aggregate(np.bincount(cells, weights=weights, minlength=n).reshape(shape))

    values = summed(microdata.response)
    freq = np.rint(summed(None)).astype(np.int64)
    weighted_values = weight_sums = None
    if microdata.weight is not None:
        weighted_values = summed(microdata.response * microdata.weight)
        weight_sums = summed(microdata.weight)
    top, top_weights = _top_contributions(structure, cells, microdata.response, microdata.weight, top_k)
    holding_freq = holding_top = None
    if microdata.holding is not None:
        holding_freq, holding_top = _holding_statistics(
            structure, cells, microdata.holding, microdata.response,
            top_k if holding_top_k is None else holding_top_k)
    request_top = None
    if microdata.request is not None:
        request_top = np.full((n, len(REQUEST_CODES)), np.nan)
        for column, code in enumerate(REQUEST_CODES):
            rows = microdata.request == code
            largest, _ = _top_contributions(structure, cells[rows], microdata.response[rows], None, 1)
            request_top[:, column] = largest[:, 0]
    return CellStatistics(values=values, freq=freq, top=top, weighted_values=weighted_values,
                          weight_sums=weight_sums, top_weights=top_weights, holding_freq=holding_freq,
                          holding_top=holding_top, request_top=request_top)
