"""The fixed-sense L1 network LP as an integer minimum-cost flow, solved by LEMON's network
simplex (pylmcf), and the optimal basis it yields as the start of the real-valued LP.

A table whose relations form a network (solvers/network.py: each kept relation a node, each cell
an arc) has, with its senses fixed, an L1 CTA problem that is a minimum-cost flow (Castro &
González 2011, (2a)-(2c) with y fixed; Ahuja, Magnanti & Orlin 1993, Network Flows, ch. 9-11):
cell i's deviation z_i = base_i + z+_i - z-_i, z+_i a flow tail -> head of cost w_i up to its
forward capacity, z-_i a flow head -> tail of cost w_i up to its backward capacity.  LEMON's
network simplex takes integers only, so capacities and supplies are scaled into 2^FLOW_BITS and
costs into 2^COST_BITS (kept below int64 along every path of the tree: the node potentials sum
costs along paths of up to n nodes); capacities round up, supplies to the nearest integer.

The integer optimum is not the answer: its spanning-tree basis is (every basis of a network LP is
a spanning tree, Ahuja, Magnanti & Orlin 1993, ch. 11).  Arcs strictly between their bounds are
in it; arcs of zero reduced cost complete it; where those do not span, other arcs, and last the
artificial arcs below, whose relations' rows then stand in the basis by their slacks.
The sifting LP of solvers/network_l1.py starts from that basis in real arithmetic, so that HiGHS's
simplex needs a handful of pivots at most, and its pricing of every cell with the LP's duals proves
the optimum of the real-valued problem.  Rounding can cost pivots, never correctness.

Each node has artificial arcs to and from the ground dearer than any path, as the sifting LP has
artificial columns: rounding can leave a cut whose real supply its capacity carries exactly short
by a unit, and senses the table cannot meet leave flow on them; the LP settles both in real
arithmetic, and calls the problem infeasible only as it always has.

Castro & González's (2011, Table 1) real 1H2D tables have 0.3-1.2 M cells and 11 000-46 000
relations, past what the simplex from scratch gets through; on benchmarks/scale.py's 1H2D tables
(0.49 and 1.25 M cells) this replaces the interior point method's minutes with seconds.
"""

from __future__ import annotations

import dataclasses
import time

import highspy
import numpy as np
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph

from ctadesk.engine.budget import Budget
from ctadesk.engine.solvers.lemon import network_simplex
from ctadesk.engine.solvers.network import NetworkForm

#: flows (capacities, supplies) scaled so that the largest flow of any basic solution is 2^FLOW_BITS
FLOW_BITS = 40
#: costs scaled so that a path through every node costs at most 2^COST_BITS (int64 potentials)
COST_BITS = 52
#: LEMON's seconds per arc and square root of the nodes, about the most it took on
#: benchmarks/scale.py's tables (2-D 300x350 0.023 s, 1000x1000 0.25 s: 4-7e-9; 1H2D of 49 k,
#: 74 k and 487 k cells 0.093, 0.129 and 2.3 s: 1.1-1.4e-8; 1.25 M cells, in its child process
#: with the data's way there and back, 18 s: 2.1e-8): past solvers/lemon.py's IN_PROCESS_SECONDS
#: it runs in a child process, which the budget can stop
ARC_SECONDS = 2e-8

LOWER = int(highspy.HighsBasisStatus.kLower)
BASIC = int(highspy.HighsBasisStatus.kBasic)
UPPER = int(highspy.HighsBasisStatus.kUpper)


@dataclasses.dataclass(frozen=True)
class FlowStart:
    """The first columns of the sifting LP and their basis, from the integer optimum.

    forward, backward   cells whose z+ / z- column starts in the LP
    status              HighsBasisStatus of each, forward ones first
    basic_rows          relations whose row (its slack) is basic: those of the artificial arcs
                        in the tree, which join to it what the cells' arcs leave apart
    note                what LEMON did, for the log
    """

    forward: np.ndarray
    backward: np.ndarray
    status: np.ndarray
    basic_rows: np.ndarray
    note: str


def net_supply(form: NetworkForm, base: np.ndarray, supply: np.ndarray) -> np.ndarray:
    """Supply of each node left once every cell carries its ``base`` deviation."""
    net = supply.astype(float, copy=True)
    np.subtract.at(net, form.tail, base)
    np.add.at(net, form.head, base)
    return net


def flow_start(form: NetworkForm, weights: np.ndarray, forward: np.ndarray, backward: np.ndarray,
               net: np.ndarray, budget: Budget) -> FlowStart | None:
    """The optimal basis of the integer-scaled flow (module docstring), or None when LEMON fails
    or the budget runs out first (solvers/lemon.py).

    forward, backward: how far each cell may rise / fall from its base; net: net_supply.  Each
    relation's node has an artificial arc to and from the ground at a cost above every path's,
    as the sifting LP has artificial columns: the integer problem always has a flow, and what
    rounding leaves unbalanced (a cut whose supply its capacity carries exactly) or what the
    real problem cannot balance flows there, for the LP to settle in real arithmetic.
    """
    began = time.perf_counter()
    n_nodes, ground = form.n_nodes, form.n_nodes - 1
    up = np.flatnonzero((forward > 0) & (form.tail != form.head))
    down = np.flatnonzero((backward > 0) & (form.tail != form.head))
    nodes = np.arange(ground)
    # arcs: cells rising, cells falling, artificial node -> ground, artificial ground -> node
    item = np.concatenate([up, down, nodes, nodes])
    kind = np.repeat(np.arange(4, dtype=np.int8), [up.size, down.size, ground, ground])
    starts = np.concatenate([form.tail[up], form.head[down], nodes, np.full(ground, ground)])
    ends = np.concatenate([form.head[up], form.tail[down], np.full(ground, ground), nodes])
    capacity = np.concatenate([forward[up], backward[down], np.full(2 * ground, np.inf)])
    order = np.lexsort((ends, starts))
    item, kind, starts, ends, capacity = item[order], kind[order], starts[order], ends[order], capacity[order]
    finite = np.isfinite(capacity)
    largest = 0.5 * float(np.abs(net).sum()) + float(capacity[finite].sum())
    scale = 2.0 ** FLOW_BITS / largest if largest > 0 else 1.0     # nothing to move: any scale
    capacity_int = np.ceil(np.minimum(capacity, largest) * scale).astype(np.int64)
    supply_int = np.rint(net * scale).astype(np.int64)
    supply_int[-1] -= supply_int.sum()
    cost_scale = 2.0 ** COST_BITS / (n_nodes * max(float(weights.max(initial=0.0)), 1e-300))
    cell = np.where(kind < 2, item, 0)
    cost_int = np.where(kind < 2, np.rint(weights[cell] * cost_scale), 2.0 ** (COST_BITS + 1)).astype(np.int64)
    solved = network_simplex(n_nodes, starts, ends, supply_int, capacity_int, cost_int, budget,
                             ARC_SECONDS * kind.size * np.sqrt(n_nodes))
    if solved is None:
        return None
    flow, potential = solved
    reduced = cost_int + potential[starts] - potential[ends]
    free = (flow > 0) & (flow < capacity_int)
    # artificial arcs last, and those in the tree stand for their row's slack, not for the LP's
    # artificial column: a basic artificial column's penalty would be its row's dual, and that
    # times the round-off in its value a gap between the LP's primal and dual objectives (HiGHS:
    # "Unknown", 1.5e-5 on a 300x350 table with 1/value weights)
    rank = np.where(kind >= 2, 3, np.where(free, 0, np.where(reduced == 0, 1, 2)))
    tree = np.zeros(kind.size, bool)
    tree[spanning_forest(n_nodes, starts, ends, rank)] = True
    status = np.where(tree, BASIC, np.where(flow >= capacity_int, UPPER, LOWER)).astype(np.int8)
    in_lp = (flow > 0) | tree
    rising, falling = in_lp & (kind == 0), in_lp & (kind == 1)
    artificial = tree & (kind >= 2)
    note = (f"min-cost flow (LEMON): {kind.size} arcs, {int(free.sum())} between bounds, "
            f"{int(artificial.sum())} artificial and {int(np.count_nonzero(reduced[tree]))} off zero reduced "
            f"cost in the tree, {int(np.count_nonzero(flow[kind >= 2]))} artificial arcs carrying flow, "
            f"{time.perf_counter() - began:.2f}s")
    return FlowStart(item[rising], item[falling], np.concatenate([status[rising], status[falling]]),
                     form.kept[item[artificial]], note)


def spanning_forest(n_nodes: int, starts: np.ndarray, ends: np.ndarray, rank: np.ndarray) -> np.ndarray:
    """Arcs (indices) of a spanning forest preferring low ``rank``: a minimum spanning forest of the
    undirected graph (Kruskal's, which depends only on the ranks' order: their positions stand in
    for them, as csgraph takes no zero weights), the first of parallel arcs of equal rank
    standing for them all."""
    low = np.minimum(starts, ends).astype(np.int64)
    high = np.maximum(starts, ends).astype(np.int64)
    order = np.argsort(rank, kind="stable")
    _, first = np.unique((low * n_nodes + high)[order], return_index=True)
    pick = order[first]
    graph = sp.csr_array(((first + 1).astype(float), (low[pick], high[pick])), shape=(n_nodes, n_nodes))
    forest = csgraph.minimum_spanning_tree(graph)
    return order[forest.data.astype(np.int64) - 1]
