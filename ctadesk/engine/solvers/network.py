"""Tables whose relations form a network (2-D and 1H2D tables): their network form and what
the fixed-sense methods on it share.

With the senses fixed, L1 CTA (Castro & González 2011, (2a)-(2c) with y fixed) on a 2-D
table with margins is a minimum-cost circulation: row relations and column
relations are nodes, each cell an arc (inner cell row -> column, row total
source -> row, column total column -> sink, grand total sink -> source), the
deviation z_i its flow, bounds l_z <= z <= u_z (tightened to the safe side by
the sense, ``sense_bounds``) its capacities and w_i |z_i| its cost.  A 1H2D table (one
hierarchical dimension) is a network too once the relations of subtotal rows
are dropped: each is the sum of its children's row relations and the column
relations (Castro 2007, the network form of 1H2D tables).

``network_form`` finds such a form for any relation matrix with +-1
coefficients: it drops relations while a cell sits in more than two of them,
signs the rest so each cell enters one and leaves the other, and gives a cell
left in a single relation an arc to a ground node.  Every table is checked
against *all* relations by the verifier, so a dropped relation that was not
redundant shows up as a failed verification, never as a wrong table.

The methods on it: the L1 minimum-cost flow by LEMON's network simplex and sifting
(solvers/network_l1.py, solvers/min_cost_flow.py) and the L2 semismooth Newton method on the dual
(solvers/newton_l2.py).  ``defining_relations`` and ``relation_degree`` describe a
relation matrix for the L2 method and for the automatic choice of method.
"""

from __future__ import annotations

import dataclasses
import hashlib
import threading
import time
from collections import OrderedDict

import numpy as np
import scipy.sparse as sp

from ctadesk.engine.problem import BOUND_RTOL, SENSE_DOWN, SENSE_UP, CTAProblem
from ctadesk.engine.result import Progress, SolveOptions

#: above this many relations (large 1H2D tables) the simplex from the max-flow seed crawls: where
#: LEMON's min-cost flow fails there, the IPM over all columns is used (solvers/network_l1.py)
SIMPLEX_ROWS = 10000
#: Newton systems whose relations meet at most this many others on average (through a shared
#: cell, relation_degree) are factorised by QDLDL on a fixed pattern, others by SuperLU or a dense
#: Cholesky (solvers/newton_l2.py):
#: hierarchical 1-D and 2-D tables 1.5-16 (J. Castro's 1.5-9.8), 3-D tables from 20x20x20 on 29-121
SPARSE_DEGREE = 20
#: network forms remembered (network_form)
FORM_CACHE = 4
_FORMS: OrderedDict[bytes, NetworkForm | None] = OrderedDict()
_FORMS_LOCK = threading.Lock()
#: LSQR iterations allowed for the check that dropped relations are implied
IMPLIED_ITERATIONS = 5000
#: a table with more of its cells in three relations or more is no network, and ``_uncrowded`` is
#: not tried: in a 1H2D table only the cells of the subtotals below the total lie in three, and as
#: each subtotal has at least two children they are fewer than half the rows; in a 3-D table all
#: cells lie in three, and dropping relations one batch at a time took 9 s on 60 x 60 x 60
CROWDED_SHARE = 0.5


@dataclasses.dataclass(frozen=True)
class NetworkForm:
    """Cells as arcs of a network: node ``tail[i]`` -> ``head[i]``; the last node is the ground.

    kept   indices of the relations that are nodes (the others are implied)
    sign   +1/-1 per kept relation: node balance out - in = sign * (A z - d) row
    """

    kept: np.ndarray
    sign: np.ndarray
    tail: np.ndarray
    head: np.ndarray

    @property
    def n_nodes(self) -> int:
        return self.kept.size + 1

    def supplies(self, deviation_rhs: np.ndarray) -> np.ndarray:
        """Net outflow each node must send for A z = d (the ground balances)."""
        supply = self.sign * deviation_rhs[self.kept]
        return np.append(supply, -supply.sum())


def network_form(problem: CTAProblem) -> NetworkForm | None:
    """The network form of the problem's relations, or None when they are not a network.

    Remembered for the last FORM_CACHE relation matrices (by their digest, _digest): the
    automatic choice of method and the network solver ask for the same table's form in turn
    (1000x1000: the form about 0.06 s, the digest 5-9 ms).
    """
    A = problem.relations
    if A.nnz and not np.all(np.abs(A.data) == 1.0):
        return None
    key = _digest(A)
    with _FORMS_LOCK:
        if key in _FORMS:
            _FORMS.move_to_end(key)
            return _FORMS[key]
    form = _network_form(problem)
    if form is not None:
        for array in (form.kept, form.sign, form.tail, form.head):
            array.flags.writeable = False
    with _FORMS_LOCK:
        _FORMS[key] = form
        while len(_FORMS) > FORM_CACHE:
            _FORMS.popitem(last=False)
    return form


def _digest(relations: sp.csr_array) -> bytes:
    """SHA-256 of a matrix of +-1 coefficients: its shape, its pattern (cell indices in the
    narrowest type that holds them) and the signs of its coefficients, one bit each, all that
    tells such matrices apart (1000x1000: 5 ms; SHA-256 runs in the processor's SHA instructions
    where they exist, about twice as fast as BLAKE2 there)."""
    cells = relations.indices.astype(np.min_scalar_type(relations.shape[1]), copy=False)
    digest = hashlib.sha256(np.asarray(relations.shape, np.int64).tobytes())
    for part in (np.asarray(relations.indptr, np.int64), cells, np.packbits(relations.data < 0)):
        digest.update(np.ascontiguousarray(part).data)
    return digest.digest()


def _network_form(problem: CTAProblem) -> NetworkForm | None:
    relations = problem.relations
    crowded = np.bincount(relations.indices, minlength=relations.shape[1]) > 2
    if np.count_nonzero(crowded) > CROWDED_SHARE * relations.shape[1]:
        return None
    kept = _uncrowded(relations)
    kept_rows = np.flatnonzero(kept)
    A = sp.csr_array(relations if kept.all() else relations[kept_rows])
    k, n = A.shape
    # each entry as a code 2 r + 1 if its coefficient is -1: a cell's least and greatest codes are its
    # two relations and their coefficients' signs (a cell of one relation: the same code twice;
    # of none: 2k, the ground's code)
    code = 2 * np.repeat(np.arange(k, dtype=np.int32), np.diff(A.indptr)) + (A.data < 0)
    low = np.full(n, 2 * k, np.int32)
    high = np.full(n, -1, np.int32)
    np.minimum.at(low, A.indices, code)
    np.maximum.at(high, A.indices, code)
    two = np.bincount(A.indices, minlength=n) == 2
    high = np.where(two, high, np.int32(2 * k))
    sign = _parity_signs(k, low[two] >> 1, high[two] >> 1, ((low[two] ^ high[two]) & 1) ^ 1)
    if sign is None:
        return None
    dropped = np.flatnonzero(~kept)
    if dropped.size and not _implied(sp.csr_array(sp.diags_array(sign) @ A), relations, dropped):
        return None
    # each cell an arc from the relation it enters with +1 (once signed) to the one it enters with
    # -1, or the ground: a cell in two relations enters one with each sign
    ground = k
    signs = np.append(sign, 0.0)
    first, second = low >> 1, high >> 1
    entering_first = signs[first] * (1 - 2 * (low & 1))
    entering_second = signs[second] * (1 - 2 * (high & 1))
    tail = np.where(entering_first > 0, first, np.where(entering_second > 0, second, ground)).astype(np.int64)
    head = np.where(entering_first < 0, first, np.where(entering_second < 0, second, ground)).astype(np.int64)
    return NetworkForm(kept_rows, sign, tail, head)


def _parity_signs(k: int, one: np.ndarray, other: np.ndarray, flip: np.ndarray) -> np.ndarray | None:
    """Signs of k relations such that each pair (one[i], other[i]) has equal signs where flip[i]
    is 0 and opposite ones where it is 1, the first relation of each connected group +1 (a sign
    two-colouring); None when no signing fits.

    Labels spread along the pairs (minimum label propagation, with each relation's label replaced
    by its label's label each round: Shiloach & Vishkin 1982's shortcut): a relation's key is 2 L + b,
    L the least relation it is known to be joined to and b = 1 when its sign is L's flipped.  A few
    rounds over the pairs, in place of a graph of the doubled relations (+, -) and its components,
    which on a 1000x1000 table touched some 200 MB of new memory.
    """
    key = np.arange(0, 2 * k, 2, dtype=np.int32)
    while True:
        new = key[key >> 1] ^ (key & 1)
        np.minimum.at(new, other, new[one] ^ flip)
        np.minimum.at(new, one, new[other] ^ flip)
        if np.array_equal(new, key):
            break
        key = new
    # at rest every pair shares its label; its signs fit unless the pairs disagree around a cycle
    if not (np.array_equal(key[one] >> 1, key[other] >> 1) and np.array_equal(key[one] ^ key[other], flip)):
        return None
    return 1.0 - 2.0 * (key & 1)


def _uncrowded(relations: sp.csr_array) -> np.ndarray:
    """A mask of the relations kept so that no cell lies in more than two: while some does, drop
    the relations holding most such cells, several at once when they share none of them."""
    m = relations.shape[0]
    kept = np.ones(m, bool)
    if np.bincount(relations.indices, minlength=relations.shape[1]).max(initial=0) <= 2:
        return kept
    A = relations.tocsc()
    for _ in range(m):
        crowded = np.diff(A.indptr) > 2
        if not crowded.any():
            break
        rows = A.tocsr()
        crowding = rows[:, np.flatnonzero(crowded)] @ np.ones(int(crowded.sum()))
        batch = np.flatnonzero(crowding == crowding.max())
        hits = np.zeros(A.shape[1])
        np.add.at(hits, rows[batch].indices, 1.0)
        shared = np.asarray((rows[batch] @ sp.diags_array(((hits > 1) & crowded).astype(float))).sum(axis=1)).ravel()
        batch = batch[shared == 0] if np.any(shared == 0) else batch[:1]
        kept[batch] = False
        drop = np.zeros(rows.shape[0])
        drop[batch] = 1.0
        A = sp.csc_array(sp.diags_array(1.0 - drop) @ rows)
        A.eliminate_zeros()
    return kept


def _implied(incidence: sp.csr_array, relations: sp.csr_array, dropped: np.ndarray) -> bool:
    """Is a random combination of the dropped relations a combination of the kept ones?

    Least squares over the kept rows (LSQR); a residual above round-off means the
    dropped relations add information.
    """
    import scipy.sparse.linalg as spla

    combination = np.random.default_rng(0).uniform(1.0, 2.0, dropped.size) @ relations[dropped]
    potentials = spla.lsqr(incidence.T, combination, atol=1e-14, btol=1e-14, iter_lim=IMPLIED_ITERATIONS)[0]
    residual = np.abs(incidence.T @ potentials - combination).max(initial=0.0)
    return bool(residual <= 1e-6 * max(1.0, float(np.abs(combination).max(initial=0.0))))


def sense_bounds(problem: CTAProblem, senses: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Deviation bounds l_z <= z <= u_z with every sensitive cell on its sense's safe side."""
    lower = problem.lower - problem.values
    upper = problem.upper - problem.values
    cells = problem.sensitive
    up = senses == SENSE_UP
    down = senses == SENSE_DOWN
    rising, falling = cells[up], cells[down]
    lower[rising] = np.maximum(lower[rising], problem.upper_protection[up])
    upper[falling] = np.minimum(upper[falling], -problem.lower_protection[down])
    # a safe value a hair beyond its bound (capacity = protection level, rounded) sits on the bound
    over = (lower > upper).nonzero()[0]
    if over.size:           # few cells, often none: the tolerance is worked out for them alone
        crossed = over[lower[over] - upper[over] <= BOUND_RTOL * np.maximum(1.0, np.abs(problem.values[over]))]
        lower[crossed] = upper[crossed] = np.where(lower[crossed] > 0, upper[crossed], lower[crossed])
    return lower, upper


def defining_relations(relations: sp.csr_array) -> np.ndarray:
    """A mask of relations that likely imply all the others: for each cell that is the total of
    some relation (its only coefficient -1), the first relation totalling it; every relation
    without a single total.  In a table whose breakdowns nest this spans the relations (each
    total reduces to its inner cells one way); where they do not, the L2 method
    (newton_l2.least_squares_deviations) adds the relations its answer breaks."""
    A = relations if isinstance(relations, sp.csr_array) else sp.csr_array(relations)
    negative = A.data < 0
    row = np.arange(A.shape[0]).repeat(A.indptr[1:] - A.indptr[:-1])[negative]     # the row and cell of each -1
    cell = A.indices[negative]
    single = np.bincount(row, minlength=A.shape[0]) == 1
    totalling = single[row]
    # each total's first relation, the least row totalling it (np.unique's sort in its place took a
    # third of the 22 microseconds of a 120-cell table)
    first = np.full(A.shape[1], A.shape[0])
    np.minimum.at(first, cell[totalling], row[totalling])
    kept = ~single
    kept[first[first < A.shape[0]]] = True
    return kept


def relation_degree(relations: sp.csr_array, cells: np.ndarray | None = None) -> float:
    """How many other relations a relation meets through shared cells (of ``cells``, default all),
    on average, counted with repeats: the density of the L2 Newton system's pattern
    (newton_l2._Pattern)."""
    A = sp.csr_array(relations)
    per_cell = np.bincount(A.indices, minlength=A.shape[1])
    per_cell = per_cell if cells is None else per_cell[cells]
    return float(per_cell @ (per_cell - 1)) / max(A.shape[0], 1)


def log_line(options: SolveOptions, line: str) -> None:
    """Pass one line to the options' log, if they have one."""
    if options.on_log is not None:
        options.on_log(line)


def report_optimum(options: SolveOptions, started: float, objective: float) -> None:
    """Report a fixed-sense optimum (objective: sum w |z|) as progress, if the options take it."""
    if options.on_progress is not None:
        options.on_progress(Progress(time.perf_counter() - started, objective=objective,
                                     message="optimum for the senses used"))
