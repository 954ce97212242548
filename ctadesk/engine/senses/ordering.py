"""The ordering heuristic (Dandekar & Cox 2002; Cox 2005a, §5 and Cox 2005b, §2).

Sort the sensitive cells by value, largest first, and give them alternating
senses, so that no large group of big cells moves the same way.
"""

from __future__ import annotations

import numpy as np

from ctadesk.engine.problem import SENSE_DOWN, SENSE_FREE, SENSE_UP, CTAProblem


def ordering_senses(problem: CTAProblem) -> np.ndarray:
    """Senses (s,) int8: given and bound-forced senses kept, free cells alternate up, down, ...

    Free cells are taken in descending order of value (ties by cell index); the
    largest goes up.
    """
    senses = problem.effective_senses.copy()
    free = np.flatnonzero(senses == SENSE_FREE)
    values = problem.values[problem.sensitive[free]]
    order = free[np.lexsort((problem.sensitive[free], -values))]
    senses[order] = np.where(np.arange(order.size) % 2 == 0, SENSE_UP, SENSE_DOWN)
    return senses
