"""An independent check of published on-line tables, in table units, written for the tests with
numpy alone: the original table summed from the records, additivity of the published values
along every hierarchy, bounds, and each sensitive cell's side and distance from its value.

Cells are keyed here by their codes other than the total ("Total" in the test data), the way a
user names a cell, independently of ctadesk.app.online.cells."""

import string

import numpy as np

from ctadesk.engine.table.microdata import Microdata
from ctadesk.engine.table.structure import TableStructure

TOTAL = "Total"
#: relative tolerance of every check (the verifier's is 1e-6)
TOLERANCE = 1e-6


def ancestry(parents: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """(codes of the dimension x records): True where the code is the record's code or above it."""
    member = np.zeros((parents.size, codes.size), bool)
    current = codes.copy()
    while np.any(current >= 0):
        alive = np.flatnonzero(current >= 0)
        member[current[alive], alive] = True
        current[alive] = parents[current[alive]]
    return member


def original_table(microdata: Microdata) -> tuple[np.ndarray, np.ndarray]:
    """The table of ``microdata`` (its own structure's shape): each cell the sum of the records
    under every one of its codes, and how many records that is."""
    members = [ancestry(d.parents, c) for d, c in zip(microdata.structure.dimensions, microdata.codes)]
    letters = string.ascii_lowercase[:len(members)]
    formula = ",".join(f"{letter}z" for letter in letters) + ",z->" + letters
    values = np.einsum(formula, *[m.astype(float) for m in members], microdata.response)
    counts = np.einsum(formula, *[m.astype(float) for m in members], np.ones(microdata.n_records))
    return values, counts


def full_original(microdata: Microdata, spanning: tuple[str, ...],
                  structure: TableStructure) -> tuple[np.ndarray, np.ndarray]:
    """The table ``structure`` (a request of ``spanning``) summed from the records independently:
    the whole-hierarchy table of its variables, read at the codes the table shows (values, counts)."""
    names = [d.name for d in microdata.structure.dimensions]
    chosen = [names.index(item.partition(":")[0]) for item in spanning]
    whole = Microdata(TableStructure(tuple(microdata.structure.dimensions[d] for d in chosen)),
                      tuple(microdata.codes[d] for d in chosen), microdata.response)
    values, counts = original_table(whole)
    index = np.ix_(*[[microdata.structure.dimensions[d].codes.index(code) for code in shown.codes]
                     for d, shown in zip(chosen, structure.dimensions)])
    return values[index], counts[index]


def cell_names(structure: TableStructure) -> list[tuple[tuple[str, str], ...]]:
    """Per cell (C order): its (variable, code) pairs other than totals, sorted by variable."""
    grids = np.meshgrid(*[np.arange(d.size) for d in structure.dimensions], indexing="ij")
    positions = np.stack([g.reshape(-1) for g in grids], axis=1)
    return [tuple(sorted((d.name, d.codes[k]) for d, k in zip(structure.dimensions, row) if d.codes[k] != TOTAL))
            for row in positions]


def problems(structure: TableStructure, original: np.ndarray, published: np.ndarray, sensitive: np.ndarray,
             lower_protection: np.ndarray, upper_protection: np.ndarray, senses: np.ndarray) -> list[str]:
    """What is wrong with ``published`` (n,) for the table ``original`` (its shape): relations
    that do not add up, negative cells, and sensitive cells (C-order indices, their levels and
    senses +1/-1) on the wrong side or too close to their value.  Empty: the table verifies."""
    found = []
    table = published.reshape(structure.shape)
    unit = max(float(np.median(np.abs(original[original != 0]))) if np.any(original) else 1.0, 1.0)
    for axis, dimension in enumerate(structure.dimensions):
        for parent in np.unique(dimension.parents[dimension.parents >= 0]):
            children = np.flatnonzero(dimension.parents == parent)
            total = np.take(table, parent, axis=axis)
            parts = np.take(table, children, axis=axis).sum(axis=axis)
            scale = np.maximum(np.abs(np.take(original, parent, axis=axis)), unit)
            if np.any(np.abs(total - parts) > TOLERANCE * scale):
                found.append(f"{dimension.name}={dimension.codes[parent]} is not the sum of its parts")
    if np.any(published < -TOLERANCE * unit):
        found.append(f"{int(np.sum(published < -TOLERANCE * unit))} cells are negative")
    a = original.reshape(-1)[sensitive]
    x = published[sensitive]
    level = np.where(senses > 0, upper_protection, lower_protection)
    slack = TOLERANCE * np.maximum(np.abs(a), unit)
    wrong_side = np.flatnonzero(senses * (x - a) < -slack)
    too_close = np.flatnonzero(senses * (x - a) < level - slack)
    found += [f"sensitive cell {int(sensitive[k])} is on the wrong side of its value" for k in wrong_side]
    found += [f"sensitive cell {int(sensitive[k])} is nearer its value than its protection level"
              for k in np.setdiff1d(too_close, wrong_side)]
    return found


def both_sides(publications: dict) -> list:
    """Cells (keys of ``publications``: key -> list of (original, published)) published above
    their value in one table and below it in another."""
    crossed = []
    for key, pairs in publications.items():
        moves = np.array([published - original for original, published in pairs])
        slack = TOLERANCE * max(1.0, abs(pairs[0][0]))
        if np.any(moves > slack) and np.any(moves < -slack):
            crossed.append(key)
    return crossed
