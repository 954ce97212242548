"""Releases: sets of marginal sub-tables, closed downward, held by their frontier.

Karr, Dobra & Sanil (undated), ("OTR components"): the 2^K sub-tables of a K-way table are partially ordered by
inclusion of their attributes; a release R is a set of them.  Releasing a marginal releases
every marginal below it (they are its sums), so a release is a down-set of that lattice and
is held here by its frontier, the maximal sub-tables released.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterable, Iterator

from ctadesk.engine.errors import ProblemError
from ctadesk.engine.releases.table import Subtable


def maximal(subtables: Iterable[Iterable[int]]) -> frozenset[Subtable]:
    """The sub-tables of ``subtables`` that lie inside no other one."""
    sets = sorted({frozenset(s) for s in subtables}, key=len, reverse=True)
    kept: list[Subtable] = []
    for candidate in sets:
        if not any(candidate <= other for other in kept):
            kept.append(candidate)
    return frozenset(kept)


def lattice(n_axes: int) -> tuple[Subtable, ...]:
    """All 2^K sub-tables, by dimension then axis order."""
    return tuple(frozenset(c) for size in range(n_axes + 1) for c in itertools.combinations(range(n_axes), size))


@dataclasses.dataclass(frozen=True)
class Release:
    """A release of a table with ``n_axes`` axes, held by its ``frontier`` (maximal sub-tables).
    An empty frontier releases nothing; the frontier {()} releases the grand total only."""

    n_axes: int
    frontier: frozenset[Subtable]

    def __post_init__(self) -> None:
        frontier = maximal(self.frontier)
        outside = [sorted(s) for s in frontier if any(a < 0 or a >= self.n_axes for a in s)]
        if outside:
            raise ProblemError(f"sub-table {outside[0]} names an axis outside 0..{self.n_axes - 1}")
        object.__setattr__(self, "frontier", frontier)

    @classmethod
    def of(cls, n_axes: int, subtables: Iterable[Iterable[int]]) -> Release:
        """The smallest release holding every sub-table of ``subtables``."""
        return cls(n_axes, frozenset(frozenset(s) for s in subtables))

    @classmethod
    def everything(cls, n_axes: int) -> Release:
        """The full table (every sub-table released)."""
        return cls(n_axes, frozenset({frozenset(range(n_axes))}))

    def __contains__(self, subtable: Iterable[int]) -> bool:
        subtable = frozenset(subtable)
        return any(subtable <= top for top in self.frontier)

    def subtables(self) -> frozenset[Subtable]:
        """Every released sub-table (the down-closure of the frontier)."""
        return frozenset(frozenset(c) for top in self.frontier
                         for size in range(len(top) + 1) for c in itertools.combinations(sorted(top), size))

    def __len__(self) -> int:
        """DU(R) = #{R} of Karr, Dobra & Sanil (undated): the number of sub-tables released, the
        grand total included."""
        return len(self.subtables())

    def axes(self) -> frozenset[int]:
        """The attributes that appear in some released sub-table."""
        return frozenset().union(*self.frontier) if self.frontier else frozenset()

    def adding(self, subtable: Iterable[int]) -> Release:
        """This release with ``subtable`` (and so all its sub-marginals) added."""
        return Release(self.n_axes, self.frontier | {frozenset(subtable)})

    def withdrawing(self, subtable: Iterable[int]) -> Release:
        """This release without ``subtable`` and every sub-table above it (the largest release
        inside this one that does not hold it)."""
        subtable = frozenset(subtable)
        kept = {top for top in self.frontier if not subtable <= top}
        kept |= {top - {axis} for top in self.frontier if subtable <= top for axis in subtable}
        return Release(self.n_axes, frozenset(kept))

    def below(self) -> Iterator[Release]:
        """The releases one sub-table smaller: each frontier sub-table withdrawn in turn."""
        for top in sorted(self.frontier, key=sorted):
            yield self.withdrawing(top)
