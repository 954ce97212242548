"""Quality terms on one variable a statistician sets: the mean of a group of cells, the variance
term L(y) and the correlation Corr(a, x), each kept hard, within a bound or at a price (issue 16).

Cox (2005), *Quality-preserving controlled tabular adjustment* (Cox 2005a, §3).  Over a group S of
t cells with original values a, mean ā, adjustments y = x - a:

    mean change   m(y) = (1/t) sum_S y_i                               (model (2): m(y) = 0)
    L(y)          Cov(a, y)/Var(a) = sum_S (a_i - ā) y_i / sum_S (a_i - ā)^2      (§3, model (3))
                  = (slope of x on a) - 1, and Var(x)/Var(a) = 1 + 2 L(y) + Var(y)/Var(a)
    correlation   Corr(a, x) >= rho  <=>  g(x) = rho ||a_c|| ||C x|| - a_c . C x <= 0,
                  C the centring on S, a_c = C a: a norm minus a linear function, so convex

Modes:

    hard      m(y) = 0 or L(y) = 0 as a plain relation (quality.preserve): every method keeps it,
              and the published precision too where its coefficients are whole numbers (the mean)
    bounded   |m(y)| <= bound, in table units (the group's mean moves by at most ``bound``);
              |L(y)| <= bound (the slope of x on a within 1 +- bound); Corr(a, x) >= bound (rho)
    weighted  the distance gains weight * |m(y)| or weight * |L(y)| (model (3)'s min w, priced)

Bounded and weighted mean and L terms are auxiliary cells (engine/quality/auxiliary.py), so every method
honours them.  Under the L2 and pseudo-Huber distances a weighted term's auxiliary cell is charged
in that distance like any cell.  The correlation target is reached by outer approximation
(Kelley's cutting planes): solve; while Corr(a, x) < rho, add a linearisation of g,
grad g(z) . x <= 0, as one more bounded linear term and solve again, at most ``rounds`` times.  z
is the point where the segment from the original table to x crosses Corr = rho (the supporting
hyperplane variant, correlation_cut).  g is convex and positively homogeneous, so every cut holds
for every table with Corr >= rho: the problem with cuts is a relaxation, its bound is a bound for
the problem asked, and a table meeting the target at the end solves it.  Cutting planes approach
a curved set from outside and may need many rounds; a target still missed is said so.  The
*price* of a term is the distance with all terms minus the distance without it (one more solve
each; exact only when both solves are optimal).
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ctadesk.engine.errors import ProblemError
from ctadesk.engine.model import Distance
from ctadesk.engine.problem import SENSE_DOWN, SENSE_UP, CTAProblem
from ctadesk.engine.publish.precision import model_objective, published_or_why
from ctadesk.engine.quality.auxiliary import Extended, LinearTerm, with_terms
from ctadesk.engine.quality.measures import inner_cells, preserve
from ctadesk.engine.result import CTAResult, SolveOptions, Status, relative_gap
from ctadesk.engine.settings import HUBER_DELTA
from ctadesk.engine.solvers.finish import finish, senses_of
from ctadesk.engine.table.structure import TableStructure

#: the measures a term keeps: the mean change m(y), the variance term L(y), Corr(a, x)
MEASURES = ("mean", "L", "correlation")
#: how a term is kept
MODES = ("hard", "bounded", "weighted")
#: other names the text form of a term accepts for a measure
MEASURE_NAMES = {"mean": "mean", "l": "L", "variance": "L", "slope": "L", "correlation": "correlation",
                 "corr": "correlation"}
#: cutting-plane rounds of a correlation target at most
CUT_ROUNDS = 10
#: a term counts as met within this share of its scale sum_S |c_i a_i| (solvers' tolerances)
MET_RTOL = 1e-6
#: ... and within this share on a published table, whose numbers are exact: only floating-point sums
PUBLISHED_RTOL = 1e-12
#: a correlation counts as reaching its target within this
CORRELATION_TOL = 1e-9
#: the group a term covers when it names none
INNER = "inner cells"

Solve = Callable[[CTAProblem, SolveOptions], CTAResult]
_SYMBOLS = {"mean": "mean change", "L": "L(y)", "correlation": "Corr(a, x)"}


def _shown(number: float | None) -> str:
    return "?" if number is None else f"{number:g}"


def size_class(problem: CTAProblem, low: float = -math.inf, high: float = math.inf,
               within: np.ndarray | None = None) -> np.ndarray:
    """The cells (default: the inner cells) whose original value lies in [low, high)."""
    cells = inner_cells(problem) if within is None else np.asarray(within, dtype=np.int64)
    values = problem.values[cells]
    return cells[(values >= low) & (values < high)]


def slice_cells(structure: TableStructure, dimension: str, code: str) -> np.ndarray:
    """The inner cells of one row, column or slice: the cells whose code on ``dimension`` is ``code``
    and that are leaves on every other dimension (ProblemError naming the unknown name)."""
    names = [d.name for d in structure.dimensions]
    if dimension not in names:
        raise ProblemError(f"the table has no dimension '{dimension}' (its dimensions: {', '.join(names)})")
    d = names.index(dimension)
    position = structure.dimensions[d].index(code)
    coordinates = np.unravel_index(np.arange(structure.n_cells), structure.shape)
    keep = coordinates[d] == position
    for other, dim in enumerate(structure.dimensions):
        if other != d:
            keep &= dim.is_leaf[coordinates[other]]
    return np.flatnonzero(keep)


def parse_term(text: str, problem: CTAProblem, structure: TableStructure | None = None) -> QualityTerm:
    """The term a text names: MEASURE[:MODE][:NUMBER][@GROUP], e.g. 'L:bounded:0.001', 'mean:hard',
    'correlation:0.999', 'L:weighted:1000', 'mean:bounded:5@R=3'.

    MEASURE  mean, L (also: variance, slope) or correlation (corr)
    MODE     hard, bounded or weighted; left out: hard without a number, bounded with one
    NUMBER   the bound (bounded), the target (correlation) or the weight (weighted)
    GROUP    inner (default), all, size=LO..HI (inner cells with LO <= value < HI, either end may be
             left out), cells=I,J,... (0-based cell positions), DIM=CODE (the inner cells of one row,
             column or slice; needs the table's structure)

    ProblemError naming the text when it names no term.
    """
    try:
        return _parsed(text, problem, structure)
    except ProblemError as error:
        raise ProblemError(f"quality term '{text}': {error}") from None


def _parsed(text: str, problem: CTAProblem, structure: TableStructure | None) -> QualityTerm:
    body, _, group_text = text.partition("@")
    words = [word.strip() for word in body.split(":")]
    measure = MEASURE_NAMES.get(words[0].lower())
    if measure is None:
        raise ProblemError(f"unknown measure '{words[0]}'; choose from {', '.join(MEASURES)}")
    mode = words[1].lower() if len(words) > 1 and words[1].lower() in MODES else None
    numbers = words[1 + (mode is not None):]
    if len(numbers) > 1 or (numbers and not numbers[0]):
        raise ProblemError("expected MEASURE[:MODE][:NUMBER][@GROUP]")
    try:
        number = float(numbers[0]) if numbers else None
    except ValueError:
        raise ProblemError(f"'{numbers[0]}' is neither a mode ({', '.join(MODES)}) nor a number") from None
    mode = mode or ("hard" if number is None and measure != "correlation" else "bounded")
    if mode == "hard" and number is not None:
        raise ProblemError("a hard term takes no number")
    cells, group = _group(group_text.strip(), problem, structure)
    term = QualityTerm(measure, mode, bound=number if mode == "bounded" else None,
                       weight=number if mode == "weighted" else None, cells=cells, group=group)
    term.group_cells(problem)
    return term


def _group(text: str, problem: CTAProblem, structure: TableStructure | None) -> tuple[tuple[int, ...] | None, str]:
    """(cells, name) of the group text of parse_term."""
    if text in ("", "inner"):
        return None, INNER
    if text == "all":
        return tuple(range(problem.n_cells)), "all cells"
    key, sep, value = text.partition("=")
    if not sep:
        raise ProblemError(f"group '{text}' is not inner, all, size=LO..HI, cells=I,J,... or DIM=CODE")
    key, value = key.strip(), value.strip()
    if key == "size":
        low, dots, high = value.partition("..")
        try:
            low_value = float(low) if low.strip() else -math.inf
            high_value = float(high) if high.strip() else math.inf
        except ValueError:
            low_value = high_value = math.nan
        if not dots or math.isnan(low_value) or math.isnan(high_value):
            raise ProblemError(f"size class '{value}' is not LO..HI")
        cells = size_class(problem, low_value, high_value)
        name = f"cells of size [{low_value:g}, {high_value:g})"
    elif key == "cells":
        try:
            cells = np.array([int(word) for word in value.split(",") if word.strip()], dtype=np.int64)
        except ValueError:
            raise ProblemError(f"cells '{value}' are not whole numbers") from None
        name = f"cells {value}"
    elif structure is None:
        raise ProblemError(f"group '{text}' names a slice of a table without dimensions")
    else:
        cells = slice_cells(structure, key, value)
        name = text
    if cells.size == 0:
        raise ProblemError(f"the group '{text}' has no cells")
    return tuple(int(i) for i in cells), name


@dataclasses.dataclass(frozen=True)
class QualityTerm:
    """One quality term (module docstring).

    measure  'mean', 'L' or 'correlation'
    mode     'hard', 'bounded' or 'weighted' (a correlation is 'bounded': a target)
    bound    bounded: |m(y)| <= bound in table units, |L(y)| <= bound, or Corr(a, x) >= bound
    weight   weighted: the distance gains weight * |m(y)| or weight * |L(y)|
    cells    the group S, cell indices (None: the table's inner cells)
    group    what the group is called in reports ("inner cells", "R=3", "cells of size [0, 100)")
    """

    measure: str
    mode: str = "hard"
    bound: float | None = None
    weight: float | None = None
    cells: tuple[int, ...] | None = None
    group: str = INNER

    def __post_init__(self) -> None:
        if self.measure not in MEASURES:
            raise ProblemError(f"quality term: unknown measure '{self.measure}'; choose from {', '.join(MEASURES)}")
        if self.mode not in MODES:
            raise ProblemError(f"{self.name}: unknown mode '{self.mode}'; choose from {', '.join(MODES)}")
        if self.cells is not None:
            cells = np.unique(np.asarray(self.cells, dtype=np.int64).reshape(-1))
            if cells.size == 0 or cells[0] < 0:
                raise ProblemError(f"{self.name}: the group has no cells" if cells.size == 0 else
                                   f"{self.name}: cell {int(cells[0])} does not exist")
            object.__setattr__(self, "cells", tuple(int(i) for i in cells))
        if self.measure == "correlation" and self.mode != "bounded":
            raise ProblemError(f"{self.name}: a correlation is kept as a target (mode 'bounded', bound = the "
                               "lowest Corr(original, adjusted) allowed)")
        if self.mode == "bounded":
            self._check_bound()
        elif self.bound is not None:
            raise ProblemError(f"{self.name}: a bound belongs to a bounded term")
        if self.mode == "weighted":
            if self.weight is None or not (0 < self.weight < math.inf):
                raise ProblemError(f"{self.name}: a weighted term needs a finite weight > 0")
        elif self.weight is not None:
            raise ProblemError(f"{self.name}: a weight belongs to a weighted term")

    def _check_bound(self) -> None:
        bound = self.bound
        if bound is None or math.isnan(bound):
            raise ProblemError(f"{self.name}: a bounded term needs a bound")
        if self.measure == "correlation" and not 0 < bound < 1:
            raise ProblemError(f"{self.name}: the target must lie strictly between 0 and 1 (Corr = 1 asks "
                               "x = alpha a + beta on the whole group)")
        if self.measure != "correlation" and not 0 <= bound < math.inf:
            raise ProblemError(f"{self.name}: the bound must be finite and >= 0")

    @property
    def limit(self) -> float:
        """The most |m(y)| or |L(y)| may be (0 when hard, the bound when bounded), or the
        correlation target; a weighted term has none (ProblemError)."""
        if self.mode == "hard":
            return 0.0
        if self.bound is None:
            raise ProblemError(f"{self.name}: a weighted term has no bound")
        return self.bound

    @property
    def price(self) -> float:
        """A weighted term's weight; another term has none (ProblemError)."""
        if self.weight is None:
            raise ProblemError(f"{self.name}: only a weighted term has a weight")
        return self.weight

    # ------------------------------------------------------------------ naming
    @property
    def name(self) -> str:
        """What messages and reports call the term, e.g. '|L(y)| <= 0.001 over inner cells'."""
        what = _SYMBOLS.get(self.measure, self.measure)
        bound, weight = _shown(self.bound), _shown(self.weight)
        if self.mode == "hard":
            condition = f"{what} = 0"
        elif self.mode == "bounded":
            condition = f"{what} >= {bound}" if self.measure == "correlation" else f"|{what}| <= {bound}"
        else:
            condition = f"|{what}| weighted {weight}"
        return f"{condition} over {self.group}"

    def as_dict(self) -> dict[str, Any]:
        """The plain dictionary a project file keeps."""
        return {"measure": self.measure, "mode": self.mode, "bound": self.bound, "weight": self.weight,
                "cells": None if self.cells is None else list(self.cells), "group": self.group}

    @classmethod
    def from_dict(cls, fields: Mapping[str, Any]) -> QualityTerm:
        """The term of as_dict (ProblemError naming an unknown key)."""
        unknown = set(fields) - {f.name for f in dataclasses.fields(cls)}
        if unknown:
            raise ProblemError(f"quality term: unknown setting '{sorted(unknown)[0]}'")
        settings = dict(fields)
        for key in ("bound", "weight"):
            if settings.get(key) is not None:
                settings[key] = float(settings[key])
        if settings.get("cells") is not None:
            settings["cells"] = tuple(int(i) for i in settings["cells"])
        return cls(**settings)

    # -------------------------------------------------------------- the group
    def group_cells(self, problem: CTAProblem) -> np.ndarray:
        """The cell indices of the group S in ``problem`` (ProblemError naming the term)."""
        if self.cells is None:
            cells = inner_cells(problem)
        else:
            cells = np.asarray(self.cells, dtype=np.int64)
            if cells[-1] >= problem.n_cells:
                raise ProblemError(f"{self.name}: cell {int(cells[-1])} does not exist "
                                   f"(the table has cells 0..{problem.n_cells - 1})")
        if cells.size < 2 and self.measure != "mean":
            raise ProblemError(f"{self.name}: the group needs at least two cells")
        if self.measure != "mean" and np.ptp(problem.values[cells]) == 0:
            raise ProblemError(f"{self.name}: the group's cells all have the same value (its variance is 0)")
        return cells

    def resolved(self, problem: CTAProblem) -> QualityTerm:
        """This term with its group as explicit cells of ``problem`` (the inner cells are read off
        the table's own relations, before any term adds one)."""
        return dataclasses.replace(self, cells=tuple(int(i) for i in self.group_cells(problem)))

    # ------------------------------------------------------------ the measure
    def coefficients(self, problem: CTAProblem) -> np.ndarray:
        """c (n,) with m(y) or L(y) = c . y (module docstring); zero outside the group."""
        if self.measure == "correlation":
            raise ProblemError(f"{self.name}: a correlation is no linear function of the adjustments")
        cells = self.group_cells(problem)
        c = np.zeros(problem.n_cells)
        if self.measure == "mean":
            c[cells] = 1.0 / cells.size
        else:
            centred = problem.values[cells] - problem.values[cells].mean()
            c[cells] = centred / float(centred @ centred)
        return c

    def value(self, problem: CTAProblem, values: np.ndarray) -> float:
        """m(y) (table units), L(y) or Corr(a, x) of the table ``values`` against ``problem``'s."""
        x = np.asarray(values, dtype=float)[: problem.n_cells]
        if self.measure == "mean":  # sums first: a group whose sum is kept shows exactly 0
            cells = self.group_cells(problem)
            return float((x[cells].sum() - problem.values[cells].sum()) / cells.size)
        if self.measure == "L":
            return float(self.coefficients(problem) @ (x - problem.values))
        return correlation(problem.values, x, self.group_cells(problem))

    def met(self, problem: CTAProblem, value: float, rtol: float = MET_RTOL) -> bool | None:
        """Whether ``value`` (from QualityTerm.value) meets the term within the tolerances (``rtol``,
        CORRELATION_TOL); None for a weighted term, which has no target."""
        if self.mode == "weighted":
            return None
        if self.measure == "correlation":
            return bool(value >= self.limit - CORRELATION_TOL)
        c = self.coefficients(problem)
        slack = rtol * max(float(np.abs(c) @ np.abs(problem.values)), float(np.abs(c).max()))
        return bool(abs(value) <= self.limit + slack)

    # ----------------------------------------------------------- as a model
    def linear_term(self, problem: CTAProblem) -> LinearTerm:
        """A bounded or weighted mean or L term as an auxiliary cell's term (engine/quality/auxiliary.py)."""
        c = self.coefficients(problem)
        if self.mode == "bounded":
            return LinearTerm(self.name, c, -self.limit, self.limit)
        return LinearTerm(self.name, c, weight=self.price)


def correlation(original: np.ndarray, adjusted: np.ndarray, cells: np.ndarray) -> float:
    """Corr(a, x) over ``cells`` (NaN when x is constant there)."""
    a = original[cells] - original[cells].mean()
    x = adjusted[cells] - adjusted[cells].mean()
    norms = math.sqrt(float(a @ a) * float(x @ x))
    return float(a @ x) / norms if norms > 0 else math.nan


def correlation_cut(term: QualityTerm, problem: CTAProblem, values: np.ndarray, number: int) -> LinearTerm:
    """A supporting hyperplane of {Corr(a, x) >= rho} separating the table ``values`` (module
    docstring) as a bounded linear term: every table with Corr(a, x) >= rho on the group meets it,
    ``values`` does not.

    The cut is g's linearisation at the point z of the segment from the original table (Corr 1)
    to ``values`` where Corr = rho (the supporting hyperplane method of Veinott 1967; Kelley's
    cut at ``values`` itself is weaker and makes the rounds zigzag).  In y = x - a, with
    u = rho z_c/||z_c|| - a_c/||a_c||:  u . y <= ||a_c|| (1 - rho Corr(a, z)).
    """
    cells = term.group_cells(problem)
    a = problem.values[cells] - problem.values[cells].mean()
    y = np.asarray(values, dtype=float)[cells] - problem.values[cells]
    y = y - y.mean()
    norm_a = math.sqrt(float(a @ a))

    def g(step: float) -> float:
        z = a + step * y
        return term.limit * norm_a * math.sqrt(float(z @ z)) - float(a @ z)

    # g(0) = (rho - 1) ||a||^2 < 0: the root in [0, 1] by bisection, to 1e-14 (scipy.optimize's
    # brentq cost 0.3-1 s to import and 18 MB of the installer, for this one root)
    low, step = 0.0, 1.0
    if g(1.0) > 0:
        while step - low > 1e-14:
            middle = 0.5 * (low + step)
            low, step = (middle, step) if g(middle) < 0 else (low, middle)
    z = a + step * y
    norm_z = math.sqrt(float(z @ z))
    c = np.zeros(problem.n_cells)
    c[cells] = term.limit * z / norm_z - a / norm_a
    reached = float(a @ z) / (norm_a * norm_z)
    return LinearTerm(f"cut {number} of {term.name}", c, upper=max(0.0, norm_a * (1.0 - term.limit * reached)))


def hard_relations(problem: CTAProblem, terms: Sequence[QualityTerm]) -> CTAProblem:
    """``problem`` with the hard terms' relations appended (quality.preserve, Cox 2005a, model (2)
    and L(y) = 0), each over its own group (read off ``problem`` before any relation is added)."""
    for term in [term.resolved(problem) for term in terms]:
        if term.mode == "hard":
            problem = preserve(problem, mean=term.measure == "mean", variance=term.measure == "L",
                               cells=term.group_cells(problem))
    return problem


def terms_problem(problem: CTAProblem, terms: Sequence[QualityTerm]) -> Extended:
    """``problem`` with every hard term's relation and every bounded or weighted mean/L term's
    auxiliary cell: the model a method is handed in the first round (choose_method reads it)."""
    terms = [term.resolved(problem) for term in terms]
    hard = hard_relations(problem, terms)
    return with_terms(hard, [term.linear_term(problem) for term in terms
                             if term.mode != "hard" and term.measure != "correlation"])


@dataclasses.dataclass(frozen=True)
class TermOutcome:
    """What one term reached.

    value   m(y) in table units, L(y), or Corr(a, x), on the table reported
    met     whether the term holds there (None: a weighted term, which has no target)
    price   the distance with every term minus the distance without this one (None: not asked
            for, a solve without it found no table, or a correlation target was missed, so the
            distances are not those of tables keeping the terms -- price_note says which)
    rounds  cutting-plane rounds a correlation term took (None for the others)
    """

    term: QualityTerm
    value: float
    met: bool | None
    price: float | None = None
    price_note: str = ""
    rounds: int | None = None

    def line(self) -> str:
        """One line for the log."""
        measure = _SYMBOLS[self.term.measure]
        verdict = {True: "met", False: "NOT met", None: "priced"}[self.met]
        text = f"quality term {self.term.name}: {measure} {self.value:.6g}, {verdict}"
        if self.rounds is not None:
            text += f" after {self.rounds} cutting-plane round{'s' * (self.rounds != 1)}"
        if self.price is not None:
            text += f"; price {self.price:.6g} in distance"
        elif self.price_note:
            text += f"; {self.price_note}"
        return text

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready (NaN as None)."""
        def plain(number: float | None) -> float | None:
            return None if number is None or not math.isfinite(number) else float(number)

        return {"term": self.term.name, "measure": self.term.measure, "mode": self.term.mode,
                "group": self.term.group, "bound": plain(self.term.bound), "weight": plain(self.term.weight),
                "value": plain(self.value), "met": self.met, "price": plain(self.price),
                "price_note": self.price_note or None, "rounds": self.rounds}


@dataclasses.dataclass(frozen=True)
class TermsReport:
    """Per term: the value reached, its bound or target, met or not, its price (TermOutcome).

    distance  the weighted L1 distance of the solve with every term (before any rounding)
    notes     what the solve did besides: cutting-plane rounds, a round without a table
    """

    outcomes: tuple[TermOutcome, ...]
    distance: float
    notes: tuple[str, ...] = ()

    @property
    def met(self) -> bool:
        """Every term with a bound or target holds."""
        return all(outcome.met is not False for outcome in self.outcomes)

    def evaluated(self, problem: CTAProblem, values: np.ndarray, rtol: float = MET_RTOL) -> TermsReport:
        """The same report with each term's value and verdict on the table ``values`` (e.g. the
        published one, after rounding, judged within PUBLISHED_RTOL); prices and rounds are the solve's."""
        outcomes = []
        for outcome in self.outcomes:
            value = outcome.term.value(problem, values)
            outcomes.append(dataclasses.replace(outcome, value=value, met=outcome.term.met(problem, value, rtol)))
        return dataclasses.replace(self, outcomes=tuple(outcomes))

    def lines(self) -> list[str]:
        return [*self.notes, *(outcome.line() for outcome in self.outcomes)]

    def as_dict(self) -> dict[str, Any]:
        return {"distance": self.distance if math.isfinite(self.distance) else None, "met": self.met,
                "terms": [outcome.as_dict() for outcome in self.outcomes], "notes": list(self.notes)}


def solve_with_terms(problem: CTAProblem, terms: Sequence[QualityTerm], solve_fn: Solve,
                     options: SolveOptions = SolveOptions(), *, price: bool = False,
                     rounds: int = CUT_ROUNDS) -> tuple[CTAResult, TermsReport]:
    """Protect ``problem`` keeping ``terms`` (module docstring) with ``solve_fn(problem, options)``,
    any method; with ``price`` each term's price by one more solve without it.

    Returns the result for hard_relations(problem, terms) -- the table's own cells, its weighted L1
    distance, verified with the hard terms' relations and the bounded terms' bounds -- and the
    TermsReport.  Each solve gets ``options`` as they are: a time limit holds per solve, unless
    the options carry a begun budget, which all solves then share.  A correlation target still
    missed after ``rounds`` rounds is said so in the report and in the result's message, and an
    "optimal" claim then becomes "feasible" (optimal for the relaxation only).
    """
    terms = [term.resolved(problem) for term in terms]
    result, reached, notes = _solve(problem, terms, solve_fn, options, rounds)
    prices: list[tuple[float | None, str]] = [(None, "")] * len(terms)
    if price and result.values is not None:
        prices = []
        for i in range(len(terms)):
            if options.cancelled():
                prices.append((None, "price not computed: cancelled"))
                continue
            others = terms[:i] + terms[i + 1:]
            without, _, _ = _solve(problem, others, solve_fn, options, rounds)
            if without.values is None:
                prices.append((None, f"no price: without it no table was found ({without.message})"))
            elif _misses_target(problem, terms, result) or _misses_target(problem, others, without):
                prices.append((None, "no price: a correlation target is missed, so the distances compared are "
                                     "not those of tables keeping the terms"))
            else:
                prices.append((_difference(result.objective, without.objective), ""))
    outcomes = []
    for term, (term_price, note), taken in zip(terms, prices, reached):
        if result.values is None:
            value, met = math.nan, (None if term.mode == "weighted" else False)
        else:
            value = term.value(problem, result.values)
            met = term.met(problem, value)
        outcomes.append(TermOutcome(term, value, met, term_price, note,
                                    taken if term.measure == "correlation" else None))
    report = TermsReport(tuple(outcomes), result.objective, tuple(notes))
    missed = [outcome for outcome in outcomes if outcome.term.measure == "correlation" and outcome.met is False]
    if missed and result.values is not None:
        said = "; ".join(f"{o.term.name} not reached: {o.value:.9g} after {o.rounds} cutting-plane rounds"
                         for o in missed)
        status = Status.FEASIBLE if result.status is Status.OPTIMAL else result.status
        result = result.replace(status=status, message=f"{result.message}; {said}" if result.message else said)
    return result, report


#: a price within this share of the distances is their rounding, not a cost
PRICE_ROUNDING = 1e-12


def _difference(with_term: float, without: float) -> float:
    """with_term - without; 0 where it is only the rounding of two equal optima (-7.1e-15 on 20)."""
    difference = with_term - without
    return 0.0 if abs(difference) <= PRICE_ROUNDING * max(abs(with_term), abs(without)) else difference


def _misses_target(problem: CTAProblem, terms: Sequence[QualityTerm], result: CTAResult) -> bool:
    return any(term.measure == "correlation" and not term.met(problem, term.value(problem, result.table()))
               for term in terms)


def _solve(problem: CTAProblem, terms: Sequence[QualityTerm], solve_fn: Solve, options: SolveOptions,
           rounds: int) -> tuple[CTAResult, list[int], list[str]]:
    """One solve with ``terms`` (resolved): the result for hard_relations(problem, terms), the
    cutting-plane rounds each term took (0 but for correlation targets), notes on the rounds.

    Every round's table is a protected table of the problem with the hard relations and the
    bounded terms; of the rounds, the one that meets every correlation target is returned, and
    when none does, the one that misses them by least (the sum of the shortfalls).
    """
    first = terms_problem(problem, terms)
    hard, linear = first.base, list(first.terms)
    targets = [i for i, term in enumerate(terms) if term.measure == "correlation"]
    cuts: list[LinearTerm] = []
    taken = [0] * len(terms)
    notes: list[str] = []
    best: tuple[float, CTAResult] | None = None
    while True:
        extended = with_terms(hard, linear + cuts)
        result = extended.restrict(solve_fn(extended.problem, options))
        if result.values is None:
            if best is None:
                return result, taken, notes
            proven = " (proven: no protected table reaches the target)" if result.status is Status.INFEASIBLE else ""
            notes.append(f"cutting-plane round {max(taken)} found no table{proven}: {result.message}")
            break
        reached = {i: terms[i].value(problem, result.values) for i in targets}
        short = [i for i in targets if not terms[i].met(problem, reached[i])]
        shortfall = sum(terms[i].limit - reached[i] for i in short)
        if best is None or shortfall < best[0]:
            best = (shortfall, result)
        if not short or max(taken) == rounds or options.cancelled():
            break
        for i in short:
            taken[i] += 1
            cuts.append(correlation_cut(terms[i], problem, result.values, taken[i]))
            notes.append(f"cutting-plane round {taken[i]}: {terms[i].name}: Corr(a, x) {reached[i]:.9g}, one more cut")
        options = dataclasses.replace(options, start_senses=result.senses)
    if best[1] is not result:
        notes.append(f"the table kept is the closest to the correlation target{'s' * (len(targets) > 1)} "
                     f"of all rounds (short by {best[0]:.3g})")
    return best[1], taken, notes


def rounded_near(problem: CTAProblem, result: CTAResult, decimals: int,
                 options: SolveOptions = SolveOptions()) -> tuple[CTAResult | None, str]:
    """The protected table at 10^-decimals nearest the solved table ``result`` (weighted L1 from
    it, not from the original), or (None, why): precision.at_precision on the problem whose values
    are the solved table, whose bounds hold each sensitive cell beyond its safe value on the side
    it took, and which has no sensitive cell.  At_precision itself starts again from the original
    values, which undoes what the quality terms bought; this one moves them as little as the grid
    must."""
    started = time.perf_counter()
    senses = senses_of(problem, result.table())
    cells = problem.sensitive
    lower, upper = problem.lower.copy(), problem.upper.copy()
    up, down = senses == SENSE_UP, senses == SENSE_DOWN
    # a safe value that is the cell's bound may lie an ulp past it (a + (bound - a)): the bound holds
    lower[cells[up]] = np.clip(problem.values[cells[up]] + problem.upper_protection[up], lower[cells[up]],
                               upper[cells[up]])
    upper[cells[down]] = np.clip(problem.values[cells[down]] - problem.lower_protection[down], lower[cells[down]],
                                 upper[cells[down]])
    solved = np.clip(result.table(), lower, upper)
    near = CTAProblem(values=solved, relations=problem.relations, rhs=problem.rhs, lower=lower, upper=upper,
                      weights=problem.weights, fixed=problem.fixed, cell_label=problem.cell_label,
                      relation_label=problem.relation_label)
    start = finish(near, result.method, Status.FEASIBLE, solved, started=started, build_seconds=0.0, solve_seconds=0.0)
    rounded, why = published_or_why(near, start, decimals, options)
    if rounded is None:
        return None, why
    info = {**result.info, "decimals": decimals, "rounded_from": result.objective,
            "precision_from": "the grid table nearest the solved one"}
    status = Status.FEASIBLE if result.status is Status.OPTIMAL else result.status
    published = finish(problem, result.method, status, rounded.values, started=started, build_seconds=0.0,
                       solve_seconds=time.perf_counter() - started, senses=senses, info=info)
    if not published.verified:
        return None, published.message
    message = (f"protected table at {decimals} decimal{'s' * (decimals != 1)}, {published.info['cells_changed']} "
               "cells changed; the grid table nearest the solved one; verified")
    return published.replace(message=message, bound=result.bound,
                             gap=None if result.bound is None else relative_gap(published.objective, result.bound)), \
        message


def published_with_terms(problem: CTAProblem, result: CTAResult, decimals: int, report: TermsReport,
                         options: SolveOptions = SolveOptions(), distance: Distance = Distance.L1,
                         delta: float = HUBER_DELTA) -> tuple[CTAResult | None, str]:
    """``result`` at 10^-decimals keeping the quality terms of ``report`` (which are for
    ``result``): of the table precision.at_precision finds for the ``distance`` model (from the
    original values for L1, a controlled rounding of the model's table otherwise) and the one
    nearest the solved table (rounded_near), those on which every term that held still holds, the
    one of least model objective + sum weight |t| over the weighted terms; (None, why) when neither."""
    candidates, reasons = [], []
    at_grid = published_or_why(problem, result, decimals, options, distance, delta)
    for how, (found, why) in (("found again from the original", at_grid),
                              ("nearest the solved one", rounded_near(problem, result, decimals, options))):
        if found is None:
            reasons.append(why)
            continue
        after = report.evaluated(problem, found.table(), PUBLISHED_RTOL)
        broken = [f"{was.term.name} ({now.value:.6g})"
                  for was, now in zip(report.outcomes, after.outcomes) if was.met and now.met is False]
        if broken:
            reasons.append(f"the table at that precision {how} breaks the quality term {'; '.join(broken)}")
            continue
        priced = sum(o.term.price * abs(o.value) for o in after.outcomes if o.term.mode == "weighted")
        candidates.append((model_objective(problem, found.table(), distance, delta) + priced, found))
    if not candidates:
        return None, "; ".join(dict.fromkeys(reasons))
    best = min(candidates, key=lambda candidate: candidate[0])[1]
    return best, best.message


__all__ = ["CUT_ROUNDS", "INNER", "MEASURES", "MODES", "QualityTerm", "TermOutcome", "TermsReport", "correlation",
           "correlation_cut", "hard_relations", "parse_term", "published_with_terms",
           "rounded_near", "size_class", "slice_cells", "solve_with_terms",
           "terms_problem"]
