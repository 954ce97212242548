"""A MIP run the caller stops waiting for (engine/solvers/highs.py): a KeyboardInterrupt while
waiting ends it at HiGHS's next poll, and a program ending through end_process does not wait
for one still running."""

import _thread
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import highspy
import numpy as np
import pytest
import scipy.sparse as sp

from ctadesk.engine.result import SolveOptions, Status
from ctadesk.engine.solvers import highs
from ctadesk.engine.solvers.milp import milp_model
from ctadesk.engine.table.generate import cox_table

ROOT = Path(__file__).resolve().parents[3]
#: hang guard only: a run nobody interrupts goes on for hours
HANG_GUARD = 60.0


def test_a_keyboard_interrupt_while_waiting_for_a_mip_interrupts_the_run():
    """Before, the run went on in its thread to its time limit (here none), and the interpreter
    waited for it at exit."""
    _, problem = cox_table((20, 20, 20), seed=1)
    model, _, _ = milp_model(problem, SolveOptions())
    interrupted: list[bool] = []

    def interrupt_the_caller(progress) -> None:
        if not interrupted:
            interrupted.append(True)
            _thread.interrupt_main()

    left_before = set(highs._LEFT_RUNNING)
    with pytest.raises(KeyboardInterrupt):
        highs.solve_model(model, SolveOptions(threads=1, on_progress=interrupt_the_caller))
    left = set(highs._LEFT_RUNNING) - left_before
    assert len(left) == 1
    run = left.pop()
    run.join(HANG_GUARD)
    assert not run.is_alive()


def test_end_process_does_not_wait_for_a_run_left_running():
    """A thread left running (as a MIP inside a long cut-separation round is) would hold the
    interpreter at exit for EXIT_WAIT; end_process leaves at once with the status and the output."""
    script = textwrap.dedent("""
        import threading, time
        from ctadesk.engine.solvers import highs
        run = threading.Thread(target=time.sleep, args=(3600,), daemon=True)
        run.start()
        highs._LEFT_RUNNING.add(run)
        print("the table", end="")
        highs.end_process(3)
    """)
    finished = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT,
                              timeout=HANG_GUARD)
    assert finished.returncode == 3, finished.stderr
    assert finished.stdout == "the table"


# ------------------------------------------------ an LP's simplex: its callback off until needed
SIMPLEX = {"solver": "simplex", "simplex_strategy": 1, "presolve": "off"}


def network_lp(nodes: int) -> highs.LinearModel:
    """Min-cost flow on a ring of ``nodes`` with 3 random arcs a node, capacities 1000, costs of
    both signs: the dual simplex takes about an iteration per node."""
    rng = np.random.default_rng(1)
    arcs = 4 * nodes
    tail = np.r_[rng.integers(0, nodes, arcs - nodes), np.arange(nodes)]
    head = np.r_[(tail[:arcs - nodes] + rng.integers(1, nodes, arcs - nodes)) % nodes, (np.arange(nodes) + 1) % nodes]
    supply = rng.integers(-5, 6, nodes).astype(float)
    supply[-1] -= supply.sum()
    matrix = sp.csc_array((np.tile([-1.0, 1.0], arcs), (np.c_[tail, head].reshape(-1), np.repeat(np.arange(arcs), 2))),
                          shape=(nodes, arcs))
    matrix.sort_indices()
    return highs.LinearModel(cost=rng.random(arcs) - 0.5, col_lower=np.zeros(arcs), col_upper=np.full(arcs, 1000.0),
                             matrix=highs.ColumnMatrix.from_csc(matrix), row_lower=supply, row_upper=supply)


def counted_run(options: SolveOptions, nodes: int) -> tuple[highs.HighsRun, list[int]]:
    """A HighsRun of network_lp(nodes) whose simplex interrupt callbacks are counted (a function
    beside ctadesk's in highspy's list: called whenever the callback is on)."""
    run = highs.HighsRun(options, SIMPLEX)
    assert run.pass_model(network_lp(nodes))
    polls = [0]
    run.highs.cbSimplexInterrupt.callbacks.append(lambda event: polls.__setitem__(0, polls[0] + 1))
    return run, polls


def test_an_lp_nobody_stops_calls_no_simplex_callback():
    run, polls = counted_run(SolveOptions(stop=threading.Event(), time_limit=HANG_GUARD), 2000)
    assert run.run() == (True, highspy.HighsStatus.kOk)
    assert run.status() is Status.OPTIMAL and run.highs.getInfo().simplex_iteration_count > 1000
    assert polls[0] == 0


def test_a_stop_set_before_an_lp_runs_interrupts_its_first_iteration():
    stop = threading.Event()
    stop.set()
    run, polls = counted_run(SolveOptions(stop=stop), 2000)
    run.run()
    assert run.status() is Status.CANCELLED and polls[0] == 1
    assert run.highs.getInfo().simplex_iteration_count <= 1


def test_a_stop_set_while_an_lp_runs_turns_the_callback_on_and_interrupts_it():
    stop = threading.Event()
    run, polls = counted_run(SolveOptions(stop=stop, time_limit=HANG_GUARD), 20_000)
    timer = threading.Timer(0.3, stop.set)
    timer.start()
    run.run()
    timer.join()
    assert run.status() is Status.CANCELLED and polls[0] >= 1


def test_an_lp_past_its_deadline_stops_at_the_time_limit():
    run, _ = counted_run(SolveOptions(time_limit=0.3), 20_000)
    run.run()
    assert run.status() is Status.TIME_LIMIT


def test_a_later_run_of_the_same_highs_gets_the_time_left_after_the_runs_before():
    """HiGHS holds its time limit against the object's run time summed over every run: a limit of the
    budget's remaining seconds alone stopped every LP of a flip descent (senses/flips.py) at once
    once the LPs before had used half its budget.  A second run of a solved LP takes next to no
    time, so its limit must reach past the first run's seconds."""
    from ctadesk.engine.solvers.lp import l1_column_bounds, l1_matrix

    _, problem = cox_table((10, 10, 10), seed=1)
    lower, upper = l1_column_bounds(problem, np.ones(problem.sensitive.size, np.int8))
    rhs = problem.deviation_rhs
    model = highs.LinearModel(np.concatenate([problem.weights, problem.weights]), lower, upper,
                              l1_matrix(problem), rhs, rhs)
    run = highs.HighsRun(SolveOptions(time_limit=HANG_GUARD), {"solver": "simplex"}, quiet=True)
    assert run.pass_model(model)
    run.run()
    before = run.highs.getRunTime()
    assert before > 0
    run.run()
    assert run.highs.getOptionValue("time_limit")[1] >= before + run.budget.remaining()
