"""`ctadesk batch JOB.toml --jobs N` and `--repeat LOGBOOK`: the exit status says whether every job
succeeded (or repeated identically); progress goes to stderr, nothing with --quiet."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ctadesk.cli import main
from tests.app.batch.test_toml_jobs import SPANS, job_file, micro


def test_jobs_side_by_side_then_repeated(tmp_path: Path, capsys):
    micro(tmp_path, np.random.default_rng(6))
    path = job_file(tmp_path, [("a", SPANS[0], 1), ("b", SPANS[1], 2)])
    assert main(["batch", str(path), "--jobs", "2"]) == 0
    err = capsys.readouterr().err
    assert "[2/2]" in err and "2 of 2 job(s) succeeded" in err
    assert main(["batch", "--repeat", str(tmp_path / "jobs.log"), "--job", "2"]) == 0
    assert "job 2 (b): identical" in capsys.readouterr().err


def test_a_failing_job_makes_the_exit_status_1_and_quiet_prints_only_it(tmp_path: Path, capsys):
    micro(tmp_path, np.random.default_rng(6))
    path = job_file(tmp_path, [("a", SPANS[0], 1), ("bad", '[["nosuch"]]', 1)])
    assert main(["batch", str(path), "--quiet"]) == 1
    err = capsys.readouterr().err
    assert "job 2 (bad): FAILED" in err and "job 1 (a)" not in err


def test_a_job_file_mistake_is_exit_status_2_naming_the_key(tmp_path: Path, capsys):
    (tmp_path / "jobs.toml").write_text('[[job]]\nname = "x"\ntable = "t.jj"\ngap = 2\n')
    (tmp_path / "t.jj").write_text("")
    assert main(["batch", str(tmp_path / "jobs.toml")]) == 2
    assert "job 1 (x), key 'gap'" in capsys.readouterr().err
