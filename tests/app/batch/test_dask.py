"""Jobs on a Dask distributed cluster (the optional extra ``dask``): a local cluster of two worker
processes on loopback publishes what the jobs publish in this process."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ctadesk.app.batch import run_batch
from tests.app.batch.test_toml_jobs import SPANS, job_file, micro

distributed = pytest.importorskip("distributed", reason="the dask extra is not installed")
dask = pytest.importorskip("dask")


def test_jobs_on_a_local_cluster_publish_what_they_publish_here(tmp_path: Path):
    micro(tmp_path, np.random.default_rng(5))
    path = job_file(tmp_path, [("a", SPANS[0], 1), ("b", SPANS[2], 2), ("bad", '[["nosuch"]]', 3)])
    here = run_batch(path)
    # the workers' scratch folders in tmp_path, not in one folder every test run shares
    with dask.config.set({"temporary-directory": str(tmp_path)}), \
            distributed.LocalCluster(processes=True, n_workers=2, threads_per_worker=1, host="127.0.0.1",
                                     dashboard_address=None) as cluster:
        there = run_batch(path, scheduler=cluster.scheduler_address)
    assert [o.ok for o in there.outcomes] == [True, True, False]
    assert [o.record for o in there.outcomes] == [o.record for o in here.outcomes]
    assert "nosuch" in there.outcomes[2].error


def test_no_scheduler_answering_is_a_clear_error(tmp_path: Path, monkeypatch):
    from ctadesk.engine.errors import CTAError

    client = distributed.Client    # the batch waits 30 s for a scheduler; the test, 1 s
    monkeypatch.setattr(distributed, "Client", lambda address, timeout: client(address, timeout=1))
    micro(tmp_path, np.random.default_rng(5))
    path = job_file(tmp_path, [("a", SPANS[0], 1)])
    with pytest.raises(CTAError, match="no Dask scheduler answers"):
        run_batch(path, scheduler="tcp://127.0.0.1:9")
