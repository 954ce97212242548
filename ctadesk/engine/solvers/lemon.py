"""LEMON's network simplex (pylmcf) on an integer min-cost flow, in this process or in a child one.

pylmcf's ``solve`` holds the interpreter's lock for as long as it runs and cannot be
interrupted: a second or more of it would freeze the desktop app's window (whose solves run on
worker threads) and every other request of a server, and could overrun a time limit.  A flow
estimated to take longer than IN_PROCESS_SECONDS is solved in a child process, which is killed
when the solve's budget runs out or it is cancelled.  The child is a fresh interpreter started
as ``sys.executable -c CODE`` (as the MILP portfolio's helper: no copy of the caller's threads,
no second run of a ``__main__`` without its guard, and the bundled app runs CODE the same way,
installer/launch.py); it imports this module alone (numpy and pylmcf), reads the flow pickled
from its standard input and writes its answer pickled to its standard output.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import threading

import numpy as np
import pylmcf

from ctadesk.engine.budget import Budget

#: a flow estimated to take longer goes to a child process (starting it costs about 0.2 s)
IN_PROCESS_SECONDS = 0.25
#: how often the parent looks at its budget while the child solves
POLL_SECONDS = 0.05
#: the child: SIGINT ignored (Ctrl-C reaches the caller, which ends it), the answer to stdout
_CODE = ("import signal; signal.signal(signal.SIGINT, signal.SIG_IGN); "
         f"from {__name__} import _child; _child()")

Flow = tuple[np.ndarray, np.ndarray]


def network_simplex(n_nodes: int, starts: np.ndarray, ends: np.ndarray, supply: np.ndarray, capacity: np.ndarray,
                    cost: np.ndarray, budget: Budget, estimate: float) -> Flow | None:
    """(flows, node potentials) of the min-cost flow, arcs sorted by (start, end), int64 data;
    None when pylmcf rejects its input, LEMON finds no optimum, the child process fails, or the
    budget runs out first.  ``estimate``: the seconds it is expected to take (module docstring)."""
    if estimate <= IN_PROCESS_SECONDS:
        return _solve(n_nodes, starts, ends, supply, capacity, cost)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))}
    child = subprocess.Popen([sys.executable, "-c", _CODE], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, env=env, start_new_session=True)
    answer: list[Flow | None] = [None]
    talk = threading.Thread(target=_talk, args=(child, (n_nodes, starts, ends, supply, capacity, cost), answer),
                            daemon=True)
    talk.start()
    try:
        while talk.is_alive():
            if budget.over():
                return None
            talk.join(POLL_SECONDS)
        return answer[0]
    finally:
        child.kill()
        talk.join()
        child.wait()


def _talk(child: subprocess.Popen, flow: tuple, answer: list) -> None:
    """Send the flow to the child and take its answer (None where the child ended without one)."""
    try:
        assert child.stdin is not None and child.stdout is not None
        pickle.dump(flow, child.stdin, protocol=pickle.HIGHEST_PROTOCOL)
        child.stdin.close()
        answer[0] = pickle.load(child.stdout)
    except (OSError, EOFError, pickle.UnpicklingError):
        answer[0] = None


def _solve(n_nodes: int, starts: np.ndarray, ends: np.ndarray, supply: np.ndarray, capacity: np.ndarray,
           cost: np.ndarray) -> Flow | None:
    try:
        graph = pylmcf.Graph(n_nodes, starts.astype(np.int32), ends.astype(np.int32))
        graph.set_node_supply(supply)
        graph.set_edge_capacities(capacity)
        graph.set_edge_costs(cost)
        graph.solve()
    except (RuntimeError, ValueError, OverflowError):     # pylmcf's checks of its input, LEMON's status
        return None
    return graph.result(), graph.potentials()


def _child() -> None:
    """The child process: the flow from standard input, its answer (or None) to standard output."""
    flow = pickle.load(sys.stdin.buffer)
    pickle.dump(_solve(*flow), sys.stdout.buffer, protocol=pickle.HIGHEST_PROTOCOL)
    sys.stdout.buffer.flush()
