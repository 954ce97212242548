"""A K-way table of counts with named axes, the object every release is cut from.

Karr, Dobra & Sanil (undated), ("Problem formulation"): the confidential database is a large contingency table of
counts; its marginal sub-tables, one per subset of the K attributes, are what may be released.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence

import numpy as np

from ctadesk.engine.errors import ProblemError

#: a marginal sub-table: the set of axis indices it keeps
Subtable = frozenset[int]


@dataclasses.dataclass(frozen=True, eq=False)
class CountTable:
    """counts  a K-dimensional array of non-negative whole counts
    names   one name per axis (the attribute)
    labels  per axis, one label per category (default '0', '1', ...)
    """

    counts: np.ndarray
    names: tuple[str, ...]
    labels: tuple[tuple[str, ...], ...] = ()

    def __post_init__(self) -> None:
        counts = np.asarray(self.counts)
        if counts.ndim == 0 or counts.size == 0:
            raise ProblemError("a count table needs at least one axis and one cell")
        if not np.all(np.isfinite(counts)) or np.any(counts < 0) or np.any(counts != np.rint(counts)):
            raise ProblemError("counts must be non-negative whole numbers")
        counts = counts.astype(np.int64)
        counts.flags.writeable = False
        object.__setattr__(self, "counts", counts)
        names = tuple(str(name) for name in self.names)
        if len(names) != counts.ndim or len(set(names)) != len(names):
            raise ProblemError(f"{counts.ndim} axes need {counts.ndim} distinct names, got {list(names)}")
        object.__setattr__(self, "names", names)
        labels = tuple(tuple(str(c) for c in axis) for axis in self.labels) or tuple(
            tuple(str(i) for i in range(size)) for size in counts.shape)
        if tuple(len(axis) for axis in labels) != counts.shape:
            raise ProblemError(f"category labels {[len(a) for a in labels]} do not match the shape {counts.shape}")
        object.__setattr__(self, "labels", labels)

    @property
    def n_axes(self) -> int:
        return self.counts.ndim

    @property
    def shape(self) -> tuple[int, ...]:
        return self.counts.shape

    @property
    def total(self) -> int:
        return int(self.counts.sum())

    def marginal(self, subtable: Iterable[int]) -> np.ndarray:
        """The marginal sub-table over the axes ``subtable`` (in axis order); the grand total for ()."""
        keep = set(subtable)
        return self.counts.sum(axis=tuple(a for a in range(self.n_axes) if a not in keep))

    def at_risk(self, threshold: int) -> np.ndarray:
        """Flat (C-order) indices of the cells at risk: 0 < count <= threshold (Karr, Dobra & Sanil (undated),
        "Ordered marginals: the details")."""
        flat = self.counts.reshape(-1)
        return np.flatnonzero((flat > 0) & (flat <= threshold))

    def cell_labels(self, cell: int) -> dict[str, str]:
        """The category of every axis at flat cell index ``cell``."""
        position = np.unravel_index(cell, self.shape)
        return {name: self.labels[a][int(i)] for a, (name, i) in enumerate(zip(self.names, position))}

    def letters(self) -> tuple[str, ...]:
        """Short axis names as the paper writes them (A, B, C, ...), or the names beyond 26 axes."""
        if self.n_axes > 26:
            return self.names
        return tuple(chr(ord("A") + a) for a in range(self.n_axes))

    def subtable_name(self, subtable: Iterable[int]) -> str:
        """'[ACD]' for the sub-table of axes 0, 2, 3 (Karr, Dobra & Sanil's notation); '[]' for the grand total."""
        letters = self.letters()
        separator = "" if self.n_axes <= 26 else ","
        return "[" + separator.join(letters[a] for a in sorted(subtable)) + "]"

    @classmethod
    def from_cells(cls, names: Sequence[str], codes: Sequence[np.ndarray], labels: Sequence[Sequence[str]],
                   counts: np.ndarray | None = None) -> CountTable:
        """The table of records (or of rows carrying ``counts``): ``codes`` holds per axis each
        record's category position in ``labels``; rows falling in the same cell are summed."""
        shape = tuple(len(axis) for axis in labels)
        cells = np.ravel_multi_index(tuple(np.asarray(c, np.int64) for c in codes), shape)
        totals = np.bincount(cells, weights=counts, minlength=int(np.prod(shape)))
        return cls(totals.reshape(shape), tuple(names), tuple(tuple(axis) for axis in labels))
