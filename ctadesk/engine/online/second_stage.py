"""Second stage of on-line CTA (Castro & González 2011 §4): the table with its senses fixed in the
first stage, a continuous LP; the values published before held where they can be, soft
constraints where nothing else gives a table (reliability).

The fixed-sense L1 LP over the cells not published before, those held at their last published
values (method EXACT_STAGE: small and fast, efficiency); when the held values admit no table,
the same LP over every cell with the published values as heavily weighted targets (a published
value is given up before additivity or protection); when the senses themselves admit no table,
the fixed-sense L1 LP with soft relations and soft protection levels (SECOND_STAGE): a table
always comes back, and what it gave up is its Relaxation (ctadesk.engine.online.relaxation).
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping

import numpy as np
import scipy.sparse as sp

from ctadesk.engine.methods import solve
from ctadesk.engine.online.relaxation import Relaxation
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.publish.verify import RTOL, relation_scale
from ctadesk.engine.result import SolveOptions, Status
from ctadesk.engine.solvers.soft import RELATION_PENALTY
from ctadesk.engine.table.units import table_unit

#: the second stage's methods: the fixed-sense L1 LP with pinned cells held exactly, tried first
#: (a fraction of the soft LP's time, and its optimum is the soft LP's whenever the senses admit
#: a table); the fixed-sense L1 with soft relations and protection
#: (Castro & González 2011 §4), which always returns a table, when it has none
EXACT_STAGE, SECOND_STAGE = "lp", "soft-lp"
#: the exact stage's LP by the dual simplex: few of a server table's protection levels bind, and
#: it answers several times sooner than the interior point method.  With the published values as
#: heavily weighted targets the interior point method is the faster.  The seconds per table as
#: the store grows: `.venv/bin/python benchmarks/online.py`
EXACT_OPTIONS = {"simplex": True}
#: what missing a published value (a pin) by one unit costs in the soft second stage, as a share of
#: what missing a relation by one unit costs there before pins are weighed in (aimed_at_pins)
PIN_SCALE = 0.1


def plain_cells(problem: CTAProblem) -> np.ndarray:
    """The cells a table publishes that are neither sensitive nor fixed (empty): those whose
    published values the store keeps."""
    return np.setdiff1d(np.flatnonzero(~problem.fixed), problem.sensitive)


def second_stage(problem: CTAProblem, pins: Mapping[int, float],
                 time_limit: float = math.inf) -> tuple[CTAProblem, str, str, np.ndarray | None]:
    """The second stage (Castro & González 2011 §4) for ``problem`` with its senses fixed and cell i held at
    ``pins[i]``: (the problem the table answers, pins included as in pinned(); the status and
    message of the solve that gave the table; its values (n,), None when no solve gave one).

    First the fixed-sense L1 LP (EXACT_STAGE) over the cells held() leaves free, every pin kept
    exactly; its table is taken when it leaves nothing relaxed.  Then the same LP over
    aimed_at_pins(), relations and protection exact, pins as targets; its table is taken when it
    verifies.  Otherwise the soft LP (SECOND_STAGE) over aimed_at_pins(), within what is left of
    ``time_limit``."""
    started = time.perf_counter()
    soft = pinned(problem, pins)
    reduced = held(problem, pins)
    if reduced is not None:
        free, rest, values = reduced
        status, message = Status.OPTIMAL.value, "every cell held at its published value or determined by them"
        if free.size:
            result = solve(rest, EXACT_STAGE, SolveOptions(time_limit=time_limit, parameters=EXACT_OPTIONS))
            status, message = result.status.value, result.message
            if result.verified:
                values[free] = result.values
        if (not free.size or result.verified) and not Relaxation.of(soft, problem.senses, values):
            return soft, status, message, values
    aimed = aimed_at_pins(problem, pins)
    if pins:
        left = max(time_limit - (time.perf_counter() - started), 0.0)
        result = solve(aimed, EXACT_STAGE, SolveOptions(time_limit=left))
        if result.verified:
            return soft, result.status.value, f"{result.message}; published values given up where needed", \
                np.asarray(result.values, dtype=float)
    remaining = max(time_limit - (time.perf_counter() - started), 0.0)
    result = solve(aimed, SECOND_STAGE, SolveOptions(time_limit=remaining))
    table = None if result.values is None else np.asarray(result.values, dtype=float)
    return soft, result.status.value, result.message, table


def held(problem: CTAProblem, pins: Mapping[int, float]) -> tuple[np.ndarray, CTAProblem, np.ndarray] | None:
    """``problem`` over the cells a table that keeps every pin exactly may still choose:
    (their positions ``free``; the problem over them, or ``problem`` itself when none is free;
    values (n,) of the others).  Held are the pinned cells (at ``pins[i]``; non-sensitive cells),
    the fixed ones (at their value) and, round after round, each cell that is the only one not
    held in a relation (at the value the relation leaves it): substituted into the right-hand
    sides, they leave no relation with a single cell, which an interior point method without
    presolve (EXACT_STAGE) handles badly.  None when a determined value breaks its cell's bounds
    or a relation among held cells alone does not hold (to the verifier's tolerance): then no
    table keeps every pin."""
    n = problem.n_cells
    a, relations = problem.values, sp.csr_array(problem.relations)
    value = np.where(problem.fixed, a, 0.0)
    value[list(pins)] = list(pins.values())
    is_held = problem.fixed.copy()
    is_held[list(pins)] = True
    given = is_held.copy()
    tolerance = RTOL * relation_scale(problem, table_unit(problem))
    while True:
        rhs = problem.rhs - relations @ value
        open_part = sp.csr_array((np.where(is_held[relations.indices], 0.0, relations.data), relations.indices,
                                  relations.indptr), shape=relations.shape, copy=True)
        open_part.eliminate_zeros()
        counts = np.diff(open_part.indptr)
        single = np.flatnonzero(counts == 1)
        if not single.size:
            break
        cells, first = np.unique(open_part.indices[open_part.indptr[single]], return_index=True)
        rows = single[first]
        value[cells] = rhs[rows] / open_part.data[open_part.indptr[rows]]
        is_held[cells] = True
    determined = is_held & ~given
    cell_scale = RTOL * np.maximum(np.abs(a), table_unit(problem))
    outside = (value < problem.lower - cell_scale) | (value > problem.upper + cell_scale)
    if np.any(determined & outside) or np.any((counts == 0) & (np.abs(rhs) > tolerance)):
        return None
    value = np.clip(value, problem.lower, problem.upper)
    free = np.flatnonzero(~is_held)
    if not free.size:
        return free, problem, value
    rows = np.flatnonzero(counts > 0)
    position = np.full(n, -1, np.int64)
    position[free] = np.arange(free.size)
    open_sensitive = np.flatnonzero(~is_held[problem.sensitive])
    return free, problem.replace(
        values=a[free], relations=sp.csr_array(relations.tocsc()[:, free])[rows], rhs=rhs[rows],
        lower=problem.lower[free], upper=problem.upper[free], weights=problem.weights[free], fixed=None,
        sensitive=position[problem.sensitive[open_sensitive]],
        lower_protection=problem.lower_protection[open_sensitive],
        upper_protection=problem.upper_protection[open_sensitive], senses=problem.senses[open_sensitive],
        cell_label=None if problem.cell_label is None else lambda j: problem.cell_label(int(free[j])),
        relation_label=None if problem.relation_label is None else lambda r: problem.relation_label(int(rows[r]))), \
        value


def aimed_at_pins(problem: CTAProblem, pins: Mapping[int, float]) -> CTAProblem:
    """``problem`` for the soft second stage: each pinned cell i aimed at ``pins[i]`` instead of
    its value, with weight PIN_SCALE x the soft LP's relation penalty x the largest weight.  The
    soft LP scales its penalties by the largest weight, now the pins', so a table gives way on
    any other cell before a pin, on pins before additivity and on additivity before protection.
    Pins as weighted targets, not as relations with two slack columns each (pinned()): a
    fraction of the time on a table most of whose cells are pinned (benchmarks/online.py prints
    the seconds of such tables, column "relaxed")."""
    if not pins:
        return problem
    cells = np.fromiter(pins, dtype=np.int64, count=len(pins))
    values, weights = problem.values.copy(), problem.weights.copy()
    values[cells] = np.clip([pins[i] for i in cells], problem.lower[cells], problem.upper[cells])
    weights[cells] = PIN_SCALE * RELATION_PENALTY * float(problem.weights.max(initial=1.0))
    return problem.replace(values=values, weights=weights)


def pinned(problem: CTAProblem, pins: Mapping[int, float]) -> CTAProblem:
    """``problem`` with cell i held at ``pins[i]`` by one more relation each, x_i = v_i: the
    problem a table of the second stage answers, whose relaxation is reported (a pin missed is
    a relation that does not hold, off by as much as the cell)."""
    if not pins:
        return problem
    cells = np.fromiter(pins, dtype=np.int64, count=len(pins))
    published = np.array([pins[i] for i in cells])
    rows = sp.csr_array((np.ones(cells.size), (np.arange(cells.size), cells)),
                        shape=(cells.size, problem.n_cells))
    m = problem.n_relations

    def relation_label(r: int) -> str:
        if r < m:
            return problem.relation_label(r) if problem.relation_label else str(r)
        k = r - m
        cell = problem.cell_label(int(cells[k])) if problem.cell_label else str(int(cells[k]))
        return f"{cell} = {published[k]:.6g}, as published before"

    return problem.replace(relations=sp.vstack([problem.relations, rows], format="csr"),
                           rhs=np.concatenate([problem.rhs, published]), relation_label=relation_label)

