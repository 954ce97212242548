"""The PyInstaller bundle, dist/ctadesk/ (`make installer-test` builds it, then runs these): its
self-test passes offscreen, the child processes the solvers start run from it, and its size and
start time are printed (run with -s to see them)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ctadesk import __version__

pytestmark = pytest.mark.installer

ROOT = Path(__file__).resolve().parents[2]
BUNDLE = ROOT / "dist" / "ctadesk"
EXECUTABLE = BUNDLE / "ctadesk"
OFFSCREEN = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}


@pytest.fixture(scope="module")
def bundle() -> Path:
    if not EXECUTABLE.exists():
        pytest.skip("no bundle in dist/ctadesk: `make installer-test` builds it first")
    return EXECUTABLE


def run_self_test(executable: Path) -> tuple[float | None, float, list[str], int]:
    """Seconds from starting the process to its 'window shown' line (None: never shown) and to
    its exit, its output and its exit status."""
    started = time.perf_counter()
    process = subprocess.Popen([str(executable), "gui", "--self-test"], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, env=OFFSCREEN)
    window, lines = None, []
    for line in process.stdout:
        lines.append(line.rstrip())
        if window is None and "window shown" in line:
            window = time.perf_counter() - started
    status = process.wait(timeout=300)
    return window, time.perf_counter() - started, lines, status


def test_the_self_test_passes_offscreen_and_the_figures_are_printed(bundle):
    files = [path for path in BUNDLE.rglob("*") if path.is_file() and not path.is_symlink()]
    size = sum(path.stat().st_size for path in files)             # a symbolic link holds no copy
    first = run_self_test(bundle)
    second = run_self_test(bundle)
    print(f"\nbundle {BUNDLE}: {size / 2**20:.0f} MiB in {len(files):,} files")
    for name, (window, total, lines, status) in (("first start after the build", first), ("second start", second)):
        self_test = next((line for line in lines if line.startswith("self-test passed")), "self-test FAILED")
        shown = "never" if window is None else f"{window:.2f} s after the process started"
        print(f"{name}: window shown {shown}; {self_test}; process ran {total:.2f} s")
    print("\n".join(first[2]))
    assert first[3] == 0 and second[3] == 0, "\n".join(first[2] + second[2])


def test_the_bundle_reports_its_version(bundle):
    output = subprocess.run([str(bundle), "--version"], capture_output=True, text=True, check=True).stdout
    assert output.strip() == f"ctadesk {__version__}"


def test_the_portfolio_heuristic_process_runs_from_the_bundle(bundle, monkeypatch):
    """The MILP portfolio starts its heuristic as `sys.executable -c CODE`: with the bundle as
    sys.executable, a heuristic table comes back through the pipes."""
    from ctadesk.engine.table.generate import cox_table
    from ctadesk.engine.result import SolveOptions
    from ctadesk.engine.senses.bcd import solve_bcd
    from ctadesk.engine.senses.portfolio import _Helper

    monkeypatch.setattr(sys, "executable", str(bundle))
    _, problem = cox_table((8, 8), seed=1)
    helper = _Helper(problem, SolveOptions(), solve_bcd, seconds=30.0)
    try:
        deadline = time.perf_counter() + 60
        while helper.best is None and not helper.closed and time.perf_counter() < deadline:
            helper.receive(wait=0.5)
    finally:
        helper.stop()
    assert helper.best is not None
    objective, values, senses = helper.best
    assert values.shape == (problem.n_cells,) and objective > 0


def test_the_audit_spawns_its_worker_processes_from_the_bundle(bundle, tmp_path):
    """multiprocessing's spawn workers (engine/audit/parallel.py) start the bundle again."""
    table = ROOT / "sample_data" / "thesis_20x30.jj"
    released = tmp_path / "released.sol"
    subprocess.run([str(bundle), "solve", str(table), "--method", "lp", "--sol", str(released)],
                   capture_output=True, check=True, timeout=120)
    audit = subprocess.run([str(bundle), "audit", str(table), str(released), "--workers", "2"],
                           capture_output=True, text=True, timeout=300)
    assert audit.returncode == 0, audit.stderr
    assert "20 sensitive cell(s) audited" in audit.stdout
