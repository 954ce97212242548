"""Portfolio: the exact MILP for the whole time limit, a heuristic beside it (Castro & González 2011, §3).

HiGHS's branch and bound is largely serial, so on two cores the MILP (2)
(optionally with the imbalance cuts of ``ctadesk.engine.solvers.cuts``: a
higher bound, but in a short time limit a worse incumbent) runs for the full
time limit on one thread while a sense heuristic (BCD by default) runs in a
second *process*, restarted from the MILP's newest incumbent whenever it has
one.  (A second thread would not do: the heuristic's Python holds the GIL
that every HiGHS callback needs, so a Python loop beside the MILP leaves it
with a much worse incumbent in the same time.)  Every heuristic
table better than the MILP's incumbent is handed to the running MILP through
HiGHS's user-solution callback (``cbMipUserSolution``), so the search prunes
with it (HiGHS 1.15 compared a user solution's objective with the presolved
model's, offset by about the LP bound, and took none unless the objective was
shifted; 1.16 compares like with like).  With BALANCE_FREE free senses or more, the second
process starts with the balancing search
(senses/balance.py: senses that leave every relation nearly balanced, no LP needed), whose table on
large 3-D Cox tables is better than plain HiGHS's after ten times the time limit (15x15x15:
125 537 at 60 s against 129 251 at 600 s, which its sub-MIP found after 155 s of CPU).  Between
its rounds the second process takes the best table known (its own or the MILP's) down to a one-flip
local optimum (senses/flips.py), the two kinds of work sharing its time
evenly: neither the MILP's incumbents nor the heuristics' tables are one-flip
optimal (``.venv/bin/python benchmarks/heuristics.py 60 10x10x10`` prints the
portfolios' tables beside the plain MILP's).  A heuristic round from a start it
has had before repeats itself (learning is deterministic: a helper without
other work spends much of its time on such repeats); once every start has had
its round, the helper searches instead with the MILP near the best table, in turn within a few
flips of it (solve_milp's radius: local branching, Fischetti & Lodi 2003) and over the senses on
which it and another good table disagree (a crossing of the two, in the spirit of the combination
step of scatter search, Cox 2005b, and of Rothberg's 2007 crossover of MIP solutions), and (with
BALANCE_FREE free senses or more) every third time by the balancing search again, from the best
table with another seed (on 15x15x15 seed 0 it took the 60-s table from 125 537 to 124 941): the
tables either side finds are kept in a small pool for these crossings.
On a mirror-symmetric table (solvers/symmetry.py: every Cox-recipe table) the MILP fixes one free
sense, which drops the mirrored half of its tree (the default proved 15x15 and 18x18 tables' optima
in half the time), and every table either side holds is kept the same way up.
The answer is the better table of the two with the MILP's proven bound and
the certified gap: never worse than the plain MILP given the same time, apart
from noise.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from multiprocessing.connection import Connection

import highspy
import numpy as np

from ctadesk.engine.problem import SENSE_DOWN, SENSE_FREE, SENSE_UP, CTAProblem
from ctadesk.engine.result import CTAResult, SolveOptions, Status, relative_gap
from ctadesk.engine.senses.balance import solve_balance
from ctadesk.engine.senses.bcd import solve_bcd
from ctadesk.engine.senses.feasible_start import starting_senses
from ctadesk.engine.senses.flips import flip_descent
from ctadesk.engine.senses.ordering import ordering_senses
from ctadesk.engine.settings import MIN_HEURISTIC_SECONDS
from ctadesk.engine.solvers.cuts import with_imbalance_cuts
from ctadesk.engine.solvers.finish import finish
from ctadesk.engine.solvers.highs import HighsRun
from ctadesk.engine.solvers.lower_bound import with_lower_bound
from ctadesk.engine.solvers.lp import solve_lp
from ctadesk.engine.solvers.milp import (
    MILP_SHARE,
    certified_big_m,
    infeasibility_message,
    milp_model,
    polish,
    refuted,
    solve_milp,
)
from ctadesk.engine.solvers.network import network_form
from ctadesk.engine.solvers.symmetry import anchor, broken, mirror_symmetric, mirrored

METHOD = "milp-portfolio"
#: seconds a heuristic round may take before it restarts from the MILP's incumbent; a round that
#: brought no better table doubles the next one (on 20x20x20 learning needs tens of seconds), up to
#: a third of the time left: on 10x10x10 seed 9 a 20-s round without gain left 14 s of 60 for the
#: searches near the best table
ROUND_SECONDS = 5.0
#: seconds a single-flip descent (senses/flips.py) runs before the helper looks at the MILP's newest
#: incumbent again; an unfinished descent goes on from where it stopped
DESCENT_SECONDS = 10.0
#: how many free senses a search near the best table may change (milp.within_radius): once every
#: start has had its heuristic round, the helper's time goes to such searches
RADIUS = 10
#: a crossing frees the senses on which the best table and another of the pool disagree, and this
#: share of those on which they agree (two tables alike everywhere still leave a neighbourhood)
CROSS_SHARE = 0.15
#: distinct tables kept for crossings (the cheapest)
POOL = 8
#: free senses from which the portfolio starts from its fast path's table (fewer: the MILP finds better at once)
FAST_PATH_FREE = 2000
#: the share of the time the fast path's LP may take: a cap, not a reservation (on 3-D tables of
#: thousands of cells it takes a second); on a 1H2D table of a million cells it is the only table a
#: minute gives (HiGHS's presolve of that MILP alone takes longer), and its network solve took
#: 20-35 s of a 120-s job at loads of 2-4, past the 0.3 it had
FAST_PATH_SHARE = 0.6
#: the share of the helper's time its first step, the balancing search (senses/balance.py), takes
BALANCE_SHARE = 0.05
#: the helper balances (first, and every third search near the best table) only with at least this
#: many free senses: on 15x15x15 (1012) and 20x20x20 (2400) Cox tables its table beats plain HiGHS
#: at ten times the time limit, but on 10x10x10 (300) the MILP's tree does better without it (at
#: load 2, 60 s: seed 2 41 066 without, 41 882 with; seed 4 42 623 / 43 117)
BALANCE_FREE = 600
#: the share of the helper's time that goes to one-flip descents (the rest: heuristic rounds and MILP searches)
DESCENT_SHARE = 0.5
#: seconds the heuristic process gets to stop before it is terminated
STOP_GRACE = 2.0
#: the same after a cancel, which must end the solve within seconds: the process sends each better
#: table as it finds it, so only a table found in the last moment can still be on its way
CANCEL_GRACE = 0.2

Heuristic = Callable[[CTAProblem, SolveOptions], CTAResult]


def milp_columns(problem: CTAProblem, values: np.ndarray, senses: np.ndarray, free: np.ndarray) -> np.ndarray:
    """The MILP's column vector [z+, z-, y] of a protected table (y = 1: the free cell goes up)."""
    deviation = values - problem.values
    return np.concatenate([np.maximum(deviation, 0.0), np.maximum(-deviation, 0.0),
                           (np.asarray(senses)[free] == SENSE_UP).astype(float)])


class _Helper:
    """The heuristic process (a fresh interpreter: no copy of the caller's threads or ``__main__``)
    and the best table it sent (objective, values, senses).

    The process runs in a session of its own and ignores SIGINT: Ctrl-C at a terminal and a
    signal to the caller's process group reach the caller alone, which stops the solve and ends
    the process (stop), so the process prints no traceback of its own."""

    def __init__(self, problem: CTAProblem, options: SolveOptions, heuristic: Heuristic, seconds: float,
                 start: CTAResult | None = None, anchor_cell: int | None = None) -> None:
        to_child, from_parent = os.pipe()
        from_child, to_parent = os.pipe()
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))}
        code = (f"import signal; signal.signal(signal.SIGINT, signal.SIG_IGN); "
                f"from {__name__} import _worker; _worker({to_child}, {to_parent})")
        self.process = subprocess.Popen([sys.executable, "-c", code], pass_fds=(to_child, to_parent), env=env,
                                        stdin=subprocess.DEVNULL, start_new_session=True)
        os.close(to_child)
        os.close(to_parent)
        self.conn = Connection(from_parent, readable=False)
        self.incoming = Connection(from_child, writable=False)
        self.sending = threading.Lock()
        plain = problem.replace(cell_label=None, relation_label=None)
        # the problem outgrows the pipe's buffer: written while the process starts, not before the MILP
        ends = time.time() + seconds    # wall clock: the process's own clock starts after its imports
        known = None if start is None else (start.objective, np.asarray(start.senses, np.int8))
        threading.Thread(target=self._send_problem, args=((plain, options.gap, ends, heuristic, known, anchor_cell),),
                         daemon=True).start()
        self.best: tuple[float, np.ndarray, np.ndarray] | None = None
        self.fresh = False      # best not yet handed to the MILP
        if start is not None:   # handed to the MILP as its first user solution
            self.best, self.fresh = (start.objective, start.table(), np.asarray(start.senses, np.int8)), True
        self.closed = False     # the process closed its end: every table it found has arrived

    def receive(self, wait: float = 0.0) -> None:
        """Take every table that has arrived (waiting up to ``wait`` s for the first); keep the best."""
        try:
            while self.incoming.poll(wait):
                wait = 0.0
                objective, values, senses = self.incoming.recv()
                if self.best is None or objective < self.best[0]:
                    self.best, self.fresh = (objective, values, senses), True
        except (EOFError, OSError):
            self.closed = True

    def _send_problem(self, message) -> None:
        with self.sending, contextlib.suppress(OSError):
            self.conn.send(message)

    def send(self, message) -> None:
        """Send an incumbent unless the pipe is busy (a later incumbent will follow)."""
        if not self.sending.acquire(blocking=False):
            return
        try:
            self.conn.send(message)
        except OSError:
            pass
        finally:
            self.sending.release()

    def stop(self, grace: float = STOP_GRACE) -> None:
        """Tell the process to stop, read its tables until it closes its end (at most ``grace``
        seconds), then end it without waiting for its interpreter to wind down."""
        with self.sending:
            self.conn.close()   # end of file: the process stops
        grace = time.perf_counter() + grace
        while not self.closed and time.perf_counter() < grace:
            self.receive(wait=0.05)
        self.process.terminate()
        self.process.wait()
        self.incoming.close()


def solve_milp_portfolio(problem: CTAProblem, options: SolveOptions = SolveOptions(),
                         heuristic: Heuristic = solve_bcd, name: str = METHOD, cuts: bool = False,
                         fewest_changes: bool = False) -> CTAResult:
    """The MILP for MILP_SHARE of the options' budget on one thread, ``heuristic`` in a second
    process feeding it incumbents; the better table with the MILP's bound and gap.  The rest of the
    budget is for the polishing LP (fewest_changes: see milp.polish) and the certified bound."""
    started = time.perf_counter()
    options = options.begun()
    model, free, m = milp_model(problem, options, starting_senses)
    if not free.size:
        return solve_milp(problem, options, starts=starting_senses, fewest_changes=fewest_changes).replace(method=name)
    solved = with_imbalance_cuts(problem, model) if cuts else model
    # a mirror-symmetric model (solvers/symmetry.py) keeps an optimum with one free sense fixed,
    # and its tree loses the mirrored half; the helper's tables go to it mirrored where they differ
    anchored = anchor(problem, free) if mirror_symmetric(problem, model, free) else None
    if anchored is not None:
        solved = broken(solved, problem.n_cells, anchored)
    build_seconds = time.perf_counter() - started
    anchor_cell = None if anchored is None else int(free[anchored])
    fast = _fast_path(problem, free, m.reference, options)
    fast = None if fast is None else _upright(problem, fast, anchor_cell)
    milp = options.within(options.started_budget.child(fraction=MILP_SHARE))
    seconds = milp.started_budget.remaining()
    # the heuristic process inherits two pipe descriptors (pass_fds), which only POSIX offers:
    # elsewhere the MILP runs alone, which is still the plain MILP with its certified gap
    helper = _Helper(problem, options, heuristic, seconds, fast, anchor_cell) \
        if seconds >= MIN_HEURISTIC_SECONDS and not options.cancelled() and os.name == "posix" else None
    try:
        status, values, objective, bound, log, milp_seconds, model_status, handed = \
            _run_milp(problem, solved, milp, free, helper, anchored)
    finally:
        if helper is not None:
            helper.stop(CANCEL_GRACE if options.cancelled() else STOP_GRACE)
    message = infeasibility_message(problem, model, free, options) if status is Status.INFEASIBLE else ""
    exact = finish(problem, name, status, values, started=started, build_seconds=build_seconds,
                   solve_seconds=milp_seconds, message=message, model_objective=objective, bound=bound, log=log,
                   info={"highs_status": model_status, "binaries": int(free.size), "big_m_from": m.origin,
                         "mirror_broken": anchored is not None})
    if exact.values is not None and not options.cancelled():
        exact = polish(problem, options, exact, exact.status, started, fewest_changes=fewest_changes)
    exact = certified_big_m(problem, free, m, exact, options)
    if exact.status is Status.INFEASIBLE and m.reference is not None:
        exact = refuted(problem, m.reference, options, certify=False).replace(method=name)
    elif exact.status is Status.INFEASIBLE and exact.info.get("big_m_certified"):
        return exact
    candidates = [exact]
    if helper is not None and helper.best is not None:
        candidates.append(finish(problem, name, Status.FEASIBLE, helper.best[1], senses=helper.best[2],
                                 started=started, build_seconds=build_seconds, solve_seconds=milp_seconds))
    elif exact.status is Status.ERROR and not options.cancelled():
        # the MILP failed before the heuristic sent anything: the heuristic gets the time left alone
        candidates.append(heuristic(problem, options))
    if fast is not None:
        candidates.append(fast)
    verified = [r for r in candidates if r.verified]
    if not verified:
        return exact
    best = min(verified, key=lambda r: r.objective)
    final = status if status in (Status.TIME_LIMIT, Status.CANCELLED) else Status.FEASIBLE
    bound = exact.bound if exact.info.get("big_m_certified", True) else None
    gap = None
    if bound is not None and math.isfinite(bound):
        gap = relative_gap(best.objective, bound)
        if gap <= options.gap and final is not Status.CANCELLED:
            final = Status.OPTIMAL
    source = "MILP" if best is exact else "fast path (fixed senses, the ordering heuristic's)" if best is fast \
        else "heuristic"
    result = with_lower_bound(problem, best.replace(
        method=name, status=final, bound=bound, gap=gap, log=log,
        timings={**exact.timings, "total": time.perf_counter() - started},
        info={**exact.info, "milp_objective": exact.objective,
              "heuristic_objective": candidates[1].objective if len(candidates) > 1 else math.nan,
              "handed_to_milp": handed, "source": source}), options)
    return result.replace(message=f"{name}: best table from the {source}; verified")


def _fast_path(problem: CTAProblem, free: np.ndarray, reference: CTAResult | None,
               options: SolveOptions) -> CTAResult | None:
    """The table of the model's fast path -- the fixed-sense L1 LP (5.10) with the ordering
    heuristic's senses (Cox 2005), what fixed senses would publish -- on a table with at least
    FAST_PATH_FREE free senses, where the MILP and the heuristic may not reach it in the time: the
    answer is never worse, and the MILP and the helper start from it.  The big-M's reference LP is
    that table where the MILP's model solved it already; else the LP gets FAST_PATH_SHARE of the
    time (the network solver's where the relations form a network: seconds on a 1H2D table of a
    million cells, where the IPM takes minutes).  None where it is not worth it or found no table."""
    if reference is not None and reference.verified:
        return reference
    if free.size < FAST_PATH_FREE:
        return None
    quiet = options.within(options.started_budget.child(fraction=FAST_PATH_SHARE), on_log=None, on_progress=None)
    # scipy's csgraph and LEMON, which network_l1 loads, are for big tables only
    from ctadesk.engine.solvers.network_l1 import solve_network_l1

    senses, form = ordering_senses(problem), network_form(problem)
    table = (solve_network_l1(problem, quiet, senses=senses, form=form) if form is not None
             else solve_lp(problem, quiet, senses=senses, explain=False))
    return table if table.verified else None


def _run_milp(problem: CTAProblem, model, options: SolveOptions, free: np.ndarray, helper: _Helper | None,
              anchored: int | None = None):
    """HiGHS on ``model`` within the options' budget on one thread, taking the helper's tables as
    user solutions (mirrored where the model fixes free cell ``anchored`` up and they move it down)."""
    n = problem.n_cells
    handed = [0]
    one_thread = options if options.threads is not None else dataclasses.replace(options, threads=1)
    run = HighsRun(one_thread, {"mip_rel_gap": float(options.gap)})
    h = run.highs
    if helper is not None:
        _exchange(h, problem, free, helper, anchored, handed)
    if not run.pass_model(model):
        return Status.ERROR, None, math.nan, None, run.log, 0.0, "model rejected", 0
    began = time.perf_counter()
    finished, _ = run.run(mip=True)
    seconds = time.perf_counter() - began
    watch = run.watch
    if finished:
        info = h.getInfo()
        status = run.status()
        described = h.modelStatusToString(h.getModelStatus())
        z = np.asarray(h.getSolution().col_value) \
            if info.primal_solution_status == highspy.SolutionStatus.kSolutionStatusFeasible else None
        objective, bound = float(info.objective_function_value), float(info.mip_dual_bound)
    else:       # left inside a cut-separation round (see solvers.highs): what the callbacks saw
        status, described = Status.TIME_LIMIT, "stopped inside a cut-separation round"
        z, objective, bound = watch.values, watch.objective, watch.bound
    if status is Status.ERROR and z is not None:     # HiGHS stopped oddly but left an incumbent
        status = Status.FEASIBLE
    if options.cancelled():
        status = Status.CANCELLED
    values = None if z is None else np.clip(problem.values + z[:n] - z[n:2 * n], problem.lower, problem.upper)
    if values is None:
        objective = math.nan
    return (status, values, objective, bound, run.log, seconds, described, handed[0])


def _exchange(h: highspy.Highs, problem: CTAProblem, free: np.ndarray, helper: _Helper, anchored: int | None,
              handed: list[int]) -> None:
    """Subscribe the MILP's callbacks that send each incumbent's senses to the helper and hand the
    helper's better tables to HiGHS as user solutions (counted in ``handed``)."""
    n = problem.n_cells

    def improving(event) -> None:
        y = np.asarray(event.data_out.mip_solution)[2 * n:]
        senses = problem.effective_senses.copy()
        senses[free] = np.where(y > 0.5, SENSE_UP, SENSE_DOWN)
        helper.send((float(event.data_out.objective_function_value), senses.astype(np.int8)))

    def user_solution(event) -> None:
        helper.receive()
        if not helper.fresh or helper.best is None:
            return
        helper.fresh = False
        objective, values, senses = helper.best
        if anchored is not None and senses[free[anchored]] != SENSE_UP:
            values, senses = mirrored(problem, values, senses)
        if objective < float(event.data_out.mip_primal_bound) - 1e-9 * max(1.0, objective):
            event.data_in.setSolution(milp_columns(problem, values, senses, free))
            handed[0] += 1

    h.cbMipImprovingSolution.subscribe(improving)
    h.cbMipUserSolution.subscribe(user_solution)


def _upright(problem: CTAProblem, result: CTAResult, anchor_cell: int | None) -> CTAResult:
    """``result``, mirrored (solvers/symmetry.py) where it moves the sensitive cell ``anchor_cell``
    down: the MILP, its helper and the helper's pool then see every table the same way up (a table
    and its mirror are the same table to the search, and a crossing of the two would free every
    sense)."""
    if anchor_cell is None or result.values is None or result.senses is None or not result.verified \
            or result.senses[anchor_cell] == SENSE_UP:
        return result
    values, senses = mirrored(problem, result.values, result.senses)
    return result.replace(values=values, senses=senses)


def round_limit(round_seconds: float, left: float) -> float:
    """A heuristic round's seconds: ``round_seconds`` (ROUND_SECONDS, doubled after each round
    without gain), but at most a third of the ``left`` seconds (at least ROUND_SECONDS) and never
    past them."""
    return min(round_seconds, max(ROUND_SECONDS, left / 3), left)


def crossing(problem: CTAProblem, best: np.ndarray, other: np.ndarray, rng: np.random.Generator) -> CTAProblem:
    """``problem`` with the free senses of ``best`` fixed where ``other`` has the same, apart from a
    random CROSS_SHARE of those: the MILP over the rest searches between the two tables."""
    free = np.flatnonzero(problem.effective_senses == SENSE_FREE)
    release = (best[free] != other[free]) | (rng.random(free.size) < CROSS_SHARE)
    fixed = problem.effective_senses.copy()
    fixed[free[~release]] = best[free[~release]]
    return problem.with_senses(fixed)


def _pooled(pool: list[tuple[float, np.ndarray]], objective: float, senses: np.ndarray | None) -> None:
    """``pool`` with the table (objective, senses) in it, the POOL cheapest distinct ones kept."""
    if senses is None or not math.isfinite(objective) or any(np.array_equal(senses, s) for _, s in pool):
        return
    pool.append((objective, np.asarray(senses, np.int8)))
    pool.sort(key=lambda entry: entry[0])
    del pool[POOL:]


def _worker(read_fd: int, write_fd: int) -> None:
    """The helper process until the parent closes its end or the time is up: one-flip descents of
    the best table known, heuristic rounds from starts not yet used (the MILP's newest incumbent,
    the best table so far), and once those are used, MILP searches near the best table; every
    better table is sent back."""
    incoming = Connection(read_fd, writable=False)
    outgoing = Connection(write_fd, readable=False)
    problem, gap, ends, heuristic, known, anchor_cell = incoming.recv()
    halt = threading.Event()
    milp: list = [math.inf, None] if known is None else list(known)     # the best table known, by its senses

    def listen() -> None:
        try:
            while True:
                objective, senses = incoming.recv()
                if objective < milp[0]:
                    milp[:] = [objective, senses]
        except (EOFError, OSError):
            halt.set()

    threading.Thread(target=listen, daemon=True).start()
    best = math.inf
    own = None          # the senses of the best table this process found
    descended: set[bytes] = set()   # sense vectors already descended from (flips.flip_descent)
    started_from: set[bytes] = set()    # starts of heuristic rounds (a round from the same start repeats itself)
    round_seconds = nearby_seconds = cross_seconds = ROUND_SECONDS
    pool: list[tuple[float, np.ndarray]] = []       # the cheapest tables known, for crossings
    rng = np.random.default_rng(0)
    searches = 0        # searches near the best table so far: crossing, local branching, rebalancing in turn
    spent = {True: 0.0, False: 0.0}     # seconds in descents and in the rest: shared by DESCENT_SHARE
    balancing = problem.free_senses >= BALANCE_FREE
    balanced = not balancing    # the balancing search has run: it is the helper's first step
    turns = 3 if balancing else 2   # the kinds of search near the best table
    while not halt.is_set() and (left := ends - time.time()) > 0:
        # descents take the best table known; heuristic rounds start from the MILP's newest incumbent
        top = milp[1] if milp[1] is not None and milp[0] < best else own
        descent = top is not None and top.tobytes() not in descended and \
            spent[True] * (1.0 - DESCENT_SHARE) <= spent[False] * DESCENT_SHARE
        start = next((s for s in (milp[1], own) if s is not None and s.tobytes() not in started_from), None)
        _pooled(pool, milp[0], milp[1])
        kind = "balance" if not balanced else "descent" if descent else \
            "round" if start is not None or own is None else \
            ("cross" if len(pool) > 1 else "nearby") if searches % turns == 0 else \
            "nearby" if searches % turns == 1 else "rebalance"
        began = time.perf_counter()
        if kind == "balance":
            balanced = True
            # the search takes BALANCE_SHARE of the time, its table's LP what it needs of the rest
            result = solve_balance(problem, SolveOptions(time_limit=left, gap=gap, threads=1, stop=halt),
                                   search_seconds=BALANCE_SHARE * left)
        elif kind == "descent":
            assert top is not None, "a descent is chosen only with a table to descend from"
            descended.add(top.tobytes())
            result = flip_descent(problem, top, SolveOptions(time_limit=min(DESCENT_SECONDS, left), gap=gap,
                                                             threads=1, stop=halt))
        elif kind == "cross":       # the MILP between the best table and another of the pool
            other = pool[int(rng.integers(1, len(pool)))][1]
            result = solve_milp(crossing(problem, pool[0][1], other, rng),
                                SolveOptions(time_limit=min(cross_seconds, left), gap=gap, threads=1, stop=halt,
                                             start_senses=pool[0][1]),
                                certify=False, starts=starting_senses)
        elif kind == "rebalance":   # the balancing search again, from the best table, another seed
            result = solve_balance(problem, SolveOptions(time_limit=min(ROUND_SECONDS, left), gap=gap, threads=1,
                                                         stop=halt, start_senses=own), seed=searches)
        elif kind == "nearby":      # a round would repeat itself: the MILP near the best table
            result = solve_milp(problem, SolveOptions(time_limit=min(nearby_seconds, left), gap=gap, threads=1,
                                                      stop=halt, start_senses=own),
                                certify=False, starts=starting_senses, radius=RADIUS)
        else:
            limit = round_limit(round_seconds, left)
            if start is not None:
                started_from.add(start.tobytes())
            result = heuristic(problem, SolveOptions(time_limit=limit, gap=gap, threads=1, stop=halt,
                                                     start_senses=start if start is not None else own))
        spent[kind == "descent"] += time.perf_counter() - began
        result = _upright(problem, result, anchor_cell)
        if kind == "descent" and result.info.get("local_optimum"):
            descended.add(np.asarray(result.senses, np.int8).tobytes())
        improved = result.verified and result.objective < min(best, milp[0]) - 1e-9 * abs(result.objective)
        if result.verified:
            _pooled(pool, result.objective, result.senses)
        if kind in ("cross", "nearby", "rebalance"):
            searches += 1
        if improved:
            best, own = result.objective, np.asarray(result.senses, np.int8)
            outgoing.send((result.objective, result.values, result.senses))
        if kind == "nearby":
            nearby_seconds = ROUND_SECONDS if improved else 2 * nearby_seconds
        elif kind == "cross":
            cross_seconds = ROUND_SECONDS if improved else 2 * cross_seconds
        elif kind == "round":
            round_seconds = ROUND_SECONDS if improved else 2 * round_seconds
            if not improved and result.timings.get("total", limit) < 0.05 * limit:
                halt.wait(0.05 * limit)     # nothing new and quick: do not spin
    outgoing.close()
