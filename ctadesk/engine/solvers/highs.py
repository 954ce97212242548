"""The one place HiGHS is set up (HighsRun): bulk model build, log, progress, cancel, budget, status.

Every solve gets a fresh ``Highs`` (the interrupt flag is sticky), the model
is passed in one ``passModel`` call from column-compressed arrays, the log goes
to ``options.on_log`` and into the result, and one function subscribed to the
three interrupt callbacks writes "stop set or deadline passed" every time it is
polled (docs/solvers.md, "HiGHS in a worker thread").  An LP's simplex polls once
an iteration (25 000 calls into Python on a million cells), so there the callback
is off until a thread that watches the stop signal and the deadline turns it on
(RunWatch.watching); HiGHS's own time limit, the budget's, comes first anyway.  Each run's time limit is what
is left of the options' budget (ctadesk.engine.budget), so the time limit means
one thing everywhere: the solve's deadline.

A MIP runs in a thread of its own: HiGHS polls neither its time limit nor the
interrupt callbacks inside a root cut-separation round, and on a 20x20x20
table one round ran 7-22 s past a 20-60 s limit (and would have delayed a
Cancel as long).  At the time limit (or OVERRUN_GRACE after a cancel) the
caller gets the newest incumbent and bound the callbacks reported, and the
thread ends by itself at HiGHS's next poll, which sees the interrupt.  The
interpreter waits at exit for such a thread (HiGHS aborts a process torn down
while a run is inside it), up to EXIT_WAIT; a program that must end by its time
limit (the command line) ends through ``end_process``, which does not wait.
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import math
import os
import sys
import threading
import time
import weakref
from collections.abc import Iterator, Mapping
from typing import NoReturn

import highspy
import numpy as np
import scipy.sparse as sp

from ctadesk.engine.budget import Budget
from ctadesk.engine.result import Progress, SolveOptions, Status, relative_gap
from ctadesk.engine.solvers import highs_process

#: seconds between two throttled progress reports
PROGRESS_INTERVAL = 0.25
#: seconds past its time limit after which a run is interrupted (HiGHS's own check normally comes first)
DEADLINE_GRACE = 0.2
#: seconds a MIP may overrun its deadline or a cancel before the caller stops waiting for it
OVERRUN_GRACE = 0.5
#: seconds between two looks at the stop signal while an LP's simplex runs without its callback
WATCH_INTERVAL = 0.05

_SIMPLEX_INTERRUPT = highspy.cb.HighsCallbackType.kCallbackSimplexInterrupt

#: the value of a HiGHS option (Highs.setOptionValue)
HighsSetting = bool | int | float | str

_STATUS = {
    highspy.HighsModelStatus.kOptimal: Status.OPTIMAL,
    highspy.HighsModelStatus.kInfeasible: Status.INFEASIBLE,
    highspy.HighsModelStatus.kUnboundedOrInfeasible: Status.INFEASIBLE,
    highspy.HighsModelStatus.kTimeLimit: Status.TIME_LIMIT,
    highspy.HighsModelStatus.kIterationLimit: Status.TIME_LIMIT,
    highspy.HighsModelStatus.kSolutionLimit: Status.FEASIBLE,
    highspy.HighsModelStatus.kInterrupt: Status.CANCELLED,
    highspy.HighsModelStatus.kHighsInterrupt: Status.CANCELLED,  # type: ignore[attr-defined]  # not in highspy's stub
}


@dataclasses.dataclass(frozen=True)
class ColumnMatrix:
    """A sparse constraint matrix in the column-compressed arrays HiGHS takes."""

    n_rows: int
    start: np.ndarray   # (n_cols + 1,) int32
    index: np.ndarray   # (nnz,) int32
    value: np.ndarray   # (nnz,) float64

    @classmethod
    def from_csc(cls, matrix: sp.csc_array) -> ColumnMatrix:
        """The arrays of a scipy CSC matrix."""
        return cls(matrix.shape[0], matrix.indptr.astype(np.int32), matrix.indices.astype(np.int32), matrix.data)

    @property
    def n_cols(self) -> int:
        return self.start.size - 1


@dataclasses.dataclass
class HighsOutcome:
    """What a HiGHS run left behind, in ctadesk's terms."""

    status: Status
    model_status: str
    values: np.ndarray | None
    objective: float
    bound: float | None
    gap: float | None
    log: str
    seconds: float
    highs: highspy.Highs | None     # None when the run was left to finish in its thread


@dataclasses.dataclass(frozen=True)
class LinearModel:
    """min cost . x  s.t.  row_lower <= M x <= row_upper,  col_lower <= x <= col_upper,
    x integer on integer_columns (none: an LP)."""

    cost: np.ndarray
    col_lower: np.ndarray
    col_upper: np.ndarray
    matrix: ColumnMatrix
    row_lower: np.ndarray
    row_upper: np.ndarray
    integer_columns: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(0, np.int64))

    @property
    def is_mip(self) -> bool:
        return self.integer_columns.size > 0

    def with_rows(self, rows: sp.sparray, lower: np.ndarray, upper: np.ndarray) -> LinearModel:
        """This model with the rows ``lower <= rows x <= upper`` appended."""
        matrix = sp.csc_array((self.matrix.value, self.matrix.index, self.matrix.start),
                              shape=(self.matrix.n_rows, self.matrix.n_cols))
        matrix = sp.csc_array(sp.vstack([matrix, sp.csc_array(rows)], format="csc"))
        matrix.sort_indices()
        return dataclasses.replace(self, matrix=ColumnMatrix.from_csc(matrix),
                                   row_lower=np.concatenate([self.row_lower, lower]),
                                   row_upper=np.concatenate([self.row_upper, upper]))


def pass_model(h: highspy.Highs, model: LinearModel) -> bool:
    """``model`` into ``h`` in one flat ``passModel`` call; False when HiGHS rejects it.

    numpy arrays go in without a per-entry copy through Python (setting ``HighsLp`` fields
    converts element by element: 0.8 s at 2 M columns).  This overload needs a full
    integrality array; an empty one yields an empty model."""
    matrix = model.matrix
    integrality = np.zeros(matrix.n_cols, np.int32)
    integrality[model.integer_columns] = int(highspy.HighsVarType.kInteger)
    f64 = lambda a: np.ascontiguousarray(a, dtype=np.float64)  # noqa: E731
    i32 = lambda a: np.ascontiguousarray(a, dtype=np.int32)  # noqa: E731
    status = h.passModel(matrix.n_cols, matrix.n_rows, int(matrix.value.size), int(highspy.MatrixFormat.kColwise),
                         int(highspy.ObjSense.kMinimize), 0.0, f64(model.cost), f64(model.col_lower),
                         f64(model.col_upper), f64(model.row_lower), f64(model.row_upper), i32(matrix.start),
                         i32(matrix.index), f64(matrix.value), integrality)
    return status != highspy.HighsStatus.kError and h.getNumCol() == matrix.n_cols


class HighsRun:
    """One fresh ``Highs`` set up the ctadesk way (module docstring), for one run or a sequence of
    runs on a growing model (sifting).  ``settings`` are extra HiGHS options (threads come from
    the options: the calling thread's pool, highs_process); a ``quiet`` run
    (an internal step: a bound, a sifting LP) neither logs nor reports progress.  ``highs`` is the
    object itself, for callers that add columns or subscribe callbacks of their own."""

    def __init__(self, options: SolveOptions, settings: Mapping[str, HighsSetting] | None = None,
                 quiet: bool = False) -> None:
        self.options = options.begun()
        if quiet:
            self.options = self.options.within(self.options.started_budget, on_log=None, on_progress=None)
        self.highs = highs_process.new_highs()
        self.log_lines: list[str] = []
        self.highs.setOptionValue("output_flag", not quiet)
        self.highs.setOptionValue("log_to_console", False)
        if settings and "threads" in settings:
            raise ValueError("HighsRun takes its threads from SolveOptions.threads, not from settings")
        for name, value in (settings or {}).items():
            self.highs.setOptionValue(name, value)
        self.watch = _subscribe(self.highs, self.options, self.log_lines)

    @property
    def budget(self) -> Budget:
        return self.options.started_budget

    @property
    def log(self) -> str:
        return "".join(self.log_lines)

    def pass_model(self, model: LinearModel) -> bool:
        """The model in one call; False when HiGHS rejects it."""
        return pass_model(self.highs, model)

    def run(self, mip: bool = False) -> tuple[bool, highspy.HighsStatus | None]:
        """One run within what is left of the budget (RunWatch.run): (finished, HiGHS's status).
        HiGHS holds its time limit against the object's run time over every run so far."""
        self.highs.setOptionValue("time_limit", float(self.highs.getRunTime()) + float(self.budget.remaining()))
        return self.watch.run(self.highs, mip)

    def status(self) -> Status:
        """ctadesk's status for the last run's model status (run_outcome)."""
        return run_outcome(self.highs.getModelStatus(), self.options)


def solve_model(model: LinearModel, options: SolveOptions, settings: Mapping[str, HighsSetting] | None = None,
                start: tuple[np.ndarray, np.ndarray] | None = None) -> HighsOutcome:
    """Run HiGHS on ``model`` within the options' budget; ``settings`` are extra HiGHS options.

    ``start`` = (column indices, values) is a partial MIP start that HiGHS completes.
    """
    run = HighsRun(options, settings)
    h = run.highs
    if not run.pass_model(model):
        return HighsOutcome(Status.ERROR, "model rejected", None, math.nan, None, None, run.log, 0.0, h)
    if start is not None:
        index, value = start
        h.setSolution(int(index.size), np.asarray(index, np.int32), np.asarray(value, np.float64))
    began = time.perf_counter()
    finished, run_status = run.run(model.is_mip)
    seconds = time.perf_counter() - began
    watch = run.watch
    if not finished:
        status = Status.CANCELLED if run.options.cancelled() else Status.TIME_LIMIT
        gap = None if watch.values is None else relative_gap(watch.objective, watch.bound)
        return HighsOutcome(status, "stopped inside a cut-separation round", watch.values,
                            watch.objective, watch.bound, gap, run.log, seconds, None)
    info = h.getInfo()
    status = run.status()
    if run_status == highspy.HighsStatus.kError and status is not Status.INFEASIBLE:
        status = Status.ERROR
    has_solution = info.primal_solution_status == highspy.SolutionStatus.kSolutionStatusFeasible
    if status is Status.OPTIMAL:
        has_solution = True
    values = np.array(h.getSolution().col_value) if has_solution and status is not Status.INFEASIBLE else None
    objective = float(info.objective_function_value) if values is not None else math.nan
    bound = float(info.mip_dual_bound) if model.is_mip else None
    gap = relative_gap(objective, bound) if bound is not None and values is not None else None
    return HighsOutcome(status, h.modelStatusToString(h.getModelStatus()), values, objective, bound, gap,
                        run.log, seconds, h)


def run_outcome(model_status: highspy.HighsModelStatus, options: SolveOptions) -> Status:
    """ctadesk's status for HiGHS's; an interrupt the user did not ask for is the time limit's."""
    status = _STATUS.get(model_status, Status.ERROR)
    if status is Status.CANCELLED and not options.cancelled():
        return Status.TIME_LIMIT
    return status


#: MIP threads the caller stopped waiting for; they end at HiGHS's next poll
_LEFT_RUNNING: weakref.WeakSet[threading.Thread] = weakref.WeakSet()
#: seconds the interpreter waits at exit for such a thread (HiGHS aborts the process when it
#: is torn down while a run is still inside it)
EXIT_WAIT = 120.0


@atexit.register
def _finish_left_runs() -> None:
    ends = time.perf_counter() + EXIT_WAIT
    for thread in list(_LEFT_RUNNING):
        thread.join(max(0.0, ends - time.perf_counter()))


def end_process(code: int) -> NoReturn:
    """End the process with exit status ``code`` now.  With a MIP thread left running (inside a
    cut-separation round HiGHS may not poll for minutes) the interpreter would wait for it at
    exit (_finish_left_runs), and tearing HiGHS down under it aborts the process: the standard
    streams are flushed and the process ends without the interpreter's teardown.  Without one,
    an ordinary exit."""
    if not any(thread.is_alive() for thread in list(_LEFT_RUNNING)):
        sys.exit(code)
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            stream.flush()
    os._exit(code)


class RunWatch:
    """When a run must stop (DEADLINE_GRACE after the budget's deadline), and the newest MIP
    incumbent (all columns), its objective and the dual bound the callbacks reported."""

    def __init__(self, options: SolveOptions) -> None:
        self.options = options
        self.at = math.inf
        self.values: np.ndarray | None = None
        self.objective = math.nan
        self.bound = -math.inf
        self.detached = False   # the caller stopped waiting: the run's callbacks report nothing more

    def passed(self, grace: float = 0.0) -> bool:
        return time.perf_counter() > self.at + grace

    def must_stop(self) -> bool:
        """The stop is set, the deadline (and its grace) passed, or the caller stopped waiting."""
        stop = self.options.started_budget.stop
        return (stop is not None and stop.is_set()) or self.passed() or self.detached

    @contextlib.contextmanager
    def watching(self, h: highspy.Highs) -> Iterator[None]:
        """While an LP runs in ``h``: its simplex interrupt callback (off, _subscribe) turned on
        as soon as the run must stop, by a thread that looks at the stop signal every
        WATCH_INTERVAL and wakes at the deadline; the simplex reads it at its next iteration.
        Turned on at once when the run must already stop; no thread when nothing can stop it."""
        stop = self.options.started_budget.stop
        if self.must_stop():
            h.startCallback(_SIMPLEX_INTERRUPT)
        if self.must_stop() or (stop is None and math.isinf(self.at)):
            yield
            return
        done = threading.Event()

        def watch() -> None:
            while True:
                wait = max(0.0, self.at - time.perf_counter())
                if done.wait(min(wait, WATCH_INTERVAL) if stop is not None else wait):
                    return
                if self.must_stop():
                    h.startCallback(_SIMPLEX_INTERRUPT)
                    return

        thread = threading.Thread(target=watch, name="highs-watch", daemon=True)
        thread.start()
        try:
            yield
        finally:
            done.set()
            thread.join()

    def run(self, h: highspy.Highs, mip: bool) -> tuple[bool, highspy.HighsStatus | None]:
        """``h.run()``; a MIP in a thread that is left behind OVERRUN_GRACE after the deadline or a
        cancel.  Returns (finished, HiGHS's status)."""
        self.at = self.options.started_budget.deadline + DEADLINE_GRACE
        threads = self.options.threads
        if not mip:
            highs_process.use_threads(h, threads)
            with self.watching(h):
                return True, h.run()
        h.startCallback(_SIMPLEX_INTERRUPT)    # the MIP's LPs poll it: a run left behind ends there
        outcome: list[highspy.HighsStatus] = []

        def run() -> None:
            highs_process.use_threads(h, threads)
            outcome.append(h.run())

        thread = threading.Thread(target=run, name="highs-mip", daemon=True)
        thread.start()
        cancelled_at = math.inf
        try:
            while thread.is_alive():
                thread.join(0.05)
                now = time.perf_counter()
                if self.options.cancelled():
                    cancelled_at = min(cancelled_at, now)
                if thread.is_alive() and (self.passed(OVERRUN_GRACE) or now > cancelled_at + OVERRUN_GRACE):
                    self.leave(thread)
                    return False, None
        except BaseException:   # KeyboardInterrupt: the run must not go on to its time limit
            self.leave(thread)
            raise
        return True, outcome[0]

    def leave(self, thread: threading.Thread) -> None:
        """Stop waiting for the MIP in ``thread``: its callbacks report nothing more and interrupt
        it at HiGHS's next poll."""
        self.detached = True
        _LEFT_RUNNING.add(thread)


def _subscribe(h: highspy.Highs, options: SolveOptions, log_lines: list[str]) -> RunWatch:
    """Log, progress, cancel and time-limit callbacks on ``h``; run ``h`` through the result's run(),
    which turns the simplex interrupt on (subscribed here, off) for a MIP, and for an LP when the
    run must stop (RunWatch.watching)."""
    stop = options.started_budget.stop
    on_log = options.on_log
    on_progress = options.on_progress
    last_report = [-math.inf]
    watch = RunWatch(options)

    def interrupt(event) -> None:
        event.interrupt((stop is not None and stop.is_set()) or watch.passed() or watch.detached)
        if event.callback_type == highspy.cb.HighsCallbackType.kCallbackSimplexInterrupt:
            return
        data = event.data_out
        if event.callback_type == highspy.cb.HighsCallbackType.kCallbackMipInterrupt:
            watch.bound = max(watch.bound, float(data.mip_dual_bound))
        if on_progress is None or watch.detached:
            return
        now = float(data.running_time)
        if now - last_report[0] < PROGRESS_INTERVAL:
            return
        last_report[0] = now
        if event.callback_type == highspy.cb.HighsCallbackType.kCallbackMipInterrupt:
            primal, dual = float(data.mip_primal_bound), float(data.mip_dual_bound)
            on_progress(Progress(now, primal, dual, relative_gap(primal, dual)))
        else:
            on_progress(Progress(now, message=f"interior point iteration {data.ipm_iteration_count}"))

    def improving(event) -> None:
        if watch.detached:
            return
        data = event.data_out
        watch.values = np.array(data.mip_solution, dtype=float)
        watch.objective = float(data.objective_function_value)
        watch.bound = max(watch.bound, float(data.mip_dual_bound))
        if on_progress is not None:
            primal, dual = float(data.objective_function_value), float(data.mip_dual_bound)
            on_progress(Progress(float(data.running_time), primal, dual, relative_gap(primal, dual), "new incumbent"))

    def log(event) -> None:
        if watch.detached:
            return
        log_lines.append(event.message)
        if on_log is not None:
            on_log(event.message.rstrip("\n"))

    h.cbLogging.subscribe(log)
    h.cbSimplexInterrupt.subscribe(interrupt)
    h.stopCallback(_SIMPLEX_INTERRUPT)
    h.cbIpmInterrupt.subscribe(interrupt)
    h.cbMipInterrupt.subscribe(interrupt)
    h.cbMipImprovingSolution.subscribe(improving)
    return watch


def irreducible_conflict(h: highspy.Highs | None, budget: Budget) -> tuple[np.ndarray, np.ndarray]:
    """Rows and columns of an irreducible infeasible subset of the last (infeasible) LP, found
    within ``budget`` (empty when HiGHS finds none in that time, or the run was left to finish in
    its thread: HighsOutcome.highs None)."""
    if h is None:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    h.setOptionValue("iis_strategy", int(highspy.IisStrategy.kIisStrategyFromLp))
    h.setOptionValue("time_limit", float(h.getRunTime()) + float(budget.remaining()))
    status, iis = h.getIis()
    if status == highspy.HighsStatus.kError:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    return np.asarray(iis.row_index_, np.int64), np.asarray(iis.col_index_, np.int64)


def proves_infeasible(h: highspy.Highs, model: LinearModel) -> bool:
    """Whether the dual ray HiGHS left after an infeasible LP proves, computed here, that no x
    satisfies ``model`` (Farkas): for rows multipliers y and every x within the column bounds,
    0 = y . (s - M x) with s = M x inside the row bounds, so when the least value that sum can take
    over the bounds (bound_from_reduced_costs with zero cost, rounding allowed for) is above 0, no
    x exists.  False when HiGHS has no ray (an interior point run, say) or the ray proves nothing
    in either sign."""
    status, has_ray, ray = h.getDualRay()  # type: ignore[attr-defined]  # not in highspy's stub
    if status == highspy.HighsStatus.kError or not has_ray:
        return False
    y = np.asarray(ray, dtype=float)
    if y.shape != model.row_lower.shape or not np.all(np.isfinite(y)):
        return False
    for multipliers in (y, -y):
        pushed = model.cost - reduced_costs(model, multipliers)        # M^T y
        least = bound_from_reduced_costs(-pushed, model.col_lower, model.col_upper, multipliers,
                                         model.row_lower, model.row_upper)
        if least > 0.0:
            return True
    return False


def reduced_costs(model: LinearModel, y: np.ndarray) -> np.ndarray:
    """cost - M^T y, computed here (a solver's own reduced costs carry its tolerances)."""
    m = model.matrix
    columns = np.repeat(np.arange(m.n_cols), np.diff(m.start))
    return model.cost - np.bincount(columns, weights=m.value * y[m.index], minlength=m.n_cols)


def bound_from_reduced_costs(reduced: np.ndarray, col_lower: np.ndarray, col_upper: np.ndarray, y: np.ndarray,
                             row_lower: np.ndarray, row_upper: np.ndarray) -> float:
    """A lower bound on an LP's optimum that holds for any row multipliers y, so a solver's tolerances
    cannot make it wrong (Neumaier & Shcherbina 2004, "safe bounds"): for every feasible x,

        cost . x = d . x + y . M x  >=  sum_j min over [l_j, u_j] of d_j x_j
                                        + sum_r min over [row_lower_r, row_upper_r] of y_r s,

    with the reduced costs d = cost - M^T y computed exactly from y (not the solver's).  The column
    bounds may be tighter ones that hold for every feasible x.  -inf when a reduced cost pushes
    towards an infinite bound.
    """
    with np.errstate(invalid="ignore"):
        column_part = np.where(reduced > 0, reduced * col_lower,
                               np.where(reduced < 0, reduced * col_upper, 0.0))
        row_part = np.where(y > 0, y * row_lower, np.where(y < 0, y * row_upper, 0.0))
    total = float(np.sum(column_part) + np.sum(row_part))
    if not math.isfinite(total):
        return -math.inf
    magnitude = float(np.sum(np.abs(column_part)) + np.sum(np.abs(row_part)))
    return total - 1e-12 * magnitude    # the rounding of the sums themselves


#: a cost vector whose positive entries span more than this ratio gets tighter dual tolerances
COST_RANGE = 1e3


def cost_tolerances(cost: np.ndarray) -> dict[str, HighsSetting]:
    """HiGHS settings for a cost vector spanning many magnitudes (inverse weights 1/a on cells of 1 to
    1e11): at the default dual tolerance 1e-7 every reduced cost of a cell weighing 1e-11 looks zero,
    and "optimal" tables cost 5x the optimum (toysarah: 197.7 against 35.67)."""
    positive = cost[cost > 0]
    if not positive.size or positive.max() <= COST_RANGE * positive.min():
        return {}
    return {"dual_feasibility_tolerance": 1e-10, "ipm_optimality_tolerance": 1e-12}
