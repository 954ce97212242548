"""Tables attaining a batch of interval ends, found by max flow where the attacker's relations
form a network (2-D tables with margins; 1H2D tables once the subtotal relations, implied by
the others, are dropped: ctadesk.engine.solvers.network.network_form).

A batch of ends is attained together when one table the attacker cannot rule out has every
cell of the batch at its outer bound (model.py).  With those cells fixed there, finding such a
table is the feasibility problem of a flow with bounds (Hoffman's circulation theorem; each
kept relation a node, each other unknown cell an arc): start from the original table with the
batch cells moved to their bounds, and route every relation's imbalance through the residual
network, where cell i can carry upper_i - x_i more forward and x_i - lower_i back.

scipy's max flow (Dinic) takes int32 capacities, so the imbalance is routed in passes: the
residual capacities are scaled by a power of two and rounded down (a flow never passes a
bound), and what the rounding leaves (about one unit of 1/scale per relation) is routed by the
next pass at a finer scale, until every relation holds to FEASIBILITY table units (HiGHS's
primal feasibility tolerance, to which the LP tables hold too).  A relation the batch leaves no
room (its right-hand side the least or greatest sum of its cells' bounds) has all its cells set
at those bounds first, since routed its flow would come short by the rounding of every cell in
it: two passes then do on Cox tables.  A pass that routes less than half of what is left means
the network cannot carry the batch: ``table`` returns None and the batch goes to the LP
(lp.BatchLP).  The table returned is checked against every relation of the model in floating
point before it is used.

Every pass after the first tries a cheaper way first: it sends what is left along a
breadth-first tree of cells with room for all of it either way (each cell of the tree carries
its subtree's sum, so the tree routes it exactly, up to roundings of 1e-12), and runs the max
flow only where no such tree joins the nodes out of balance.  On Cox tables the first pass
leaves a fraction of a table unit, more than most free cells have room for (a max flow routes
it), the second a rounding's worth on one node, which a tree routes without a max flow.

Each table's graph holds only the arcs of the cells left free to move (not in the batch, not
held by a tight relation): on a large Cox table a full batch of upper ends holds most of the
cells, so the max flow runs over a fraction of them.

A batch routed this way costs a small fraction of the interior-point batch LP's time;
``.venv/bin/python benchmarks/audit.py`` prints the seconds of full-size max-flow batches on the
300 x 350 and 1000 x 1000 Cox tables, and of the whole audit.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import scipy.sparse as sp
from scipy.sparse import csgraph

from ctadesk.engine.audit.model import AttackerModel
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.solvers.network import NetworkForm, network_form

#: the largest scaled capacity (int32 with headroom: a source's arcs sum to at most half of it)
LIMIT = 2 ** 30
#: a table whose relations all hold to this many table units attains the batch (HiGHS's
#: primal_feasibility_tolerance)
FEASIBILITY = 1e-7
#: a relation whose right-hand side is within this many table units of its least or greatest sum
#: over the box holds all its cells at their bounds (FlowTables._force)
TIGHT = 1e-9
#: passes of max flow before giving up (each leaves about 1e-5 of what it was given)
MAX_PASSES = 6
#: the most possible arc keys (nodes squared) for which FlowTables._positions uses a mask
MASK_KEYS = 1 << 24
#: a pass that leaves more than this share of the imbalance it was given is stuck
STUCK = 0.5


def network_of(model: AttackerModel) -> NetworkForm | None:
    """The network form of the model's relations, None when they are not a network (network_form
    remembers the forms it found, so asking again is cheap)."""
    if model.n_rows == 0:
        return None
    return network_form(CTAProblem(model.truth, model.matrix, rhs=model.rhs))


@dataclasses.dataclass(frozen=True)
class _Arcs:
    """The arcs of one table's flows: ``cells`` (model columns), ``piece_arc`` the arc of each
    piece (forward and backward of each cell, then from the source and to the sink: numbered
    from 0), and per arc its tail, head and key (tail * nodes + head, increasing)."""

    cells: np.ndarray
    piece_arc: np.ndarray
    tail: np.ndarray
    head: np.ndarray
    keys: np.ndarray


class FlowTables:
    """``table(columns, side)``: a table of the model with ``columns`` at their outer bound on
    ``side`` (-1 lower, +1 upper), or None.  Build it with ``of`` (None when the model's
    relations are not a network).

    The flow network is laid out once: a forward and a backward piece per cell (from tail to
    head and back), a piece from the source to every node and from every node to the sink;
    pieces joining the same two nodes share one arc of the graph (``piece_arc``), whose
    capacity is theirs summed and whose flow they share in proportion to their capacities.
    """

    def __init__(self, model: AttackerModel, form: NetworkForm) -> None:
        self.model = model
        self.supply = form.supplies(model.rhs)
        self.n_nodes = form.n_nodes
        self.tail, self.head = form.tail, form.head
        self.runs = 0
        n = form.n_nodes
        self.cells = np.flatnonzero(form.tail != form.head)
        nodes = np.arange(n)
        tails = np.concatenate([form.tail[self.cells], form.head[self.cells], np.full(n, n), nodes])
        heads = np.concatenate([form.head[self.cells], form.tail[self.cells], nodes, np.full(n, n + 1)])
        self.arc_keys, self.piece_arc = np.unique(tails * (n + 2) + heads, return_inverse=True)
        matrix = sp.csr_array(model.matrix)
        self.positive = sp.csr_array(matrix.multiply(matrix > 0))
        self.negative = sp.csr_array(-matrix.multiply(matrix < 0))

    @classmethod
    def of(cls, model: AttackerModel) -> FlowTables | None:
        form = network_of(model)
        return None if form is None else cls(model, form)

    def table(self, columns: np.ndarray, side: int) -> np.ndarray | None:
        model = self.model
        self.runs += 1
        target = (model.outer_upper if side > 0 else model.outer_lower)[columns]
        if not np.all(np.isfinite(target)):
            return None
        lower, upper = model.lower.copy(), model.upper.copy()
        lower[columns] = upper[columns] = target
        x = np.clip(model.truth, lower, upper)
        forced = self._force(x, lower, upper)
        if forced is None:
            return None
        arcs = self._arcs(np.flatnonzero(((lower < upper) & ~forced)[self.cells]))
        left = self._imbalance(x)
        for passes in range(MAX_PASSES):
            if np.abs(left).max(initial=0.0) <= FEASIBILITY:
                left = self._imbalance(x)  # the one kept pass by pass may have drifted by roundings
                if np.abs(left).max(initial=0.0) <= FEASIBILITY:
                    break
            given = float(left[left > 0].sum())
            if given <= 0.0:
                return None
            moved = self._tree_route(x, arcs.cells, left, given) if passes else None
            cells, step = (arcs.cells, self._route(x, arcs, left, given)) if moved is None else moved
            x = x.copy()
            x[cells] += step
            tail, head = self.tail[cells], self.head[cells]
            left = left - (np.bincount(tail, step, self.n_nodes) - np.bincount(head, step, self.n_nodes))
            if float(left[left > 0].sum()) > STUCK * given:
                return None
        x = np.clip(x, model.lower, model.upper)
        if np.abs(model.matrix @ x - model.rhs).max(initial=0.0) > FEASIBILITY:
            return None
        return x

    def _force(self, x: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> np.ndarray | None:
        """Cells a relation holds at a bound: where the relation's right-hand side is its least
        (or greatest) sum over the box, every one of its cells sits at the bound that gives it.
        Sets them in ``x`` and returns their mask; None when two relations force one cell apart.
        (Routed by flow instead, a tight relation would come short by a rounding of every
        capacity in it and take extra passes.)"""
        positive, negative = self.positive, self.negative
        least = positive @ lower - negative @ upper
        greatest = positive @ upper - negative @ lower
        rhs = self.model.rhs
        with np.errstate(invalid="ignore"):
            at_least, at_greatest = rhs - least <= TIGHT, greatest - rhs <= TIGHT
        to_lower = (positive.T @ at_least.astype(float) + negative.T @ at_greatest.astype(float)) > 0
        to_upper = (positive.T @ at_greatest.astype(float) + negative.T @ at_least.astype(float)) > 0
        if np.any(to_lower & to_upper & (lower < upper)):
            return None
        x[to_lower] = lower[to_lower]
        x[to_upper] = upper[to_upper]
        return to_lower | to_upper

    def _imbalance(self, x: np.ndarray) -> np.ndarray:
        """Per node, the net outflow still to be sent for the relations to hold."""
        return self.supply - (np.bincount(self.tail, x, self.n_nodes) - np.bincount(self.head, x, self.n_nodes))

    def _arcs(self, movable: np.ndarray) -> _Arcs:
        """The arcs of a table's flows: those of the cells ``movable`` (positions in self.cells),
        from the source and to the sink, numbered from 0."""
        k, n = self.cells.size, self.n_nodes
        piece_arc = self.piece_arc[np.concatenate([movable, movable + k, 2 * k + np.arange(2 * n)])]
        used = np.zeros(self.arc_keys.size, bool)
        used[piece_arc] = True
        number = np.cumsum(used) - 1
        keys = self.arc_keys[used]
        tail, head = np.divmod(keys, n + 2)
        return _Arcs(self.cells[movable], number[piece_arc], tail, head, keys)

    def _route(self, x: np.ndarray, arcs: _Arcs, left: np.ndarray, given: float) -> np.ndarray:
        """The change of the cells of ``arcs`` that routes the imbalance ``left`` as far as one
        max flow at the scale of ``given`` can, through their residual capacities in x."""
        model, n, cells = self.model, self.n_nodes, arcs.cells
        scale = 2.0 ** np.floor(np.log2(LIMIT / (2.0 * given)))
        forward = np.floor(np.minimum((model.upper[cells] - x[cells]) * scale, LIMIT))
        backward = np.floor(np.minimum((x[cells] - model.lower[cells]) * scale, LIMIT))
        capacity = np.maximum(np.concatenate([forward, backward, np.floor(np.maximum(left, 0.0) * scale),
                                              np.ceil(np.maximum(-left, 0.0) * scale)]), 0.0)
        arc_capacity = np.bincount(arcs.piece_arc, capacity, arcs.keys.size)
        kept = np.flatnonzero(arc_capacity > 0)
        indptr = np.concatenate([[0], np.cumsum(np.bincount(arcs.tail[kept], minlength=n + 2))])
        graph = sp.csr_array((np.minimum(arc_capacity[kept], LIMIT).astype(np.int32),
                              arcs.head[kept].astype(np.int32), indptr.astype(np.int32)), shape=(n + 2, n + 2))
        flow = csgraph.maximum_flow(graph, n, n + 1, method="dinic").flow
        arc_flow = np.zeros(arcs.keys.size)
        arc_flow[kept] = np.maximum(flow.data[self._positions(flow, arcs.keys[kept])], 0.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            piece_flow = np.where(capacity > 0, arc_flow[arcs.piece_arc] * capacity / arc_capacity[arcs.piece_arc],
                                  0.0)
        m = cells.size
        return (piece_flow[:m] - piece_flow[m:2 * m]) / scale

    def _tree_route(self, x: np.ndarray, cells: np.ndarray, left: np.ndarray,
                    given: float) -> tuple[np.ndarray, np.ndarray] | None:
        """The cells and their change that route the imbalance ``left`` along a breadth-first
        tree of ``cells`` with room to move by twice ``given`` either way (no subtree sends more),
        or None where no such tree reaches every node out of balance (by more than TIGHT
        together).  Each cell of the tree carries the sum over the subtree below it, deepest
        nodes first."""
        n = self.n_nodes
        room = np.minimum(self.model.upper[cells] - x[cells], x[cells] - self.model.lower[cells])
        cells = cells[room >= 2.0 * given]
        if cells.size < np.count_nonzero(np.abs(left) > TIGHT) - 1:
            return None  # too few to join the nodes out of balance
        tails = np.concatenate([self.tail[cells], self.head[cells]])
        heads = np.concatenate([self.head[cells], self.tail[cells]])
        graph = sp.csr_array((np.ones(tails.size), (tails, heads)), shape=(n, n))
        depth, above = csgraph.dijkstra(graph, indices=int(np.argmax(np.abs(left))), unweighted=True,
                                        return_predecessors=True)
        reached = np.isfinite(depth)
        if np.abs(left[~reached]).sum() > TIGHT:
            return None
        joining = np.full(n, -1)
        on_tree = above[heads] == tails  # a cell from the node above to the node: any of them does
        joining[heads[on_tree]] = np.concatenate([cells, cells])[on_tree]
        below = np.flatnonzero(reached & (above >= 0))
        level = depth[below].astype(np.int64)
        subtree = np.where(reached, left, 0.0)  # the nodes left out hold at most TIGHT together
        for deepest in range(int(level.max(initial=0)), 0, -1):
            at = below[level == deepest]
            np.add.at(subtree, above[at], subtree[at])
        joined = joining[below]
        sent = subtree[below]
        return joined, np.where(self.tail[joined] == below, sent, -sent)

    @staticmethod
    def _positions(flow: sp.csr_array, keys: np.ndarray) -> np.ndarray:
        """Where the arcs ``keys`` (tail * nodes + head, increasing) sit in the flow's entries (the
        flow holds the graph's arcs and their reverses).  Where the nodes are few, a mask over
        every possible key finds them a few times faster than a binary search."""
        n = flow.shape[0]
        flow_keys = np.repeat(np.arange(n), np.diff(flow.indptr)) * n + flow.indices
        if not np.all(flow_keys[1:] > flow_keys[:-1]):
            order = np.argsort(flow_keys, kind="stable")
            return order[np.searchsorted(flow_keys[order], keys)]
        if n * n > MASK_KEYS:
            return np.searchsorted(flow_keys, keys)
        member = np.zeros(n * n, bool)
        member[keys] = True
        return np.flatnonzero(member[flow_keys])
