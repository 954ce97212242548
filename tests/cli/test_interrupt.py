"""Ctrl-C and SIGTERM during a protection run (ctadesk/cli/interrupt.py): the run ends with its
best verified table written, one line on stderr, exit status 130, and no traceback from any
process (the MILP portfolio's helper process included)."""

import json
import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

import ctadesk.cli
import ctadesk.cli.release
from ctadesk.cli import console, main
from ctadesk.cli.interrupt import EXIT_INTERRUPTED
from ctadesk.engine.solvers import highs
from ctadesk.engine.table.generate import cox_table
from ctadesk.io.jj import read_jj, write_jj

SAMPLES = Path(__file__).resolve().parents[2] / "sample_data"
#: a new incumbent in HiGHS's MIP log: a row that starts with the letter of the heuristic that found it
INCUMBENT = re.compile(r"^\s*[A-Z]\s+\d+\s+\d+")
#: hang guards only: a run that ignores the signal would otherwise run to its time limit
FIRST_INCUMBENT_WAIT = 300.0
EXIT_WAIT = 60.0


def _protected_table(jj: Path, values: list[float]) -> None:
    """The relations hold and every sensitive cell sits at or beyond a safe value, as read from
    the JJ file itself (not through the engine's own verification)."""
    problem = read_jj(jj).problem
    x = np.asarray(values)
    scale = 1e-7 * max(1.0, float(np.abs(problem.values).max()))
    assert np.abs(problem.relations @ x).max() <= scale
    assert np.all(x >= problem.lower - scale) and np.all(x <= problem.upper + scale)
    original, cells = problem.values[problem.sensitive], x[problem.sensitive]
    assert np.all((cells >= original + problem.upper_protection - scale)
                  | (cells <= original - problem.lower_protection + scale))


@pytest.mark.parametrize("sent", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_to_the_process_group_ends_solve_with_its_best_table(tmp_path, sent):
    """SIGINT as a terminal's Ctrl-C sends it (to the whole process group, the portfolio's
    helper process included) once the MILP has an incumbent; SIGTERM as a job scheduler does."""
    table, out = tmp_path / "table.jj", tmp_path / "out.json"
    write_jj(table, cox_table((8, 8, 8), seed=1)[1])     # 154 free senses: the MILP and a helper process
    run = subprocess.Popen([sys.executable, "-m", "ctadesk", "solve", str(table), "--time-limit", "600",
                            "--log", "--json", str(out)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, process_group=0)
    lines: list[str] = []
    incumbent = threading.Event()

    def read() -> None:
        for line in run.stderr:
            lines.append(line)
            if INCUMBENT.match(line):
                incumbent.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert incumbent.wait(FIRST_INCUMBENT_WAIT), "".join(lines[-30:])
        os.killpg(run.pid, sent)
        code = run.wait(EXIT_WAIT)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
            run.wait()
    reader.join(EXIT_WAIT)
    stderr = "".join(lines)
    assert "('learning-milp')" in stderr, stderr[:3000]     # the portfolio, which starts the helper
    assert code == EXIT_INTERRUPTED, stderr[-3000:]
    assert "Traceback" not in stderr and "terminate called" not in stderr, stderr[-3000:]
    assert stderr.rstrip().splitlines()[-1] == (f"ctadesk: interrupted by {sent.name}: the run stopped early "
                                                "(its best table so far, if any, is written)")
    result = json.loads(out.read_text())
    assert result["status"] == "cancelled" and result["verified"] is True, result["message"]
    _protected_table(table, result["values"])


def test_protect_writes_its_table_when_interrupted_and_exits_130(tmp_path, monkeypatch, capsys):
    """The signal arrives as the protection ends: the table is still written, then the one line."""
    real_protect = ctadesk.cli.release.protect
    seen: list[bool] = []

    def protect_then_interrupted(problem, request, **kwargs):
        protection = real_protect(problem, request, **kwargs)
        os.kill(os.getpid(), signal.SIGINT)
        seen.append(kwargs["stop"].wait(10.0))
        return protection

    monkeypatch.setattr(ctadesk.cli.release, "protect", protect_then_interrupted)
    out = tmp_path / "out.csv"
    code = main(["protect", str(SAMPLES / "business_microdata.csv"), "--span", "region", "industry",
                 "--response", "turnover", "--min-freq", "3", "--method", "lp", "-o", str(out)])
    assert seen == [True]
    assert code == EXIT_INTERRUPTED
    assert out.read_text().count("\n") > 10
    assert capsys.readouterr().err.rstrip().splitlines()[-1].startswith("ctadesk: interrupted by SIGINT: ")


def test_signals_are_handled_as_before_once_the_command_has_ended(tmp_path):
    assert main(["solve", str(SAMPLES / "thesis_3x4.jj"), "--method", "lp", "--json", str(tmp_path / "o.json")]) == 0
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def test_ctrl_c_while_the_commands_load_is_one_line_and_130(monkeypatch, capsys):
    """Loading the commands takes seconds (the solvers' libraries); a Ctrl-C then printed a
    traceback from the import machinery."""
    def loading(argv=None):
        raise KeyboardInterrupt

    ended: list[int] = []
    monkeypatch.setattr(ctadesk.cli, "main", loading)
    monkeypatch.setattr(highs, "end_process", ended.append)     # the real one would end pytest
    console()
    assert ended == [EXIT_INTERRUPTED]
    assert capsys.readouterr().err == "ctadesk: interrupted\n"
