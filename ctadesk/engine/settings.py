"""Defaults and limits of the settings a user gives, in a module that imports nothing.

The solvers, the sense heuristics and the publishing code take these values from here, and the
method registry (ctadesk.engine.methods.registry) and the front ends' parsers and forms offer
them from here, so that listing the methods or a command's options loads no numerical library.
"""

from __future__ import annotations

#: the pseudo-Huber delta of Petrenko (2017), (5.14), in table units: L1 above it, L2 below
HUBER_DELTA = 1e-3
#: soft protection (Castro & González 2011, §4): price of a unit of relation slack and of missing
#: protection, each times the largest cell weight
RELATION_PENALTY = 1e3
PROTECTION_PENALTY = 1e6
#: best of random sense vectors (Cox 2005): how many vectors
REPETITIONS = 100
#: Hybrid grouping (Cox 2005): groups of cells sharing one sense
GROUPS = 16
#: block coordinate descent (González & Castro): senses freed per block, and the seconds one
#: block's MILP may take at most
BLOCK_SIZE = 40
BLOCK_SECONDS = 10.0
#: the finest precision a table is published at (decimals; ctadesk.engine.publish.precision)
MAX_DECIMALS = 6

__all__ = ["BLOCK_SECONDS", "BLOCK_SIZE", "GROUPS", "HUBER_DELTA", "MAX_DECIMALS", "PROTECTION_PENALTY",
           "RELATION_PENALTY", "REPETITIONS"]
