"""Linear side conditions on the adjustments, carried as auxiliary cells so every method honours them.

A quality term of Cox (2005) (Cox 2005a) is a linear function of the adjustments y = x - a,
t(y) = c . y: the mean change of a group of cells (model (2)), L(y) = Cov(a, y)/Var(a) (§3), the
covariance terms Cov(a, z) + Cov(b, y) of the bivariate models (4)-(5).  Model (3) bounds or
minimises |t(y)| with one more variable w >= +-t(y).  ctadesk adds that variable as one more *cell*
of the table, after the table's own:

    value 0,  relation  s c . x - w = s c . a - s offset  (so w = s t(y)),  bounds [s lower, s upper],
    weight  weight / s  (so the L1 objective gains weight * |t(y)|, model (3)'s  min w)

with s = 1 / max|c| so the relation's coefficients are of the table's size (under the L2 and
pseudo-Huber distances the auxiliary cell's change s t(y) is charged as any cell's, so a weighted
term costs weight * s * t(y)^2 there, not weight * |t(y)|).  Being an ordinary
cell in an ordinary relation, it is taken without change by the MILP, the fixed-sense LP/QP,
the heuristics and the verifier; ``Extended.restrict`` takes the auxiliary cells off a result.
A hard term (t(y) = target exactly) is better written as a plain relation (quality.preserve):
it then survives rounding to the published precision, which works on the table's own cells.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp

from ctadesk.engine.errors import ProblemError
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.publish.verify import verify
from ctadesk.engine.result import CTAResult
from ctadesk.engine.solvers.finish import weighted_l1


@dataclasses.dataclass(frozen=True)
class LinearTerm:
    """t(y) = coefficients . (x - a) + offset, kept within [lower, upper] and charged weight * |t(y)|.

    coefficients  dense (n,) over the table's cells (zeros where a cell takes no part)
    name          how messages and reports call it, e.g. "|L(y)| of inner cells"
    offset        a constant part: the bivariate models' contribution of the variable held fixed
                  (Cox 2005a, §4); the original table then need not meet the term
    """

    name: str
    coefficients: np.ndarray
    lower: float = -math.inf
    upper: float = math.inf
    weight: float = 0.0
    offset: float = 0.0

    def __post_init__(self) -> None:
        c = np.array(self.coefficients, dtype=float, copy=True).reshape(-1)
        if not np.all(np.isfinite(c)):
            raise ProblemError(f"{self.name}: a coefficient is NaN or infinite")
        c.flags.writeable = False
        object.__setattr__(self, "coefficients", c)
        if math.isnan(self.lower) or math.isnan(self.upper) or self.lower > self.upper:
            raise ProblemError(f"{self.name}: bounds [{self.lower:g}, {self.upper:g}] are empty")
        if not math.isfinite(self.offset):
            raise ProblemError(f"{self.name}: offset {self.offset:g} must be finite")
        if not (0 <= self.weight < math.inf):
            raise ProblemError(f"{self.name}: weight {self.weight:g} must be finite and >= 0")
        if self.lower > 0 or self.upper < 0:
            raise ProblemError(f"{self.name}: bounds [{self.lower:g}, {self.upper:g}] exclude the original "
                               "table (t = 0); a term bounds a change")

    def value(self, original: np.ndarray, adjusted: np.ndarray) -> float:
        """t(y) for the adjusted table."""
        return float(self.coefficients @ (np.asarray(adjusted, dtype=float)[: self.coefficients.size] - original)
                     + self.offset)


@dataclasses.dataclass(frozen=True)
class Extended:
    """A table with linear terms added as auxiliary cells (module docstring).

    base      the table as given
    problem   the table with one auxiliary cell and one relation per term
    terms     the terms, in the order of their auxiliary cells
    """

    base: CTAProblem
    problem: CTAProblem
    terms: tuple[LinearTerm, ...]

    def term_values(self, values: np.ndarray) -> np.ndarray:
        """t(y) of every term for adjusted table values (n,) or extended values (n + k,)."""
        x = np.asarray(values, dtype=float)[: self.base.n_cells]
        return np.array([term.value(self.base.values, x) for term in self.terms])

    def restrict(self, result: CTAResult) -> CTAResult:
        """``result`` (for ``problem``) as a result for ``base``: the table's own cells, the
        weighted L1 distance on them, the terms' values in info["terms"].

        The verification is the base table's when the extended one passed (the terms' bounds
        held), else the extended one's, whose violations name the term.  With a weighted term the
        method's bound is a bound on distance + weighted terms, not on the distance: it moves to
        info["bound_with_terms"] and the result claims no bound.
        """
        if result.values is None:
            return result
        n = self.base.n_cells
        values = np.array(result.values[:n], dtype=float)
        verification = result.verification
        if verification is not None and verification.ok:
            verification = verify(self.base, values, result.senses)
        info = {**result.info, "terms": {term.name: t for term, t in zip(self.terms, self.term_values(values))},
                "objective_with_terms": result.objective}
        bound, gap = result.bound, result.gap
        if any(term.weight > 0 for term in self.terms):
            info["bound_with_terms"] = bound
            bound, gap = None, None
        return result.replace(values=values, objective=weighted_l1(self.base, values), bound=bound, gap=gap,
                              verification=verification, info=info)


def with_terms(problem: CTAProblem, terms: Sequence[LinearTerm]) -> Extended:
    """``problem`` with each term as an auxiliary cell (module docstring)."""
    terms = tuple(terms)
    n, k, m = problem.n_cells, len(terms), problem.n_relations
    if k == 0:
        return Extended(problem, problem, ())
    rows, cols, data, lower, upper, weights, offsets = [], [], [], [], [], [], []
    for r, term in enumerate(terms):
        c = term.coefficients
        if c.size != n:
            raise ProblemError(f"{term.name}: {c.size} coefficients for a table of {n} cells")
        cells = np.flatnonzero(c)
        if cells.size == 0:
            raise ProblemError(f"{term.name}: the term involves no cell")
        scale = 1.0 / float(np.abs(c[cells]).max())
        rows.append(np.full(cells.size + 1, r))
        cols.append(np.append(cells, n + r))
        data.append(np.append(scale * c[cells], -1.0))
        lower.append(scale * term.lower)
        upper.append(scale * term.upper)
        weights.append(term.weight / scale)
        offsets.append(scale * term.offset)
    extra = sp.csr_array((np.concatenate(data), (np.concatenate(rows), np.concatenate(cols))), shape=(k, n + k))
    relations = sp.vstack([sp.hstack([problem.relations, sp.csr_array((m, k))]), extra], format="csr")
    rhs = np.concatenate([problem.rhs, extra[:, :n] @ problem.values - np.array(offsets)])
    base_cell, base_relation = problem.cell_label, problem.relation_label

    def cell_label(i: int) -> str:
        if i >= n:
            return f"quality term: {terms[i - n].name}"
        return base_cell(i) if base_cell is not None else f"cell {i}"

    def relation_label(r: int) -> str:
        if r >= m:
            return f"definition of quality term: {terms[r - m].name}"
        return base_relation(r) if base_relation is not None else "table relation"

    extended = CTAProblem(
        values=np.concatenate([problem.values, np.zeros(k)]), relations=relations, rhs=rhs,
        lower=np.concatenate([problem.lower, lower]), upper=np.concatenate([problem.upper, upper]),
        weights=np.concatenate([problem.weights, weights]), sensitive=problem.sensitive,
        lower_protection=problem.lower_protection, upper_protection=problem.upper_protection,
        fixed=np.concatenate([problem.fixed, np.zeros(k, bool)]), senses=problem.senses,
        cell_label=cell_label, relation_label=relation_label)
    return Extended(problem, extended, terms)
