"""What a table of on-line CTA's second stage gives up, in the table's terms (Castro & González
2011 §4: soft constraints keep the method reliable, and what they relaxed is said): protection
levels missed, relations that do not add up, values published before that a table changes.  To
the verifier's tolerances (ctadesk.engine.publish.verify)."""

from __future__ import annotations

import dataclasses

import numpy as np

from ctadesk.engine.problem import SENSE_UP, CTAProblem
from ctadesk.engine.publish.verify import RTOL, relation_scale
from ctadesk.engine.table.units import table_unit


@dataclasses.dataclass(frozen=True)
class Shortfall:
    """A sensitive cell published short of its safe value: ``cell`` (its codes), the side it is on
    (+1 above, -1 below its true value), the protection level required and how far short it is."""

    cell: str
    sense: int
    level: float
    short: float


@dataclasses.dataclass(frozen=True)
class Relaxation:
    """What the second stage gave up, in table terms (office only): protection shortfalls,
    relations of the table that do not add up (relation, amount off), and cells published before
    that this table publishes at another value (cell and published value, amount off)."""

    protection: tuple[Shortfall, ...] = ()
    relations: tuple[tuple[str, float], ...] = ()
    published: tuple[tuple[str, float], ...] = ()

    def __bool__(self) -> bool:
        return bool(self.protection or self.relations or self.published)

    @property
    def broken(self) -> bool:
        """A protection level missed or a relation that does not add up: the table must not be
        published as protected (a value differing from an earlier publication is said, no more)."""
        return bool(self.protection or self.relations)

    def lines(self) -> list[str]:
        """One line per relaxation, for a log."""
        return ([f"{s.cell} is {s.short:.6g} short of its {'upper' if s.sense == SENSE_UP else 'lower'} "
                 f"protection level {s.level:.6g}" for s in self.protection] +
                [f"{relation} is off by {amount:.6g}" for relation, amount in self.relations + self.published])

    @classmethod
    def of(cls, problem: CTAProblem, senses: np.ndarray, values: np.ndarray,
           table_relations: int | None = None) -> Relaxation:
        """The relaxation of ``values`` against ``problem`` with ``senses``, to the verifier's
        tolerances (ctadesk.engine.publish.verify); relations from ``table_relations`` on (pinned()'s
        published values) are reported as ``published``."""
        a = problem.values
        unit = table_unit(problem)
        cells = problem.sensitive
        level = np.where(senses == SENSE_UP, problem.upper_protection, problem.lower_protection)
        short = level - senses * (values[cells] - a[cells])
        missed = np.flatnonzero(short > RTOL * np.maximum(np.abs(a[cells]), unit))
        residual = problem.relations @ values - problem.rhs
        off = np.flatnonzero(np.abs(residual) > RTOL * relation_scale(problem, unit))
        split = problem.n_relations if table_relations is None else table_relations
        return cls(tuple(Shortfall(problem.cell_label(int(cells[k])) if problem.cell_label else str(int(cells[k])),
                                   int(senses[k]), float(level[k]), float(short[k])) for k in missed),
                   tuple((problem.describe_relation(int(r)), float(residual[r])) for r in off if r < split),
                   tuple((problem.describe_relation(int(r)), float(residual[r])) for r in off if r >= split))



def crossed_sides(problem: CTAProblem, senses: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The positions (in problem.sensitive) of the sensitive cells that ``values`` put on the
    other side of their sense, beyond the verifier's tolerance: what a stored sense exists to
    forbid (a cell short of its level on its own side is a relaxation, not a crossing)."""
    a = problem.values[problem.sensitive]
    return np.flatnonzero(senses * (values[problem.sensitive] - a) < -RTOL * np.maximum(np.abs(a), 1.0))
