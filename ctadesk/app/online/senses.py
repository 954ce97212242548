"""First stage of on-line CTA (paper 000 §4): senses for the sensitive cells a table shows for
the first time; cells seen before keep their stored sense.  The paper discusses two ways:

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
from collections.abc import Sequence

import numpy as np

from ctadesk.engine.methods import solve
from ctadesk.engine.problem import SENSE_DOWN, SENSE_FREE, SENSE_UP, CTAProblem
from ctadesk.engine.result import SolveOptions

#: the ways to choose new senses (module docstring)
SENSE_CHOICES = ("local", "table")
#: the exact method that gives the ``table`` choice its senses
TABLE_METHOD = "milp"


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
