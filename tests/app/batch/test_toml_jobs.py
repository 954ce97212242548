"""ctadesk's TOML job files: each [[job]] one request over microdata or a table, its outputs
written; mistakes named by file, job and key; jobs side by side publish what they publish one
after another; a failing job leaves the others done; a logged job repeats identically."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctadesk.app.batch import plan_batch, repeat_logged, run_batch
from ctadesk.io.tauargus_batch import BatchError

SAMPLES = Path(__file__).resolve().parents[3] / "sample_data"
JOB = """
[[job]]
name = "{name}"
microdata = "micro.csv"
spans = {spans}
response = "turnover"
rules = {{ min_frequency = 3, p_percent = [15] }}
seed = {seed}
time_limit = 60
outputs = {{ json = "out/{name}.json" }}
"""
SPANS = ('[["region", "size"]]', '[["region", "sector"]]', '[["region", "size"], ["region", "sector"]]',
         '[["size", "sector"]]')


def micro(folder: Path, rng: np.random.Generator, n: int = 60) -> None:
    rows = ["region,size,sector,turnover"]
    rows += [f"R{rng.integers(4)},S{rng.integers(3)},K{rng.integers(3)},{rng.integers(1, 900)}" for _ in range(n)]
    (folder / "micro.csv").write_text("\n".join(rows) + "\n")


def job_file(folder: Path, jobs: list[tuple[str, str, int]], extra: str = "") -> Path:
    path = folder / "jobs.toml"
    path.write_text(extra + "".join(JOB.format(name=name, spans=spans, seed=seed) for name, spans, seed in jobs))
    return path


def test_a_job_writes_its_outputs_with_versions_seed_and_request(tmp_path: Path):
    micro(tmp_path, np.random.default_rng(1))
    path = job_file(tmp_path, [("linked", SPANS[2], 4)])
    report = run_batch(path)
    assert report.ok, report.lines()
    document = json.loads((tmp_path / "out" / "linked.json").read_text())
    assert document["job"] == "linked" and len(document["tables"]) == 2
    assert set(document["versions"]) == {"ctadesk", "highspy", "clarabel"}
    assert document["request"]["widening_seed"] == 4 and document["request"]["time_limit"] == 60
    log = (tmp_path / "jobs.log").read_text()
    assert "versions: ctadesk" in log and '"widening_seed": 4' in log


@pytest.mark.parametrize("text, where", [
    ('[[job]]\nname = "a"\nmicrodata = "micro.csv"\nspans = [["region"]]\ndistanse = "l2"\n',
     "job 1 (a), key 'distanse'"),
    ('[[job]]\nmicrodata = "micro.csv"\nspans = [["region"]]\ndistance = "l7"\n', "job 1 (job 1), key 'distance'"),
    ('[[job]]\nmicrodata = "micro.csv"\nspans = "region"\n', "key 'spans'"),
    ('[[job]]\nmicrodata = "nothere.csv"\nspans = [["region"]]\n', "key 'microdata'"),
    ('[[job]]\nmicrodata = "micro.csv"\nspans = [["region"]]\nrules = { p_percent = [0] }\n', "key 'rules'"),
    ('[[job]]\nmicrodata = "micro.csv"\nspans = [["region"]]\noutputs = { pdf = "x.pdf" }\n', "key 'outputs.pdf'"),
    ('[[job]\n', "not a TOML job file"),
])
def test_mistakes_name_the_file_the_job_and_the_key(tmp_path: Path, text: str, where: str):
    micro(tmp_path, np.random.default_rng(1))
    (tmp_path / "jobs.toml").write_text(text)
    with pytest.raises(BatchError, match=r"jobs\.toml") as error:
        plan_batch(tmp_path / "jobs.toml")
    assert where in str(error.value)


def test_a_failing_job_leaves_the_others_done_and_the_batch_failed(tmp_path: Path):
    micro(tmp_path, np.random.default_rng(2))
    path = job_file(tmp_path, [("a", SPANS[0], 1), ("bad", '[["region", "nosuch"]]', 1), ("c", SPANS[1], 1)])
    report = run_batch(path, workers=2)
    assert [outcome.ok for outcome in report.outcomes] == [True, False, True] and not report.ok
    assert "jobs.toml, job 2 (bad)" in report.outcomes[1].error and "nosuch" in report.outcomes[1].error
    assert (tmp_path / "out" / "a.json").exists() and (tmp_path / "out" / "c.json").exists()
    assert "2 of 3 job(s) succeeded" in (tmp_path / "jobs.log").read_text()


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**16), picks=st.lists(st.integers(0, len(SPANS) - 1), min_size=2, max_size=4))
def test_jobs_side_by_side_publish_what_they_publish_one_after_another(tmp_path_factory, seed, picks):
    folder = tmp_path_factory.mktemp("jobs")
    micro(folder, np.random.default_rng(seed))
    path = job_file(folder, [(f"j{k}", SPANS[pick], seed + k) for k, pick in enumerate(picks)])
    one = run_batch(path, workers=1)
    two = run_batch(path, workers=2)
    assert [o.ok for o in one.outcomes] == [o.ok for o in two.outcomes]
    assert [o.record for o in one.outcomes] == [o.record for o in two.outcomes]
    assert all(o.record is not None for o in one.outcomes if o.ok)


def test_a_logged_job_repeats_identically_and_a_changed_input_is_told(tmp_path: Path):
    micro(tmp_path, np.random.default_rng(3))
    path = job_file(tmp_path, [("a", SPANS[0], 9), ("b", SPANS[2], 11)])
    assert run_batch(path).ok
    repeats = repeat_logged(tmp_path / "jobs.log")
    assert [(r.number, r.identical) for r in repeats] == [(1, True), (2, True)]
    micro(tmp_path, np.random.default_rng(4))          # the microdata changed since
    assert [r.identical for r in repeat_logged(tmp_path / "jobs.log", job=2)] == [False]


def test_a_table_file_job_writes_the_table_s_exports(tmp_path: Path):
    shutil.copy(SAMPLES / "thesis_3x4.jj", tmp_path / "t.jj")
    (tmp_path / "jobs.toml").write_text('[[job]]\ntable = "t.jj"\nseed = 2\n'
                                        'outputs = { project = "t.ctaproj", json = "t.json", csv = "t.csv" }\n')
    report = run_batch(tmp_path / "jobs.toml")
    assert report.ok, report.lines()
    assert all((tmp_path / name).stat().st_size > 0 for name in ("t.ctaproj", "t.json", "t.csv"))
    assert json.loads((tmp_path / "t.json").read_text())["request"]["widening_seed"] == 2
