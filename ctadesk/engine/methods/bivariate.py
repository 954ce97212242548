"""Two response variables on one table structure, adjusted together (Cox 2005a, §4).

Original tables a and b (e.g. turnover and employment by region x industry) share the relations
T; adjustments y = x_a - a and z = x_b - b protect each variable's sensitive cells.  Over a group S
of t cells (default: the inner cells) with population moments, exactly:

    Var(a + y) - Var(a)        = (2 a~ . y + |y~|^2) / t
    Cov(a + y, b + z) - Cov(a, b) = (b~ . y + a~ . z + y~ . z~) / t          (Cox 2005a, §4.1)

(a~ = a - mean(a) over S, y~ likewise).  The targets (BivariateTargets) bound the percent change of
both variances and of the covariance; since slope = Cov/Var(a) and Corr = Cov/sqrt(Var(a) Var(b)),
the slope of b on a and the correlation of a with b then change by at most
(tau_cov + tau_var) / (1 - tau_var) (§4.2-4.3).  Means are kept exactly by plain relations (model (2)).

Senses, chosen jointly.  The *stacked* problem (one CTAProblem of 2n cells, a's then b's,
block-diagonal relations, b restated in a's unit by a power of two) is solved by the method asked
for -- the exact MILP, a heuristic, a fixed-sense method -- three times: without targets, then with
the targets' tangents at that table as LinearTerms over both blocks
(ctadesk.engine.quality.auxiliary; their offsets, the value of the tangent at y = z = 0, as the
terms' constant parts), then at the table found so.  The tangents let the senses see the
second-order part |y~|^2 / t of the variance change, which on Cox-recipe tables is by itself many
times any target: L(y) = 0 (Cox 2005a, (3)) leaves the variance that much up (``.venv/bin/python
benchmarks/quality.py`` prints it, 'mean+L hard'). Each of the three tables gives senses and a
starting (y, z); the approach runs from each and the best result is kept (every target met with
least distance, else least excess; the three tables count too, so a run out of time still gives the
first). The senses of a cell sensitive in both variables are each variable's own; ``shared_senses``
makes them one (the variable where the protection level is the larger share of the cell's value
decides, a given or bound-forced sense is kept), for offices whose users divide one table by the
other.  It moved the distance either way by several points of plain CTA's (``benchmarks/quality.py
--shared-senses`` prints it, to set beside a run without): not a reliable price, so it is off by
default.

With the senses fixed:

* ``alternating`` (Cox 2005a, §4.1): fix z, solve for y; fix y, solve for z; repeat.  With z fixed
  the covariance change is linear in y, exactly (kept within its target); the variance change is
  its tangent at the current y plus |y - y_k~|^2 / (t Var a) >= 0, so the tangent is kept within
  [-target, 0].  Each step is one fixed-sense solve of one variable (lp, l2 or huber, by the
  distance asked for) with the targets as offset LinearTerms; failing that, no worse than now;
  failing that, without terms.  Every point between two protected tables with the same senses is
  protected, so a step goes only as far along the segment to its table as helps the exact
  statistics (21 points tried).  No guarantee: the rounds may stall above a target.
* ``direct``: a convex program over (y, z) at a time, by clarabel through solvers/conic.py's model
  builder (the L1 distance as its cone model, L2 as its QP), rounds of the convex-concave
  procedure: with y~ . z~ = (|p|^2 - |q|^2)/4, p = s y~ + z~/s, q = s y~ - z~/s (s^2 = sd(b)/sd(a)),

      (2 a~.y + |y~|^2) / (t Var a) <= tau_var + e            (and for b)
      tangent of the same at the reference >= -tau_var - e      (|y~|^2 is convex: it only adds)
      (b~.y + a~.z)/(t|Cov|) + (|p|^2 - tangent of |q|^2)/(4t|Cov|) <= tau_cov + e
      (b~.y + a~.z)/(t|Cov|) - (|q|^2 - tangent of |p|^2)/(4t|Cov|) >= -tau_cov - e

  -- convex quadratic <= affine, i.e. rotated second-order cones -- each an inner approximation of
  the true condition, exact at the reference point; the excess e >= 0 is priced at EXCESS_PRICE
  times the start's distance per narrowest target, so a round from a reference that misses a
  target still has a table.  The reference is the start, then each round's table, until the
  targets hold and the distance stops falling.  (Bounding |Cov(y, z)| by sd(y) sd(z), Cauchy-Schwarz,
  would need Var(y)/Var(a) below |Corr(a, b)| times the target, while a Cox table's adjustments
  alone give many times that.)

Either way the targets' changes are computed exactly on the returned tables (targets_met).

Which wins is measured by benchmarks/quality.py (pairs a = Cox-recipe table, b = a x
lognormal(0, 0.5) noise, each variable's inner cells sensitive independently; every target at
--target %; distance as excess over plain CTA of the stacked problem with the same method),
which prints, per pair, both approaches' distances, changes, targets met and seconds:

    .venv/bin/python benchmarks/quality.py --method milp --seconds 30 8x8 --seeds 5
    .venv/bin/python benchmarks/quality.py --method lp 8x8 15x15 25x25 --seeds 3

The direct approach wins: it meets every target on every pair, for less distance wherever both
meet them; its time is mostly the MILPs' for the senses, as the alternating one's.  The
alternating LPs keep the variances nearer 0 (their tangent is held at or below 0) and so the
slope and the correlation, but stall above a target on some pairs.  ``direct`` is the default.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import time
from collections.abc import Callable

import clarabel
import numpy as np
import scipy.sparse as sp

from ctadesk.engine.errors import ProblemError
from ctadesk.engine.methods import method as registered
from ctadesk.engine.methods import solve
from ctadesk.engine.model import Distance
from ctadesk.engine.problem import SENSE_FREE, CTAProblem
from ctadesk.engine.quality.auxiliary import LinearTerm, with_terms
from ctadesk.engine.quality.measures import (
    CellSelection,
    PairQuality,
    cell_indices,
    inner_cells,
    pair_quality,
    preserve,
)
from ctadesk.engine.result import CTAResult, SolveOptions, Status
from ctadesk.engine.senses.ordering import ordering_senses
from ctadesk.engine.settings import APPROACHES
from ctadesk.engine.solvers.conic import (
    HUBER_DELTA,
    Objective,
    cone_model,
    deviation_box,
    l2_model,
    pseudo_huber,
    solve_conic,
    squares,
)
from ctadesk.engine.solvers.finish import describe, finish
from ctadesk.engine.table.units import in_units, table_unit, weight_unit

#: alternating rounds (a y-step and a z-step each), or direct rounds, at most
MAX_ITERATIONS = 12
#: points of the segment between a variable's table and a step's table that _along tries
LINE_POINTS = 21
#: a direct round that lowers the distance by less than this share ends the rounds
DIRECT_RTOL = 1e-3
#: shares of the time left that the three solves of the stacked problem for the senses may take
#: (a third, a third, a sixth of the whole; the approaches' LPs and cone programs take far less)
SENSES_SHARES = (1 / 3, 1 / 2, 1 / 2)
#: the direct program's price of an excess over the targets as wide as the narrowest target, in
#: units of the start's distance
EXCESS_PRICE = 100.0
#: a target counts as met within this relative slack of it (the solvers' own tolerances)
TARGET_RTOL = 1e-6
#: the fixed-sense method each step of the alternating approach runs, by the distance asked for
STEP_METHODS = {Distance.L1: "lp", Distance.SOC: "lp", Distance.L2: "l2", Distance.HUBER: "huber"}


@dataclasses.dataclass(frozen=True)
class BivariateTargets:
    """Largest percent change accepted over the group of cells (None: not kept).

    variance    of Var(a) and of Var(b), each
    covariance  of Cov(a, b)
    mean        keep the sum (so the mean) of each variable over the group exactly
    The slope of b on a and Corr(a, b) then move by at most (covariance + variance) /
    (1 - variance / 100) percent (module docstring); 0.25 each keeps all four within about 0.5 %.
    """

    variance: float | None = 0.25
    covariance: float | None = 0.25
    mean: bool = True

    def __post_init__(self) -> None:
        for name in ("variance", "covariance"):
            value = getattr(self, name)
            if value is not None and not (0 < value < 100):
                raise ProblemError(f"{name} target {value:g} %: it must lie between 0 and 100")


@dataclasses.dataclass(frozen=True, eq=False)
class BivariateProblem:
    """Two CTA problems on one table structure (Cox 2005a, §4).

    first, second  a's and b's problem: the same cells and relations (the right-hand sides, bounds,
                   weights, sensitive cells and protection levels are each variable's own; a cell
                   is sensitive in either variable, with that variable's levels)
    names          what reports call the two variables
    cells          the group S whose statistics are kept (mask or indices; default: the inner cells)
    """

    first: CTAProblem
    second: CTAProblem
    names: tuple[str, str] = ("first", "second")
    cells: CellSelection | None = None

    def __post_init__(self) -> None:
        first, second = self.first, self.second
        n = first.n_cells
        if second.n_cells != n:
            raise ProblemError(f"{self.names[1]} has {second.n_cells} cells, {self.names[0]} {n}: "
                               "two variables must share one table structure")
        if first.relations.shape != second.relations.shape or (first.relations != second.relations).nnz:
            raise ProblemError(f"{self.names[0]} and {self.names[1]} have different relations: two variables "
                               "must share one table structure")
        names = tuple(str(name) for name in self.names)
        if len(names) != 2 or not all(names) or names[0] == names[1]:
            raise ProblemError(f"the two variables need two different names, not {self.names!r}")
        object.__setattr__(self, "names", names)
        chosen = inner_cells(first) if self.cells is None else self.cells
        cells = cell_indices(chosen, n, "cells whose statistics are kept")
        if cells.size < 2:
            raise ProblemError("the statistics of a group of fewer than 2 cells cannot be kept")
        cells.flags.writeable = False
        object.__setattr__(self, "cells", cells)

    @property
    def n_cells(self) -> int:
        return self.first.n_cells

    @property
    def kept_cells(self) -> np.ndarray:
        """The group S as cell indices: ``cells`` as __post_init__ resolved it."""
        return np.asarray(self.cells)

    @functools.cached_property
    def second_scale(self) -> float:
        """The power of two the stacked problem multiplies b by, so both blocks are in one unit
        (the solvers' absolute tolerances then mean the same in both)."""
        return table_unit(self.first) / table_unit(self.second)

    @functools.cached_property
    def stacked(self) -> CTAProblem:
        """One CTAProblem of 2n cells: a's cells, then b's times second_scale (weights divided by it,
        so each cell costs what it costs in its own problem), relations block-diagonal."""
        first, second, k, n = self.first, self.second, self.second_scale, self.n_cells
        m = first.n_relations

        def cell_label(i: int) -> str:
            variable, cell = (0, i) if i < n else (1, i - n)
            own = (first, second)[variable].cell_label
            return f"{self.names[variable]}: {own(cell) if own is not None else f'cell {cell}'}"

        def relation_label(r: int) -> str:
            variable, row = (0, r) if r < m else (1, r - m)
            own = (first, second)[variable].relation_label
            return f"{self.names[variable]}: {own(row) if own is not None else 'table relation'}"

        return CTAProblem(
            values=np.concatenate([first.values, k * second.values]),
            relations=sp.block_diag((first.relations, second.relations), format="csr"),
            rhs=np.concatenate([first.rhs, k * second.rhs]),
            lower=np.concatenate([first.lower, k * second.lower]),
            upper=np.concatenate([first.upper, k * second.upper]),
            weights=np.concatenate([first.weights, second.weights / k]),
            fixed=np.concatenate([first.fixed, second.fixed]),
            sensitive=np.concatenate([first.sensitive, second.sensitive + n]),
            lower_protection=np.concatenate([first.lower_protection, k * second.lower_protection]),
            upper_protection=np.concatenate([first.upper_protection, k * second.upper_protection]),
            senses=np.concatenate([first.senses, second.senses]),
            cell_label=cell_label, relation_label=relation_label)

    def split(self, stacked_values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(x_a, x_b) of a stacked table (2n,), b back in its own unit."""
        n = self.n_cells
        values = np.asarray(stacked_values, dtype=float)
        return values[:n].copy(), values[n:2 * n] / self.second_scale

    def split_senses(self, senses: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(a's senses, b's senses) of the stacked problem's senses."""
        s = self.first.n_sensitive
        return np.asarray(senses[:s], np.int8), np.asarray(senses[s:], np.int8)

    def statistic(self, key: str) -> str:
        """What a target's key (variance_a, variance_b, covariance) is called: Var(turnover), ..."""
        first, second = self.names
        return {"variance_a": f"Var({first})", "variance_b": f"Var({second})",
                "covariance": f"Cov({first}, {second})"}[key]

    def quality(self, first_values: np.ndarray, second_values: np.ndarray) -> PairQuality:
        """The figures of the kept group for adjusted tables x_a, x_b (quality.pair_quality)."""
        return pair_quality("kept cells", self.first, self.second, first_values, second_values, self.kept_cells)


@dataclasses.dataclass(frozen=True)
class _Moments:
    """The originals over the kept group S: centred values, variances, covariance (Cox 2005a, §3-4)."""

    cells: np.ndarray
    centred_a: np.ndarray
    centred_b: np.ndarray
    var_a: float
    var_b: float
    cov: float

    @classmethod
    def of(cls, a: np.ndarray, b: np.ndarray, cells: np.ndarray) -> _Moments:
        ca, cb = a[cells] - a[cells].mean(), b[cells] - b[cells].mean()
        t = cells.size
        return cls(cells, ca, cb, float(ca @ ca) / t, float(cb @ cb) / t, float(ca @ cb) / t)

    @property
    def t(self) -> int:
        return int(self.cells.size)

    def changes(self, y: np.ndarray, z: np.ndarray) -> dict[str, float]:
        """Exact relative changes (fractions) of Var(a), Var(b) and Cov(a, b) for adjustments y, z (n,)."""
        ys, zs = y[self.cells] - y[self.cells].mean(), z[self.cells] - z[self.cells].mean()
        t = self.t
        return {"variance_a": (2 * self.centred_a @ ys + ys @ ys) / (t * self.var_a),
                "variance_b": (2 * self.centred_b @ zs + zs @ zs) / (t * self.var_b),
                "covariance": (self.centred_b @ ys + self.centred_a @ zs + ys @ zs) / (t * abs(self.cov))}

    def tangents(self, y: np.ndarray, z: np.ndarray) -> dict[str, tuple[np.ndarray, np.ndarray, float]]:
        """Per statistic, its tangent at (y, z): (coefficients on y over S, on z over S, offset),
        so change(y', z') ~ cy . y'_S + cz . z'_S + offset, exact where it is linear."""
        ys, zs = y[self.cells] - y[self.cells].mean(), z[self.cells] - z[self.cells].mean()
        t, zero = self.t, np.zeros(self.t)
        ta, tb, tc = t * self.var_a, t * self.var_b, t * abs(self.cov)
        return {"variance_a": (2 * (self.centred_a + ys) / ta, zero, -(ys @ ys) / ta),
                "variance_b": (zero, 2 * (self.centred_b + zs) / tb, -(zs @ zs) / tb),
                "covariance": ((self.centred_b + zs) / tc, (self.centred_a + ys) / tc, -(ys @ zs) / tc)}


@dataclasses.dataclass(frozen=True)
class BivariateResult:
    """What solve_bivariate returns.

    first, second   each variable's result: its table verified against its own problem with
                    the senses it took (CTAResult.verified), its weighted L1 distance
    quality         the kept group's figures (None without both tables)
    targets_met     every target holds for the returned tables (within TARGET_RTOL)
    changes         the targets' percent changes: variance_a, variance_b, covariance
    senses_shared   cells sensitive in both variables whose senses were made one
    iterations      rounds of the approach behind the tables returned (0: the stacked problem's own
                    table, when no round found a better one)
    """

    approach: str
    method: str
    status: Status
    message: str
    first: CTAResult
    second: CTAResult
    quality: PairQuality | None
    targets_met: bool
    changes: dict[str, float]
    senses_shared: int
    iterations: int
    seconds: float
    log: str = ""

    @property
    def verified(self) -> bool:
        return self.first.verified and self.second.verified

    @property
    def protected(self) -> bool:
        return self.first.protected and self.second.protected

    @property
    def objective(self) -> float:
        """Both variables' weighted L1 distances, added."""
        return self.first.objective + self.second.objective


# ------------------------------------------------------------------------------------ terms
def _said(problem: BivariateProblem, changes: dict[str, float], kept: dict[str, float]) -> str:
    """'Var(a) +0.12 %, ...' for the log."""
    return ", ".join(f"{problem.statistic(name)} {100 * changes[name]:+.4g} %" for name in kept)


def _excess(changes: dict[str, float], targets: dict[str, float]) -> float:
    """The largest |change| / target over the kept statistics (<= 1: every target met)."""
    return max((abs(changes[name]) / target for name, target in targets.items()), default=0.0)


# ------------------------------------------------------------------------------ solve
def solve_bivariate(problem: BivariateProblem, method: str = "milp", options: SolveOptions = SolveOptions(),
                    approach: str = "direct", targets: BivariateTargets = BivariateTargets(),
                    shared_senses: bool = False, max_iterations: int = MAX_ITERATIONS) -> BivariateResult:
    """Protect both variables of ``problem`` keeping the targets (module docstring): candidate senses
    from solves of the stacked problem with ``method`` (a registry name), ``approach`` from each,
    the best kept (targets met with least distance, else least excess).  ``shared_senses``: one
    sense per cell sensitive in both variables.  options.parameters are ``method``'s; the time
    limit covers the whole run."""
    if approach not in APPROACHES:
        raise ProblemError(f"approach '{approach}': choose one of {', '.join(APPROACHES)}")
    started = time.perf_counter()
    distance = registered(method).model.distance
    options = options.begun()
    moments = _Moments.of(problem.first.values, problem.second.values, problem.kept_cells)
    kept = _kept(moments, targets, problem.names)
    log: list[str] = []
    stacked = _with_means(problem.stacked, problem, targets.mean)
    run_method = STEP_METHODS[distance] if approach == "alternating" else f"direct ({distance.value})"
    best, best_key = None, None
    for label, start, senses, is_table in _candidate_senses(problem, stacked, moments, kept, method, options, log):
        senses_a, senses_b = problem.split_senses(senses)
        key = _key(moments.changes(*start), kept, problem, start)
        if is_table and (best_key is None or key < best_key):    # the stacked table, should nothing beat it
            best, best_key = (start, (senses_a, senses_b), 0, 0), key
        shared = 0
        if shared_senses:
            senses_a, senses_b, shared = _shared(problem, senses_a, senses_b)
            log.append(f"{label}: {shared} cells sensitive in both variables take one sense for both")
        if approach == "alternating":
            deviations, rounds = _alternating(problem, moments, kept, targets.mean, (senses_a, senses_b), start,
                                              run_method, options, max_iterations, log)
        else:
            deviations, rounds = _direct(problem, stacked, moments, kept, np.concatenate([senses_a, senses_b]),
                                         start, distance, options, max_iterations, log)
        if deviations is None:
            log.append(f"{label}: no protected table for both variables")
            continue
        key = _key(moments.changes(*deviations), kept, problem, deviations)
        log.append(f"{label}: " + ("targets met" if not key[0] else f"excess {key[1]:.4g} x target")
                   + f", distance {key[2]:.6g}")
        if best_key is None or key < best_key:
            best, best_key = (deviations, (senses_a, senses_b), shared, rounds), key
        if options.cancelled():
            break
    if best is None:
        no_senses = (np.zeros(problem.first.n_sensitive, np.int8), np.zeros(problem.second.n_sensitive, np.int8))
        return _result(problem, approach, run_method, moments, kept, None, no_senses, 0, 0, started, log)
    deviations, senses, shared, rounds = best
    return _result(problem, approach, run_method, moments, kept, deviations, senses, shared, rounds, started, log)


def _key(changes: dict[str, float], kept: dict[str, float], problem: BivariateProblem,
         deviations: tuple[np.ndarray, np.ndarray] | list[np.ndarray]) -> tuple[bool, float, float]:
    """How good a pair of adjustments is: (a target missed, by how much, distance): smaller is better."""
    excess = _excess(changes, kept)
    missed = excess > 1 + TARGET_RTOL
    distance = sum(float(p.weights @ np.abs(d)) for p, d in zip((problem.first, problem.second), deviations))
    return missed, excess if missed else 0.0, distance


def _kept(moments: _Moments, targets: BivariateTargets, names: tuple[str, str]) -> dict[str, float]:
    """The kept statistics and their targets as fractions; ProblemError where one is undefined."""
    kept = {}
    if targets.variance is not None:
        for name, variance in zip(names, (moments.var_a, moments.var_b)):
            if variance <= 0:
                raise ProblemError(f"{name}: the kept cells all have one value; its variance (0) cannot be kept "
                                   "in percent")
        kept["variance_a"] = kept["variance_b"] = targets.variance / 100
    if targets.covariance is not None:
        if moments.cov == 0:
            raise ProblemError(f"Cov({names[0]}, {names[1]}) is 0 over the kept cells: its percent change "
                               "is undefined")
        kept["covariance"] = targets.covariance / 100
    return kept


def _with_means(stacked: CTAProblem, problem: BivariateProblem, mean: bool) -> CTAProblem:
    """The stacked problem with each variable's sum over the kept cells fixed (Cox 2005a, model (2))."""
    if not mean:
        return stacked
    once = preserve(stacked, mean=True, cells=problem.kept_cells)
    return preserve(once, mean=True, cells=problem.kept_cells + problem.n_cells)


def _stacked_terms(problem: BivariateProblem, moments: _Moments, kept: dict[str, float], y: np.ndarray,
                   z: np.ndarray) -> list[LinearTerm]:
    """The targets' tangents at (y, z) -- at 0 their linear parts 2 L(y), 2 L(z) and Cox 2005a, (5)'s
    Cov(a, z) + Cov(b, y), relative -- as LinearTerms over the stacked cells within the targets
    (b's coefficients per unit of the stacked b: divided by second_scale), with their offsets."""
    n, cells = problem.n_cells, problem.kept_cells
    terms = []
    for name, (cy, cz, offset) in moments.tangents(y, z).items():
        if name in kept:
            coefficients = np.zeros(2 * n)
            coefficients[cells] = cy
            coefficients[n + cells] = cz / problem.second_scale
            terms.append(LinearTerm(f"change of {problem.statistic(name)}", coefficients, -kept[name], kept[name],
                                    offset=offset))
    return terms


def _candidate_senses(problem: BivariateProblem, stacked: CTAProblem, moments: _Moments, kept: dict[str, float],
                      method: str, options: SolveOptions, log: list[str]):
    """Senses chosen jointly: the stacked problem solved by ``method`` without targets, then with the
    targets' tangents as terms at that table and at the table found with them (so the senses also
    see the second-order part |y~|^2 of the variance change: a Cox-recipe table's own adjustments
    move Var far past any target).  Yields (label, y and z of the table found, as the
    start of the approach, its senses, True) per protected table; (label, 0, 0, the ordering
    heuristic's senses, False) when none is found.  Each solve takes at most its SENSES_SHARES of the time left."""
    zero = np.zeros(problem.n_cells)
    found = 0
    start = (zero, zero)
    labels = ("without targets", "with the targets' tangents", "with the targets' tangents, again")
    for label, fraction in zip(labels, SENSES_SHARES):
        extended = with_terms(stacked, _stacked_terms(problem, moments, kept, *start) if found else [])
        share = options.within(options.started_budget.child(fraction=fraction))
        result = extended.restrict(solve(extended.problem, method, share))
        log.append(f"senses {label}, the stacked problem by '{method}': {result.message}")
        if options.cancelled() or not result.verified:
            break
        found += 1
        x_a, x_b = problem.split(result.table())
        start = (x_a - problem.first.values, x_b - problem.second.values)
        yield f"senses {label}", start, np.asarray(result.senses, np.int8), True
    if not found and not options.cancelled():
        log.append("senses: the ordering heuristic's")
        yield "senses of the ordering heuristic", (zero, zero), ordering_senses(stacked), False


def _shared(problem: BivariateProblem, senses_a: np.ndarray,
            senses_b: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """One sense for a cell sensitive in both variables (module docstring): the variable whose
    protection level is the larger share of the cell's value decides; a given or bound-forced
    sense is kept (and then leads).  Returns (a's senses, b's senses, cells changed)."""
    first, second = problem.first, problem.second
    both = np.intersect1d(first.sensitive, second.sensitive)
    ka, kb = np.searchsorted(first.sensitive, both), np.searchsorted(second.sensitive, both)
    set_a, set_b = first.effective_senses[ka] != SENSE_FREE, second.effective_senses[kb] != SENSE_FREE

    def share(p: CTAProblem, k: np.ndarray) -> np.ndarray:
        level = np.maximum(p.lower_protection[k], p.upper_protection[k])
        return level / np.maximum(np.abs(p.values[p.sensitive[k]]), 1e-300)

    a_leads = set_a | (~set_b & (share(first, ka) >= share(second, kb)))
    chosen = np.where(a_leads, senses_a[ka], senses_b[kb])
    new_a, new_b = senses_a.copy(), senses_b.copy()
    new_a[ka] = np.where(set_a, senses_a[ka], chosen)
    new_b[kb] = np.where(set_b, senses_b[kb], chosen)
    return new_a, new_b, int(np.count_nonzero((new_a[ka] != senses_a[ka]) | (new_b[kb] != senses_b[kb])))


# ------------------------------------------------------------------------- alternating
def _step(problem: CTAProblem, moments: _Moments, kept: dict[str, float], own: int, mean: bool,
          senses: np.ndarray, deviations: list[np.ndarray], step_method: str,
          options: SolveOptions) -> tuple[CTAResult, str]:
    """One alternating step: variable ``own`` (0: a, 1: b) solved with the other's adjustment fixed
    and the targets' tangents as terms.  The covariance change is linear in the step's variable and
    kept within its target; a variance change is its tangent plus |y - y_k~|^2/(t Var) >= 0, so its
    tangent is kept within [-target, 0], leaving the target's width to that second-order part.
    Failing that: no worse than now (the current table meets that when it is protected with these
    senses); failing that, no terms."""
    fixed = problem.with_senses(senses)
    base = preserve(fixed, mean=True, cells=moments.cells) if mean else fixed
    y, z = deviations
    current = moments.changes(y, z)
    tangents = moments.tangents(y, z)
    other = deviations[1 - own]

    def solved(terms: list[LinearTerm]) -> CTAResult:
        extended = with_terms(base, terms)
        return extended.restrict(solve(extended.problem, step_method, options))

    for attempt in ("targets", "no worse than now"):
        terms = []
        for name, tangent in tangents.items():
            if name not in kept or not np.any(tangent[own]):
                continue
            coefficients = np.zeros(problem.n_cells)
            coefficients[moments.cells] = tangent[own]
            high = 0.0 if name.startswith("variance") else kept[name]
            low, high = (-kept[name], high) if attempt == "targets" else \
                (min(-kept[name], current[name]), max(high, current[name]))
            terms.append(LinearTerm(f"change of {name}", coefficients, low, high,
                                    offset=tangent[2] + float(tangent[1 - own] @ other[moments.cells])))
        result = solved(terms)
        if result.verified or options.cancelled():
            return result, attempt
    return solved([]), "without targets"


def _along(moments: _Moments, kept: dict[str, float], own: int, deviations: list[np.ndarray], new: np.ndarray,
           weights: np.ndarray) -> float:
    """The share of the way from variable ``own``'s adjustment to the step's ``new`` one to go:
    with the senses fixed every point between two protected tables is protected, and the exact
    statistics along the way are quadratic, so the grid point that meets the targets with least
    distance is taken (failing that, the one with the least excess)."""
    best, best_key = 1.0, None
    for share in np.linspace(0.0, 1.0, LINE_POINTS)[1:]:
        moved = list(deviations)
        moved[own] = deviations[own] + share * (new - deviations[own])
        excess = _excess(moments.changes(*moved), kept)
        missed = excess > 1 + TARGET_RTOL
        key = (missed, excess if missed else 0.0, float(weights @ np.abs(moved[own])))
        if best_key is None or key < best_key:
            best, best_key = float(share), key
    return best


def _alternating(problem: BivariateProblem, moments: _Moments, kept: dict[str, float], mean: bool,
                 senses: tuple[np.ndarray, np.ndarray], start: tuple[np.ndarray, np.ndarray], step_method: str,
                 options: SolveOptions, max_iterations: int,
                 log: list[str]) -> tuple[tuple[np.ndarray, np.ndarray] | None, int]:
    """Cox 2005a, §4.1: fix z, solve for y; fix y, solve for z; until the targets hold (each step
    taken as far as _along says).  Returns the best pair of protected adjustments seen (targets
    met with least distance, else least excess), or None, and the rounds run."""
    problems = (problem.first, problem.second)
    # a step's table is a point to move from, not a release: no search for the fewest changed cells
    own_parameters = {parameter.name for parameter in registered(step_method).parameters}
    parameters = {"fewest_changes": False} if "fewest_changes" in own_parameters else {}
    step_options = dataclasses.replace(options, on_progress=None, parameters=parameters)
    deviations = [start[0].copy(), start[1].copy()]
    protected = [False, False]
    best, best_key, iterations = None, None, 0
    for iteration in range(1, max_iterations + 1):
        iterations = iteration
        for own in (0, 1):
            result, said = _step(problems[own], moments, kept, own, mean, senses[own], deviations, step_method,
                                 step_options)
            log.append(f"round {iteration}, {problem.names[own]} ({said}): {result.message}")
            if result.verified:
                new = result.values - problems[own].values
                share = _along(moments, kept, own, deviations, new, problems[own].weights) if protected[own] else 1.0
                deviations[own] = deviations[own] + share * (new - deviations[own])
                protected[own] = True
            if options.cancelled():
                break
        changes = moments.changes(*deviations)
        log.append(f"round {iteration}: " + _said(problem, changes, kept))
        if all(protected):
            key = _key(changes, kept, problem, deviations)
            if best_key is not None and not key < best_key and not key[0]:
                break                                  # met, and no longer getting closer
            if best_key is None or key < best_key:
                best, best_key = (deviations[0].copy(), deviations[1].copy()), key
        if options.cancelled():
            break
    return best, iterations


# ------------------------------------------------------------------------------ direct
class _Columns:
    """Affine expressions of the stacked cells' deviations in the columns of solvers/conic.py's
    model: a movable cell is its column, a cell that may not move is its one value."""

    def __init__(self, problem: CTAProblem, senses: np.ndarray) -> None:
        lower, upper = deviation_box(problem, senses)
        movable = lower < upper
        self.column = np.where(movable, np.cumsum(movable) - 1, -1)
        self.fixed_deviation = np.where(movable, 0.0, lower)

    def rows(self, cells: np.ndarray, coefficients: np.ndarray, width: int,
             extra: tuple[int, float] | None = None) -> tuple[sp.csc_array, np.ndarray]:
        """A (len(cells) x width) matrix M and constant c with (M x + c)_r = coefficients_r * dev(cells_r)
        (+ extra[1] * x[extra[0]])."""
        r = np.arange(cells.size)
        column = self.column[cells]
        moving = column >= 0
        rows, cols, data = [r[moving]], [column[moving]], [coefficients[moving]]
        if extra is not None:
            rows.append(r)
            cols.append(np.full(r.size, extra[0]))
            data.append(np.full(r.size, extra[1]))
        matrix = sp.csc_array((np.concatenate(data), (np.concatenate(rows), np.concatenate(cols))),
                              shape=(cells.size, width))
        return matrix, np.where(moving, 0.0, coefficients * self.fixed_deviation[cells])

    def linear(self, cells: np.ndarray, coefficients: np.ndarray, width: int) -> tuple[np.ndarray, float]:
        """(g, g0) with g . x + g0 = coefficients . dev(cells)."""
        matrix, constant = self.rows(cells, coefficients, width)
        return np.asarray(matrix.sum(axis=0)).reshape(-1), float(constant.sum())


def _rotated_cone(vector: sp.csc_array, vector_constant: np.ndarray, bound: np.ndarray,
                  bound_constant: float) -> tuple[sp.csc_array, np.ndarray]:
    """Rows (A, b) of |v|^2 <= u, v = V x + v0, u = g . x + u0, as the second-order cone
    (u + 1, 2v, u - 1) (clarabel: b - A x in the cone)."""
    g = sp.csc_array(bound.reshape(1, -1))
    A = sp.vstack([-g, -2 * vector, -g], format="csc")
    return A, np.concatenate([[bound_constant + 1], 2 * vector_constant, [bound_constant - 1]])


def _quality_model(problem: CTAProblem, senses: np.ndarray, n: int, cells: np.ndarray, kept: dict[str, float],
                   reference: np.ndarray, base: Callable, price: float) -> Callable:
    """A solvers/conic.py model builder: ``base``'s model (the distance) with the direct approach's
    constraints over the stacked problem's cells (module docstring), the concave parts replaced by
    their tangents at the stacked deviations ``reference`` (2n,); columns for the two means and for
    an excess e >= 0 over every target, charged ``price`` per unit (penalty convex-concave)."""
    columns = _Columns(problem, senses)
    moments = _Moments.of(problem.values[:n], problem.values[n:2 * n], cells)
    t = moments.t
    y_ref, z_ref = reference[:n], reference[n:2 * n]
    tangents = moments.tangents(y_ref, z_ref)

    def build(weights, feasible, rhs, cones):
        P, q, A, b, cones = base(weights, feasible, rhs, cones)
        width = A.shape[1] + 3
        mean_a, mean_b, excess = width - 3, width - 2, width - 1
        loosened = np.zeros(width)          # + e in every target's bound
        loosened[excess] = 1.0
        blocks, constants, extra_cones = [], [], []

        def add(rows, constant, cone):
            blocks.append(sp.csc_array(rows))
            constants.append(np.atleast_1d(constant))
            extra_cones.append(cone)

        def centred(offset: int, mean_column: int, scale: float) -> tuple[sp.csc_array, np.ndarray]:
            return columns.rows(cells + offset, np.full(t, scale), width, (mean_column, -scale))

        means_rows, means_rhs = [], []
        for offset, column in ((0, mean_a), (n, mean_b)):   # t * mean - sum over the group = 0
            row, constant = columns.linear(cells + offset, -np.ones(t), width)
            row[column] += t
            means_rows.append(row)
            means_rhs.append(-constant)
        add(np.array(means_rows), np.array(means_rhs), clarabel.ZeroConeT(2))
        add(-loosened.reshape(1, -1), 0.0, clarabel.NonnegativeConeT(1))
        for name, offset, column, centred_original, variance in (
                ("variance_a", 0, mean_a, moments.centred_a, moments.var_a),
                ("variance_b", n, mean_b, moments.centred_b, moments.var_b)):
            if name not in kept:
                continue
            own = tangents[name][0 if offset == 0 else 1]
            g, g0 = columns.linear(cells + offset, own, width)      # tangent of the change >= -target
            add(-(g + loosened).reshape(1, -1), kept[name] + g0 + tangents[name][2], clarabel.NonnegativeConeT(1))
            g, g0 = columns.linear(cells + offset, 2 * centred_original / (t * variance), width)
            vector, vector_constant = centred(offset, column, 1 / math.sqrt(t * variance))
            add(*_rotated_cone(vector, vector_constant, loosened - g, kept[name] - g0),
                clarabel.SecondOrderConeT(t + 2))
        if "covariance" in kept:
            c = abs(moments.cov)
            s = (moments.var_b / moments.var_a) ** 0.25
            root = math.sqrt(4 * t * c)
            g_y, g_y0 = columns.linear(cells, moments.centred_b / (t * c), width)
            g_z, g_z0 = columns.linear(cells + n, moments.centred_a / (t * c), width)
            g, g0 = g_y + g_z, g_y0 + g_z0
            ys, ys0 = centred(0, mean_a, s / root)
            zs, zs0 = centred(n, mean_b, 1 / (s * root))
            y_centred = y_ref[cells] - y_ref[cells].mean()
            z_centred = z_ref[cells] - z_ref[cells].mean()
            for sign in (1, -1):
                # sign 1:  lin + |P|^2 - |Q|^2 <= target,  P = (s y~ + z~/s)/root, Q = (s y~ - z~/s)/root
                # sign -1: -lin + |Q|^2 - |P|^2 <= target;  the subtracted square by its tangent at the reference
                other = (s * y_centred - sign * z_centred / s) / root
                h_y, h_y0 = columns.linear(cells, 2 * s * other / root, width)
                h_z, h_z0 = columns.linear(cells + n, -sign * 2 * other / (s * root), width)
                affine = sign * g - (h_y + h_z)
                affine0 = sign * g0 - (h_y0 + h_z0) + float(other @ other)
                add(*_rotated_cone(ys + sign * zs, ys0 + sign * zs0, loosened - affine, kept["covariance"] - affine0),
                    clarabel.SecondOrderConeT(t + 2))
        A = sp.vstack([sp.hstack([A, sp.csc_array((A.shape[0], 3))]), *blocks], format="csc")
        P = sp.block_diag((P, sp.csc_array((3, 3))), format="csc")
        return P, np.concatenate([q, [0.0, 0.0, price]]), A, np.concatenate([b, *constants]), cones + extra_cones

    return build


def _direct(problem: BivariateProblem, stacked: CTAProblem, moments: _Moments, kept: dict[str, float],
            senses: np.ndarray, start: tuple[np.ndarray, np.ndarray], distance: Distance, options: SolveOptions,
            max_rounds: int, log: list[str]) -> tuple[tuple[np.ndarray, np.ndarray] | None, int]:
    """The direct approach (module docstring) on the stacked problem in table units (ctadesk.engine.table.units):
    rounds of the convex program, the concave parts by their tangents at ``start`` (y, z), then at
    each round's table, an excess over the targets priced at EXCESS_PRICE times the start's distance
    per target's width; until the targets hold and the distance stops falling.  Returns the best
    (y, z) (targets met with least distance, else least excess), or None, and the rounds run."""
    fixed = stacked.with_senses(senses)
    unit, weight = table_unit(fixed), weight_unit(fixed)
    scaled = in_units(fixed, unit, weight)
    n = problem.n_cells
    objective: Objective
    if distance is Distance.L2:
        base, objective = l2_model, squares
    else:
        delta = HUBER_DELTA / unit if distance is Distance.HUBER else 0.0
        base, objective = cone_model(delta), pseudo_huber(delta)
    reference = np.concatenate([start[0], problem.second_scale * start[1]]) / unit
    levels = np.maximum(scaled.lower_protection, scaled.upper_protection)
    scale = max(objective(scaled.weights, reference),
                objective(scaled.weights[scaled.sensitive], levels), 1e-12)
    price = EXCESS_PRICE * scale / min(kept.values(), default=1.0)
    best, best_key, rounds = None, None, 0
    while rounds < max_rounds and not options.cancelled():
        rounds += 1
        builder = _quality_model(scaled, senses, n, problem.kept_cells, kept, reference, base, price)
        result = solve_conic(scaled, options, senses, "direct", builder, objective, check_optimal=False)
        if not result.verified or "fallback" in result.info:
            log.append(f"direct, round {rounds}: no table ({result.message})")
            break
        deviation = (result.values - scaled.values) * unit
        y, z = deviation[:n], deviation[n:2 * n] / problem.second_scale
        changes = moments.changes(y, z)
        key = _key(changes, kept, problem, (y, z))
        log.append(f"direct, round {rounds}: {_said(problem, changes, kept)}, distance {key[2]:.6g}")
        improved = best_key is None or key < best_key
        if improved:
            best = (y, z)
        if not key[0] and best_key is not None and not best_key[0] and key[2] >= best_key[2] * (1 - DIRECT_RTOL):
            break
        if improved:
            best_key = key
        reference = result.values - scaled.values
    return best, rounds


# ------------------------------------------------------------------------------ result
def _result(problem: BivariateProblem, approach: str, method: str, moments: _Moments, kept: dict[str, float],
            deviations: tuple[np.ndarray, np.ndarray] | None, senses: tuple, shared: int, iterations: int,
            started: float, log: list[str]) -> BivariateResult:
    """Each variable's table verified against its own problem, the targets checked on them."""
    problems = (problem.first, problem.second)
    seconds = time.perf_counter() - started
    per_variable = [finish(p, method, Status.FEASIBLE if deviations is not None else Status.NOT_FOUND,
                           None if deviations is None else p.values + d, started=started, build_seconds=0.0,
                           solve_seconds=seconds, senses=s)
                    for p, d, s in zip(problems, deviations or (None, None), senses)]
    first, second = per_variable
    quality, met, percent = None, False, {}
    if deviations is not None:
        quality = problem.quality(first.table(), second.table())
        changes = moments.changes(*deviations)
        met = bool(_excess(changes, kept) <= 1 + TARGET_RTOL)
        percent = {name: 100 * float(value) for name, value in changes.items()}
    if first.verified and second.verified:
        status = Status.FEASIBLE
        said = "every target met" if met else "NOT every target met: " + ", ".join(
            f"{problem.statistic(name)} {percent[name]:+.3g} % (target {100 * kept[name]:g} %)"
            for name in kept if abs(percent[name]) > 100 * kept[name] * (1 + TARGET_RTOL))
        message = f"{describe(Status.FEASIBLE)} for both variables; {said}"
    elif deviations is None:
        status, message = Status.NOT_FOUND, "no protected table for both variables with the senses chosen"
    else:
        status = Status.NOT_PROTECTED
        message = "; ".join(f"{name}: {r.message}" for name, r in zip(problem.names, per_variable) if not r.verified)
    return BivariateResult(approach, method, status, message, first, second, quality, met, percent, shared,
                           iterations, time.perf_counter() - started, "".join(f"{line}\n" for line in log))


__all__ = ["APPROACHES", "BivariateProblem", "BivariateResult", "BivariateTargets", "solve_bivariate"]
