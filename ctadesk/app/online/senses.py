"""First stage of on-line CTA (paper 000 §4): senses for the sensitive cells a table shows for
the first time; cells seen before keep their stored sense.  The paper discusses two ways
(``local``, ``table``); neither guarantees that later tables have a table with the stored
senses, and on a random stream of tables one in seven to one in four then came back not adding
up (tests/app/online/test_random_tables.py).  A third way gives that guarantee:

``data``   from the full table of the data set (every variable a table may span, at every level
           of its hierarchies), protected once with the senses already stored given: every
           sensitive cell of every table a user can request is a cell of it, with the same
           contributors, levels and bounds, and every table's relations are relations of the
           full table.  Its protected table, read at the cells of a requested table, is a table
           that adds up and meets every stored sense and level; the service stores it and
           publishes every table from it (the default; the full table must have at most
           FULL_TABLE_CELLS cells).

``local``  from information local to the cell only, as the sensitivity rules are: the sense its
           own bounds force (a safe value below the lower bound leaves only "up"), else a coin
           drawn from the store's secret and the cell's key.  The same cell gets the same sense
           whichever table it first appears in, but nothing guarantees the table has a table with
           those senses; the second stage's soft constraints absorb that.
``table``  from the table where the cell first appears: its exact MILP (paper 000 model (2))
           with the stored senses given and the new ones free, within a time budget; the senses
           of its best table are recorded.  Better tables now, and no guarantee for later ones.
           A table the MILP cannot solve in time gets the local senses.
"""

from __future__ import annotations

import hashlib
import hmac
import time
from collections.abc import Sequence

import numpy as np

from ctadesk.engine.methods import choose_method, solve
from ctadesk.engine.model import Distance, Senses
from ctadesk.engine.problem import SENSE_DOWN, SENSE_FREE, SENSE_UP, CTAProblem
from ctadesk.engine.result import SolveOptions

#: the ways to choose new senses (module docstring)
SENSE_CHOICES = ("data", "local", "table")
#: the exact method that gives the ``table`` choice its senses
TABLE_METHOD = "milp"
#: the largest full table the ``data`` choice protects (the engine's heuristics reach a million cells)
FULL_TABLE_CELLS = 1_000_000


def local_senses(problem: CTAProblem, cells: Sequence[str], secret: str) -> np.ndarray:
    """A sense (s,) for every sensitive cell of ``problem`` (keys ``cells``) from local
    information only (module docstring): forced by its bounds, else the low bit of
    HMAC-SHA256(secret, key)."""
    forced = problem.forced_senses
    coins = np.array([hmac.new(secret.encode(), key.encode(), hashlib.sha256).digest()[0] & 1 for key in cells],
                     dtype=np.int8)
    return np.where(forced != SENSE_FREE, forced, np.where(coins == 1, SENSE_UP, SENSE_DOWN)).astype(np.int8)


def table_senses(problem: CTAProblem, stored: np.ndarray, time_budget: float) -> np.ndarray | None:
    """Senses (s,) of the best table the exact MILP finds in ``time_budget`` seconds with the
    ``stored`` senses (s,; 0 for a new cell) given; None when it finds no verified table."""
    result = solve(problem.with_senses(stored), TABLE_METHOD, SolveOptions(time_limit=time_budget))
    if not result.verified or result.senses is None:
        return None
    return np.asarray(result.senses, dtype=np.int8)


def full_table_senses(problem: CTAProblem, stored: np.ndarray,
                      time_budget: float) -> tuple[np.ndarray | None, np.ndarray | None, str]:
    """Senses (s,) and values (n,) of a protected table of the full table ``problem`` (module
    docstring, ``data``) with the ``stored`` senses (s,; 0 for a new cell) given, and a sentence
    for the log; (None, None, why) when no verified table was found within ``time_budget`` seconds.

    The exact MILP starts from every new cell published above its value (below where only that
    fits), checked by the fixed-sense L1 LP first: without a nonzero right-hand side that is the
    table scaled up by the largest relative protection level, which adds up and protects every
    cell whenever the upper bounds leave room, so a table with few contributors per cell, where
    the MILP alone found none in 60 s (3 520 cells, 40 % of them sensitive), still gets one.
    Where that start fails, the method chosen for optimal L1 senses (ctadesk.engine.methods.choose)
    searches on its own."""
    started = time.perf_counter()
    given = problem.with_senses(stored)
    effective = given.effective_senses
    start = np.where(effective != SENSE_FREE, effective, SENSE_UP).astype(np.int8)
    fixed = given.with_senses(start)
    check = choose_method(fixed, Distance.L1, Senses.FIXED)
    witness = solve(fixed, check.method, SolveOptions(time_limit=time_budget, parameters=check.parameters))
    remaining = max(time_budget - (time.perf_counter() - started), 0.0)
    if witness.verified:
        result = solve(given, TABLE_METHOD, SolveOptions(time_limit=remaining, start_senses=start))
        if result.verified and result.senses is not None:
            return np.asarray(result.senses, dtype=np.int8), np.asarray(result.values, dtype=float), (
                f"the exact MILP from new cells published above their value: {result.status.value}, "
                f"distance {result.objective:.6g} (the start's {witness.objective:.6g})")
        return start, np.asarray(witness.values, dtype=float), \
            f"new cells published above their value (distance {witness.objective:.6g})"
    method, _, parameters = choose_method(given, Distance.L1, Senses.OPTIMAL, remaining)
    result = solve(given, method, SolveOptions(time_limit=remaining, parameters=parameters))
    if not result.verified or result.senses is None:
        return None, None, f"{method} found no protected full table in {time_budget:g} s ({result.message})"
    return np.asarray(result.senses, dtype=np.int8), np.asarray(result.values, dtype=float), \
        f"{method}: {result.status.value}, distance {result.objective:.6g}"
