"""The wheel `python -m build` makes ships resources/ and sample_data/ inside the package, and
installs into a fresh virtual environment where the command line works away from the checkout
(`make installer-test`; needs the network for the dependencies)."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from ctadesk import __version__

pytestmark = pytest.mark.installer

ROOT = Path(__file__).resolve().parents[2]


def test_the_wheel_ships_resources_and_installs_into_a_fresh_venv(tmp_path):
    subprocess.run([sys.executable, "-m", "build", "--outdir", str(tmp_path / "dist"), str(ROOT)],
                   check=True, capture_output=True)
    wheel = next((tmp_path / "dist").glob("ctadesk-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {"ctadesk/_resources/ctadesk.svg", "ctadesk/_resources/icons/ctadesk-256.png",
            "ctadesk/_resources/ctadesk.desktop", "ctadesk/_samples/cox_20x20.jj"} <= names
    assert not any(name.endswith(("make_icons.py", "make_samples.py")) for name in names)

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    # the desktop app's extras (the command line needs `files` too: its commands import openpyxl at start)
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", f"{wheel}[gui,files]"], check=True,
                   capture_output=True)
    ctadesk = str(venv / "bin" / "ctadesk")

    def run(*args: str) -> str:
        """ctadesk's output, run outside the checkout (so only the installed package is found)."""
        return subprocess.run([ctadesk, *args], capture_output=True, text=True, check=True, cwd=tmp_path,
                              env={**os.environ, "QT_QPA_PLATFORM": "offscreen"}).stdout

    shown = run("--version").strip()
    assert shown == f"ctadesk {__version__}"
    solved = run("solve", str(ROOT / "sample_data" / "cox_20x20.jj"), "--method", "lp").strip()
    assert "verified" in solved
    assert "self-test passed" in run("gui", "--self-test")        # its sample and icons from the wheel
    print(f"\nwheel {wheel.name}: {wheel.stat().st_size / 2**20:.1f} MiB; in a fresh venv: {shown}; {solved}; "
          "self-test passed")
