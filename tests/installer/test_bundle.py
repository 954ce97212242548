"""The PyInstaller bundle (`make installer-test` builds it, then runs these; the CI workflow
.github/workflows/installers.yml on Windows and macOS): its self-test passes offscreen, the child
processes the solvers start run from it, it holds only what the app uses within the size limit, and
its size by component and start time are printed (run with -s to see them)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from ctadesk import __version__

pytestmark = pytest.mark.installer

ROOT = Path(__file__).resolve().parents[2]
#: the folder given to users and the executable that runs the command line, per platform
#: (installer/ctadesk.spec: on Windows the console one beside the windowed app)
if sys.platform == "win32":
    BUNDLE = ROOT / "dist" / "ctadesk"
    EXECUTABLE = BUNDLE / "ctadesk-cli.exe"
elif sys.platform == "darwin":
    BUNDLE = ROOT / "dist" / "ctadesk.app"
    EXECUTABLE = BUNDLE / "Contents" / "MacOS" / "ctadesk"
else:
    BUNDLE = ROOT / "dist" / "ctadesk"
    EXECUTABLE = BUNDLE / "ctadesk"
OFFSCREEN = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
#: issue 32: the bundle holds at most this many bytes (250 MB)
SIZE_LIMIT = 250 * 10**6
#: what the analysis followed into the bundle before the spec left it out (installer/README.md):
#: modules, looked up from the bundle, and files (Qt's gtk3 theme and Wayland plugins, translations)
LEFT_OUT_MODULES = ("pandas", "pytest", "hypothesis", "starlette", "uvicorn", "psycopg", "dask", "distributed",
                    "tornado", "yaml", "ssl", "PySide6.QtNetwork", "scipy.stats", "scipy.signal", "scipy.ndimage")
LEFT_OUT_FILES = ("libqgtk3", "libqwayland", "libQt6WaylandClient", "qtbase_de.qm", "libgtk-3", "libssl",
                  "opengl32sw.dll")


@pytest.fixture(scope="module")
def bundle() -> Path:
    if not EXECUTABLE.exists():
        pytest.skip(f"no bundle in {BUNDLE}: `make installer-test` builds it first")
    return EXECUTABLE


def bundle_files() -> list[Path]:
    """The bundle's files; a symbolic link holds no copy."""
    return [path for path in BUNDLE.rglob("*") if path.is_file() and not path.is_symlink()]


#: where the libraries and data are: the onedir folder's _internal, the .app's Frameworks and Resources
INNER_FOLDERS = (("_internal",), ("Contents", "Frameworks"), ("Contents", "Resources"))


def component(path: Path) -> str:
    """What a file of the bundle belongs to: the package or folder under _internal (macOS: the .app's
    Frameworks and Resources), Qt split into its libraries, plugins and Python bindings; 'shared
    libraries' for those the analysis put beside them; the executables (which hold the Python
    modules' archive) and menu files at the top."""
    parts = path.relative_to(BUNDLE).parts
    inner = next((parts[len(folder):] for folder in INNER_FOLDERS if parts[:len(folder)] == folder), None)
    if inner is None:
        return "executables (with the Python modules), menu files"
    if inner[:1] == ("PySide6",):
        qt = [part for part in inner[1:-1] if part not in ("Qt",)]
        return "PySide6/" + (qt[0] if qt else "bindings")
    if len(inner) == 1:
        return "shared libraries" if ".so" in inner[0] or inner[0].endswith((".dll", ".dylib")) else inner[0]
    return inner[0]


def sizes_by_component(files: list[Path]) -> Counter[str]:
    sizes: Counter[str] = Counter()
    for path in files:
        sizes[component(path)] += path.stat().st_size
    return sizes


def run_self_test(executable: Path) -> tuple[float | None, float, list[str], int]:
    """Seconds from starting the process to its 'window shown' line (None: never shown) and to
    its exit, its output and its exit status."""
    started = time.perf_counter()
    process = subprocess.Popen([str(executable), "gui", "--self-test"], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, env=OFFSCREEN)
    window, lines = None, []
    assert process.stdout is not None
    for line in process.stdout:
        lines.append(line.rstrip())
        if window is None and "window shown" in line:
            window = time.perf_counter() - started
    status = process.wait(timeout=300)
    return window, time.perf_counter() - started, lines, status


def test_the_self_test_passes_offscreen_and_the_figures_are_printed(bundle):
    files = bundle_files()
    size = sum(path.stat().st_size for path in files)
    first = run_self_test(bundle)
    second = run_self_test(bundle)
    print(f"\nbundle {BUNDLE}: {size / 10**6:.0f} MB ({size / 2**20:.0f} MiB) in {len(files):,} files; "
          f"limit {SIZE_LIMIT / 10**6:.0f} MB")
    for name, bytes_ in sizes_by_component(files).most_common(16):
        print(f"  {bytes_ / 10**6:6.1f} MB  {name}")
    for name, (window, total, lines, _status) in (("first start after the build", first), ("second start", second)):
        self_test = next((line for line in lines if line.startswith("self-test passed")), "self-test FAILED")
        shown = "never" if window is None else f"{window:.2f} s after the process started"
        print(f"{name}: window shown {shown}; {self_test}; process ran {total:.2f} s")
    print("\n".join(first[2]))
    assert first[3] == 0 and second[3] == 0, "\n".join(first[2] + second[2])


def test_the_bundle_is_within_the_size_limit_and_holds_only_what_the_app_uses(bundle):
    files = bundle_files()
    size = sum(path.stat().st_size for path in files)
    assert size <= SIZE_LIMIT, f"{size / 10**6:.0f} MB: " + ", ".join(
        f"{name} {bytes_ / 10**6:.0f} MB" for name, bytes_ in sizes_by_component(files).most_common(8))
    names = {part for path in BUNDLE.rglob("*") for part in path.relative_to(BUNDLE).parts}
    found = [left for left in LEFT_OUT_FILES if any(name == left or name.startswith(left + ".") for name in names)]
    code = ("import importlib.util\n"
            f"for name in {LEFT_OUT_MODULES!r}:\n"
            "    try:\n"
            "        found = importlib.util.find_spec(name) is not None\n"
            "    except ImportError:\n"
            "        found = False\n"
            "    if found:\n"
            "        print(name)\n")
    run = subprocess.run([str(bundle), "-c", code], capture_output=True, text=True, timeout=120, check=True)
    found += run.stdout.split()
    assert not found, f"left out by installer/ctadesk.spec, yet in the bundle: {found}"


def test_every_module_of_the_app_imports_in_the_bundle(bundle):
    """What the spec leaves out is not needed: each ctadesk module (the HTTP server's but, the server
    extra) imports from the bundle, run as `ctadesk -c CODE` the way the solvers' child processes are."""
    code = ("import importlib, pkgutil, ctadesk\n"
            "for module in pkgutil.walk_packages(ctadesk.__path__, 'ctadesk.'):\n"
            "    if not module.name.startswith('ctadesk.server'):\n"
            "        try:\n"
            "            importlib.import_module(module.name)\n"
            "        except Exception as error:\n"
            "            print(module.name, repr(error))\n"
            "print('imported')\n")
    run = subprocess.run([str(bundle), "-c", code], capture_output=True, text=True, env=OFFSCREEN, timeout=300)
    assert run.returncode == 0 and run.stdout.strip() == "imported", run.stdout + run.stderr


def test_the_bundle_reads_the_spss_sample_without_pandas(bundle):
    """pyreadstat's dict output (ctadesk/io/statfiles.py) needs no pandas, which the spec leaves out."""
    samples = ROOT / "sample_data"
    run = subprocess.run([str(bundle), "rules", str(samples / "business_microdata.sav"), "--span", "region",
                          "industry", "size_class", "--response", "turnover", "--weight", "weight",
                          "--hierarchy", f"region={samples / 'business_region.hrc'}",
                          "--hierarchy", f"industry={samples / 'business_industry.hrc'}",
                          "--min-freq", "3", "--dominance", "1,75", "--p-percent", "10"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[0].startswith("region,industry,size_class,value,freq,status")
    assert "880 cells, 58 unsafe" in run.stderr


@pytest.mark.skipif(sys.platform != "linux" or shutil.which("xvfb-run") is None, reason="needs Linux and xvfb-run")
def test_the_self_test_passes_on_an_x_display(bundle):
    """The xcb platform plugin runs with the libraries the spec kept (it prunes those only the
    left-out plugins linked): the self-test on a virtual X display, with no platform forced."""
    environment = {name: value for name, value in os.environ.items() if name != "QT_QPA_PLATFORM"}
    run = subprocess.run(["xvfb-run", "-a", str(bundle), "gui", "--self-test"], capture_output=True, text=True,
                         env=environment, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "window shown (xcb)" in run.stdout


def test_the_bundle_reports_its_version(bundle):
    output = subprocess.run([str(bundle), "--version"], capture_output=True, text=True, check=True).stdout
    assert output.strip() == f"ctadesk {__version__}"


def test_the_portfolio_heuristic_process_runs_from_the_bundle(bundle, monkeypatch):
    """The MILP portfolio starts its heuristic as `sys.executable -c CODE`: with the bundle as
    sys.executable, a heuristic table comes back through the pipes."""
    from ctadesk.engine.result import SolveOptions
    from ctadesk.engine.senses.bcd import solve_bcd
    from ctadesk.engine.senses.portfolio import _Helper
    from ctadesk.engine.table.generate import cox_table

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
    objective, values, _senses = helper.best
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
