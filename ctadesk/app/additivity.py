"""Which totals a value edit left unequal to the sum of their parts, and the question put to the user.

A table whose totals do not add up is still protected: every CTA model solves for
deviations z with A z = b - A a (CTAProblem.deviation_rhs), so the adjusted table adds up
again -- by moving cells of the solver's choosing.  After an edit the user is told which
totals no longer add up and may recompute them from their parts instead.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.publish.verify import RTOL, relation_scale
from ctadesk.engine.table.units import table_unit
from ctadesk.io.project import Project

#: most unbalanced totals named in the question
NAMED = 5


@dataclasses.dataclass(frozen=True)
class Unbalanced:
    """A relation an edit unbalanced: its index, its name and by how much it is off (A x - b)."""

    relation: int
    label: str
    off_by: float


def unbalanced_by_edit(project: Project, cell: int, previous: float) -> list[Unbalanced]:
    """The relations through cell that add up (to RTOL of their largest term, as the verifier
    measures) with the cell at previous and no longer do at its current value."""
    relations = project.relations
    column = relations[:, [cell]].tocoo()
    rows, coefficients = column.row, column.data
    if rows.size == 0:
        return []
    table = CTAProblem(values=project.values, relations=relations, rhs=project.rhs)
    after = relations[rows] @ project.values - project.rhs[rows]
    before = after - coefficients * (project.values[cell] - previous)
    tolerance = RTOL * relation_scale(table, table_unit(table))[rows]
    broken = (np.abs(after) > tolerance) & (np.abs(before) <= tolerance)
    structure = project.structure
    named = sum(structure.relation_counts()) == relations.shape[0] and structure.n_cells > 1
    return [Unbalanced(int(r), structure.relation_label(int(r)) if named else f"relation {r + 1}", float(off))
            for r, off in zip(rows[broken], after[broken])]


def recomputed_totals(project: Project) -> np.ndarray | None:
    """The table with every total recomputed from its parts, when that satisfies every relation
    (None when the relations are not sums of parts of the table's own hierarchy, as for linked tables)."""
    values = project.recompute_totals()
    table = CTAProblem(values=values, relations=project.relations, rhs=project.rhs)
    residual = project.relations @ values - project.rhs
    return values if np.all(np.abs(residual) <= RTOL * relation_scale(table, table_unit(table))) else None


def question(cell_label: str, value: float, unbalanced: list[Unbalanced], total_reset: float | None) -> str:
    """The yes/no question put after the edit setting cell_label to value unbalanced some totals
    (yes: recompute the totals); total_reset is what an edited total goes back to (None for an inner cell)."""
    lines = [f"With {cell_label} = {value:,.10g}, {len(unbalanced)} total(s) no longer equal the sum of their parts:"]
    lines += [f"  • {u.label} (off by {u.off_by:+,.6g})" for u in unbalanced[:NAMED]]
    if len(unbalanced) > NAMED:
        lines.append(f"  • and {len(unbalanced) - NAMED} more")
    lines += ["", "Make the table additive again by recomputing every total from its parts"
              + (f" ({cell_label} goes back to {total_reset:,.10g})" if total_reset is not None else "") + "?",
              "", "No keeps the table as typed: protection then makes it add up by moving cells of its own "
              "choosing. Either way, Undo takes the edit back."]
    return "\n".join(lines)
