"""Ordered marginals (Karr, Dobra & Sanil (undated), "Alternative 2: ordered marginals").

MPR(T) = {T, the 1-way sub-tables of the attributes not in T}, the most parsimonious release
holding T (decomposable: its bounds are the Fréchet bounds).  A release is bad at width w when
some at-risk cell's bound width is <= w; T is bad at w when MPR(T) is.  The critical width
CW(T) is the width from which on T is bad, DR(MPR(T)) (the slide writes max{w : T is bad at w},
which read literally is unbounded; the least such w is what measures T's own riskiness).  The
procedure adds sub-tables to the release in order of decreasing critical width, the least risky
first, until one would bring DR(R) below alpha.
"""

from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np

from ctadesk.engine.releases.decomposable import perfect_sequence
from ctadesk.engine.releases.frechet import frechet_bounds
from ctadesk.engine.releases.linear_bounds import BoundsModel
from ctadesk.engine.releases.moves import proven_widths
from ctadesk.engine.releases.release import Release, lattice
from ctadesk.engine.releases.risk import DEFAULT_THRESHOLD
from ctadesk.engine.releases.table import CountTable, Subtable


def most_parsimonious(n_axes: int, subtable: Subtable) -> Release:
    """MPR(T): T and the 1-way sub-tables of the attributes outside T."""
    return Release.of(n_axes, [subtable, *({a} for a in range(n_axes) if a not in subtable)])


def critical_width(table: CountTable, subtable: Subtable, threshold: int = DEFAULT_THRESHOLD) -> float:
    """CW(T) = DR(MPR(T)): the smallest Fréchet bound width of an at-risk cell under MPR(T)
    (inf when no cell is at risk)."""
    cells = table.at_risk(threshold)
    if cells.size == 0:
        return math.inf
    return float(frechet_bounds(table, most_parsimonious(table.n_axes, subtable), cells).width.min())


def critical_widths(table: CountTable, threshold: int = DEFAULT_THRESHOLD) -> dict[Subtable, float]:
    """CW(T) of every one of the 2^K sub-tables."""
    return {subtable: critical_width(table, subtable, threshold) for subtable in lattice(table.n_axes)}


@dataclasses.dataclass(frozen=True)
class OrderedResult:
    """release   the release the procedure ends with
    order     every sub-table with its critical width, in the order they were considered
    added     the sub-tables added (each with its sub-marginals), in order
    refused   the sub-tables refused because they brought DR(R) below alpha (the first one
              ends the procedure unless it kept going)"""

    release: Release
    order: tuple[tuple[Subtable, float], ...]
    added: tuple[Subtable, ...]
    refused: tuple[Subtable, ...]


def ordered_marginals(table: CountTable, alpha: float, threshold: int = DEFAULT_THRESHOLD,
                      integer: bool = False, keep_going: bool = False) -> OrderedResult:
    """Add sub-tables by decreasing CW(T) (ties: fewer attributes first) while DR(R) >= alpha.

    Decomposable candidates are checked with the Fréchet bounds, the others first by moves of
    counts that keep the candidate's marginals (moves.py: a cell a move proves alpha wide needs
    no LP), then, for the cells left, with the LP (MILP when ``integer``) of the release so far,
    to which the candidate's new sub-tables are added for the check and from which they are
    dropped again.  ``keep_going`` skips a refused sub-table and goes on with the next (the
    paper stops at the first)."""
    widths = critical_widths(table, threshold)
    order = sorted(widths.items(), key=lambda item: (-item[1], len(item[0]), sorted(item[0])))
    cells = table.at_risk(threshold)
    release = Release(table.n_axes, frozenset())
    released: set[Subtable] = set()
    model = BoundsModel(table, release, integer=integer)
    singletons = [frozenset({a}) for a in range(table.n_axes)]
    added: list[Subtable] = []
    refused: list[Subtable] = []
    for subtable, width in order:
        if subtable in released:
            continue
        candidate = release.adding(subtable)
        below = (frozenset(c) for size in range(len(subtable) + 1)
                 for c in itertools.combinations(sorted(subtable), size))
        new = [s for s in below if s not in released]
        in_model = False
        if width < alpha and all(s in released for s in singletons):  # MPR(T) inside: DR <= CW(T)
            ok = False
        elif cells.size == 0:
            ok = True
        elif perfect_sequence(candidate.frontier) is not None and not integer:
            ok = bool(frechet_bounds(table, candidate, cells).width.min() >= alpha)
        else:
            unproven = cells[proven_widths(table, candidate, cells, alpha) < alpha]
            ok = unproven.size == 0
            if not ok:
                first = model.n_rows
                model.add_subtables(new)
                narrow = model.first_narrower(unproven, alpha)
                ok = in_model = narrow is None
                if not ok:
                    model.drop_rows(first)
                    cells = np.r_[narrow, cells[cells != narrow]]      # tried first next time
        if ok:
            if not in_model:
                model.add_subtables(new)
            release = candidate
            released.update(new)
            added.append(subtable)
        else:
            refused.append(subtable)
            if not keep_going:
                break
    return OrderedResult(release, tuple(order), tuple(added), tuple(refused))
