"""A certified lower bound from whole slices: the exact MILP of each slice of a table, the other relations dropped.

Dropping relations only enlarges the set of tables, so the optimum of model (2) of Castro &
González (2011) over the relations that are kept is a lower bound on the optimum over all of
them.  Here the relations are split into classes of pairwise cell-disjoint relations (in a
k-dimensional table, the lines of one axis); dropping one class leaves the kept relations in
connected blocks that share no cell (in a 3-D table, the 2-D slices across the dropped axis), and
the cost, a sum over cells, splits over the blocks.  So

    bound = sum over blocks of a lower bound on the block's own MILP,

each block's MILP being model (2) restricted to its cells, relations and binaries, with the whole
problem's big-M (valid for every protected table).  Each block gets an equal share of the time
left; one whose MILP does not finish counts with the higher of HiGHS's dual bound and its own
per-relation bound (solvers/lower_bound.py), so the sum stays a bound whatever the time.  It is
the imbalance of whole slices, senses shared across a slice's rows and columns, which the
per-relation imbalance cuts of solvers/cuts.py cannot see.

Measured on the Cox-recipe 10x10x10 table (seed 0; load average 8 on 2 cores), against the
per-relation bound of solvers/lower_bound.py (37 163.3) and HiGHS's own bound after 600 s
(37 613.8): the slices across each of the three axes gave 37 570.4, 37 650.2 and 37 499.3, in
20-35 s each.  What did not help there, also measured: the lines through a sensitive cell taken
together (cells rarely want opposite senses in their lines: 37 163.3 again), the sensitive cells'
moves past their levels in the cuts (Cox tables let no cell move past them), a Lagrangian mixing
the relations' duals with the imbalance multipliers (the LP relaxation gives only the protection
part, 31 324.8; together 37 163.3), and slices priced after the dropped lines' own packing
(36 462.8).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import scipy.sparse as sp

from ctadesk.engine.budget import Budget
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.result import SolveOptions, Status
from ctadesk.engine.solvers.cuts import with_imbalance_cuts
from ctadesk.engine.solvers.highs import ColumnMatrix, LinearModel, solve_model
from ctadesk.engine.solvers.lower_bound import LowerBound, lower_bound
from ctadesk.engine.solvers.milp import milp_model

#: classes of pairwise cell-disjoint relations looked for (a relation needing more gets none)
MAX_CLASSES = 62
#: a block's MILP stops at this relative gap (its dual bound is what counts)
BLOCK_GAP = 1e-4
#: the sum is lowered by this share of the table's weighted size (and of itself): HiGHS's dual
#: bounds hold within its tolerances, and on a table of mixed magnitudes (cells from 1e-3 to 1e7)
#: one block's bound came out 1e-5 above the optimum found by enumerating the senses
BOUND_RTOL = 1e-6
#: the slices are worth their time from this many seconds of budget on (on 10x10x10 they take
#: 20-35 s a class on a loaded machine; a 60-s solve is better off searching)
SLICE_MIN_SECONDS = 300.0
#: share of the budget the slices may take
SLICE_SHARE = 0.1


def with_slices(problem: CTAProblem, certified: LowerBound, budget: Budget) -> LowerBound:
    """``certified`` raised to slice_bound where the budget has SLICE_MIN_SECONDS left, but not
    without end (the slices take SLICE_SHARE of it), and the big-M values from propagation are
    certified, none guessed (propagation gives every one below milp.LARGE_M times the table's
    largest value: on a 4-D cross-check table with bounds of 1e9, an M of 8e9 led HiGHS to a block
    bound 6 % above the optimum found by enumerating the senses, and a guessed M holds only for
    tables as cheap as an optimum's own cost, which a slice's MILP does not know)."""
    if not SLICE_MIN_SECONDS <= budget.remaining() < np.inf or not problem.free_senses:
        return certified
    budget = budget.child(fraction=SLICE_SHARE)
    model, free, m = milp_model(problem, SolveOptions(budget=budget))
    if m.guessed.any():
        return certified
    value = slice_bound(problem, model, free, budget)
    if value <= certified.value:
        return certified
    return dataclasses.replace(certified, value=value, slices=value)


def relation_classes(relations: sp.csr_array) -> np.ndarray:
    """A class per relation (0, 1, ...; -1 where MAX_CLASSES did not suffice), relations sharing a
    cell in different classes: the greedy colouring in the relations' order (a table's generator
    lists them axis by axis, so each axis is one class)."""
    relations = sp.csr_array(relations)
    used = np.zeros(relations.shape[1], np.int64)      # per cell, a bit per class of its relations
    classes = np.full(relations.shape[0], -1)
    for r in range(relations.shape[0]):
        cells = relations.indices[relations.indptr[r]:relations.indptr[r + 1]]
        taken = int(np.bitwise_or.reduce(used[cells], initial=0))
        free = ~taken & -~taken      # the lowest class not taken
        if free.bit_length() - 1 < MAX_CLASSES:
            classes[r] = free.bit_length() - 1
            used[cells] |= free
    return classes


def blocks(relations: sp.csr_array, kept: np.ndarray) -> tuple[int, np.ndarray, np.ndarray]:
    """The connected blocks of the relations ``kept`` (positions): their number, each cell's block
    and each kept relation's (a cell in no kept relation is a block of its own).  scipy.sparse.csgraph
    (with scipy.linalg) loads here, when a bound is asked of slices: every claim check imports this
    module, and a small table's solve needs none of it."""
    from scipy.sparse.csgraph import connected_components

    part = sp.csr_array(relations)[kept]
    graph = sp.bmat([[None, part], [part.T, None]], format="csr")
    count, label = connected_components(graph, directed=False)
    return count, label[kept.size:], label[:kept.size]


def slice_bound(problem: CTAProblem, model: LinearModel, free: np.ndarray, budget: Budget) -> float:
    """The best over relation classes of the sum of its blocks' bounds (module docstring); -inf
    where the relations form fewer than three classes (a 2-D table's blocks are single lines,
    which the per-relation bound covers) or a block has no table.  ``model`` is milp_model's MILP
    of ``problem`` (columns [z+, z-, y]) with certified big-M values, ``free`` its free sensitive
    positions."""
    classes = relation_classes(problem.relations)
    if classes.max(initial=-1) < 2 or np.any(classes < 0):
        return -np.inf
    best = -np.inf
    for dropped in range(int(classes.max()) + 1):
        if budget.over():
            break
        best = max(best, _without_class(problem, model, free, np.flatnonzero(classes != dropped), budget))
    return best


def _without_class(problem: CTAProblem, model: LinearModel, free: np.ndarray, kept: np.ndarray,
                   budget: Budget) -> float:
    """Sum over the blocks of the relations ``kept`` of a lower bound on each block's MILP, each
    block given an equal share of the budget left."""
    n, f = problem.n_cells, free.size
    count, cell_block, relation_block = blocks(problem.relations, kept)
    position = np.full(n, -1)
    position[problem.sensitive[free]] = np.arange(f)
    # what every block pays at least: its free sensitive cells' smaller protection level (the
    # MILP's column bounds hold the rest), used where a block's MILP gives no bound in time
    cost = model.cost
    floor = np.bincount(cell_block, weights=cost[:n] * model.col_lower[:n] + cost[n:2 * n] * model.col_lower[n:2 * n],
                        minlength=count)
    cells = problem.sensitive[free]
    level = np.minimum(problem.upper_protection[free], problem.lower_protection[free])
    np.add.at(floor, cell_block[cells], problem.weights[cells] * level)
    matrix = sp.csc_array((model.matrix.value, model.matrix.index, model.matrix.start),
                          shape=(model.matrix.n_rows, model.matrix.n_cols))
    order = np.argsort(cell_block, kind="stable")
    starts = np.searchsorted(cell_block[order], np.arange(count + 1))
    total = 0.0
    left = np.bincount(relation_block, minlength=count) > 0      # blocks with relations, still to solve
    for block in range(count):
        members = order[starts[block]:starts[block + 1]]
        rows = kept[relation_block == block]
        if not rows.size:
            total += floor[block]
            continue
        # an equal share of what is left, so that every block gets its root at least
        share = budget.child(seconds=budget.remaining() / max(int(left.sum()), 1))
        left[block] = False
        block_problem = _block_problem(problem, members, rows)
        found = _block_bound(problem, model, matrix, block_problem, members, rows, position, share)
        if found is None:
            return -np.inf      # no table at all: claim nothing here, the method says so
        total += max(floor[block], found)
    return total - BOUND_RTOL * (abs(total) + float(problem.weights @ np.maximum(np.abs(problem.values), 1.0)))


def _block_bound(problem: CTAProblem, model: LinearModel, matrix: sp.csc_array, block_problem: CTAProblem,
                 members: np.ndarray, rows: np.ndarray, position: np.ndarray, budget: Budget) -> float | None:
    """A lower bound on the block's MILP (the cells ``members`` and relations ``rows`` of ``model``):
    its optimum or HiGHS's dual bound, or where that is lower, the block's per-relation bound
    (solvers/lower_bound.py); None where the block admits no table."""
    n, m, f = problem.n_cells, problem.n_relations, int(np.count_nonzero(position >= 0))
    binaries = position[members]
    binaries = binaries[binaries >= 0]
    columns = np.concatenate([members, n + members, 2 * n + binaries])
    keep_rows = np.concatenate([rows] + [m + q * f + binaries for q in range(4)])
    sub = sp.csc_array(matrix[keep_rows][:, columns])
    sub.sort_indices()
    block_model = LinearModel(model.cost[columns], model.col_lower[columns], model.col_upper[columns],
                              ColumnMatrix.from_csc(sub), model.row_lower[keep_rows], model.row_upper[keep_rows],
                              integer_columns=2 * members.size + np.arange(binaries.size))
    outcome = solve_model(with_imbalance_cuts(block_problem, block_model), SolveOptions(budget=budget, threads=1),
                          {"mip_rel_gap": BLOCK_GAP})
    if outcome.status is Status.INFEASIBLE:
        return None
    found = outcome.bound if block_model.is_mip else outcome.objective if outcome.status is Status.OPTIMAL else None
    found = found if found is not None and np.isfinite(found) else -np.inf
    if outcome.status is Status.OPTIMAL:
        return found
    return max(found, lower_bound(block_problem, budget).value)


def _block_problem(problem: CTAProblem, cells: np.ndarray, rows: np.ndarray) -> CTAProblem:
    """``problem`` restricted to ``cells`` and the relations ``rows`` (which hold no other cell), for
    the imbalance cuts of the block's MILP."""
    inside = np.isin(problem.sensitive, cells)
    local = np.full(problem.n_cells, -1)
    local[cells] = np.arange(cells.size)
    return CTAProblem(values=problem.values[cells], relations=sp.csr_array(problem.relations)[rows][:, cells],
                      rhs=problem.rhs[rows], lower=problem.lower[cells], upper=problem.upper[cells],
                      weights=problem.weights[cells], sensitive=local[problem.sensitive[inside]],
                      lower_protection=problem.lower_protection[inside],
                      upper_protection=problem.upper_protection[inside], fixed=problem.fixed[cells],
                      senses=problem.effective_senses[inside])


__all__ = ["relation_classes", "slice_bound", "with_slices"]
