"""The CLI's entry point defers numpy.testing and numpy.f2py (ctadesk.cli.lazy_imports): SciPy's
import no longer loads them, and every name they hold still works when used (issue 34)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ctadesk.cli.lazy_imports import NUMPY_TOOLS, LazyFinder, defer_numpy_tools

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "sample_data" / "thesis_3x4.jj"

#: in a fresh interpreter, optionally after defer_numpy_tools(): SciPy's import, what it left
#: unloaded, then every public name of the two modules and a use of numpy.testing's asserts
_PROBE = """
import json, sys
if sys.argv[1] == "lazy":
    from ctadesk.cli.lazy_imports import defer_numpy_tools
    defer_numpy_tools()
import scipy.sparse
import numpy as np
unloaded = sorted(name for name in ("numpy.testing", "numpy.f2py")
                  if type(sys.modules[name]).__name__ == "_LazyModule")
np.testing.assert_allclose([1.0, 2.0], [1.0, 2.0 + 1e-12])
try:
    np.testing.assert_allclose([1.0], [2.0])
    raised = False
except AssertionError:
    raised = True
from numpy.testing import assert_array_equal
assert_array_equal(np.arange(3), [0, 1, 2])
names = {name: sorted(n for n in dir(sys.modules[name]) if not n.startswith("_"))
         for name in ("numpy.testing", "numpy.f2py")}
values = {name: [type(getattr(sys.modules[name], n)).__name__ for n in names[name]] for name in names}
print(json.dumps({"unloaded": unloaded, "raised": raised, "names": names, "values": values,
                  "include": np.f2py.get_include(), "same": np.testing is sys.modules["numpy.testing"]}))
"""


def _probe(mode: str) -> dict:
    done = subprocess.run([sys.executable, "-c", _PROBE, mode], capture_output=True, text=True, check=True,
                          cwd=ROOT)
    return json.loads(done.stdout)


def test_scipy_leaves_the_deferred_modules_unloaded_and_their_names_work():
    lazy, eager = _probe("lazy"), _probe("eager")
    assert lazy["unloaded"] == ["numpy.f2py", "numpy.testing"]
    assert eager["unloaded"] == []         # the test can fail: without the finder SciPy loads both
    assert lazy["raised"] and eager["raised"]
    assert lazy["same"] and eager["same"]
    assert lazy["names"] == eager["names"] and lazy["names"]["numpy.testing"]
    assert lazy["values"] == eager["values"]
    assert lazy["include"] == eager["include"]


def test_the_console_entry_point_solves_without_loading_them_or_the_l2_solvers():
    """A 3x4 MILP solve through the program loads neither numpy's tools nor what only L2 needs
    (the method choice imports the L2 Newton solver where it weighs an L2 model)."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "ctadesk", "solve", str(SAMPLE)],
                          capture_output=True, text=True, check=True, cwd=ROOT)
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()
                if line.startswith("import time:")}
    assert "scipy.sparse" in imported
    assert not imported & {"numpy.testing._private.utils", "numpy.f2py.f2py2e", "scipy.linalg",
                           "scipy.sparse.linalg", "ctadesk.engine.solvers.newton_l2", "qdldl", "clarabel"}
    assert "optimal" in done.stdout


def test_the_finder_serves_only_its_modules():
    finder = LazyFinder(NUMPY_TOOLS)
    assert finder.find_spec("json", None) is None
    assert finder.find_spec("numpy.linalg", None) is None


def test_the_finder_is_installed_once(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(sys, "meta_path", list(sys.meta_path))
    defer_numpy_tools()
    defer_numpy_tools()
    assert sum(isinstance(finder, LazyFinder) for finder in sys.meta_path) == 1
    assert isinstance(sys.meta_path[0], LazyFinder)
