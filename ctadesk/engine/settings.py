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
#: the sense portfolio (ctadesk.engine.senses.portfolio): below this time limit its heuristic
#: process, whose start costs a fraction of a second, is not worth it, and the method chooser
#: (ctadesk.engine.methods.choose) picks the plain MILP
MIN_HEURISTIC_SECONDS = 2.0
#: the finest precision a table is published at (decimals; ctadesk.engine.publish.precision)
MAX_DECIMALS = 6
#: two variables protected together (Cox 2005, §4; ctadesk.engine.methods.bivariate): the paper's
#: alternating LPs, or convex programs over both variables at once
APPROACHES = ("alternating", "direct")
#: on-line protection (Castro & González 2011, §4; ctadesk.engine.online, ctadesk.app.online): the
#: ways to choose a new cell's sense, where a table's values come from with ``data`` senses, and
#: the seconds the ``table`` choice may spend on a table's MILP and the ``data`` choice on the
#: full table (once per store)
SENSE_CHOICES = ("data", "local", "table")
VALUE_CHOICES = ("full", "table")
TIME_BUDGET = 5.0
FULL_TABLE_BUDGET = 60.0
#: releases of count tables (Karr, Dobra & Sanil; ctadesk.engine.releases): cells with
#: 0 < count <= DEFAULT_THRESHOLD are at risk; an exact search evaluates at most MAX_EVALUATIONS
#: releases; the searches and the utilities (DU) by name (ctadesk.app.count_releases.SEARCHES,
#: ctadesk.engine.releases.UTILITIES)
DEFAULT_THRESHOLD = 2
MAX_EVALUATIONS = 5000
SEARCH_NAMES = ("decomposable", "optimal", "ordered")
UTILITY_NAMES = ("cells", "subtables")

__all__ = ["APPROACHES", "BLOCK_SECONDS", "BLOCK_SIZE", "DEFAULT_THRESHOLD", "FULL_TABLE_BUDGET", "GROUPS",
           "HUBER_DELTA", "MAX_DECIMALS", "MAX_EVALUATIONS", "MIN_HEURISTIC_SECONDS", "PROTECTION_PENALTY",
           "RELATION_PENALTY", "REPETITIONS", "SEARCH_NAMES", "SENSE_CHOICES", "TIME_BUDGET", "UTILITY_NAMES",
           "VALUE_CHOICES"]
