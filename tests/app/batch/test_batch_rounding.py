"""`<SUPPRESS> RND(table, base, ...)` runs without --as-cta: CTA published as a controlled
rounding to multiples of the base, additive, every unsafe cell outside its protection interval."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import numpy as np
import pytest

from ctadesk.app.batch import plan_jobs, run_batch
from ctadesk.app.batch.tables import build_table
from ctadesk.app.request import ProtectionRequest
from ctadesk.cli import main
from ctadesk.io.tauargus_batch import read_batch

DATA = Path(__file__).resolve().parents[2] / "data" / "tauargus"


def rounding_batch(tmp_path: Path, example: str, base: int) -> Path:
    folder = tmp_path / example
    shutil.copytree(DATA / example, folder)
    path = folder / f"batch_{example}.arb"
    path.write_bytes(path.read_bytes().replace(b"OPT(1,1)", f"RND(1, {base}, 0, 0, 0)".encode()))
    return path


@pytest.mark.parametrize("example, base", [("ex1", 5), ("ex2", 100)])
def test_rnd_publishes_an_additive_protected_table_of_multiples_of_its_base(tmp_path, example, base):
    path = rounding_batch(tmp_path, example, base)
    report = run_batch(path, request=ProtectionRequest(seed=7))
    assert report.ok, report.lines()
    with open(path.parent / f"tabout_{example}.txt", newline="") as handle:
        body = list(csv.reader(handle))[1:]
    published = np.array([float(row[2]) for row in body])
    original = np.array([float(row[3]) for row in body])
    assert np.array_equal(published, base * np.round(published / base))
    grid = published.reshape(5, 3)
    assert np.array_equal(grid[:, 0], grid[:, 1] + grid[:, 2]) and np.array_equal(grid[0], grid[1:].sum(axis=0))
    job = plan_jobs(read_batch(path), ProtectionRequest())[0][0]
    assert job.request.rounding_base == base and job.refusal is None
    problem = build_table(job.tables[0]).problem
    moved = published[problem.sensitive] - original[problem.sensitive]
    assert np.all((moved >= problem.upper_protection - 1e-9) | (-moved >= problem.lower_protection - 1e-9))
    log = (path.parent / f"arguslog_{example}.log").read_text()
    assert f"controlled rounding to multiples of {base}" in log and "(0, 0, 0) are not used" in log


def test_rnd_with_a_precision_asked_is_refused_naming_the_line(tmp_path):
    path = rounding_batch(tmp_path, "ex2", 10)
    report = run_batch(path, request=ProtectionRequest(precision=1))
    assert not report.ok
    assert "line 8: <SUPPRESS>: RND(1, 10): rounding base 10 with precision '1'" in report.outcomes[0].error
    assert main(["batch", str(path), "--quiet"]) == 0


def test_a_job_file_takes_a_rounding_base(tmp_path):
    import json

    shutil.copy(Path(__file__).resolve().parents[3] / "sample_data" / "thesis_10x15.jj", tmp_path / "t.jj")
    (tmp_path / "jobs.toml").write_text('[[job]]\ntable = "t.jj"\nseed = 2\nrounding_base = 10\n'
                                        'outputs = { json = "t.json" }\n')
    report = run_batch(tmp_path / "jobs.toml")
    assert report.ok, report.lines()
    document = json.loads((tmp_path / "t.json").read_text())
    values = np.array(document["values"])
    assert np.array_equal(values, 10 * np.round(values / 10)) and document["published"]["base"] == 10
