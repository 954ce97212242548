"""One protection run, the same for every front end: weights -> secret widening -> quality
terms (hard relations, bounded and weighted auxiliary cells, correlation targets) -> CTA method ->
published precision -> quality report and the terms' values on the published table.

    protection = protect(problem, ProtectionRequest(method="lp", precision=0))
    protection.result.values        # the table to publish, verified at its precision
    protection.widening.summary()   # what widening did (without the seed)

The steps are the engine's (weights.py, widening.py, quality.py, quality_terms.py, solvers,
precision.py); this module only puts them in order, so the desktop app, `ctadesk solve`/`protect`, the Python API
and a table server cannot drift apart.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable
from typing import Any

from ctadesk.app.outcome import SOLVER_BOUND, Outcome, Publication, result_record
from ctadesk.app.provenance import request_record, versions
from ctadesk.app.request import AUTO, ProtectionRequest
from ctadesk.engine.budget import Budget
from ctadesk.engine.errors import ProblemError
from ctadesk.engine.methods import METHODS, choose_method
from ctadesk.engine.model import Distance, Model, Senses
from ctadesk.engine.problem import SENSE_DOWN, SENSE_UP, CTAProblem
from ctadesk.engine.publish.precision import (
    MAX_DECIMALS,
    coarsest_decimals,
    fixed_to_grid,
    grid_name,
    grid_safe_step,
    grid_step,
    published_at_step_or_why,
    published_decimals,
    step_decimals,
)
from ctadesk.engine.publish.widening import WideningReport, new_seed, widen
from ctadesk.engine.quality.measures import QualityReport, quality_report
from ctadesk.engine.quality.terms import (
    MET_RTOL,
    PUBLISHED_RTOL,
    TermsReport,
    hard_relations,
    published_with_terms,
    solve_with_terms,
    terms_problem,
)
from ctadesk.engine.quality.weights import inverse_weights, unit_weights
from ctadesk.engine.result import CTAResult, Progress, SolveOptions
from ctadesk.engine.settings import HUBER_DELTA
from ctadesk.engine.solvers import cells_changed as count_changed

Solve = Callable[[CTAProblem, str, SolveOptions], CTAResult]

#: what engine/precision says of a relation no precision can hold exactly (the variance term's coefficients)
NO_GRID = "not a whole number"
#: seconds a stopped run has to put its best table at the published precision
PUBLISH_AFTER_STOP = 2.0
#: how many cells an error names
NAMED_CELLS = 5
#: the share of a job's time kept for putting its table at the published precision
PUBLISH_SHARE = 0.15


def engine_solve(problem: CTAProblem, method: str, options: SolveOptions) -> CTAResult:
    """The engine's method registry (ctadesk.engine.methods.solve)."""
    from ctadesk.engine.methods import solve

    return solve(problem, method, options)


@dataclasses.dataclass(frozen=True)
class Protection:
    """What a protection run produced.

    request    the request as run (its seed filled in when widening drew a fresh one; the
               algorithm an AUTO request ran is result.method, and the log says why)
    required   the table with the weights used and the protection levels the rules require
               (what quality is measured against and what the release protects)
    solved     the problem the result is for (widened levels, the hard quality terms' relations;
               bounded and weighted terms were auxiliary cells around it, engine/quality/terms.py)
    result     the method's result, at the published precision when it could be put there
    notes      lines for the log: the widening summary, the precision outcome
    quality    the quality report of result against required (None without a table)
    widening   what widening did and, with widen_cost, what it cost (None without widening)
    seconds    wall time of the whole run
    terms      the quality terms' report (request.terms(): preserve and quality) with each term's
               value on the published table (None without terms)
    outcome    what the front ends show and a project keeps beside the result (ctadesk.app.outcome):
               the precision reached, the cells changed, where the bound came from, the terms' values
    """

    request: ProtectionRequest
    required: CTAProblem
    solved: CTAProblem
    result: CTAResult
    notes: tuple[str, ...]
    quality: QualityReport | None
    widening: WideningReport | None
    seconds: float
    terms: TermsReport | None
    outcome: Outcome

    @property
    def decimals(self) -> int | None:
        """The published precision reached (None: unrounded)."""
        return self.outcome.published.decimals

    @property
    def precision_met(self) -> bool:
        """The table is at the precision asked for (always true for 'full')."""
        return self.outcome.published.met

    def as_dict(self) -> dict[str, Any]:
        """The run as one JSON document, what `ctadesk solve/protect --json` write: the result
        (outcome.result_record: values in cell order, senses as up/down, the quality report per
        cell group), the outcome's fields (cells_changed, quality_terms, published, bound_from), and
        what repeats the run: the versions of ctadesk and the solvers and the request as run
        (ProtectionRequest.options(), its widening seed with it)."""
        quality = None if self.quality is None else self.quality.as_dict()
        return {**result_record(self.result, self.seconds, quality, self.decimals), **self.outcome.as_dict(),
                "versions": versions(), "request": request_record(self.request.options())}


def weighted(problem: CTAProblem, choice: str) -> CTAProblem:
    """``problem`` with the cell weights ``choice`` names (Cox 2005b, eq. (1))."""
    if choice == "unit":
        return problem.replace(weights=unit_weights(problem.values))
    if choice == "inverse":
        return problem.replace(weights=inverse_weights(problem.values))
    return problem


def unprotectable(problem: CTAProblem) -> None:
    """Refuse a table with a sensitive cell that nothing protects: no protection level on either
    side, or none on the side its sense is fixed to (a sensitive cell at its original value would
    then be reported protected).  The error names the first cells."""
    senses = problem.effective_senses
    lower, upper = problem.lower_protection, problem.upper_protection
    bare = (((lower <= 0) & (upper <= 0)) | ((senses == SENSE_UP) & (upper <= 0))
            | ((senses == SENSE_DOWN) & (lower <= 0)))
    if not bare.any():
        return
    cells = problem.sensitive[bare]
    named = ", ".join(problem.describe_cell(int(cell)) for cell in cells[:NAMED_CELLS])
    more = f" and {cells.size - NAMED_CELLS} more" if cells.size > NAMED_CELLS else ""
    raise ProblemError(f"{cells.size} sensitive cell{'s' * (cells.size != 1)} with no protection level on the side "
                       f"{'they' if cells.size != 1 else 'it'} must move to: {named}{more}; give "
                       f"{'them' if cells.size != 1 else 'it'} lower and upper protection levels (or apply the "
                       "safety rules, which set them)")


def protect(problem: CTAProblem, request: ProtectionRequest, *,
            on_log: Callable[[str], None] | None = None,
            on_progress: Callable[[Progress], None] | None = None,
            stop: threading.Event | None = None,
            solve: Solve = engine_solve) -> Protection:
    """Run ``request`` on ``problem`` (the table as the user holds it, levels as required).

    on_log/on_progress are called from the solving thread; setting ``stop`` ends the run with
    the best table found so far.  ``solve`` is the method runner (the engine's registry).

    One budget (engine/budget.py) is started here, once, from ``request.time_limit``: every solve
    of the run -- the method, the widening cost, the quality terms' rounds and prices, the table at
    the published precision -- runs within a child of it, so the time limit is the whole run's.
    """
    started = time.perf_counter()
    budget = Budget.start(request.time_limit, stop)
    notes: list[str] = []

    def note(line: str) -> None:
        notes.append(line)
        if on_log is not None:
            on_log(line)

    unprotectable(problem)
    required = weighted(problem, request.weights)
    solved, widening = required, None
    if request.widen:
        seed = new_seed() if request.seed is None else request.seed
        request = request.replace(seed=seed)
        solved = widen(required, seed)
        widening = WideningReport.of(required, solved, seed)
    if request.rounding_base is not None:
        solved = fixed_to_grid(solved, request.rounding_base)
    as_asked = solved
    step: float | None = None
    coarser = ""
    if request.rounding_base is not None:
        step = float(request.rounding_base)
    elif request.precision != "full":
        step, coarser = _solved_step(solved, _asked_decimals(required, request))
    if step is not None:
        solved = grid_safe_step(solved, step)
    terms = request.terms()
    method, parameters = request.method, dict(request.parameters)
    if method == AUTO:
        model = terms_problem(solved, terms).problem if terms else solved
        method, reason, chosen = choose_method(model, Distance(request.distance), Senses(request.senses),
                                               budget.remaining())
        parameters = {**chosen, **parameters}
        note(f"algorithm: {METHODS[method].label} ('{method}'): {reason}")
    elif METHODS[method].model != Model(Distance(request.distance), Senses(request.senses)):
        solves = METHODS[method].model
        note(f"algorithm '{method}' chosen by hand solves the {solves.distance.value} distance with "
             f"{solves.senses.value} senses, not the {request.distance} distance with {request.senses} senses "
             "of the model settings")
    options = SolveOptions(time_limit=request.time_limit, gap=request.gap, threads=request.threads,
                           on_log=on_log, on_progress=on_progress, stop=stop, parameters=parameters, budget=budget)
    rounding = request.precision != "full"
    extra_solve = widening is not None and request.widen_cost

    def run(problem: CTAProblem, share: float, price: bool = False) -> tuple[CTAResult, TermsReport | None]:
        within = options.within(budget.child(fraction=share))
        if not terms:
            return solve(problem, method, within), None
        return solve_with_terms(problem, terms, lambda p, o: solve(p, method, o), within, price=price)

    result, report = run(solved, _share(rounding, extra_solve), request.quality_price)
    if not result.verified and step is not None and solved is not as_asked and not budget.over():
        # the levels moved out to the grid leave no table (with these senses): the levels as asked,
        # and the table put at the finest precision that takes it (_published)
        note(f"no table with the protection levels moved out to the grid {_grid_words(step, request)} "
             f"({result.message}): solved with the levels as asked")
        solved = as_asked
        result, report = run(solved, _share(rounding, extra_solve), request.quality_price)
    if extra_solve and result.values is not None and widening is not None and not budget.cancelled():
        unwidened, _ = run(solved.replace(lower_protection=required.lower_protection,
                                          upper_protection=required.upper_protection), _share(rounding, False))
        if unwidened.values is not None:
            widening = widening.with_objectives(unwidened.objective, result.objective)
    if widening is not None:
        note(widening.summary())
    solved = hard_relations(solved, terms)
    distance = METHODS[result.method].model.distance if result.method in METHODS else Distance(request.distance)
    delta = float(parameters.get("delta", HUBER_DELTA))
    # a stopped run (Ctrl-C, Cancel) still publishes its best table at the precision: a short budget of its own
    publishing = Budget.start(PUBLISH_AFTER_STOP) if budget.cancelled() else budget
    result, published = _published(solved, result, request, options.within(publishing), note, report, distance,
                                   delta, step, coarser)
    quality = None if result.values is None else quality_report(required, result.values)
    if report is not None and result.values is not None:
        report = report.evaluated(required, result.values, PUBLISHED_RTOL if published.rounded else MET_RTOL)
    for line in report.lines() if report is not None else ():
        note(line)
    if notes:
        result = result.replace(log=result.log + "".join(f"{line}\n" for line in notes))
    changed = 0 if result.values is None else count_changed(required, result.values)
    outcome = Outcome(published, changed, _bound_from(result), None if report is None else report.as_dict())
    return Protection(request, required, solved, result, tuple(notes), quality, widening,
                      time.perf_counter() - started, report, outcome)


def _bound_from(result: CTAResult) -> str | None:
    """Where ``result``'s lower bound came from: the engine names a source other than the solver's
    own bound in its diagnostics (engine/solvers/claims.py); read here once, for every front end."""
    return None if result.bound is None else str(result.info.get("bound_from", SOLVER_BOUND))


def _asked_decimals(problem: CTAProblem, request: ProtectionRequest) -> int:
    """The decimals the request publishes ``problem`` at: the data's own for 'auto'."""
    return published_decimals(problem.values) if request.precision == "auto" else int(request.precision)


def _grid_words(step: float, request: ProtectionRequest) -> str:
    """How a note names the grid of ``step``: 'of 0 decimals', 'of multiples of 5'."""
    if request.rounding_base is not None:
        return f"of multiples of {request.rounding_base}"
    decimals = step_decimals(step)
    return f"of {decimals} decimal{'s' * (decimals != 1)}"


def _solved_step(problem: CTAProblem, decimals: int) -> tuple[float, str]:
    """The grid a job publishing at ``decimals`` solves for: that of ``decimals`` where every
    sensitive cell of ``problem`` has a value on it within its bounds beyond a safe value, else the
    coarsest finer one where all have (precision.coarsest_decimals), with why ``decimals`` cannot
    be published ('' when they can).  The table is then neither solved for a grid no table can be
    published on (the levels moved out to it keep such cells where they are, so the solve only
    loses time) nor put on it: with precision 'auto' _published starts at the grid solved for, and
    decimals asked for by number are refused with this reason, the table kept as solved."""
    solved, roomless = coarsest_decimals(problem, decimals)
    if solved == decimals:
        return grid_step(decimals), ""
    grid = grid_name(grid_step(decimals))
    many = roomless.size != 1
    return grid_step(solved), (
        f"not rounded to {decimals} decimal{'s' * (decimals != 1)}: {roomless.size} sensitive cell{'s' * many} "
        f"{'have' if many else 'has'} no value {grid} within {'their' if many else 'its'} bounds beyond "
        f"{'their' if many else 'its'} safe value{'s' * many}, {problem.describe_cell(int(roomless[0]))} first")


def _share(rounding: bool, another_solve: bool) -> float:
    """The share of the job's time left that a solve may take: all of it when nothing follows,
    less where the published precision (PUBLISH_SHARE) or another solve of the same size waits."""
    share = 1.0 - PUBLISH_SHARE if rounding else 1.0
    return share / 2 if another_solve else share


def _published(problem: CTAProblem, result: CTAResult, request: ProtectionRequest, options: SolveOptions,
               note: Callable[[str], None], report: TermsReport | None = None,
               distance: Distance = Distance.L1, delta: float = HUBER_DELTA, step: float | None = None,
               coarser: str = "") -> tuple[CTAResult, Publication]:
    """``result`` at the request's precision (engine/publish/precision.py), under the ``distance`` of the
    model that solved it, and the decimals reached; with quality terms (``report``, for ``result``)
    a table at that precision must keep every term that held (quality_terms.published_with_terms).

    With precision 'auto' a table that cannot be put at the data's decimals is tried at each finer
    precision up to MAX_DECIMALS, from the grid it was solved for (``step``; ``coarser`` says why
    that is finer than the data's), and the note says which was published and why; a table that
    cannot be put at any (or at the number of decimals asked for) stays as solved, marked
    unpublishable (Publication.met is false), and the note says why.

    With a rounding base the table is a controlled rounding to multiples of it, zero-restricted
    where one exists (precision.at_step with steps=0: a cell already a multiple stays, the others
    go to a multiple next to them), else the nearest rounding the integer program finds."""
    if request.precision == "full" or not result.verified:
        return result, Publication(request.precision)
    base = request.rounding_base
    if base is not None:
        rounded, why = published_at_step_or_why(problem, result, float(base), options, distance, delta, steps=0)
        note(why)
        if rounded is not None:
            return rounded, Publication(request.precision, int(rounded.info["decimals"]), why, base)
        return (result.replace(message=f"{result.message}; {why}" if result.message else why),
                Publication(request.precision, None, why, base))
    asked = _asked_decimals(problem, request)
    first = asked if step is None else step_decimals(step)
    # decimals asked for by number that some cell has no room at (``coarser``) are not tried
    tried = range(first, MAX_DECIMALS + 1) if request.precision == "auto" else () if coarser else (asked,)
    reasons = [coarser] if coarser else []
    for decimals in tried:
        if report is None:
            rounded, why = published_at_step_or_why(problem, result, grid_step(decimals), options, distance, delta)
        else:
            rounded, why = published_with_terms(problem, result, decimals, report, options, distance, delta)
        if rounded is not None:
            if reasons:
                note(f"published at {decimals} decimal{'s' * (decimals != 1)}, finer than the data's {asked}: "
                     f"{reasons[0]}")
            note(why)
            return rounded, Publication(request.precision, decimals, why)
        reasons.append(f"not rounded to {decimals} decimals: {why}")
        if (options.budget is not None and options.budget.over()) or NO_GRID in why:
            break           # out of time, or no precision can hold the relations (a non-integral coefficient)
    message = "; ".join(reasons)
    note(message)
    return (result.replace(message=f"{result.message}; {message}" if result.message else message),
            Publication(request.precision, None, message))
