"""Which given senses conflict, in the table's terms, when a fixed-sense run finds no table.

With every sensitive cell's direction fixed the model is an LP (Petrenko 2017, §5: CTA with
fixed senses); it has no solution when the cells a relation ties together are all pushed one way
and nothing else in the relation may move to balance them (Castro & González 2011, §3: "some
combinations of y_i may make the resulting problem infeasible").  ``conflicting_cells`` names
the sensitive cells of such relations: every one of its sensitive cells with a sense, the same
sense, and its other cells fixed.  Where no relation is that plain, the sensitive cells with a
sense that share a relation with another are named, the first few.
"""

from __future__ import annotations

import numpy as np

from ctadesk.engine.problem import CTAProblem

#: most cells a message names
NAMED = 6


def conflicting_cells(problem: CTAProblem, senses: np.ndarray) -> list[int]:
    """Sensitive cells (flat indices) whose ``senses`` (per sensitive cell, +1 up, -1 down, 0
    free) conflict, the plain conflicts first; at most NAMED."""
    relations = problem.relations.tocsr()
    sense_of = np.zeros(problem.n_cells, np.int8)
    sense_of[problem.sensitive] = senses
    plain: list[int] = []
    shared: list[int] = []
    for row in range(relations.shape[0]):
        cells = relations.indices[relations.indptr[row]:relations.indptr[row + 1]]
        coefficients = relations.data[relations.indptr[row]:relations.indptr[row + 1]]
        pushed = cells[sense_of[cells] != 0]
        if pushed.size == 0 or (pushed.size < 2 and not problem.fixed[np.setdiff1d(cells, pushed)].all()):
            continue
        others = np.setdiff1d(cells, pushed)
        directions = np.sign(coefficients[np.isin(cells, pushed)]) * sense_of[pushed]
        if problem.fixed[others].all() and (np.all(directions > 0) or np.all(directions < 0)):
            plain.extend(int(c) for c in pushed)
        elif pushed.size >= 2:
            shared.extend(int(c) for c in pushed)
    named = list(dict.fromkeys(plain or shared))
    return named[:NAMED]


def describe(problem: CTAProblem, senses: np.ndarray, cells: list[int]) -> str:
    """'cell 0 (r=1, c=1) up, cell 1 (r=1, c=2) up' for the cells named."""
    sense_of = np.zeros(problem.n_cells, np.int8)
    sense_of[problem.sensitive] = senses
    return ", ".join(f"{problem.describe_cell(c)} {'up' if sense_of[c] > 0 else 'down'}" for c in cells)
