"""An independent checker of PUBLISHED numbers, written for the tests of the whole job.

It reads the fields of ``CTAProblem`` and the numbers a front end published, nothing else from
ctadesk.  A table published at d decimals is right when

  * every value sits on the grid 10^-d (to 1e-6 of a grid step),
  * every relation holds EXACTLY in grid units: sum_j A_rj k_j = b_r 10^d with k = x 10^d as
    integers (the relations of a table have whole coefficients),
  * every sensitive cell lies beyond its ORIGINAL (required, not widened) protection level:
    x_i >= a_i + upl_i or x_i <= a_i - lpl_i, to 1e-9 of the cell's magnitude,
  * bounds hold and fixed cells keep their values (checker.check_table).

``l2_fixed`` is a reference least-squares table with the senses fixed (scipy's SLSQP on the
instance divided by its unit), for the claim that a published L2 table is the L2 table on the
grid: within one published unit of the unrounded optimum in every cell.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.optimize
import scipy.sparse as sp

from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.table.structure import Dimension, TableStructure
from tests.crosscheck.checker import check_table, effective_bounds, table_senses, table_unit, weighted_l1


def office_table(rng: np.random.Generator) -> tuple[TableStructure, CTAProblem]:
    """A table as offices publish them: 1-3 dimensions (2-7 codes each, 2-3 in 3-D), some with a
    sub-total level, values with 0-2 decimals of magnitudes 10-1e8, 1-6 sensitive inner cells with
    p%-like levels (10 or 20 %)."""
    n_dims = int(rng.choice([2, 2, 1, 3]))
    dims = []
    for d in range(n_dims):
        leaves = int(rng.integers(2, (7 if n_dims < 3 else 3) + 1))
        if leaves >= 4 and rng.random() < 0.5:         # a sub-total over the first two codes
            codes = [str(k + 1) for k in range(leaves)] + ["Subtotal", "Total"]
            parents = [leaves] * 2 + [leaves + 1] * (leaves - 2) + [leaves + 1, -1]
        else:
            codes = [str(k + 1) for k in range(leaves)] + ["Total"]
            parents = [leaves] * leaves + [-1]
        dims.append(Dimension(f"V{d}", codes, np.array(parents)))
    structure = TableStructure(tuple(dims))
    data_decimals = int(rng.choice([0, 0, 1, 2]))
    magnitude = float(rng.choice([10.0, 1e3, 1e6, 1e8]))
    inner = np.round(rng.uniform(0.2, 1.0, structure.shape) * magnitude, data_decimals)
    values = np.round(structure.aggregate(inner), data_decimals)
    leaves = np.flatnonzero(structure.inner_mask())
    sensitive = np.sort(rng.choice(leaves, size=min(int(rng.integers(1, 7)), leaves.size), replace=False))
    level = float(rng.choice([0.1, 0.2])) * values[sensitive]
    return structure, CTAProblem(values=values, relations=structure.relations(), lower=0.0, sensitive=sensitive,
                                 lower_protection=level, upper_protection=level)


def linked_office_table(rng: np.random.Generator) -> tuple[list[TableStructure], CTAProblem]:
    """Two tables from one population, Region x Size and Region x Sector, sharing their Region
    margin (linked tables: one CTA over the union of their relations, engine/table/linked.py): their
    structures and the problem over their unique cells."""
    from ctadesk.engine.table.linked import LinkedTables

    codes = {name: [str(k + 1) for k in range(int(rng.integers(2, 5)))] for name in ("Region", "Size", "Sector")}
    data_decimals = int(rng.choice([0, 1]))
    population = np.round(rng.uniform(0.2, 1.0, tuple(len(c) for c in codes.values())) * 1e3, data_decimals)
    structures, tables = [], []
    for other, axis in (("Size", 2), ("Sector", 1)):
        structure = TableStructure((Dimension.flat("Region", codes["Region"]), Dimension.flat(other, codes[other])))
        inner = np.pad(population.sum(axis=axis), ((0, 1), (0, 1)))
        structures.append(structure)
        tables.append(np.round(structure.aggregate(inner), data_decimals))
    linked = LinkedTables.link(structures)
    values = linked.gather(tables)
    inner_cells = _inner_unique(linked, structures)
    sensitive = np.sort(rng.choice(inner_cells, size=min(int(rng.integers(1, 4)), inner_cells.size), replace=False))
    level = float(rng.choice([0.1, 0.2])) * values[sensitive]
    return structures, CTAProblem(values=values, relations=linked.relations(), lower=0.0, sensitive=sensitive,
                                  lower_protection=level, upper_protection=level)


def _inner_unique(linked, structures: list[TableStructure]) -> np.ndarray:
    """The unique cells that are inner cells of some table."""
    cells = []
    for t, structure in enumerate(structures):
        scattered = linked.scatter(np.arange(linked.n_cells, dtype=float))[t]
        cells.append(scattered[structure.inner_mask()].astype(np.int64))
    return np.unique(np.concatenate(cells))


def linked_faults(structures: list[TableStructure], problem: CTAProblem, x: np.ndarray) -> list[str]:
    """Each table of a linked set, rebuilt from the published unique cells, against its own
    relations (structure.relations(), independent of the union's): the relations that do not add
    up, by table."""
    from ctadesk.engine.table.linked import LinkedTables

    faults = []
    for t, (structure, values) in enumerate(zip(structures, LinkedTables.link(structures).scatter(x))):
        residual = structure.relations() @ values
        off = np.flatnonzero(np.abs(residual) > 1e-6 * max(1.0, float(np.abs(problem.values).max())))
        faults += [f"table {t}: relation {r} off by {residual[r]:.6g}" for r in off[:3]]
    return faults


def grid_units(x: np.ndarray, decimals: int) -> np.ndarray | None:
    """x in integer grid units, or None when a value is off the grid."""
    scaled = np.asarray(x, dtype=float) * 10.0 ** decimals
    k = np.round(scaled)
    if np.any(np.abs(scaled - k) > 1e-6 * np.maximum(1.0, 1e-9 * np.abs(scaled))):
        return None
    return k.astype(np.int64)


def published_faults(problem, x, decimals: int | None) -> list[str]:
    """What is wrong with the table ``x`` published at ``decimals`` (None: unrounded) as a
    protection of ``problem`` (the required levels); empty when nothing is."""
    faults = list(check_table(problem, x).reasons)
    x = np.asarray(x, dtype=float)
    a = np.asarray(problem.values, dtype=float)
    s = np.asarray(problem.sensitive, dtype=np.int64)
    slack = 1e-9 * np.maximum(1.0, np.abs(a[s]))
    up = x[s] >= a[s] + np.asarray(problem.upper_protection) - slack
    down = x[s] <= a[s] - np.asarray(problem.lower_protection) + slack
    for k in np.flatnonzero(~(up | down))[:3]:
        faults.append(f"sensitive cell {s[k]} published {x[s[k]]!r} inside its interval around {a[s[k]]!r}")
    if decimals is None:
        return faults
    k = grid_units(x, decimals)
    if k is None:
        faults.append(f"values off the grid of {decimals} decimals")
        return faults
    A = sp.csr_array(problem.relations)
    coefficients = np.round(A.data).astype(np.int64)
    rows = np.repeat(np.arange(A.shape[0]), np.diff(A.indptr))
    sums = np.zeros(A.shape[0], dtype=np.int64)
    np.add.at(sums, rows, coefficients * k[A.indices])
    target = np.round(np.asarray(problem.rhs, dtype=float) * 10.0 ** decimals).astype(np.int64)
    for r in np.flatnonzero(sums != target)[:3]:
        faults.append(f"relation {r} off by {(sums[r] - target[r])} grid steps at {decimals} decimals")
    return faults


def l2_off_grid(protection, x: np.ndarray) -> float:
    """How far (in the model's objective) the table ``x`` published at protection.decimals is
    past what the L2 optimum y of its senses, each cell moved by at most one grid step, can cost:
    sum w (|y - a| + step)^2, plus the solvers' tolerance (1e-5 of the optimum).  0 when it is
    within.  Cell by cell the two L2 solvers differ by up to 2e-6 of the table's largest value on
    tables of 1e8 (flat directions of the objective), so the claim is checked on the objective."""
    solved = protection.solved
    reference = l2_fixed(solved, table_senses(solved, x))
    if reference is None:
        return 0.0
    step = 10.0 ** -protection.decimals
    w, a = np.asarray(solved.weights, float), np.asarray(solved.values, float)
    optimum = float(w @ (reference - a) ** 2)
    allowed = float(w @ (np.abs(reference - a) + step) ** 2) + 1e-5 * optimum
    return max(0.0, float(w @ (x - a) ** 2) - allowed)


def l2_fixed(problem, senses: np.ndarray) -> np.ndarray | None:
    """argmin sum w (x - a)^2 over tables with every sensitive cell on the side ``senses`` gives
    (+1 up, -1 down) beyond its protection level, by SLSQP in units of the table (None when it
    does not converge)."""
    a = np.asarray(problem.values, dtype=float)
    unit = table_unit(a)
    w = np.asarray(problem.weights, dtype=float)
    w = w / (np.median(w[w > 0]) if np.any(w > 0) else 1.0)
    lower, upper = effective_bounds(problem)
    lower, upper = (lower - a) / unit, (upper - a) / unit
    fixed = np.asarray(problem.fixed, dtype=bool)
    lower[fixed] = upper[fixed] = 0.0
    s = np.asarray(problem.sensitive, dtype=np.int64)
    upl = np.asarray(problem.upper_protection, dtype=float) / unit
    lpl = np.asarray(problem.lower_protection, dtype=float) / unit
    going_up = np.asarray(senses) > 0
    lower[s[going_up]] = np.maximum(lower[s[going_up]], upl[going_up])
    upper[s[~going_up]] = np.minimum(upper[s[~going_up]], -lpl[~going_up])
    A = sp.csr_array(problem.relations).toarray()
    rhs = (np.asarray(problem.rhs, dtype=float) - A @ a) / unit
    if A.shape[0]:     # the relations of a table are dependent, which SLSQP does not survive: a basis of them
        left, singular, A = np.linalg.svd(A, full_matrices=False)
        kept = singular > 1e-10 * singular[0]
        rhs, A = (left[:, kept].T @ rhs) / singular[kept], A[kept]
    start = np.clip(np.zeros(a.size), lower, upper)
    outcome = scipy.optimize.minimize(
        lambda z: float(w @ (z * z)), start, jac=lambda z: 2 * w * z, method="SLSQP",
        bounds=list(zip(np.where(np.isinf(lower), None, lower), np.where(np.isinf(upper), None, upper))),
        constraints=[{"type": "eq", "fun": lambda z: A @ z - rhs, "jac": lambda z: A}] if A.shape[0] else [],
        options={"ftol": 1e-14, "maxiter": 2000})
    if not outcome.success:
        return None
    return a + unit * outcome.x


# ------------------------------------------------------------------ the job's claims, for every front end
#: the relative gap the job is asked for (ProtectionRequest's default)
GAP = 1e-4


def tables():
    """Office tables (office_table) drawn by seed, a hypothesis strategy."""
    from hypothesis import strategies as st

    return st.integers(0, 2**32 - 1).map(lambda seed: office_table(np.random.default_rng(seed)))


def requests():
    """Protection requests as a statistician sets them (the model, weights, widening, precision,
    the mean of the inner cells kept exactly or not)."""
    from hypothesis import strategies as st

    from ctadesk.app import ProtectionRequest

    return st.builds(ProtectionRequest, distance=st.sampled_from(["l1", "l2", "huber", "soc"]),
                     senses=st.sampled_from(["optimal", "fixed", "heuristic"]),
                     weights=st.sampled_from(["table", "unit", "inverse"]), widen=st.booleans(), seed=st.just(5),
                     precision=st.sampled_from(["auto", "auto", 0, 2, "full"]), time_limit=st.just(10.0),
                     preserve=st.sampled_from([frozenset(), frozenset(), frozenset({"mean"})]))


def runnable(request) -> bool:
    """Models the registry has (exact and heuristic senses are L1's)."""
    return request.senses == "fixed" or request.distance in ("l1", "soc")


def check_claims(problem: CTAProblem, protection, request, inner: np.ndarray | None = None) -> None:
    """The published table of ``protection`` (a ctadesk.app.Protection run for ``request``)
    against the checker; the model's table on the grid; no claim stronger than proven; with
    ``inner`` (the inner cells' mask) and the mean preserved, the inner cells' sum as it was."""
    result = protection.result
    if not result.protected:
        return
    x = result.values
    faults = published_faults(problem, x, protection.decimals)
    assert not faults, faults
    if inner is not None and "mean" in request.preserve:
        kept = float(np.sum(x[inner]) - np.sum(problem.values[inner]))
        assert abs(kept) <= 1e-6 * max(1.0, float(np.abs(problem.values).max())), f"the mean moved by {kept}"
    if request.precision != "full":
        # published at a precision, or said in one line why not (and then not releasable)
        assert protection.decimals is not None or any("not rounded" in line for line in protection.notes)
    if protection.decimals is not None and request.precision != "auto":
        assert protection.decimals == int(request.precision)
    if request.distance == "l2" and request.senses == "fixed" and protection.decimals is not None:
        assert not l2_off_grid(protection, x), "the published L2 table is not the L2 table on the grid"
    if result.status.value == "optimal" and request.distance in ("l1", "soc") and result.bound is not None:
        # the bound proves the published table within the gap
        assert weighted_l1(protection.required, x) * (1 - GAP) <= result.bound * (1 + 1e-6) + 1e-9 * abs(result.bound) \
            or math.isclose(result.gap or 0.0, 0.0, abs_tol=GAP)
