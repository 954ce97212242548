"""Tables shared by the tests of the network form and of the two methods on it."""

import numpy as np

from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.quality.weights import inverse_weights
from ctadesk.engine.table.structure import Dimension, TableStructure


def hierarchical_table(seed: int) -> CTAProblem:
    """A 1H2D table: a 3-level hierarchy of 10 codes under the total, crossed with 6 columns."""
    levels = [1, 2, 2, 2, 1, 2, 2, 3, 3, 1]
    structure = TableStructure((Dimension.from_levels("H", levels, [f"h{i}" for i in range(10)]),
                                Dimension.flat("C", [str(j) for j in range(6)])))
    rng = np.random.default_rng(seed)
    values = structure.aggregate(rng.integers(1, 1000, structure.shape))
    sensitive = rng.choice(np.flatnonzero(structure.inner_mask()), 10, replace=False)
    return CTAProblem(values, structure.relations(), lower=0.7 * values, upper=1.3 * values,
                      sensitive=sensitive, lower_protection=0.2 * values[sensitive],
                      upper_protection=0.2 * values[sensitive])


def table_weights(kind: str, values: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Unit, 1/value (the default for tabulated microdata), 1/sqrt(value) or random weights."""
    return {"unit": np.ones(values.size), "inverse": inverse_weights(values),
            "sqrt": np.sqrt(inverse_weights(values)),
            "random": 10.0 ** rng.uniform(-6.0, 0.0, values.size)}[kind]
