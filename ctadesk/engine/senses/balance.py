"""Balanced senses: every relation left as nearly balanced as the sensitive cells' moves allow.

Where each sensitive cell moves by exactly its protection level (the Cox-recipe tables of Cox
2005b, §3: capacity = protection level), the fixed-sense L1 cost of a sense vector is the sum of the
levels plus what the other cells pay to absorb, in every relation r, the imbalance

    d_r = sum_i a_ri m_i - b_r,    m_i = +upl_i (up) or -lpl_i (down),

that the moves leave.  A cell's move absorbs imbalance on all of its relations at once, so the
absorption costs a near-constant share of sum_r |d_r| (on the 15x15x15 table of seed 0: 0.47 for
HiGHS's 600-s table, 0.50 for the learning heuristic's).  That sum is a surrogate of the cost that
needs no LP: flipping cell i changes only its relations' d_r, so the change of every flip is known
from one pass over the relation matrix.  The ordering heuristic (Cox 2005; Dandekar & Cox 2002)
balances each relation by alternating senses along it; this search balances all relations at once
by iterated local search (Lourenço, Martin & Stützle 2003): descend by improving flips (many at a
time, no two sharing a relation) to a local optimum, kick KICK_SHARE of the free senses of the best
vector found, descend again, keep the better.

On the 15x15x15 table of seed 0, 2 s of it (1.4 s of CPU) give senses whose fixed-sense table
costs 125 565 (plain HiGHS: 145 201 after 60 s, 129 251 after 600 s); on 20x20x20 269 432 (HiGHS
at 600 s: 303 346).  On 2-D tables and small 3-D ones it is a start, not an answer (10x10x10 seed
0: 43 339 against HiGHS's 42 307; 25x25 seed 1: 20 026 against 19 740): the portfolio's helper
descends and learns from it (docs/exact_l1.md).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ctadesk.engine.budget import Budget
from ctadesk.engine.problem import SENSE_DOWN, SENSE_FREE, SENSE_UP, CTAProblem
from ctadesk.engine.result import CTAResult, SolveOptions
from ctadesk.engine.senses.common import SenseEvaluator
from ctadesk.engine.senses.ordering import ordering_senses

METHOD = "balance"
#: share of the free senses a kick flips (at least two)
KICK_SHARE = 0.02
#: share of the time the search takes before its best vector is evaluated by the LP
SEARCH_SHARE = 0.8


class _Imbalance:
    """The relations' imbalances of sense vectors, and every flip's change of their absolute sum."""

    def __init__(self, problem: CTAProblem) -> None:
        matrix = sp.csr_array(problem.relations)[:, problem.sensitive].tocoo()
        self.rows, self.cols, self.data = matrix.row, matrix.col, matrix.data
        self.up, self.down = problem.upper_protection, problem.lower_protection
        self.rhs = problem.deviation_rhs
        self.n_relations = problem.n_relations
        self.free = problem.effective_senses == SENSE_FREE

    def moves(self, senses: np.ndarray) -> np.ndarray:
        return np.where(senses == SENSE_UP, self.up, -self.down)

    def of(self, senses: np.ndarray) -> np.ndarray:
        """d (relations,) of ``senses``."""
        m = self.moves(senses)
        return np.bincount(self.rows, self.data * m[self.cols], minlength=self.n_relations) - self.rhs

    def gains(self, senses: np.ndarray, d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per sensitive cell, the change of sum |d| its flip alone makes (inf where its sense is not
        free), and the change of its move."""
        delta = np.where(senses == SENSE_UP, -(self.up + self.down), self.up + self.down)
        before = d[self.rows]
        change = np.abs(before + self.data * delta[self.cols]) - np.abs(before)
        gain = np.bincount(self.cols, change, minlength=senses.size)
        return np.where(self.free, gain, np.inf), delta

    def descend(self, senses: np.ndarray, d: np.ndarray, budget: Budget) -> None:
        """Improving flips until none is left or the budget ends, in place: each step flips every
        improving cell that shares no relation with a better one (their changes then add up exactly;
        a 1000x1000 table's 300 000 sensitive cells take 1.5 s from the ordering heuristic's senses)."""
        while not budget.over():
            gain, delta = self.gains(senses, d)
            improving = np.flatnonzero(gain < -1e-9 * max(1.0, float(np.abs(d).sum())))
            if not improving.size:
                return
            rank = np.full(senses.size, improving.size, np.int64)
            rank[improving[np.argsort(gain[improving], kind="stable")]] = np.arange(improving.size)
            first = np.full(self.n_relations, improving.size, np.int64)
            np.minimum.at(first, self.rows, rank[self.cols])
            blocked = np.zeros(senses.size, bool)
            blocked[self.cols[rank[self.cols] > first[self.rows]]] = True
            chosen = improving[~blocked[improving]]
            senses[chosen] = -senses[chosen]
            picked = np.isin(self.cols, chosen)
            d += np.bincount(self.rows[picked], self.data[picked] * delta[self.cols[picked]],
                             minlength=self.n_relations)


def imbalance(problem: CTAProblem, senses: np.ndarray) -> np.ndarray:
    """The imbalance d_r that the sensitive cells' moves under ``senses`` leave in each relation."""
    return _Imbalance(problem).of(np.asarray(senses))


def balanced_senses(problem: CTAProblem, budget: Budget, start: np.ndarray | None = None,
                    seed: int = 0) -> np.ndarray:
    """A sense vector (given and forced senses kept) of small sum_r |d_r|, from ``start`` (default:
    the ordering heuristic's) by iterated local search until ``budget`` ends."""
    surrogate = _Imbalance(problem)
    free = np.flatnonzero(surrogate.free)
    senses = np.array(ordering_senses(problem) if start is None else start, np.int8)
    senses[~surrogate.free] = problem.effective_senses[~surrogate.free]
    senses[free] = np.where(senses[free] == SENSE_UP, SENSE_UP, SENSE_DOWN)
    d = surrogate.of(senses)
    surrogate.descend(senses, d, budget)
    best, best_value = senses, float(np.abs(d).sum())
    rng = np.random.default_rng(seed)
    kick = min(free.size, max(2, round(KICK_SHARE * free.size)))
    while free.size and not budget.over():
        trial = best.copy()
        flipped = rng.choice(free, size=kick, replace=False)
        trial[flipped] = -trial[flipped]
        d = surrogate.of(trial)
        surrogate.descend(trial, d, budget)
        value = float(np.abs(d).sum())
        if value < best_value:
            best, best_value = trial, value
    return best


def solve_balance(problem: CTAProblem, options: SolveOptions = SolveOptions(), seed: int = 0,
                  search_seconds: float | None = None) -> CTAResult:
    """The fixed-sense table of balanced_senses after SEARCH_SHARE of the time, or ``search_seconds``
    of it, the rest for the table's LP (start: the options' start_senses, else the ordering
    heuristic's).  A caller with time to spare gives the search seconds of its own: on a 1H2D table
    of 487 k cells the LP takes 3-4 s, more than a fifth of a short search's time, and a table
    never evaluated is no table."""
    evaluator = SenseEvaluator(problem, options, METHOD)
    search = evaluator.budget.child(fraction=SEARCH_SHARE) if search_seconds is None else \
        evaluator.budget.child(seconds=search_seconds)
    senses = balanced_senses(problem, search, options.start_senses, seed)
    if not evaluator.budget.over():
        evaluator(senses)
    return evaluator.result(info={"imbalance": float(np.abs(imbalance(problem, senses)).sum())})

