"""Ending the process a front end runs in, without waiting for a solver run left behind."""

from __future__ import annotations

import sys
from typing import NoReturn


def end_process(code: int) -> NoReturn:
    """End the process with exit status ``code``: through the HiGHS runner's end_process
    (ctadesk.engine.solvers.highs), which does not wait for a MIP thread left running, where a
    solver has been loaded; an ordinary exit where none has (no run can be left, and loading the
    solvers only to exit would cost a command such as ``--help`` a second)."""
    if "ctadesk.engine.solvers.highs" not in sys.modules:
        sys.exit(code)
    # loaded already: importing it costs nothing
    from ctadesk.engine.solvers.highs import end_process as end_solver_process

    end_solver_process(code)
