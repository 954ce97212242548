"""Linked tables: several tables that share cells, protected as one problem.

Two tables share a cell when they describe the same population slice: Region x
Size and Region x Sector share every Region x Total cell.  A cell's identity is
its set of (dimension name, code) pairs with the grand total of each dimension
left out, so (Region=Nr, Size=Total) and (Region=Nr, Sector=Total) are the
same cell.  The relations of all tables are written over the unique cells and
duplicate relations dropped (de Wolf & Giessing's linked-table model; Petrenko 2017
§5.1: one CTA over the union of the tables' constraints).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp

from ctadesk.engine.errors import ProblemError
from ctadesk.engine.table.statistics import CellStatistics
from ctadesk.engine.table.structure import Dimension, TableStructure

CellKey = tuple[tuple[str, str], ...]


def grand_total(dimension: Dimension) -> int | None:
    """Position of the dimension's grand total: its only root, when that root has children."""
    roots = np.flatnonzero(dimension.parents < 0)
    if roots.size == 1 and not dimension.is_leaf[roots[0]]:
        return int(roots[0])
    return None


def cell_keys(structure: TableStructure) -> list[CellKey]:
    """The identity of every cell (C order): its non-grand-total (dimension, code) pairs, sorted."""
    per_dimension = []
    for dimension in structure.dimensions:
        total = grand_total(dimension)
        per_dimension.append([() if k == total else ((dimension.name, code),)
                              for k, code in enumerate(dimension.codes)])
    keys: list[CellKey] = [()]
    for options in per_dimension:
        keys = [key + option for key in keys for option in options]
    return [tuple(sorted(key)) for key in keys]


@dataclasses.dataclass(frozen=True, eq=False)
class LinkedTables:
    """Tables over one set of unique cells.

    structures  the tables
    cell_maps   for each table, the unique-cell index of each of its cells (C order)
    keys        the identity of each unique cell
    """

    structures: tuple[TableStructure, ...]
    cell_maps: tuple[np.ndarray, ...]
    keys: tuple[CellKey, ...]

    @classmethod
    def link(cls, structures: Sequence[TableStructure]) -> LinkedTables:
        """Identify the cells the tables share (same codes on the same dimension names)."""
        index: dict[CellKey, int] = {}
        maps = []
        for structure in structures:
            keys = cell_keys(structure)
            maps.append(np.fromiter((index.setdefault(key, len(index)) for key in keys),
                                    np.int64, len(keys)))
            if np.unique(maps[-1]).size != len(keys):
                raise ProblemError("a table lists the same cell twice; are two dimensions named alike?")
        for m in maps:
            m.flags.writeable = False
        return cls(tuple(structures), tuple(maps), tuple(index))

    @property
    def n_cells(self) -> int:
        return len(self.keys)

    @property
    def n_shared(self) -> int:
        """Number of unique cells that appear in more than one table."""
        counts = np.bincount(np.concatenate(self.cell_maps), minlength=self.n_cells)
        return int((counts > 1).sum())

    def relations(self) -> sp.csr_array:
        """The additivity matrix over the unique cells, each distinct relation once."""
        return self._relations[0]

    def relation_label(self, r: int) -> str:
        """Relation ``r`` of relations() as its first table states it, e.g.
        'Region=Nr = sum of its parts at Size=Total (table 1)'."""
        table, row = self._relations[1][r]
        return f"{self.structures[table].relation_label(int(row))} (table {table + 1})"

    @functools.cached_property
    def _relations(self) -> tuple[sp.csr_array, np.ndarray]:
        """relations() and, per relation, the (table, row) it was first written by."""
        blocks, sources = [], []
        for t, (structure, cell_map) in enumerate(zip(self.structures, self.cell_maps)):
            relations = structure.relations().tocoo()
            blocks.append(sp.csr_array((relations.data, (relations.row, cell_map[relations.col])),
                                       shape=(relations.shape[0], self.n_cells)))
            sources.append(np.column_stack([np.full(relations.shape[0], t), np.arange(relations.shape[0])]))
        stacked = sp.csr_array(sp.vstack(blocks, format="csr"))
        stacked.sort_indices()
        # identical rows have identical sorted entries, hence bit-identical projections on
        # two random vectors; distinct rows coincide on both with probability ~0
        probes = np.random.default_rng(0).random((self.n_cells, 2))
        signature = stacked @ probes
        _, first = np.unique(signature, axis=0, return_index=True)
        kept = np.sort(first)
        return sp.csr_array(stacked[kept]), np.concatenate(sources)[kept]

    def gather_statistics(self, statistics: Sequence[CellStatistics]) -> CellStatistics:
        """Unique cell statistics from each table's: a shared cell's from the first table holding it.

        Tables tabulated from one microdata set hold the same records in a shared cell, so its
        value and frequency must agree between tables (checked, as gather() checks values)."""
        if len(statistics) != len(self.structures):
            raise ProblemError(f"{len(statistics)} sets of statistics for {len(self.structures)} tables")
        self.gather([s.values for s in statistics])
        self.gather([s.freq for s in statistics])
        _, first = np.unique(np.concatenate(self.cell_maps), return_index=True)
        fields = {}
        for field in dataclasses.fields(CellStatistics):
            columns = [getattr(s, field.name) for s in statistics]
            if any(column is None for column in columns):
                if not all(column is None for column in columns):
                    raise ProblemError(f"some tables have {field.name} and some not")
                continue
            fields[field.name] = np.concatenate(columns)[first]
        return CellStatistics(**fields)

    def gather(self, tables_values: Sequence[np.ndarray], rtol: float = 1e-9) -> np.ndarray:
        """Unique cell values from each table's values; shared cells must agree."""
        values = np.full(self.n_cells, np.nan)
        for t, (cell_map, table_values) in enumerate(zip(self.cell_maps, tables_values)):
            table_values = np.asarray(table_values, float).reshape(-1)
            if table_values.size != cell_map.size:
                raise ProblemError(f"table {t + 1} has {table_values.size} values for {cell_map.size} cells")
            known = ~np.isnan(values[cell_map])
            clash = known & ~np.isclose(values[cell_map], table_values, rtol=rtol, atol=rtol)
            if clash.any():
                i = int(np.flatnonzero(clash)[0])
                raise ProblemError(
                    f"table {t + 1}, cell {self.structures[t].cell_label(i)}: value {table_values[i]:g} "
                    f"differs from {values[cell_map[i]]:g} in an earlier table")
            values[cell_map] = table_values
        return values

    def scatter(self, values: np.ndarray) -> list[np.ndarray]:
        """Each table's values from unique cell values."""
        values = np.asarray(values, float)
        return [values[cell_map] for cell_map in self.cell_maps]

    def table_indices(self, unique_indices: np.ndarray, table: int) -> np.ndarray:
        """Positions in table `table` of the given unique cells (those it holds), ascending."""
        return np.flatnonzero(np.isin(self.cell_maps[table], unique_indices))

    def cell_label(self, i: int) -> str:
        """e.g. 'Region=Nr, Size=4' ('Total' for the grand total of all tables)."""
        return ", ".join(f"{name}={code}" for name, code in self.keys[i]) or "Total"
