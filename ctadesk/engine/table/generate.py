"""Random test tables: the thesis's generator (Petrenko 2017, §6.2.3) and the Cox recipe (Cox 2005b, §3)
as its preset -- the one generator of the app, the command line, the benchmarks and the tests."""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
from typing import Any

import numpy as np
import scipy.sparse as sp

from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.table.structure import TableStructure


@dataclasses.dataclass(frozen=True)
class GeneratorSpec:
    """Inner sizes, inner values uniform on min_value..max_value, a share of zeros,
    a share (or, when sensitive_count is set, a number) of the non-zero inner cells sensitive,
    placed at random, with protection levels drawn uniformly as a share of the value, and
    bounds value -/+ capacity * |value| (widened on sensitive cells to their safe values)."""

    shape: tuple[int, ...] = (20, 20)
    min_value: int = 1
    max_value: int = 1000
    zero_share: float = 0.10
    sensitive_share: float = 0.30
    protection_min: float = 0.20
    protection_max: float = 0.20
    capacity: float = 0.20
    seed: int = 0
    sensitive_count: int | None = None

    def as_dict(self) -> dict:
        """Plain values (for QSettings)."""
        fields = dataclasses.asdict(self)
        fields["shape"] = list(self.shape)
        return fields

    @classmethod
    def from_dict(cls, fields: dict) -> GeneratorSpec:
        """The spec of as_dict (QSettings may hand numbers back as text)."""
        known = {f.name: f.type for f in dataclasses.fields(cls)}
        spec: dict[str, Any] = {}
        for name, value in fields.items():
            if name == "shape":
                spec[name] = tuple(int(v) for v in ([value] if isinstance(value, (str, int)) else value))
            elif name == "sensitive_count":
                spec[name] = None if value in (None, "", "None") else int(value)
            elif name in known:
                spec[name] = int(value) if known[name] == "int" else float(value)
        return cls(**spec)


COX_PRESET = GeneratorSpec()


def generate_table(spec: GeneratorSpec) -> tuple[TableStructure, CTAProblem]:
    """A random table with totals on every dimension (C order), ready to protect."""
    rng = np.random.default_rng(spec.seed)
    structure = TableStructure.flat(*spec.shape)
    inner = np.flatnonzero(structure.inner_mask())
    raw = np.zeros(structure.n_cells)
    raw[inner] = rng.integers(spec.min_value, spec.max_value + 1, inner.size)
    raw[rng.choice(inner, size=round(spec.zero_share * inner.size), replace=False)] = 0.0
    values = structure.aggregate(raw)
    candidates = inner[values[inner] > 0]
    wanted = spec.sensitive_count if spec.sensitive_count is not None else round(spec.sensitive_share * inner.size)
    count = min(candidates.size, wanted)
    sensitive = np.sort(rng.choice(candidates, size=count, replace=False))
    levels = rng.uniform(spec.protection_min, spec.protection_max, count) * values[sensitive]
    room = spec.capacity * np.abs(values)
    room[sensitive] = np.maximum(room[sensitive], levels)  # a sensitive cell can always reach its safe values
    problem = CTAProblem(values=values, relations=structure.relations(), lower=values - room, upper=values + room,
                         sensitive=sensitive, lower_protection=levels, upper_protection=levels,
                         cell_label=structure.cell_label, relation_label=structure.relation_label)
    return structure, problem


def cox_table(shape: tuple[int, ...], seed: int = 0, zero_share: float = 0.10,
              sensitive_share: float = 0.30, protection: float = 0.20,
              capacity: float = 0.20, max_value: int = 1000) -> tuple[TableStructure, CTAProblem]:
    """A Cox-recipe table with margins (Cox 2005b, §3).

    Inner values uniform on 1..max_value, zero_share of them set to 0;
    sensitive_share of the inner cells (chosen among the non-zero ones) are
    sensitive with protection levels protection * value both ways; every cell
    may move by at most capacity * value (so zero cells stay zero), a sensitive
    cell at least to its safe values.
    """
    return generate_table(GeneratorSpec(shape=tuple(shape), max_value=max_value, zero_share=zero_share,
                                        sensitive_share=sensitive_share, protection_min=protection,
                                        protection_max=protection, capacity=capacity, seed=seed))



@dataclasses.dataclass(frozen=True)
class OfficeDimension:
    """A spanning variable as statistical offices publish them: a balanced tree over its leaves
    (``fanouts``: the children per code, level by level from the total; (n,) is a flat variable
    of n codes and its total) and, with ``alternative`` > 0, a second breakdown of the same total
    into that many groups of the leaves (regions by province and by urban/rural), which does not
    nest in the first -- the kind of breakdown of J. Castro's nine12, ninenew and hier16 tables.
    Codes: the tree's level by level from the total, then the alternative groups."""

    fanouts: tuple[int, ...]
    alternative: int = 0

    def matrices(self, rng: np.random.Generator) -> tuple[sp.csr_array, sp.csr_array, np.ndarray]:
        """(the relations R, one row per total: -1 on it, +1 on each part; the aggregation S,
        codes x leaves, S[c, l] = 1 where leaf l lies in code c; the leaves' codes)."""
        parents = [-1]
        level = [0]
        for fanout in self.fanouts:
            start = len(parents)
            parents += [parent for parent in level for _ in range(fanout)]
            level = list(range(start, len(parents)))
        parent = np.array(parents)
        tree, leaves = parent.size, np.array(level)
        membership = [sp.csr_array((np.ones(leaves.size), (leaves, np.arange(leaves.size))), shape=(tree, leaves.size))]
        up = sp.csr_array((np.ones(tree - 1), (parent[1:], np.arange(1, tree))), shape=(tree, tree))
        for _ in self.fanouts:
            membership.append(up @ membership[-1])
        inside = sp.csr_array(sum(membership[1:], membership[0]))
        totals = np.flatnonzero(np.bincount(parent[1:], minlength=tree))
        relation = sp.csr_array((up - sp.identity(tree, format="csr"))[totals])
        if not self.alternative:
            return relation, inside, leaves
        group = rng.permutation(np.arange(leaves.size) % self.alternative)
        groups = sp.csr_array((np.ones(leaves.size), (group, np.arange(leaves.size))),
                              shape=(self.alternative, leaves.size))
        size = tree + self.alternative
        parts = sp.csr_array((np.ones(leaves.size), (group, leaves)), shape=(self.alternative, size))
        codes = np.arange(self.alternative)
        own = sp.csr_array((-np.ones(self.alternative), (codes, tree + codes)), shape=(self.alternative, size))
        whole = sp.csr_array((np.r_[-1.0, np.ones(self.alternative)], (np.zeros(self.alternative + 1, int),
                              np.r_[0, tree + np.arange(self.alternative)])), shape=(1, size))
        relation = sp.vstack([sp.hstack([relation, sp.csr_array((totals.size, self.alternative))]), parts + own, whole])
        return sp.csr_array(relation), sp.csr_array(sp.vstack([inside, groups])), leaves


def office_table(dimensions: tuple[OfficeDimension, ...], seed: int = 0, sensitive_share: float = 0.1,
                 protection: float = 0.2) -> CTAProblem:
    """A hierarchical table with fixed senses, after J. Castro's office tables (Castro 2006):
    inner cells uniform on 1..1000, a tenth of them 0, ``sensitive_share`` of the non-zero inner
    cells sensitive with protection levels ``protection`` * value both ways and a random sense,
    values between 0 and twice their own, weights 1 / value (1 on zeros).  Cells in C order of
    the dimensions' codes (OfficeDimension); relations dimension by dimension, kron(I, R_d, I)."""
    rng = np.random.default_rng(seed)
    matrices = [dimension.matrices(rng) for dimension in dimensions]
    inner = rng.integers(1, 1001, math.prod(S.shape[1] for _, S, _ in matrices)).astype(float)
    inner[rng.random(inner.size) < 0.1] = 0.0
    values = inner.reshape([S.shape[1] for _, S, _ in matrices])
    for axis, (_, S, _) in enumerate(matrices):
        values = np.moveaxis(np.tensordot(S.toarray(), values, axes=([1], [axis])), 0, axis)
    values = values.reshape(-1)
    sizes = [S.shape[0] for _, S, _ in matrices]
    blocks = [sp.kron(sp.kron(sp.identity(math.prod(sizes[:d])), R), sp.identity(math.prod(sizes[d + 1:])))
              for d, (R, _, _) in enumerate(matrices)]
    inner_cells = np.ravel_multi_index(np.ix_(*(leaves for _, _, leaves in matrices)), sizes).reshape(-1)
    candidates = inner_cells[values[inner_cells] > 0]
    sensitive = np.sort(rng.choice(candidates, round(sensitive_share * candidates.size), replace=False))
    levels = protection * values[sensitive]
    return CTAProblem(values=values, relations=sp.csr_array(sp.vstack(blocks, format="csr")), lower=0.0,
                      upper=2.0 * values, weights=1.0 / np.maximum(values, 1.0), sensitive=sensitive,
                      lower_protection=levels, upper_protection=levels,
                      senses=np.where(rng.random(sensitive.size) < 0.5, 1, -1))




def linked_office_tables(shared: OfficeDimension, others: tuple[OfficeDimension, ...], seed: int = 0,
                         sensitive_share: float = 0.1, protection: float = 0.2) -> CTAProblem:
    """Tables ``shared`` x other for each of ``others``, from one set of units, so that they share
    their margin over ``shared`` (the other variable's total): a margin cell is then the total of
    one relation in each table, breakdowns that do not nest (J. Castro's nine* tables are linked
    tables of this kind).  Values, sensitive cells, senses, bounds and weights as office_table's."""
    rng = np.random.default_rng(seed)
    R_shared, S_shared, leaves = shared.matrices(rng)
    margin = rng.integers(20, 20001, leaves.size).astype(float)
    margin[rng.random(leaves.size) < 0.05] = 0.0
    values, blocks, inner_cells, offset = [], [], [], 0
    first_margin = np.zeros(0, np.int64)
    for other in others:
        R_other, S_other, other_leaves = other.matrices(rng)
        shares = rng.dirichlet(np.ones(other_leaves.size), size=leaves.size)
        inner = np.floor(shares * margin[:, None])
        inner[:, -1] += margin - inner.sum(axis=1)              # whole units: every table's margin is the same
        table = S_shared.toarray() @ inner @ S_other.toarray().T
        rows, columns = table.shape
        cell = offset + np.arange(rows * columns).reshape(rows, columns)
        if offset:                                                # the margin column is the first table's
            cell[:, 0] = first_margin
            cell[:, 1:] = offset + np.arange(rows * (columns - 1)).reshape(rows, columns - 1)
            values.append(table[:, 1:].reshape(-1))
        else:
            first_margin = cell[:, 0].copy()
            values.append(table.reshape(-1))
        offset += values[-1].size
        local = sp.csr_array(sp.vstack([sp.kron(R_shared, sp.identity(columns)),
                                        sp.kron(sp.identity(rows), R_other)], format="csr"))
        blocks.append((local, cell.reshape(-1)))
        inner_cells.append(cell[np.ix_(leaves, other_leaves)].reshape(-1))
    relations = sp.vstack([sp.csr_array((local.data, cell[local.indices], local.indptr), shape=(local.shape[0], offset))
                           for local, cell in blocks], format="csr")
    value = np.concatenate(values)
    candidates = np.concatenate(inner_cells)
    candidates = candidates[value[candidates] > 0]
    sensitive = np.sort(rng.choice(candidates, round(sensitive_share * candidates.size), replace=False))
    levels = protection * value[sensitive]
    return CTAProblem(values=value, relations=relations, lower=0.0, upper=2.0 * value,
                      weights=1.0 / np.maximum(value, 1.0), sensitive=sensitive, lower_protection=levels,
                      upper_protection=levels, senses=np.where(rng.random(sensitive.size) < 0.5, 1, -1))


#: the kinds of office_shapes: how many spanning variables, and how many of them hierarchical
OFFICE_KINDS = {"nested 2-D": (2, 2), "1H2D": (2, 1), "3-D": (3, 2)}
#: office_shapes' hierarchies: levels and codes per total; flat variables: codes
OFFICE_DEPTH = (2, 4)
OFFICE_FANOUT = (2, 12)
OFFICE_FLAT = (2, 60)


def office_shapes(count: int, seed: int = 0, min_cells: int = 1000,
                  max_cells: int = 1_000_000) -> list[tuple[str, tuple[OfficeDimension, ...]]]:
    """``count`` shapes of hierarchical tables with min_cells..max_cells cells, log-uniform, the
    kinds of OFFICE_KINDS in turn: hierarchies of 2-3 levels with 2-12 codes per total, flat
    variables of 2-60 codes, and in every fourth shape a non-nested second breakdown of the first
    variable's total (OfficeDimension).  A drawn shape is then moved towards its drawn size one
    code or one level at a time (_towards: a fourth level where a hierarchy of three is too small,
    as 1H2D tables of a million cells need), so every size the kind can reach is reached; a
    ValueError names a kind that cannot have min_cells..max_cells cells."""
    rng = np.random.default_rng(seed)
    shapes: list[tuple[str, tuple[OfficeDimension, ...]]] = []
    kinds = list(OFFICE_KINDS)
    while len(shapes) < count:
        kind = kinds[len(shapes) % len(kinds)]
        variables, hierarchical = OFFICE_KINDS[kind]
        target = math.exp(rng.uniform(math.log(min_cells), math.log(max_cells)))
        per_variable = target ** (1 / variables)
        dimensions = []
        for d in range(variables):
            if d < hierarchical:
                depth = int(rng.integers(2, 4))
                spread = per_variable ** (1 / depth) * rng.uniform(0.6, 1.4, depth)
                fanouts = tuple(int(f) for f in np.clip(np.round(spread), *OFFICE_FANOUT))
            else:
                fanouts = (int(np.clip(round(per_variable * rng.uniform(0.6, 1.4)), *OFFICE_FLAT)),)
            alternative = int(rng.integers(2, 5)) if d == 0 and len(shapes) % 4 == 3 else 0
            dimensions.append(OfficeDimension(fanouts, alternative))
        shape = _towards(tuple(dimensions), hierarchical, target, min_cells, max_cells)
        if shape is None:
            raise ValueError(f"office_shapes: found no {kind} table of {min_cells} to {max_cells} cells "
                             f"(hierarchies of {OFFICE_DEPTH[1]} levels of at most {OFFICE_FANOUT[1]} codes a total, "
                             f"flat variables of at most {OFFICE_FLAT[1]} codes)")
        shapes.append((kind, shape))
    return shapes


def office_cells(dimensions: tuple[OfficeDimension, ...]) -> int:
    """The cells of office_table(dimensions): the product of each variable's codes."""
    return math.prod(1 + sum(math.prod(dim.fanouts[:k + 1]) for k in range(len(dim.fanouts))) + dim.alternative
                     for dim in dimensions)


def _towards(dimensions: tuple[OfficeDimension, ...], hierarchical: int, target: float, min_cells: int,
             max_cells: int) -> tuple[OfficeDimension, ...] | None:
    """``dimensions`` changed one code or level at a time, each change the one that brings the cells
    nearest ``target`` (in ratio), until they are min_cells..max_cells; where no such change helps,
    one variable at a time replaced by the fan-outs (_fanouts_by_codes) that bring the cells nearest
    (None where that does not reach the range either)."""
    def distance(shape: tuple[OfficeDimension, ...]) -> float:
        return abs(math.log(office_cells(shape) / target))

    while not min_cells <= office_cells(dimensions) <= max_cells:
        moves = [(*dimensions[:d], OfficeDimension(fanouts, dimension.alternative), *dimensions[d + 1:])
                 for d, dimension in enumerate(dimensions)
                 for fanouts in _neighbours(dimension.fanouts, d < hierarchical)]
        nearest = min(moves, key=distance, default=dimensions)
        if distance(nearest) >= distance(dimensions):
            break
        dimensions = nearest
    for first, second in itertools.combinations(reversed(range(len(dimensions))), 2):
        if min_cells <= office_cells(dimensions) <= max_cells:
            break
        dimensions = _pair_towards(dimensions, (second, first), hierarchical, target, min_cells, max_cells)
    return dimensions if min_cells <= office_cells(dimensions) <= max_cells else None


def _pair_towards(dimensions: tuple[OfficeDimension, ...], pair: tuple[int, int], hierarchical: int, target: float,
                  min_cells: int, max_cells: int) -> tuple[OfficeDimension, ...]:
    """``dimensions`` with the two variables of ``pair`` replaced by the fan-outs (_fanouts_by_codes)
    whose cells are min_cells..max_cells and nearest ``target``, every combination tried; unchanged
    where none is."""
    rest = office_cells(dimensions) // math.prod(office_cells((dimensions[d],)) for d in pair)
    options = [[(codes + dimensions[d].alternative, fanouts)
                 for codes, fanouts in _fanouts_by_codes(d < hierarchical).items()
                 if rest * (codes + dimensions[d].alternative) * 3 <= max_cells] for d in pair]   # 3: the fewest codes
    if not all(options):
        return dimensions
    cells = rest * np.multiply.outer(*(np.array([codes for codes, _ in option], float) for option in options))
    gap = np.where((cells >= min_cells) & (cells <= max_cells), np.abs(np.log(cells / target)), np.inf)
    i, j = np.unravel_index(np.argmin(gap), gap.shape)
    if not np.isfinite(gap[i, j]):
        return dimensions
    chosen = list(dimensions)
    for d, option, k in zip(pair, options, (i, j)):
        chosen[d] = OfficeDimension(option[k][1], dimensions[d].alternative)
    return tuple(chosen)


@functools.cache
def _fanouts_by_codes(hierarchical: bool) -> dict[int, tuple[int, ...]]:
    """Every number of codes (the total included) a variable of office_shapes can have, with the most
    even fan-outs that give it."""
    low, high = OFFICE_FANOUT if hierarchical else OFFICE_FLAT
    depths = range(OFFICE_DEPTH[0], OFFICE_DEPTH[1] + 1) if hierarchical else (1,)
    found: dict[int, tuple[int, ...]] = {}
    for fanouts in sorted((f for depth in depths for f in itertools.product(range(low, high + 1), repeat=depth)),
                          key=lambda f: (max(f) - min(f), len(f))):
        found.setdefault(office_cells((OfficeDimension(fanouts),)), fanouts)
    return found


def _neighbours(fanouts: tuple[int, ...], hierarchical: bool) -> list[tuple[int, ...]]:
    """The fan-outs one code per total more or fewer at one level, or one level of two codes more or
    the last level fewer (hierarchies of OFFICE_DEPTH levels of OFFICE_FANOUT codes); a flat
    variable's one code more or fewer (OFFICE_FLAT)."""
    low, high = OFFICE_FANOUT if hierarchical else OFFICE_FLAT
    moves = [(*fanouts[:k], fanouts[k] + step, *fanouts[k + 1:]) for k in range(len(fanouts)) for step in (-1, 1)
             if low <= fanouts[k] + step <= high]
    if hierarchical and len(fanouts) < OFFICE_DEPTH[1]:
        moves.append((*fanouts, low))
    if hierarchical and len(fanouts) > OFFICE_DEPTH[0]:
        moves.append(fanouts[:-1])
    return moves
