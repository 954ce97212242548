"""First stage of on-line CTA (Castro & González 2011 §4): senses for the sensitive cells a table shows for
the first time; cells seen before keep their stored sense.  The paper discusses two ways
(``local``, ``table``); neither guarantees that later tables have a table with the stored
senses, and on a random stream of tables one in seven to one in four then came back not adding
up (tests/app/online/test_random_tables.py).  A third way gives that guarantee:

``data``   from the full table of the data set (every variable a table may span, at every level
           of its hierarchies), protected once with the senses already stored given: every
           sensitive cell of every table a user can request is a cell of it, with the same
           contributors, levels and bounds, and every table's relations are relations of the
           full table.  Its protected table, read at the cells of a requested table, is a table
           that adds up and meets every stored sense and level; the on-line service
           (ctadesk.app.online) stores it and publishes every table from it (its default, for a
           full table of at most its FULL_TABLE_CELLS cells).

``local``  from information local to the cell only, as the sensitivity rules are: the sense its
           own bounds force (a safe value below the lower bound leaves only "up"), else a coin
           drawn from the store's secret and the cell's key.  The same cell gets the same sense
           whichever table it first appears in, but nothing guarantees the table has a table with
           those senses; the second stage's soft constraints absorb that.
``table``  from the table where the cell first appears: its exact MILP (Castro & González 2011, model (2))
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
from ctadesk.engine.senses.flips import flip_descent

#: the exact method that gives the ``table`` choice its senses
TABLE_METHOD = "milp"
#: shares of the new cells whose senses come from the secret coins when all of them admit no table
#: (the others above their value): a full table with few contributors per cell can have no table
#: with every coin, and its MILP may never leave the start of every cell up
MIXED_SHARES = (0.25, 0.125)
#: the share of new senses on one side past which the full table's senses are refused: every one
#: "up" at its safe value lets division by (1 + p) recover the originals (issue 30)
ONE_SIDED = 0.95


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


def full_table_senses(problem: CTAProblem, stored: np.ndarray, time_budget: float,
                      coins: np.ndarray | None = None,
                      draws: np.ndarray | None = None,
                      seed: int = 0) -> tuple[np.ndarray | None, np.ndarray | None, str]:
    """Senses (s,) and values (n,) of a protected table of the full table ``problem`` (module
    docstring, ``data``) with the ``stored`` senses (s,; 0 for a new cell) given, and a sentence
    for the log; (None, None, why) when no verified table was found within ``time_budget`` seconds,
    or only one whose new senses all lie on one side.

    Senses nobody can predict: the exact MILP starts from the secret coins (``coins``, s; the
    local senses: local_senses) where their fixed-sense L1 LP has a
    table; else from the coins of a secret share of the new cells (``draws``, s, in [0, 1): the
    cells below MIXED_SHARES[k]), every other new cell above its value.  Else from every new cell
    published above its value (below where only that fits),
    checked by the fixed-sense L1 LP first: without a nonzero right-hand side that is the table
    scaled up by the largest relative protection level, which adds up and protects every cell
    whenever the upper bounds leave room, so a table with few contributors per cell, where the
    MILP alone may find none in its time, still gets one.  A search
    that never leaves that start publishes every sensitive cell above its value, each exactly at
    its safe value: an outsider who knows the rules recovers the originals by division (issue 30;
    ``benchmarks/online.py --attack TABLES`` counts the cells so recovered), so the MILP gets half
    of the time left and single flips (engine/senses/flips.py, in an order drawn from ``seed``)
    the rest; senses still one-sided are refused, and said.  Where both starts fail, the
    method chosen for optimal L1 senses (ctadesk.engine.methods.choose) searches on its own.
    """
    started = time.perf_counter()
    given = problem.with_senses(stored)
    effective = given.effective_senses
    new = effective == SENSE_FREE
    starts = []
    if coins is not None:
        starts.append(("the secret coins", np.where(new, coins, effective).astype(np.int8)))
        if draws is not None:
            starts += [(f"the secret coins of {share:.1%} of the new cells, the rest above their value",
                        np.where(new, np.where(draws < share, coins, SENSE_UP), effective).astype(np.int8))
                       for share in MIXED_SHARES]
    starts.append(("every new cell above its value", np.where(new, SENSE_UP, effective).astype(np.int8)))
    for name, start in starts:
        fixed = given.with_senses(start)
        check = choose_method(fixed, Distance.L1, Senses.FIXED)
        left = max(time_budget - (time.perf_counter() - started), 0.0)
        witness = solve(fixed, check.method, SolveOptions(time_limit=left / 4, parameters=check.parameters))
        if not witness.verified:
            continue
        left = max(time_budget - (time.perf_counter() - started), 0.0)
        last = name == starts[-1][0]
        result = solve(given, TABLE_METHOD, SolveOptions(time_limit=left / 2 if last else left, start_senses=start))
        senses, values, how = start, np.asarray(witness.values, dtype=float), \
            f"new cells from {name} (distance {witness.objective:.6g})"
        if result.verified and result.senses is not None:
            senses, values = np.asarray(result.senses, dtype=np.int8), np.asarray(result.values, dtype=float)
            how = (f"the exact MILP from {name}: {result.status.value}, distance {result.objective:.6g} (the start's "
                   f"{witness.objective:.6g})")
        if one_sided(senses, new):
            left = max(time_budget - (time.perf_counter() - started), 0.0)
            flipped = flip_descent(given, senses, SolveOptions(time_limit=left), seed=seed)
            if flipped.verified and flipped.senses is not None and not one_sided(np.asarray(flipped.senses), new):
                return np.asarray(flipped.senses, dtype=np.int8), np.asarray(flipped.values, dtype=float), (
                    f"{how}, then {flipped.info.get('flips', 0)} single flips in a secret order: distance "
                    f"{flipped.objective:.6g}")
            return None, None, (f"the full table's search never left its start ({how}): every new sense up, "
                                "each cell at its safe value, which arithmetic undoes; refused")
        return senses, values, how
    remaining = max(time_budget - (time.perf_counter() - started), 0.0)
    method, _, parameters = choose_method(given, Distance.L1, Senses.OPTIMAL, remaining)
    result = solve(given, method, SolveOptions(time_limit=remaining, parameters=parameters))
    if not result.verified or result.senses is None:
        return None, None, f"{method} found no protected full table in {time_budget:g} s ({result.message})"
    if one_sided(np.asarray(result.senses), new):
        return None, None, f"{method} found only a table with every new sense on one side; refused"
    return np.asarray(result.senses, dtype=np.int8), np.asarray(result.values, dtype=float), \
        f"{method}: {result.status.value}, distance {result.objective:.6g}"


def one_sided(senses: np.ndarray, new: np.ndarray) -> bool:
    """Whether the new senses (``new``: mask over the sensitive cells) lie on one side, past
    ONE_SIDED of them (a single new cell is not a side)."""
    count = int(np.count_nonzero(new))
    if count < 2:
        return False
    up = int(np.count_nonzero(np.asarray(senses)[new] == SENSE_UP))
    return max(up, count - up) > ONE_SIDED * count
