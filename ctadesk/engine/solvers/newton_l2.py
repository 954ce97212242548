"""Fixed-sense L2 CTA (Petrenko 2017, the QP (5.11)) by a semismooth Newton method on its dual.

The dual of min sum w z^2, A z = d, l_z <= z <= u_z has one variable per relation;
it is maximised by a semismooth Newton method whose Hessian is the weighted
Laplacian A D A^T of the cells off their bounds: formed dense and factorised by LAPACK's
Cholesky where it has at most DENSE_RELATIONS relations (small tables), else factorised by
CHOLMOD's supernodal Cholesky (or QDLDL) on the pattern of all movable cells, else (QDLDL alone
on relations that meet many others, or a failed factorisation) by SuperLU or a dense Cholesky.
Any relation matrix works; its system is the part of clarabel's KKT system that remains once
the cells are eliminated, over fewer relations (one per total), and it takes fewer
factorisations.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
import time
import weakref
from collections.abc import Callable
from typing import NamedTuple, TypeAlias

import numpy as np
import qdldl
import scipy.linalg
import scipy.sparse as sp
import scipy.sparse.linalg as spla

try:                                    # the optional extra ctadesk[cholmod] (cvxopt is GPL-3.0)
    import cvxopt
    from cvxopt import cholmod
except ImportError:
    cvxopt = cholmod = None

from ctadesk.engine.errors import SolverError
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.result import CTAResult, SolveOptions, Status
from ctadesk.engine.solvers.conic import solve_l2
from ctadesk.engine.solvers.finish import finish, weighted_sum
from ctadesk.engine.solvers.lp import fixed_senses
from ctadesk.engine.solvers.network import (
    SPARSE_DEGREE,
    defining_relations,
    log_line,
    relation_degree,
    report_optimum,
    sense_bounds,
)

METHOD_L2 = "network-l2"
#: the L2 Newton method stops when every relation holds to this relative accuracy; its log line
#: names the iterations it took (a handful on J. Castro's tables, more where cells span many orders
#: of magnitude or many are sensitive: benchmarks/castro_l2.py runs them); where it needs more than
#: L2_MAX_ITERATIONS clarabel takes over
L2_TOLERANCE = 1e-10
L2_MAX_ITERATIONS = 50
#: Newton steps taken past convergence while they lower the residual (_polished), and while it
#: is above POLISH_FLOOR of the relations' scale: half the rounding error of one addition, below
#: which a step moves rounding alone (22 of 24 office tables of 20-250 cells converged to
#: 4e-18..2e-16, the steps then took them to 3e-18..1e-17)
POLISH_STEPS = 2
POLISH_FLOOR = 1e-16
#: rounds of least_squares_deviations that add the relations its answer broke
BASIS_ROUNDS = 5
#: the line search along a Newton step stops when the dual's slope has fallen to this share of its
#: slope at the start, or after LINE_SEARCH_STEPS evaluations (_line_search)
LINE_SEARCH_RTOL = 1e-6
LINE_SEARCH_STEPS = 30
#: a line search whose step doubled this far (2^29 Newton steps) may be along a ray of the dual
#: (_rises_without_end)
RAY_LENGTH = 2.0 ** (LINE_SEARCH_STEPS - 1)
#: the Newton system is factorised dense when it has at most DENSE_LIMIT relations and at least
#: DENSE_SHARE of its entries are nonzero, else sparse (_factor)
DENSE_LIMIT = 4000
DENSE_SHARE = 0.05
#: a Newton system of at most this many relations is formed and factorised dense (_DensePattern):
#: the whole solve of office tables with 61-125 defining relations took 0.81-0.90 ms so, 0.96-1.03
#: ms with the sparse pattern and CHOLMOD (whose analysis alone took 37 microseconds, the pattern
#: 85); from 128 relations up OpenBLAS runs LAPACK's Cholesky on several threads, which on a loaded
#: 2-core machine took 0.76 ms instead of 0.08 (benchmarks/l2_shapes.py --dense-relations)
DENSE_RELATIONS = 127
#: a Newton system whose free cells differ from the last factorised one's in at most this share
#: is solved by conjugate gradients preconditioned with that factorisation, in at most
#: REUSE_ITERATIONS iterations and no longer than a new factorisation takes (_NewtonSystems)
REUSE_SHARE = 0.05
REUSE_ITERATIONS = 100
#: ... and only where they may take more iterations than cells changed, or at least this many:
#: where a factorisation costs a few solves (jjtabel3, toysarah) runs capped at 1-7 iterations
#: failed 31 times out of 33
REUSE_MIN_ITERATIONS = 10
#: ... and only on systems of at least this many relations: below, a sparse factorisation costs a
#: few of scipy's conjugate-gradient iterations (about 120 us each with their operators), and the
#: clock's say made a solve's last bits differ from run to run.  A 210-cell nested 2-D table of
#: 138 relations (l2_shapes.py seed 52): 1.10 -> 0.86 ms of processor time a first solve, 0.45-0.59
#: -> 0.41-0.45 of clarabel's; tables of 250-60 000 cells and J. Castro's nine as before
REUSE_RELATIONS = 1000
#: the factoriser of Newton systems on a fixed pattern (_Pattern): "cholmod" where cvxopt is
#: installed, else "qdldl" alone
FACTORISER = "qdldl" if cholmod is None else "cholmod"
#: with QDLDL alone, relations added by a later round that make the Newton system's pattern (its
#: entries over the movable cells) more than this many times the first round's hand the QP to
#: clarabel: the added relations are other breakdowns of totals already broken down, which close
#: cycles among the relations, and QDLDL's factor of such a system fills in (J. Castro's CUTEst
#: tables nine12, ninenew and hier16; benchmarks/castro_l2.py --sif --qdldl prints the Newton
#: method with QDLDL alone beside clarabel).  Systems of fewer than GROWN_RELATIONS relations are
#: kept whatever their growth: even a dense factor of them takes a fraction of a second.  CHOLMOD's
#: supernodal factor keeps grown systems cheap, and with it the Newton method keeps them all
PATTERN_GROWTH = 1.75
GROWN_RELATIONS = 1000
#: the products of the relations and their transpose with vectors go through dense arrays (BLAS's
#: gemv: about 1 microsecond on 36 x 60 against scipy's CSR product's 2.7, 2.0 against 3.2 on 90 x
#: 150) where the relations of a round have at most this many entries with the cells: OpenBLAS's
#: gemv stays on one thread below 2304 x 4 = 9 216 entries, and a second thread on a loaded 2-core
#: machine costs more than it gains (see DENSE_RELATIONS); above, dense products cost more anyway
DENSE_PRODUCTS = 9216
#: a dense Newton system (at most DENSE_RELATIONS relations, dense products) whose product A D A^T
#: takes at most this many multiply-adds (relations^2 x cells) is formed by one matrix product at
#: each factorisation (_DenseProduct), with no pairs of relations found first: on office tables of
#: 49-90 cells (25-40 relations) those pairs took about 25 us of a 420-us first solve, and the
#: product 3-5 us a system, as the pairs' weighted count does.  OpenBLAS's dgemm took no second
#: thread up to 396 000 multiply-adds (a 60 x 110 system: 24 us), but a 71 x 119 one (600 000)
#: took 0.8 ms of processor time on two threads of a loaded machine, against 13 us from the pairs
TINY_PRODUCTS = 131_072
#: what a problem alone gives the method (_Relations) is kept while the problem lives where it has at
#: most this many cells: there it is a large share of a solve (about 200 of 400 microseconds solved
#: again on 50-250 cells); above, a small one, and the gathered relations and the Newton systems'
#: pattern would hold a few times the relations' memory for as long as the problem is open
KEPT_CELLS = 100_000


#: a matrix the Newton method multiplies vectors by: CSR, or dense where small (gathered)
Matrix: TypeAlias = sp.csr_array | np.ndarray
#: what newton_pattern gives: how the Newton systems are formed and factorised (None: _factor)
NewtonPattern: TypeAlias = "_Pattern | _DensePattern | _DenseProduct | None"


def solve_network_l2(problem: CTAProblem, options: SolveOptions = SolveOptions(),
                     senses: np.ndarray | None = None) -> CTAResult:
    """Fixed-sense L2 CTA (Petrenko 2017, the QP (5.11)) by Newton on its dual.

    Any relation matrix works; it is fast when the relations are few compared with
    the cells (2-D and 1H2D tables).  model_objective is sum w (x - a)^2.
    """
    started = time.perf_counter()
    options = options.begun()
    relations = _Relations.of(problem)
    if senses is None:          # the problem's own: their bounds are kept with its relations
        senses, origin, lower, upper = relations.own_senses(problem)
    else:
        senses, origin = fixed_senses(problem, senses)
        lower, upper = sense_bounds(problem, senses)
    if (lower > upper).any():
        raise SolverError("a sensitive cell's safe value lies outside its bounds")
    build_seconds = time.perf_counter() - started
    began = time.perf_counter()
    z, note = least_squares_deviations(problem, lower, upper, options, relations)
    solve_seconds = time.perf_counter() - began
    log_line(options, note)
    info = {"senses_from": origin}
    if z is None:
        if options.started_budget.over():
            status = Status.CANCELLED if options.cancelled() else Status.TIME_LIMIT
            return finish(problem, METHOD_L2, status, None, started=started, build_seconds=build_seconds,
                          solve_seconds=solve_seconds, senses=senses, message=note, log=note, info=info)
        return _fallback_qp(problem, options, senses, note)
    values = _clip(problem.values + z, problem.lower, problem.upper)
    values.flags.writeable = False          # finish keeps its verification for claims.to_table_units
    if options.on_progress is not None:
        report_optimum(options, started, weighted_sum(problem.weights, np.abs(z)))
    result = finish(problem, METHOD_L2, Status.OPTIMAL, values, started=started, build_seconds=build_seconds,
                    solve_seconds=solve_seconds, senses=senses,
                    model_objective=weighted_sum(problem.weights, z * z), log=note, info=info)
    return result if result.verified or options.cancelled() else _fallback_qp(problem, options, senses, note)


def _fallback_qp(problem: CTAProblem, options: SolveOptions, senses: np.ndarray, why: str) -> CTAResult:
    """The same QP by clarabel (conic.solve_l2) where the dual Newton method gave no verified table."""
    log_line(options, f"{why}: solving the QP with clarabel")
    result = solve_l2(problem, options, senses)
    return result.replace(method=METHOD_L2, info={**result.info, "network": f"{why}; solved by clarabel"})


def least_squares_deviations(problem: CTAProblem, lower: np.ndarray, upper: np.ndarray, options: SolveOptions,
                             relations: _Relations | None = None) -> tuple[np.ndarray | None, str]:
    """argmin sum w z^2 s.t. A z = d, lower <= z <= upper, by semismooth Newton on the dual.

    The dual variable pi (one per relation) gives z(pi) = clip(A^T pi / (2 w), lower, upper);
    the dual g(pi) = pi.d + sum(w z^2 - (A^T pi) z) is concave with gradient d - A z(pi).
    The Newton system has one unknown per relation, and a table's relations are mostly
    redundant (a total given as the sum of its parts along each dimension it totals): the
    method works on defining_relations' subset, then checks every relation; relations the answer
    breaks (non-nested breakdowns of one total) join the subset and the method goes on from its
    multipliers, at most BASIS_ROUNDS times.  The added relations close cycles among the
    relations and fill the Newton system's factor in: CHOLMOD's supernodal Cholesky (_Pattern)
    keeps that to a fraction of a second on J. Castro's CUTEst tables; with QDLDL alone, a
    Newton system of at least GROWN_RELATIONS relations whose pattern is more than PATTERN_GROWTH
    times the first round's goes to clarabel instead.  Returns None when the weights have zeros,
    the pattern grows too much for QDLDL, the iteration does not converge or the options' budget
    ends first.  ``relations``: _Relations.of(problem), where the caller has it.
    """
    weights = problem.weights
    if (weights <= 0).any():
        return None, "the L2 dual needs positive weights"
    relations = relations if relations is not None else _Relations.of(problem)
    A, d, row_scale = relations.A, relations.d, relations.row_scale
    kept = relations.defining.copy()
    first = kept.nonzero()[0]
    pi = np.zeros(A.shape[0])
    notes = []
    for _ in range(BASIS_ROUNDS):
        rows = kept.nonzero()[0]
        if FACTORISER == "qdldl" and rows.size > first.size and rows.size >= GROWN_RELATIONS and (
                growth := pattern_entries(A[rows], lower < upper) / pattern_entries(A[first], lower < upper)
                ) > PATTERN_GROWTH:
            notes.append(f"{rows.size} relations would grow the Newton system's pattern {growth:.2f} times")
            return None, "; ".join(notes)
        first_round = rows.size == first.size
        rounds_relations = relations.first_round() if first_round else gathered(A, rows, relations.dense)
        z, pi[rows], note = _dual_newton(rounds_relations, d[rows], row_scale[rows], weights, lower, upper, pi[rows],
                                         options, relations.pattern if first_round else None)
        notes.append(f"{rows.size} of {A.shape[0]} relations: {note}")
        if z is None:
            return None, "; ".join(notes)
        products = A if relations.dense is None else relations.dense
        broken = ~kept & (np.abs(d - products @ z) > L2_TOLERANCE * row_scale)
        if not broken.any():
            return z, "; ".join(notes)
        kept |= broken
    return None, "; ".join(notes) + f"; relations still broken after {BASIS_ROUNDS} rounds"


@dataclasses.dataclass(frozen=True)
class _Relations:
    """What least_squares_deviations works out from a problem alone, kept while the problem lives
    (_Relations.of): a problem solved again (other senses, options or methods, a benchmark's repeats)
    gets it at once.  On a 60-cell office table of 43 relations these took about 90 of the Newton
    method's 330 microseconds (the defining relations 21, gathering them and their transpose 42, the
    dense pattern 21).

    A           the relations in CSR
    dense       A as a dense array where it has at most DENSE_PRODUCTS entries with its zeros (else
                None): d, the check of the relations a round broke and the rounds' relations come
                from it (a scipy product with a vector costs a few microseconds of Python, a dense
                one one)
    d           b - A a, the right-hand side of the deviations
    row_scale   sum_j |A_rj| max(1, |a_j|) per relation (0 made 1): the scale of its residual
    defining    defining_relations(A), read-only
    first       gathered(A, the defining relations), as DENSE_PRODUCTS was when they were kept
    """

    A: sp.csr_array
    dense: np.ndarray | None
    d: np.ndarray
    row_scale: np.ndarray
    defining: np.ndarray
    first: Gathered
    #: the pattern of the first round's Newton systems with the movable cells and the settings it was
    #: built for: [(movable, _pattern_settings(), pattern)] once built (one
    #: tuple, read at once: a solve in another thread may put another in its place meanwhile)
    _pattern: list = dataclasses.field(default_factory=list, compare=False)
    #: the problem's own senses and their deviation bounds, read-only: [senses, lower, upper] once found
    _own: list = dataclasses.field(default_factory=list, compare=False)

    @classmethod
    def of(cls, problem: CTAProblem) -> _Relations:
        """The relations of ``problem``, worked out at its first solve and kept where it has at most
        KEPT_CELLS cells."""
        found = _RELATIONS.get(problem)
        if found is None:
            A = problem.relations.tocsr()
            row_scale = np.bincount(np.arange(A.shape[0]).repeat(A.indptr[1:] - A.indptr[:-1]), minlength=A.shape[0],
                                    weights=np.abs(A.data) * np.maximum(np.abs(problem.values), 1.0)[A.indices])
            row_scale[row_scale == 0] = 1.0     # a relation of no cells (right-hand side 0): residual 0, not 0/0
            defining = defining_relations(A)
            dense = A.toarray() if A.shape[0] * A.shape[1] <= DENSE_PRODUCTS else None
            d = problem.rhs - (A if dense is None else dense) @ problem.values
            for array in (row_scale, defining, d):
                array.flags.writeable = False
            found = cls(A, dense, d, row_scale, defining, gathered(A, defining.nonzero()[0], dense))
            if problem.n_cells <= KEPT_CELLS:
                _RELATIONS[problem] = found
        return found

    def first_round(self) -> Gathered:
        """gathered(A, the defining relations): ``first`` where DENSE_PRODUCTS still gives the same."""
        A = self.first[0]
        if isinstance(A, np.ndarray) is (A.shape[0] * A.shape[1] <= DENSE_PRODUCTS):
            return self.first
        return gathered(self.A, self.defining.nonzero()[0], self.dense)

    def own_senses(self, problem: CTAProblem) -> tuple[np.ndarray, str, np.ndarray, np.ndarray]:
        """fixed_senses(problem, None) and their sense_bounds, for ``problem``, whose relations these
        are (ValueError where it leaves a sense free): the senses a copy (a result's own), the bounds
        read-only.  fixed_senses and sense_bounds took 20 of a 60-cell table's 390 microseconds."""
        if not self._own:
            senses, _ = fixed_senses(problem, None)
            lower, upper = sense_bounds(problem, senses)
            for array in (senses, lower, upper):
                array.flags.writeable = False
            self._own[:] = [senses, lower, upper]
        senses, lower, upper = self._own
        return senses.copy(), "problem", lower, upper

    def pattern(self, half_inverse: np.ndarray, movable: np.ndarray) -> NewtonPattern:
        """newton_pattern of the first round's relations for ``half_inverse`` = 1 / (2 w) (the
        problem's: the same at every solve) and ``movable``, kept for the last movable
        cells asked (a problem's fixed senses give the same ones at every solve), and for the
        DENSE_RELATIONS, TINY_PRODUCTS and FACTORISER it was built with: a _DenseProduct or
        _DensePattern itself (immutable), a _Pattern as a copy of its structure with no
        factorisation yet (_Pattern.copy: CHOLMOD's analysis is a solve's own)."""
        found = self._pattern[0] if self._pattern else None
        if found is None or found[1] != _pattern_settings() or not np.array_equal(found[0], movable):
            built = newton_pattern(self.first_round(), half_inverse, movable)
            found = (movable.copy(), _pattern_settings(), built)
            self._pattern[:] = [found]
        kept = found[2]
        return kept.copy() if isinstance(kept, _Pattern) else kept


def _pattern_settings() -> tuple[int, int, str]:
    """The settings newton_pattern's choice depends on, as they are now."""
    return DENSE_RELATIONS, TINY_PRODUCTS, FACTORISER


#: a problem -> its _Relations, while the problem lives
_RELATIONS: weakref.WeakKeyDictionary[CTAProblem, _Relations] = weakref.WeakKeyDictionary()


def pattern_entries(A: sp.csr_array, movable: np.ndarray) -> int:
    """The entries of the Newton system A D A^T with every movable cell free: pairs of relations
    that share a movable cell, each relation with itself included."""
    incidence = sp.csr_array(A[:, np.flatnonzero(movable)] != 0, dtype=np.int8)
    return int((incidence @ incidence.T).nnz)


class Gathered(NamedTuple):
    """Relations of the Newton method (rows of a problem's A) as it uses them: ``A`` and its
    transpose ``At`` (dense, the transpose a view, where they have at most DENSE_PRODUCTS entries
    with their zeros; else CSR with sorted indices)."""

    A: Matrix
    At: Matrix


def gathered(A: sp.csr_array, rows: np.ndarray, dense: np.ndarray | None = None) -> Gathered:
    """The relations ``rows`` (ascending) of A (``dense``: A as a dense array, where the caller has
    it), gathered with numpy: A[rows] and its .T.tocsr() took 65 of the 600 microseconds that a
    150-cell table's Newton method took, in scipy's general indexing and conversion, and where
    they are dense no sparse array is built at all (two took about 20 of the 640 microseconds of a
    60-cell table's first solve)."""
    n = A.shape[1]
    if rows.size * n <= DENSE_PRODUCTS and dense is not None:
        chosen = dense[rows]
        return Gathered(chosen, chosen.T)
    starts = A.indptr[rows]
    counts = A.indptr[rows + 1] - starts
    indptr = _offsets(counts)
    taken = (starts - indptr[:-1]).repeat(counts) + np.arange(indptr[-1])
    cells, data = A.indices[taken], A.data[taken]
    row_of = np.arange(rows.size).repeat(counts)
    if rows.size * n <= DENSE_PRODUCTS:
        chosen = np.zeros((rows.size, n))
        chosen[row_of, cells] = data
        return Gathered(chosen, chosen.T)
    columns, relation, coefficient = _cells_relations(row_of, cells, data, n)
    return Gathered(sp.csr_array((data, cells, indptr), shape=(rows.size, n)),
                    sp.csr_array((coefficient, relation, columns), shape=(n, rows.size)))


def by_cell(relations: Gathered) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The CSR arrays (indptr, indices, data) of the relations' transpose: each cell's relations,
    ascending (the transpose's own where it is CSR; from a dense array's nonzeros, relation by
    relation, else)."""
    if isinstance(relations.At, sp.csr_array):
        return relations.At.indptr, relations.At.indices, relations.At.data
    row_of, cells = relations.A.nonzero()
    return _cells_relations(row_of, cells, relations.A[row_of, cells], relations.At.shape[0])


def _cells_relations(row_of: np.ndarray, cells: np.ndarray, data: np.ndarray,
                     n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The entries (relation, cell, coefficient), relation by relation, as the CSR arrays of the
    transpose (n cells)."""
    order = cells.argsort(kind="stable")          # by cell, each cell's relations still ascending
    return _offsets(np.bincount(cells, minlength=n)), row_of[order], data[order]


def _offsets(counts: np.ndarray) -> np.ndarray:
    """[0, cumsum(counts)]: the CSR indptr of groups of ``counts`` entries."""
    offsets = np.zeros(counts.size + 1, np.int64)
    counts.cumsum(out=offsets[1:])
    return offsets


def _clip(values: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
    """np.clip(values, lower, upper) by its two ufuncs, without np.clip's Python layers (about a
    microsecond of each of a small table's five or so calls)."""
    return np.minimum(np.maximum(values, lower), upper)


def _dual_newton(relations: Gathered, d: np.ndarray, row_scale: np.ndarray, weights: np.ndarray,
                 lower: np.ndarray, upper: np.ndarray, pi: np.ndarray, options: SolveOptions,
                 kept_pattern: Callable[[np.ndarray, np.ndarray], NewtonPattern] | None = None
                 ) -> tuple[np.ndarray | None, np.ndarray, str]:
    """The dual Newton iteration of least_squares_deviations on relations A z = d (gathered) from
    ``pi``: (z or None, the last multipliers, a note); ``kept_pattern`` gives the pattern of these
    relations' Newton systems for the movable cells, where it is kept (_Relations.pattern)."""
    A, At = relations.A, relations.At
    half_inverse = 0.5 / weights

    def point(p: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """u(p) = A^T p / (2 w), z(p) = u(p) clipped to the bounds, and its residual d - A z(p), the
        dual's gradient."""
        u = (At @ p) * half_inverse
        z = _clip(u, lower, upper)
        return u, z, d - A @ z

    def search(direction: np.ndarray, slope: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """pi at the dual's maximum along ``direction`` (_line_search), u, z and the residual there."""
        moved = At @ direction
        rate = moved * half_inverse
        last: list = []                                 # the last evaluation: t, u and z there

        def slope_at(t: float) -> float:
            u_t = u + t * rate
            z_t = _clip(u_t, lower, upper)
            last[:] = [t, u_t, z_t]
            return slope - weighted_sum(z_t - z, moved)

        length = _line_search(slope_at, slope)
        if length >= RAY_LENGTH and _rises_without_end(u, rate, lower, upper, slope_at, slope,
                                                       L2_TOLERANCE * weighted_sum(row_scale, np.abs(direction))):
            raise _DualRay
        t, ahead, z_ahead = last                        # u and z there, without a product with A^T
        if t != length:
            ahead = u + length * rate
            z_ahead = _clip(ahead, lower, upper)
        return pi + length * direction, ahead, z_ahead, d - A @ z_ahead

    u, z, residual = point(pi)
    movable = lower < upper
    systems = _NewtonSystems(A, At, half_inverse, kept_pattern(half_inverse, movable) if kept_pattern is not None
                             else newton_pattern(relations, half_inverse, movable))
    try:
        for iteration in range(L2_MAX_ITERATIONS):
            worst = _worst(residual, row_scale)
            if worst <= L2_TOLERANCE:
                pi, z, residual, worst = _polished(systems, point, pi, z, residual, worst, row_scale, lower, upper)
                return z, pi, f"L2 dual Newton: {iteration} iterations, relative residual {worst:.1e}"
            if options.started_budget.over():
                return None, pi, "cancelled" if options.cancelled() else "time limit reached"
            free = (z > lower) & (z < upper)
            diagonal, step = systems.step(free, residual)
            if (diagonal <= 0).any() and (empty := (diagonal <= 0) & (residual != 0)).any():
                # rows without a free cell are decoupled from the rest of the system: their jump past a
                # breakpoint gets a line search of its own, so that a jump in other units does not cut
                # the Newton step short (jjtabel3: 40 steps, 8 of them shorter than 1e-5, then 20)
                jump = np.zeros_like(step)
                jump[empty] = _breakpoint_steps(sp.csr_array(A[empty.nonzero()[0]]), u, lower, upper, half_inverse,
                                                residual[empty], step[empty])
                step[empty] = 0.0
                # an ascent only where its slope is positive: _line_search assumes it, and on a Cox
                # 2x6x2 table a jump's slope came out -3.9e-32 in round-off (0/0 in its secant)
                if (jump_slope := weighted_sum(residual, jump)) > 0.0:
                    pi, u, z, residual = search(jump, jump_slope)
            slope = weighted_sum(residual, step)
            if slope > 0.0:
                pi, u, z, residual = search(step, slope)
    except _DualRay:
        return None, pi, ("L2 dual Newton: the dual rises without end along a direction, so no table "
                          "satisfies these relations within the bounds")
    return None, pi, f"L2 dual Newton did not converge in {L2_MAX_ITERATIONS} iterations"


class _DualRay(Exception):
    """A Newton direction along which the dual of least_squares_deviations rises without end."""


def _rises_without_end(u: np.ndarray, rate: np.ndarray, lower: np.ndarray, upper: np.ndarray,
                       slope_at: Callable[[float], float], slope: float, floor: float) -> bool:
    """Whether the dual still rises where every cell that moves along the direction (u + t rate)
    has reached the bound it moves to: from there on its slope is constant, so a slope left there
    is a ray, and the deviations' relations have no solution within the bounds (Farkas' lemma; the
    dual of a feasible problem is bounded above).  Where a cell moves to an infinite bound the dual
    turns down in the end: no ray.  The slope left must be above ``floor``, the slope that
    residuals of L2_TOLERANCE of each relation's scale give along the direction: on a feasible Cox
    2x6x2 table a breakpoint jump's slope was 6.9e-33, round-off, constant along it.  Looked for
    only after the line search's doublings, so a direction the dual turns down along costs nothing
    more; taken for a ray, the method only hands over to clarabel (and the LP, which prove the
    infeasibility), so round-off cannot make a false claim."""
    moving = rate != 0.0
    rates = rate[moving]
    far = np.where(rates > 0.0, upper[moving], lower[moving])
    if not np.isfinite(far).all():
        return False
    reach = float(np.maximum.reduce((far - u[moving]) / rates, initial=0.0))
    return slope_at(reach) > max(LINE_SEARCH_RTOL * slope, floor)


def _worst(residual: np.ndarray, row_scale: np.ndarray) -> float:
    """The largest relative residual |d - A z| / row_scale (0 with no relations)."""
    return float(np.maximum.reduce(np.abs(residual) / row_scale, initial=0.0))


def _polished(systems: _NewtonSystems, point: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray, np.ndarray]],
              pi: np.ndarray, z: np.ndarray, residual: np.ndarray, worst: float, row_scale: np.ndarray,
              lower: np.ndarray, upper: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Up to POLISH_STEPS full Newton steps past convergence, each kept while it lowers the
    largest relative residual: L2_TOLERANCE of a relation's scale left a total of 4e8 off by 0.03,
    three steps of a 2-decimal grid, and no rounding of the table at 2 decimals added up (a 3-D
    office table of jobcheck seed 3); a step on the same free cells removes it to rounding error."""
    for _ in range(POLISH_STEPS):
        if worst <= POLISH_FLOOR:
            break
        _, step = systems.step((z > lower) & (z < upper), residual)
        ahead = pi + step
        _, z_ahead, residual_ahead = point(ahead)
        worst_ahead = _worst(residual_ahead, row_scale)
        if not worst_ahead < worst:
            break
        pi, z, residual, worst = ahead, z_ahead, residual_ahead, worst_ahead
    return pi, z, residual, worst


def _breakpoint_steps(rows: sp.csr_array, u: np.ndarray, lower: np.ndarray, upper: np.ndarray,
                      half_inverse: np.ndarray, residual: np.ndarray, default: np.ndarray) -> np.ndarray:
    """Steps for the multipliers of relations none of whose cells is free: the dual is linear along
    them (slope ``residual``) up to the first cell that a move in the residual's direction frees,
    so the step goes just past that breakpoint.  The Newton system has no curvature there, and its
    shifted solution (``default``, kept where no cell can be freed or one is on its kink) is a step
    in arbitrary units: J. Castro's table6 in table units kept a residual of 7.6e-7 on one
    relation for 50 steps."""
    direction = np.sign(residual)
    row_of = np.repeat(np.arange(rows.shape[0]), np.diff(rows.indptr))
    cells = rows.indices
    at, low, high = u[cells], lower[cells], upper[cells]
    move = rows.data * direction[row_of] * half_inverse[cells]       # du_j per unit step of the multiplier
    rising = (move > 0) & (at <= low) & (low < high)
    falling = (move < 0) & (at >= high) & (low < high)
    distance = np.full(cells.size, np.inf)
    distance[rising] = (low[rising] - at[rising]) / move[rising]
    distance[falling] = (high[falling] - at[falling]) / move[falling]
    nearest = np.full(rows.shape[0], np.inf)
    np.minimum.at(nearest, row_of, distance)
    beyond = np.isfinite(nearest) & (nearest > 0)     # at 0 a cell sits on its kink: the Newton step frees it
    return np.where(beyond, direction * nearest * (1 + 1e-6), default)


def _line_search(slope_at: Callable[[float], float], slope: float) -> float:
    """The step length t > 0 at the dual's maximum along a direction, from ``slope_at(t)``, the
    dual's slope there, and ``slope`` = slope_at(0) > 0.

    The dual is concave and piecewise quadratic, so its slope along the direction s falls piecewise
    linearly from ``slope``.  Where it is still clearly positive at the full step (a direction along
    which the dual is flat, cells at their bounds) the step doubles until it is not; the full (or
    doubled) step is taken where the slope there is >= 0, else the slope's zero is found by the
    Illinois method.  Slopes, not dual values: with cells of 1e11 and weights of 1e-11 (J. Castro's
    toysarah) the dual's value is a difference of numbers near 1e20 whose rounding stalled a
    backtracking search on function values.  The caller's slope_at(t) is slope - (z(t) - z(0)) . A^T s:
    each term of that sum is >= 0 (z moves with A^T s), so it has no cancellation, and an
    evaluation costs a few vector operations over the cells, no product with the relations (J.
    Castro's table1, 7 Newton steps: their line searches took 2.7 ms of processor time, not 6.1)."""
    low, low_slope, high = 0.0, slope, 1.0
    high_slope = slope_at(high)
    for _ in range(LINE_SEARCH_STEPS):
        if high_slope <= LINE_SEARCH_RTOL * slope:
            break
        low, low_slope, high = high, high_slope, 2.0 * high
        high_slope = slope_at(high)
    if high_slope >= 0.0:
        return high
    side = 0
    t = high
    for _ in range(LINE_SEARCH_STEPS):
        t = high - high_slope * (high - low) / (high_slope - low_slope)
        value = slope_at(t)
        if abs(value) <= LINE_SEARCH_RTOL * slope:
            break
        if value > 0.0:
            low, low_slope = t, value
            high_slope *= 0.5 if side == 1 else 1.0
            side = 1
        else:
            high, high_slope = t, value
            low_slope *= 0.5 if side == -1 else 1.0
            side = -1
    return t


def _factor(hessian: sp.csr_array) -> Callable[[np.ndarray], np.ndarray]:
    """A solver of (H + delta I) s = g; H is a weighted graph Laplacian, singular on redundancies:
    where _Pattern is not used or its factorisation fails.

    A dense Cholesky where H is small and dense (2-D tables: every free cell links its row to
    its column), else a sparse LU with a minimum-degree ordering of H + H^T, no pivoting
    (symmetric positive definite after the shift), many times faster than the dense Cholesky on
    J. Castro's hierarchical tables, whose systems are large and sparse.  Conjugate gradients if
    the factorisation fails.
    """
    m = hessian.shape[0]
    diagonal = hessian.diagonal()
    shift = _shift(diagonal)
    if m <= DENSE_LIMIT and hessian.nnz >= DENSE_SHARE * m * m:
        dense = hessian.toarray()
        dense[np.diag_indices(m)] += shift
        try:
            factor = scipy.linalg.cho_factor(dense, check_finite=False)
            return lambda g: scipy.linalg.cho_solve(factor, g, check_finite=False)
        except np.linalg.LinAlgError:
            return lambda g: scipy.linalg.lstsq(dense, g, check_finite=False)[0]
    shifted = sp.csc_array(hessian + sp.diags_array(shift))
    try:
        return spla.splu(shifted, permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.0,
                         options={"SymmetricMode": True}).solve
    except RuntimeError:
        preconditioner = sp.diags_array(1.0 / np.where(diagonal > 0, diagonal, 1.0))
        return lambda g: spla.cg(shifted, g, rtol=1e-12, maxiter=500, M=preconditioner)[0]


def _shift(diagonal: np.ndarray) -> np.ndarray:
    """The diagonal added to a Newton system whose diagonal is ``diagonal``: 1e-10 of its largest
    entry, and 1 on a row without a free cell."""
    return 1e-10 * max(float(np.maximum.reduce(diagonal, initial=0.0)), 1e-300) + (diagonal <= 0) * 1.0


def newton_pattern(relations: Gathered, half_inverse: np.ndarray, movable: np.ndarray) -> NewtonPattern:
    """The pattern of the Newton systems of ``relations`` over the ``movable`` cells: one dense
    product up to TINY_PRODUCTS multiply-adds, dense up to DENSE_RELATIONS relations, else sparse;
    None where _Pattern.of leaves the systems to _factor."""
    dense = _DenseProduct.of(relations, half_inverse) or _DensePattern.of(relations, half_inverse, movable)
    if dense is not None:
        return dense
    A, At = relations.A, relations.At
    if isinstance(A, np.ndarray):
        A, At = sp.csr_array(A), sp.csr_array(At)
    return _Pattern.of(A, half_inverse, movable, At)


class _Pattern:
    """The sparsity pattern of A D A^T with every movable cell free: a free set only zeroes entries
    of D, so the pattern, its fill-reducing ordering (approximate minimum degree) and its symbolic
    factorisation serve every iteration; an iteration is one sparse product for the entries
    (``spread`` maps D to them) and a numeric factorisation.

    The factorisation is CHOLMOD's supernodal Cholesky (Chen, Davis, Hager and Rajamanickam 2008,
    through cvxopt, the optional extra ctadesk[cholmod]), which works on dense blocks of columns
    with one structure where the factor fills in; QDLDL's LDL^T (Stellato et al. 2020), column by
    column, where CHOLMOD finds a pivot not positive (a system singular up to its shift) or
    FACTORISER says so.  CHOLMOD gains most on second rounds, whose added relations close cycles
    and fill the factor, as on J. Castro's CUTEst tables: benchmarks/castro_l2.py --sif prints the
    method with each factoriser and clarabel side by side."""

    def __init__(self, spread: sp.csr_array, indices: np.ndarray, indptr: np.ndarray, diagonal: np.ndarray) -> None:
        self.spread = spread            # pattern entries x cells: A_ik A_jk / (2 w_k) at (entry (i, j), cell k)
        self.indices = indices          # the upper triangle's CSC structure
        self.indptr = indptr
        self.diagonal = diagonal        # the positions of the diagonal entries
        self.system: cvxopt.spmatrix | None = None     # CHOLMOD's copy of the system, and its analysis
        self.symbolic: object | None = None
        self.solver: qdldl.Solver | None = None

    @classmethod
    def of(cls, A: sp.csr_array, half_inverse: np.ndarray, movable: np.ndarray,
           At: sp.csr_array | None = None) -> _Pattern | None:
        """The pattern of A's Newton systems (``At``: A's transpose in CSR, where the caller has
        it): its spread has, per movable cell, an entry for each pair of the relations it is in,
        so its size grows with the cells, whatever the relations' degree.  With QDLDL alone, None
        where a relation meets more than SPARSE_DEGREE others on average (_factor then): QDLDL's
        column by column factor of a Cox 40x40x40 table's systems took 14.8 s of processor time
        where SuperLU's took 7.5 s and CHOLMOD's 1.3 s.  The spread is built in CSR at once, its
        rows sorted with the pattern's keys (a COO array converted took 70 of the 170
        microseconds that a 147-cell table's pattern took), from every cell's pairs, the
        immovable cells' dropped (cheaper than slicing their columns out)."""
        m, n = A.shape
        if FACTORISER == "qdldl" and relation_degree(A, np.flatnonzero(movable)) > SPARSE_DEGREE:
            return None
        columns = A.T.tocsr() if At is None else At
        if not columns.has_sorted_indices:
            columns = columns.sorted_indices()
        column_of = np.repeat(np.arange(n), np.diff(columns.indptr))
        partners = columns.indptr[column_of + 1] - np.arange(columns.nnz)     # entries from here to the column's end
        first = np.repeat(np.arange(columns.nnz), partners)
        second = first + np.arange(first.size) - np.repeat(np.cumsum(partners) - partners, partners)
        kept = movable[column_of[first]]
        first, second = first[kept], second[kept]
        row, col = columns.indices[first], columns.indices[second]          # row <= col: indices sorted
        keys = np.concatenate([col.astype(np.int64) * m + row, np.arange(m, dtype=np.int64) * (m + 1)])
        order = np.argsort(keys, kind="stable")
        ordered = keys[order]
        starts = np.concatenate([[True], ordered[1:] != ordered[:-1]])
        unique = ordered[starts]
        where = np.empty(keys.size, np.int64)
        where[order] = np.cumsum(starts) - 1
        pairs = order[order < first.size]                                   # the pairs in the order of their entries
        cell = column_of[first[pairs]]
        counts = np.bincount(where[pairs], minlength=unique.size)
        spread = sp.csr_array((columns.data[first[pairs]] * columns.data[second[pairs]] * half_inverse[cell],
                               cell, np.concatenate([[0], np.cumsum(counts)])), shape=(unique.size, n))
        indptr = np.concatenate([[0], np.cumsum(np.bincount(unique // m, minlength=m))])
        return cls(spread, (unique % m).astype(np.int32), indptr.astype(np.int32), where[first.size:])

    def entries(self, free: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(the shifted system's upper-triangle entries for ``free``, its unshifted diagonal, the shift)."""
        data = self.spread @ free.astype(float)
        diagonal = data[self.diagonal].copy()
        shift = _shift(diagonal)
        data[self.diagonal] += shift
        return data, diagonal, shift

    def restart(self) -> None:
        """QDLDL starts afresh at the next factorisation (after it raised)."""
        self.solver = None

    def copy(self) -> _Pattern:
        """This pattern's structure (shared: no one writes to it) with no factorisation yet: a
        solve's own, where the pattern is kept for a problem (_Relations.pattern)."""
        return _Pattern(self.spread, self.indices, self.indptr, self.diagonal)

    def factor(self, data: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
        """A solver of the system with these entries; it replaces the previous one's factors.
        Raises RuntimeError where QDLDL meets a zero pivot."""
        m = self.indptr.size - 1
        if FACTORISER == "cholmod":
            if self.system is None:
                self.system = cvxopt.spmatrix(0.0, self.indices.astype(int),
                                              np.repeat(np.arange(m), np.diff(self.indptr)), (m, m))
                self.symbolic = _cholmod_symbolic(self.system)
            self.system.V = cvxopt.matrix(data)     # the pattern's CSC order is cvxopt's own
            try:
                cholmod.numeric(self.system, self.symbolic)
                return functools.partial(_cholmod_solve, self.symbolic)
            except ArithmeticError:
                pass
        system = sp.csc_matrix((data, self.indices, self.indptr), shape=(m, m))
        if self.solver is None:
            self.solver = qdldl.Solver(system, upper=True)
        else:
            self.solver.update(system, upper=True)
        return self.solver.solve


class _DenseSystems:
    """What _DensePattern's and _DenseProduct's m x m systems share: LAPACK's Cholesky of each
    system anew, nothing kept between factorisations."""

    m: int

    def factor(self, data: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
        """A solver of the m x m system with entries ``data``, row by row (overwritten by its
        factor), by LAPACK's Cholesky.  Raises RuntimeError where a pivot is not positive."""
        m = self.m
        factor, info = scipy.linalg.lapack.dpotrf(data.reshape(m, m).T, lower=False, clean=False,
                                                  overwrite_a=True)      # the transpose: the same symmetric
        if info != 0:                                                   # system, in LAPACK's column order
            raise RuntimeError(f"the dense Newton system's pivot {info} is not positive")
        return lambda gradient: scipy.linalg.lapack.dpotrs(factor, gradient, lower=False)[0]

    def restart(self) -> None:
        """Nothing is kept from one factorisation to the next."""


def _shifted(data: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(the m x m entries ``data`` with _shift added to their diagonal, the unshifted diagonal, the shift)."""
    diagonal = data[:: m + 1].copy()
    shift = _shift(diagonal)
    data[:: m + 1] += shift
    return data, diagonal, shift


class _DensePattern(_DenseSystems):
    """The Newton systems A D A^T of at most DENSE_RELATIONS relations, formed dense and factorised
    by LAPACK's Cholesky (dpotrf): every cell's pairs of relations, found once, give an iteration's
    system as one weighted count over the m x m entries, with no sorting, no symbolic analysis
    and no sparse structure.  On tables of up to about 250 cells these took a quarter of the
    Newton method's time (_Pattern's construction and CHOLMOD's analysis, 120 microseconds)."""

    def __init__(self, m: int, keys: np.ndarray, cells: np.ndarray, products: np.ndarray) -> None:
        self.m = m
        self.keys = keys            # i m + j of every ordered pair (i, j) of relations sharing a movable cell
        self.cells = cells          # that cell
        self.products = products    # A_ik A_jk / (2 w_k)

    @classmethod
    def of(cls, relations: Gathered, half_inverse: np.ndarray, movable: np.ndarray) -> _DensePattern | None:
        """The pairs of the Newton systems of ``relations``, from their cells' relations (by_cell);
        None above DENSE_RELATIONS relations."""
        n, m = relations.At.shape
        if m > DENSE_RELATIONS:
            return None
        indptr, relation, data = by_cell(relations)
        counts = indptr[1:] - indptr[:-1]
        held = movable.repeat(counts)                   # the entries of movable cells
        column_of = np.arange(n).repeat(counts)[held]
        starts, sizes = indptr[column_of], counts[column_of]
        entry = held.nonzero()[0].repeat(sizes)         # (entry, partner) pairs
        partner = (starts - _offsets(sizes)[:-1]).repeat(sizes) + np.arange(entry.size)
        cells = column_of.repeat(sizes)
        return cls(m, relation[entry].astype(np.int64) * m + relation[partner], cells,
                   data[entry] * data[partner] * half_inverse[cells])

    def entries(self, free: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(the shifted system's m x m entries for ``free``, row by row, its unshifted diagonal, the shift)."""
        data = np.bincount(self.keys, self.products * free[self.cells], self.m * self.m)
        return _shifted(data.astype(float, copy=False), self.m)     # integers where there is no pair


class _DenseProduct(_DenseSystems):
    """The Newton systems A D A^T of a few relations (TINY_PRODUCTS), formed by one dense matrix
    product of the relations, each cell's column weighted by 1 / (2 w) where it is free, and
    factorised by LAPACK's Cholesky as _DensePattern's are."""

    def __init__(self, A: np.ndarray, half_inverse: np.ndarray) -> None:
        self.m = A.shape[0]
        self.A = A
        self.half_inverse = half_inverse

    @classmethod
    def of(cls, relations: Gathered, half_inverse: np.ndarray) -> _DenseProduct | None:
        """The product's systems of dense ``relations`` of at most DENSE_RELATIONS relations and
        TINY_PRODUCTS multiply-adds; None otherwise."""
        A = relations.A
        m, n = A.shape
        if not isinstance(A, np.ndarray) or m > DENSE_RELATIONS or m * m * n > TINY_PRODUCTS:
            return None
        return cls(A, half_inverse)

    def entries(self, free: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(the shifted system's m x m entries for ``free``, row by row, its unshifted diagonal, the shift)."""
        return _shifted(((self.A * (self.half_inverse * free)) @ self.A.T).reshape(-1), self.m)


def _cholmod_symbolic(system: cvxopt.spmatrix) -> object:
    """CHOLMOD's ordering and symbolic factorisation of the upper triangle ``system``, supernodal or
    simplicial as CHOLMOD judges by the factor's flops per entry (its option supernodal=1; cvxopt's
    default is supernodal always): simplicial where the factor barely fills (J. Castro's toysarah,
    jjtabel3 and hie1327d), where supernodes' blocks cost more than they save and QDLDL's column
    by column factorisation would be the faster."""
    previous = cholmod.options.get("supernodal")
    cholmod.options["supernodal"] = 1
    try:
        return cholmod.symbolic(system, uplo="U")
    finally:
        if previous is None:
            del cholmod.options["supernodal"]
        else:
            cholmod.options["supernodal"] = previous


def _cholmod_solve(factor: object, gradient: np.ndarray) -> np.ndarray:
    """The solution of the system CHOLMOD's ``factor`` holds for ``gradient``."""
    solution = cvxopt.matrix(np.asarray(gradient, dtype=float))
    cholmod.solve(factor, solution)
    return np.asarray(solution).ravel()


class _NewtonSystems:
    """The Newton systems of successive iterations, whose free cells change little near the end:
    a system with the free cells of the last factorised one is that system, solved with its
    factorisation (the polishing steps, _polished: conjugate gradients around it took 0.1 ms of
    a 150-cell table's 1.6 ms); one whose free cells differ from the last factorised one's in at
    most REUSE_SHARE of them is solved by conjugate gradients preconditioned with that factorisation (exact on the
    unchanged part, so a few iterations), else factorised anew (_Pattern's; with CHOLMOD whatever
    the relations' degree: its supernodal factor took Cox 100x100x5 from 4.9 s by SuperLU to 0.83 s
    of processor time, 40x40x40 from 7.5 s to 1.15 s; _factor's with QDLDL alone where the
    relations meet many others).  Conjugate gradients get at most as many iterations as fit in
    the last factorisation's time, an iteration timed as one solve with the factorisation until
    a run has been timed: where factorising is cheap an iteration (a solve, two products and
    scipy's bookkeeping) costs several solves, and on jjtabel3 runs of 35 iterations took
    longer than the factorisations they were to save.  A dense system (_DenseProduct,
    _DensePattern) is factorised anew whenever its free cells change: LAPACK's Cholesky of at most
    DENSE_RELATIONS relations takes about as long as a solve with it, so conjugate gradients cannot
    take less, and whether they were tried hung on the clock (on Cox 5 x 6 tables, a run in 25:
    a solve's table then differed from the same problem's next in its last bits); so is a sparse
    system of fewer than REUSE_RELATIONS relations."""

    def __init__(self, A: Matrix, At: Matrix, half_inverse: np.ndarray,
                 pattern: NewtonPattern) -> None:
        """``pattern``: newton_pattern(A, At, half_inverse, the movable cells), or its copy kept."""
        self.A = A
        self.At = At
        self.half_inverse = half_inverse
        self.pattern = pattern
        self.reuses = (not isinstance(pattern, (_DenseProduct, _DensePattern))    # conjugate gradients tried
                       and A.shape[0] >= REUSE_RELATIONS)
        self.solve: Callable[[np.ndarray], np.ndarray] | None = None
        self.free: np.ndarray | None = None
        self.diagonal = np.zeros(0)             # the diagonal of the system last factorised
        self.factor_seconds = 0.0
        self.solve_seconds = math.inf
        self.iteration_seconds: float | None = None     # a timed conjugate-gradient iteration

    @property
    def iterations(self) -> int:
        iteration = self.iteration_seconds if self.iteration_seconds is not None else self.solve_seconds
        return int(min(REUSE_ITERATIONS, self.factor_seconds / iteration))

    def step(self, free: np.ndarray, gradient: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(the system's diagonal, its shifted solution for ``gradient``)."""
        m = self.A.shape[0]
        changed = free.size if self.free is None else int(np.count_nonzero(free != self.free))
        if self.solve is not None and not changed:
            return self.diagonal, self.solve(gradient)          # the system last factorised
        hessian = None
        if self.pattern is not None:
            data, diagonal, shift = self.pattern.entries(free)
            factorise = functools.partial(self._pattern_factor, self.pattern, data, free)
        else:
            hessian = self._hessian(free)
            diagonal = hessian.diagonal()
            factorise = functools.partial(_factor, hessian)
        if self.reuses and self.iterations > min(changed, REUSE_MIN_ITERATIONS) and \
                changed <= REUSE_SHARE * np.count_nonzero(free):
            if hessian is None:
                scale = self.half_inverse * free
                shifted = spla.LinearOperator((m, m), matvec=lambda x: self.A @ (scale * (self.At @ x)) + shift * x)
            else:
                shifted = spla.aslinearoperator(hessian + sp.diags_array(_shift(diagonal)))
            count = itertools.count(1)
            began = time.perf_counter()
            step, info = spla.cg(shifted, gradient, rtol=1e-8, maxiter=self.iterations,
                                 M=spla.LinearOperator((m, m), matvec=self.solve), callback=lambda _: next(count))
            self.iteration_seconds = (time.perf_counter() - began) / next(count)
            if info == 0 and np.all(np.isfinite(step)):
                return diagonal, step
        began = time.perf_counter()
        self.solve, self.free, self.diagonal = factorise(), free, diagonal
        factorised = time.perf_counter()
        step = self.solve(gradient)
        self.factor_seconds = factorised - began
        self.solve_seconds = max(time.perf_counter() - factorised, 1e-9)
        return diagonal, step

    def _hessian(self, free: np.ndarray) -> sp.csr_array:
        A_free = self.A[:, np.flatnonzero(free)]
        return sp.csr_array((A_free * self.half_inverse[free]) @ A_free.T)

    def _pattern_factor(self, pattern: _Pattern | _DensePattern | _DenseProduct, data: np.ndarray,
                        free: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
        """The pattern's factorisation; _factor's where QDLDL meets a pivot too small for its LDL^T
        without pivoting or LAPACK's Cholesky one not positive (they raise), the pattern starting
        afresh at the next factorisation."""
        try:
            return pattern.factor(data)
        except RuntimeError:
            pattern.restart()
            return _factor(self._hessian(free))
