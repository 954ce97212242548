"""Random test tables: the thesis's generator (Petrenko 2017, §6.2.3) and the Cox recipe (Cox 2005b, §3)
as its preset -- the one generator of the app, the command line, the benchmarks and the tests."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

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
    raw[rng.choice(inner, size=int(round(spec.zero_share * inner.size)), replace=False)] = 0.0
    values = structure.aggregate(raw)
    candidates = inner[values[inner] > 0]
    wanted = spec.sensitive_count if spec.sensitive_count is not None else int(round(spec.sensitive_share * inner.size))
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
