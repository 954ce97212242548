"""Synthetic microdata for the on-line tests: firms by Region (hierarchical), Size and Sector."""

import numpy as np

from ctadesk.engine.rules.safety import SafetyRules
from ctadesk.engine.table.microdata import Microdata
from ctadesk.engine.table.structure import Dimension, TableStructure

VARIABLES = ("Region", "Size", "Sector")
RULES = SafetyRules(min_frequency=3, frequency_safety_range=10, p_percent=(10,))


def structure(regions: int = 2, sizes: int = 3, sectors: int = 2) -> TableStructure:
    """Region with two groups N and S of ``regions`` leaves each; flat Size and Sector."""
    levels = [1, *[2] * regions, 1, *[2] * regions]
    codes = ["N", *[f"N{k + 1}" for k in range(regions)], "S", *[f"S{k + 1}" for k in range(regions)]]
    return TableStructure((Dimension.from_levels("Region", levels, codes),
                           Dimension.flat("Size", [str(k + 1) for k in range(sizes)]),
                           Dimension.flat("Sector", [chr(ord("A") + k) for k in range(sectors)])))


def firms(seed: int = 0, records: int = 40, **shape: int) -> Microdata:
    """``records`` firms with lognormal turnover (a few dominant ones) over structure(**shape)."""
    rng = np.random.default_rng(seed)
    table = structure(**shape)
    codes = tuple(rng.choice(np.flatnonzero(d.is_leaf), records) for d in table.dimensions)
    return Microdata(table, codes, np.round(rng.lognormal(3.0, 1.5, records), 1))
