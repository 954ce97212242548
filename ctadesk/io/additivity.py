"""Do a table's values satisfy its relations?  The one check every table reader's caller makes.

A table read from a file is protected as the relations say it is built: a total
that is not the sum of its parts means the structure was guessed wrong (a hidden
row left out, a share column taken for a part) or the file is not additive.
Either way nothing may be protected from it silently, so the app's importers,
``read_jj``, ``ctadesk convert`` and the tau-argus reader all ask
``non_additive`` (one tolerance: 1e-9 of the table's largest value, at least
1e-9), and ``require_additive`` refuses such a table naming the file, the sheet,
the relations and the amounts they are off by.

    broken = non_additive(structure.relations(), values, structure.relation_label)
    require_additive(structure.relations(), values, structure.relation_label, file="t.xlsx", sheet="T1")
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ctadesk.io.errors import FileFormatError

#: relations off by more than this times max(1, the largest |value|) do not add up
RTOL = 1e-9
#: most relations a refusal names
NAMED = 3


@dataclasses.dataclass(frozen=True)
class NonAdditiveRelation:
    """A relation the values break: its index, its label, and by how much it is off
    (for a total = sum of its parts: the total minus the sum of its parts)."""

    relation: int
    label: str
    difference: float


def non_additive(relations: sp.sparray | sp.spmatrix, values: np.ndarray, label: Callable[[int], str],
                 rhs: np.ndarray | None = None, rtol: float = RTOL) -> list[NonAdditiveRelation]:
    """The relations ``relations @ values = rhs`` (rhs 0 when None) that values break, largest
    difference first; ``label(r)`` names relation r.  A relation is broken when it is off by more
    than rtol * max(1, max |values|)."""
    values = np.asarray(values, float).reshape(-1)
    residual = relations @ values
    if rhs is not None:
        residual = residual - np.asarray(rhs, float)
    scale = rtol * max(1.0, float(np.abs(values).max(initial=0)))
    broken = np.flatnonzero(np.abs(residual) > scale)
    broken = broken[np.argsort(-np.abs(residual[broken]), kind="stable")]
    return [NonAdditiveRelation(int(r), label(int(r)), float(-residual[r])) for r in broken.tolist()]


class NonAdditiveError(FileFormatError):
    """A table read from a file whose values break its relations; ``broken`` lists them."""

    def __init__(self, broken: list[NonAdditiveRelation], *, file: str | Path | None = None,
                 sheet: str | None = None, advice: str = "") -> None:
        self.broken = broken
        named = "; ".join(f"{b.label} is off by {b.difference:+,.10g}" for b in broken[:NAMED])
        more = f"; and {len(broken) - NAMED} more" if len(broken) > NAMED else ""
        super().__init__(f"{len(broken)} relation(s) do not add up: {named}{more}"
                         f"{'; ' + advice if advice else ''}", file=file, sheet=sheet)


def require_additive(relations: sp.sparray | sp.spmatrix, values: np.ndarray, label: Callable[[int], str], *,
                     rhs: np.ndarray | None = None, file: str | Path | None = None, sheet: str | None = None,
                     advice: str = "") -> None:
    """NonAdditiveError naming file, sheet and the broken relations (non_additive) when there are any."""
    broken = non_additive(relations, values, label, rhs)
    if broken:
        raise NonAdditiveError(broken, file=file, sheet=sheet, advice=advice)
