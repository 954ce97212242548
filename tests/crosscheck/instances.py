"""Seeded random CTA instances for the cross-check, and a hypothesis strategy over their parameters.

An instance is fully determined by a ``Spec`` (``build(spec)``); ``spec_for(seed, index)``
draws a Spec deterministically from (seed, index), the benchmark's way to name an
instance, and ``specs()`` is the hypothesis strategy over the same parameters.

What the generator covers: 1-4 dimensions with totals, hierarchical dimensions
(ctadesk.engine.table.structure.Dimension.from_levels), 3 to ~300 cells, zero cells,
cells at their bounds, magnitudes from 1e-3 to 1e7 (mixed within one table, and a
few negative cells), bounds nonneg / near (a capacity) / huge (1e9) / the 1e20
"no bound" marker / inf / a mix, nonzero right-hand sides (published totals that
are not the sum of their parts, relations with non-unit coefficients, a shifted
rhs the original table does not satisfy), symmetric, asymmetric, one-sided and
zero protection levels, given senses, fixed cells, non-unit and a few zero
weights, and deliberately infeasible instances (a sensitive cell pinned by fixed
neighbours).  CTAProblem may refuse an instance (ProblemError): ``Instance.refusal``.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import scipy.sparse as sp

from ctadesk.engine.errors import ProblemError
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.table.structure import Dimension, TableStructure

DIMENSIONS = (1, 2, 3, 4)
SIZES = ("tiny", "small", "medium")
MAGNITUDES = ("unit", "small", "large", "mixed")
BOUNDS = ("inf", "nonneg", "near", "huge", "marker", "mixed")
RHS = ("zero", "published", "scaled", "shift")
PROTECTIONS = ("symmetric", "asymmetric", "one-sided", "zero")
WEIGHTS = ("unit", "random", "inverse", "some-zero")

#: log10 range of the inner values per magnitude
_EXPONENTS = {"unit": (0.0, 3.0), "small": (-3.0, -1.0), "large": (4.0, 7.0), "mixed": (-3.0, 7.0)}
#: inner codes per dimension, by size and dimension count
_INNER = {
    "tiny": {1: (2, 3), 2: (2, 3), 3: (2, 2), 4: (2, 2)},
    "small": {1: (3, 12), 2: (2, 6), 3: (2, 3), 4: (2, 2)},
    "medium": {1: (12, 60), 2: (5, 15), 3: (3, 5), 4: (2, 3)},
}


@dataclasses.dataclass(frozen=True)
class Spec:
    """Everything that determines one instance (build(spec) is deterministic)."""

    seed: int = 0
    dimension: int = 2
    size: str = "tiny"
    hierarchical: bool = False
    magnitude: str = "unit"
    signed: bool = False
    zeros: bool = False
    bounds: str = "inf"
    at_bounds: bool = False
    rhs: str = "zero"
    protection: str = "symmetric"
    sensitive: int = 1
    given_senses: bool = False
    fixed: bool = False
    weights: str = "unit"
    infeasible: bool = False

    def code(self) -> str:
        """Python that rebuilds this instance."""
        fields = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in dataclasses.fields(self)
                           if getattr(self, f.name) != f.default)
        return f"build(Spec({fields})).problem"


@dataclasses.dataclass(frozen=True)
class Instance:
    spec: Spec
    problem: CTAProblem | None
    refusal: str | None = None
    structure: TableStructure | None = None
    label: str = ""


# ------------------------------------------------------------------ specs
def spec_for(seed: int, index: int, max_sensitive: int = 12) -> Spec:
    """The index-th instance of a run with this seed (deterministic)."""
    rng = np.random.default_rng([seed, index])
    pick = lambda options, p=None: options[int(rng.choice(len(options), p=p))]  # noqa: E731
    dimension = pick(DIMENSIONS, [0.2, 0.4, 0.25, 0.15])
    size = pick(SIZES, [0.3, 0.45, 0.25])
    return Spec(
        seed=int(rng.integers(0, 2**31)),
        dimension=dimension,
        size=size,
        hierarchical=bool(rng.random() < 0.3),
        magnitude=pick(MAGNITUDES, [0.35, 0.15, 0.2, 0.3]),
        signed=bool(rng.random() < 0.1),
        zeros=bool(rng.random() < 0.4),
        bounds=pick(BOUNDS),
        at_bounds=bool(rng.random() < 0.25),
        rhs=pick(RHS, [0.4, 0.2, 0.2, 0.2]),
        protection=pick(PROTECTIONS, [0.4, 0.3, 0.2, 0.1]),
        sensitive=int(rng.integers(1, max_sensitive + 1)),
        given_senses=bool(rng.random() < 0.3),
        fixed=bool(rng.random() < 0.3),
        weights=pick(WEIGHTS, [0.4, 0.25, 0.25, 0.1]),
        infeasible=bool(rng.random() < 0.05),
    )


def specs(sizes=("tiny", "small"), max_sensitive: int = 5):
    """A hypothesis strategy over Spec; simplest values first, so failures shrink towards them."""
    from hypothesis import strategies as st

    return st.builds(
        Spec,
        seed=st.integers(0, 2**16),
        dimension=st.sampled_from(DIMENSIONS[1:2] + DIMENSIONS[:1] + DIMENSIONS[2:]),
        size=st.sampled_from(sizes),
        hierarchical=st.booleans(),
        magnitude=st.sampled_from(MAGNITUDES),
        signed=st.booleans(),
        zeros=st.booleans(),
        bounds=st.sampled_from(BOUNDS),
        at_bounds=st.booleans(),
        rhs=st.sampled_from(RHS),
        protection=st.sampled_from(PROTECTIONS),
        sensitive=st.integers(1, max_sensitive),
        given_senses=st.booleans(),
        fixed=st.booleans(),
        weights=st.sampled_from(WEIGHTS),
        infeasible=st.integers(0, 2**16).map(lambda k: k % 10 == 7),  # about 5 % (bounded integers lean low)
    )


# ------------------------------------------------------------------ building
def _dimension(rng: np.random.Generator, name: str, low: int, high: int, hierarchical: bool) -> Dimension:
    if not hierarchical:
        return Dimension.flat(name, [str(k + 1) for k in range(int(rng.integers(low, high + 1)))])
    # a two- or three-level tree in pre-order: groups, their members, sometimes sub-members
    levels: list[int] = []
    codes: list[str] = []
    groups = int(rng.integers(2, 4 if high > 2 else 3))
    for g in range(groups):
        levels.append(1)
        codes.append(f"G{g + 1}")
        for c in range(int(rng.integers(2, max(3, min(high, 4)) + 1))):
            levels.append(2)
            codes.append(f"G{g + 1}.{c + 1}")
            if high > 3 and rng.random() < 0.25:
                for d in range(int(rng.integers(2, 4))):
                    levels.append(3)
                    codes.append(f"G{g + 1}.{c + 1}.{d + 1}")
    return Dimension.from_levels(name, levels, codes)


def build(spec: Spec) -> Instance:
    """The instance of spec; Instance.problem is None when CTAProblem refuses it."""
    rng = np.random.default_rng(spec.seed)
    low, high = _INNER[spec.size][spec.dimension]
    names = "RCLK"
    dims = [_dimension(rng, names[0], low, high, spec.hierarchical)]
    if spec.hierarchical and spec.dimension >= 3:  # keep hierarchical 3-D/4-D tables at a few hundred cells
        high = low
    dims += [_dimension(rng, names[d], low, high, False) for d in range(1, spec.dimension)]
    structure = TableStructure(tuple(dims))
    n = structure.n_cells
    inner = np.flatnonzero(structure.inner_mask())

    # ---- values
    lo, hi = _EXPONENTS[spec.magnitude]
    if spec.magnitude != "mixed":  # one table, one magnitude (a narrow band inside the range)
        lo = hi = rng.uniform(lo, hi)
        lo, hi = lo - 0.5, hi + 0.5
    raw = np.zeros(n)
    raw[inner] = np.round(10.0 ** rng.uniform(lo, hi, inner.size), 6)
    raw[inner] = np.where(raw[inner] == 0, 10.0 ** lo, raw[inner])
    if spec.zeros:
        raw[rng.choice(inner, size=max(1, int(0.2 * inner.size)), replace=False)] = 0.0
    if spec.signed and spec.bounds != "nonneg":
        flip = rng.choice(inner, size=max(1, inner.size // 8), replace=False)
        raw[flip] = -raw[flip]
    values = structure.aggregate(raw)
    relations = sp.csr_array(structure.relations())
    m = relations.shape[0]
    totals = np.flatnonzero(~structure.inner_mask())

    # ---- right-hand side
    rhs = np.zeros(m)
    if spec.rhs == "published" and totals.size:
        # published totals that differ from the sum of their parts; the relations say so
        change = rng.choice(totals, size=max(1, totals.size // 3), replace=False)
        values[change] += np.round(values[change] * rng.uniform(-0.02, 0.02, change.size)
                                   + rng.normal(0, 1, change.size), 3)
    if spec.rhs == "scaled" and m:  # relations with non-unit coefficients
        factor = np.ones(m)
        rows = rng.choice(m, size=max(1, m // 3), replace=False)
        factor[rows] = np.round(rng.uniform(0.25, 4.0, rows.size), 3)
        relations = sp.csr_array(sp.diags_array(factor) @ relations)
    consistent = relations @ values
    if spec.rhs in ("published", "scaled"):
        rhs = consistent.copy()
    elif spec.rhs == "shift" and m:
        # the original table misses some relations; the published one must meet them.  The
        # rhs is that of a perturbed table, so it stays in the range of dependent relations.
        moved = rng.choice(n, size=max(1, n // 6), replace=False)
        perturbed = values.copy()
        perturbed[moved] += np.round(rng.uniform(-0.02, 0.02, moved.size)
                                     * np.maximum(np.abs(values[moved]), 10.0 ** lo), 6)
        rhs = relations @ perturbed

    # ---- bounds
    kinds = BOUNDS[:-1]
    kind_of = np.array([spec.bounds] * n if spec.bounds != "mixed" else rng.choice(kinds, n), dtype=object)
    lower = np.full(n, -np.inf)
    upper = np.full(n, np.inf)
    magnitude = np.abs(values)
    capacity = rng.uniform(0.2, 1.0, n)
    for i in range(n):
        kind = kind_of[i]
        if kind == "nonneg":
            lower[i] = min(0.0, values[i])
        elif kind == "near":
            lower[i] = values[i] - capacity[i] * magnitude[i]
            upper[i] = values[i] + capacity[i] * magnitude[i]
        elif kind == "huge":
            lower[i] = min(-1e9, values[i] - magnitude[i]) if rng.random() < 0.5 else min(0.0, values[i])
            upper[i] = max(1e9, values[i] + magnitude[i])
        elif kind == "marker":
            lower[i] = -1e20 if rng.random() < 0.7 else min(0.0, values[i])
            upper[i] = 1e20
    if spec.at_bounds:
        at = rng.choice(n, size=max(1, n // 10), replace=False)
        for i in at:
            if rng.random() < 0.5:
                lower[i] = values[i]
            else:
                upper[i] = values[i]

    # ---- sensitive cells and protection
    candidates = inner[values[inner] != 0]
    if candidates.size == 0:
        candidates = inner
    count = min(spec.sensitive, candidates.size)
    sensitive = np.sort(rng.choice(candidates, size=count, replace=False))
    share = rng.uniform(0.05, 0.4, count)
    base = np.maximum(np.abs(values[sensitive]), 10.0 ** lo)
    lpl = share * base
    upl = share * base
    if spec.protection == "asymmetric":
        upl = rng.uniform(0.05, 0.6, count) * base
    elif spec.protection == "one-sided":
        zero_side = rng.random(count) < 0.5
        lpl = np.where(zero_side, 0.0, lpl)
        upl = np.where(zero_side, upl, 0.0)
    elif spec.protection == "zero":
        zero = rng.random(count) < 0.5
        zero[0] = True
        lpl = np.where(zero, 0.0, lpl)
        upl = np.where(zero, 0.0, upl)
    lpl = np.round(lpl, 6)
    upl = np.round(upl, 6)
    # at least one safe value inside the bounds: widen the upper bound if neither fits
    for k, i in enumerate(sensitive):
        fits_up = values[i] + upl[k] <= upper[i]
        fits_down = values[i] - lpl[k] >= lower[i]
        if not fits_up and not fits_down:
            upper[i] = values[i] + upl[k] + (capacity[i] * magnitude[i] if np.isfinite(upper[i]) else 0.0)

    senses = np.zeros(count, np.int8)
    if spec.given_senses:
        for k, i in enumerate(sensitive):
            if rng.random() < 0.5:
                options = [sense for sense, fits in ((1, values[i] + upl[k] <= upper[i]),
                                                     (-1, values[i] - lpl[k] >= lower[i])) if fits]
                senses[k] = options[int(rng.integers(len(options)))] if options else 0

    fixed = np.zeros(n, bool)
    if spec.fixed:
        others = np.setdiff1d(np.arange(n), sensitive)
        if others.size:
            fixed[rng.choice(others, size=max(1, int(rng.uniform(0.05, 0.25) * others.size)), replace=False)] = True

    # ---- weights
    if spec.weights == "unit":
        weights = np.ones(n)
    elif spec.weights == "random":
        weights = np.round(rng.uniform(0.1, 10.0, n), 3)
    elif spec.weights == "inverse":
        weights = 1.0 / np.maximum(np.abs(values), 10.0 ** lo)
    else:
        weights = np.round(rng.uniform(0.1, 10.0, n), 3)
        zero = rng.random(n) < 0.15
        zero[sensitive] = False
        weights[zero] = 0.0

    # ---- deliberately infeasible: a sensitive cell whose relation's other cells are all fixed
    label = ""
    if spec.infeasible and m:
        i = int(sensitive[0])
        rows = np.flatnonzero(relations.tocsc()[:, [i]].toarray().ravel() != 0)
        if rows.size:
            r = int(rows[rng.integers(rows.size)])
            row = sp.csr_array(relations[[r]])
            neighbours = row.indices[row.indices != i]
            rhs[r] = float((row @ values)[0])  # the relation pins cell i to its own value
            fixed[neighbours] = True
            fixed[i] = False
            keep = ~np.isin(sensitive, neighbours)
            sensitive, lpl, upl, senses = sensitive[keep], lpl[keep], upl[keep], senses[keep]
            k = int(np.flatnonzero(sensitive == i)[0])
            level = max(0.1 * base[0], 1e-3)
            lpl[k] = max(lpl[k], level) if values[i] - max(lpl[k], level) >= lower[i] else lpl[k]
            upl[k] = max(upl[k], level) if values[i] + max(upl[k], level) <= upper[i] else upl[k]
            if lpl[k] == 0 and upl[k] == 0:
                upl[k] = level
                upper[i] = max(upper[i], values[i] + level)
            label = f"infeasible by construction: cell {i} pinned by relation {r}"

    try:
        problem = CTAProblem(values=values, relations=relations, rhs=rhs, lower=lower, upper=upper,
                             weights=weights, sensitive=sensitive, lower_protection=lpl,
                             upper_protection=upl, fixed=fixed, senses=senses,
                             cell_label=structure.cell_label)
    except ProblemError as error:
        return Instance(spec, None, str(error), structure, label)
    return Instance(spec, problem, None, structure, label)


def instance(seed: int, index: int, max_sensitive: int = 12) -> Instance:
    """build(spec_for(seed, index))."""
    return build(spec_for(seed, index, max_sensitive))
