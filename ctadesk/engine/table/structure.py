"""Table structures (any dimension, flat or hierarchical) and their additivity relations.

A dimension is an ordered list of codes with a parent per code; every code
with children equals the sum of its children.  For a k-dimensional table with
cells in C order, the relations of dimension d are
``kron(I_before, kron(R_d, I_after))`` where R_d is the 1-D relation matrix of
dimension d (-1 on the parent, +1 on each child): index arithmetic only, no
loop over cells (Petrenko 2017, §5.1, the constraints A x = 0 of (5.5)).
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp

from ctadesk.engine.errors import ProblemError

DEFAULT_TOTAL = "Total"


@dataclasses.dataclass(frozen=True, eq=False)
class Dimension:
    """One spanning variable: codes in display order and the parent of each (-1: none)."""

    name: str
    codes: tuple[str, ...]
    parents: np.ndarray

    def __post_init__(self) -> None:
        parents = np.asarray(self.parents, dtype=np.int64).reshape(-1)
        object.__setattr__(self, "codes", tuple(str(c) for c in self.codes))
        if parents.size != len(self.codes):
            raise ProblemError(f"dimension {self.name}: {len(self.codes)} codes but {parents.size} parents")
        if len(set(self.codes)) != len(self.codes):
            first = np.unique(np.asarray(self.codes), return_index=True)[1]
            dup = self.codes[int(np.setdiff1d(np.arange(len(self.codes)), first)[0])]
            raise ProblemError(f"dimension {self.name}: code '{dup}' appears twice")
        bad = np.flatnonzero((parents < -1) | (parents >= parents.size) | (parents == np.arange(parents.size)))
        if bad.size:
            raise ProblemError(f"dimension {self.name}: code '{self.codes[bad[0]]}' has an invalid parent")
        parents.flags.writeable = False
        object.__setattr__(self, "parents", parents)
        self.depth  # noqa: B018 (raises on cycles)

    # --------------------------------------------------------- constructors
    @classmethod
    def flat(cls, name: str, codes: Sequence[str], total: str | None = DEFAULT_TOTAL,
             total_first: bool = False) -> Dimension:
        """A flat variable; its total (if any) last, or first with total_first."""
        codes = [str(c) for c in codes]
        if total is None:
            return cls(name, tuple(codes), np.full(len(codes), -1))
        if total_first:
            return cls(name, (total, *codes), np.r_[-1, np.zeros(len(codes), np.int64)])
        return cls(name, (*codes, total), np.r_[np.full(len(codes), len(codes)), -1])

    @classmethod
    def from_levels(cls, name: str, levels: Sequence[int], codes: Sequence[str],
                    total: str | None = DEFAULT_TOTAL) -> Dimension:
        """A hierarchy from codes in pre-order with their depth (1 = below the total).

        This is how tau-argus .hrc files and sdcTable's '@' lists describe trees;
        with total=None the first level-1 code is the root and depths start at 0.
        """
        levels = [int(v) for v in levels]
        codes = [str(c) for c in codes]
        if total is not None:
            levels = [0, *levels]
            codes = [total, *codes]
        parents = np.full(len(codes), -1, np.int64)
        stack: list[int] = []
        for position, level in enumerate(levels):
            if level > len(stack):
                raise ProblemError(
                    f"dimension {name}: code '{codes[position]}' is at level {level} "
                    f"but the code before it is at level {len(stack) - 1}")
            del stack[level:]
            parents[position] = stack[-1] if stack else -1
            stack.append(position)
        return cls(name, tuple(codes), parents)

    # ------------------------------------------------------------ properties
    @property
    def size(self) -> int:
        return len(self.codes)

    @functools.cached_property
    def depth(self) -> np.ndarray:
        """Depth of each code (0 for roots); computed once (a table's row labels ask for it per row),
        read-only like ``parents``."""
        depth = np.zeros(self.size, np.int64)
        current = self.parents.copy()
        for _ in range(self.size + 1):
            active = current >= 0
            if not active.any():
                depth.flags.writeable = False
                return depth
            depth[active] += 1
            current[active] = self.parents[current[active]]
        raise ProblemError(f"dimension {self.name}: the hierarchy has a cycle")

    @property
    def is_leaf(self) -> np.ndarray:
        leaf = np.ones(self.size, bool)
        leaf[self.parents[self.parents >= 0]] = False
        return leaf

    @property
    def parent_codes(self) -> np.ndarray:
        """Positions of codes that have children (one relation each)."""
        return np.flatnonzero(~self.is_leaf)

    def index(self, code: str) -> int:
        try:
            return self.codes.index(code)
        except ValueError:
            raise ProblemError(f"dimension {self.name} has no code '{code}'") from None

    def relation_matrix(self) -> sp.csr_array:
        """R (p x size): one row per code with children, -1 on it, +1 on each child."""
        parent_positions = self.parent_codes
        row_of = np.full(self.size, -1, np.int64)
        row_of[parent_positions] = np.arange(parent_positions.size)
        children = np.flatnonzero(self.parents >= 0)
        rows = np.r_[row_of[parent_positions], row_of[self.parents[children]]]
        cols = np.r_[parent_positions, children]
        data = np.r_[-np.ones(parent_positions.size), np.ones(children.size)]
        return sp.csr_array((data, (rows, cols)), shape=(parent_positions.size, self.size))

    def aggregation_matrix(self) -> sp.csr_array:
        """S (size x size): S[c, l] = 1 if leaf l lies under code c (or is c)."""
        leaves = np.flatnonzero(self.is_leaf)
        rows = [leaves]
        cols = [leaves]
        current = self.parents[leaves]
        origin = leaves
        while True:
            keep = current >= 0
            if not keep.any():
                break
            rows.append(current[keep])
            cols.append(origin[keep])
            origin = origin[keep]
            current = self.parents[current[keep]]
        rows_all = np.concatenate(rows)
        cols_all = np.concatenate(cols)
        return sp.csr_array((np.ones(rows_all.size), (rows_all, cols_all)), shape=(self.size, self.size))


@dataclasses.dataclass(frozen=True, eq=False)
class TableStructure:
    """A table spanned by dimensions; cells are numbered in C order of the codes."""

    dimensions: tuple[Dimension, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "dimensions", tuple(self.dimensions))
        if not self.dimensions:
            raise ProblemError("a table needs at least one dimension")

    @classmethod
    def flat(cls, *sizes: int) -> TableStructure:
        """An n1 x n2 x ... table with a total on every dimension (codes 1..n)."""
        names = "RCLKMN"
        return cls(tuple(Dimension.flat(names[d] if d < len(names) else f"D{d + 1}",
                                        [str(k + 1) for k in range(size)])
                         for d, size in enumerate(sizes)))

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(d.size for d in self.dimensions)

    @property
    def n_cells(self) -> int:
        return math.prod(self.shape)

    def relations(self) -> sp.csr_array:
        """The additivity matrix A (m x n) of the whole table, built by Kronecker products."""
        shape = self.shape
        blocks = []
        for d, dimension in enumerate(self.dimensions):
            relation = dimension.relation_matrix()
            if relation.shape[0] == 0:
                continue
            before = math.prod(shape[:d])
            after = math.prod(shape[d + 1:])
            block = sp.kron(sp.identity(before, format="csr"), relation, format="csr")
            blocks.append(sp.kron(block, sp.identity(after, format="csr"), format="csr"))
        if not blocks:
            return sp.csr_array((0, self.n_cells))
        return sp.csr_array(sp.vstack(blocks, format="csr"))

    def relation_counts(self) -> list[int]:
        """Number of relations contributed by each dimension, in the order of relations()."""
        shape = self.shape
        return [dim.parent_codes.size * self.n_cells // shape[d] for d, dim in enumerate(self.dimensions)]

    def inner_mask(self) -> np.ndarray:
        """True for cells whose every code is a leaf (no total or subtotal)."""
        mask = np.ones(self.shape, bool)
        for d, dimension in enumerate(self.dimensions):
            view: list[slice | None] = [np.newaxis] * len(self.shape)
            view[d] = slice(None)
            mask = mask & dimension.is_leaf[tuple(view)]
        return mask.reshape(-1)

    def aggregate(self, inner: np.ndarray) -> np.ndarray:
        """All cell values (flat, C order) from an array of the table's shape whose
        non-leaf entries are ignored: totals and subtotals are sums of leaves."""
        full = np.where(self.inner_mask().reshape(self.shape), np.asarray(inner, dtype=float).reshape(self.shape), 0.0)
        for d, dimension in enumerate(self.dimensions):
            summed = dimension.aggregation_matrix()
            moved = np.moveaxis(full, d, 0)
            full = np.moveaxis((summed @ moved.reshape(moved.shape[0], -1)).reshape(moved.shape), 0, d)
        return full.reshape(-1)

    def coordinates(self, i: int) -> tuple[int, ...]:
        return tuple(int(k) for k in np.unravel_index(i, self.shape))

    def cell_label(self, i: int) -> str:
        """e.g. 'Region=Nr, Size=4'."""
        coords = self.coordinates(i)
        return ", ".join(f"{dim.name}={dim.codes[k]}" for dim, k in zip(self.dimensions, coords))

    def relation_label(self, r: int) -> str:
        """e.g. 'Region=Nr = sum of its parts at Size=Total'."""
        counts = self.relation_counts()
        shape = self.shape
        for d, (dimension, count) in enumerate(zip(self.dimensions, counts)):
            if r >= count:
                r -= count
                continue
            parents = dimension.parent_codes
            other_shape = shape[:d] + shape[d + 1:]
            after = math.prod(shape[d + 1:])
            outer, rest = divmod(r, parents.size * after)
            parent_row, inner = divmod(rest, after)
            other = np.unravel_index(outer * after + inner, other_shape) if other_shape else ()
            fixed = [f"{dim.name}={dim.codes[k]}" for dim, k in
                     zip(self.dimensions[:d] + self.dimensions[d + 1:], other)]
            where = f" at {', '.join(fixed)}" if fixed else ""
            return f"{dimension.name}={dimension.codes[parents[parent_row]]} = sum of its parts{where}"
        raise IndexError(r)
