"""A batch of many jobs from one microdata set (issue 31): wall seconds of `run_batch` on one job
file of JOBS jobs with --jobs 1 and --jobs 2 side by side, then the same jobs through a local
Dask cluster of two worker processes on loopback (when the extra `dask` is installed); with the
machine's load average, and whether every run published the same tables (the jobs' digests).

Each job protects one or two tables of sample_data/business_microdata.csv (two spanning
variables of region, industry and size_class; the frequency and p% rules), with its own seed.

    .venv/bin/python benchmarks/batch.py                  # 50 jobs
    .venv/bin/python benchmarks/batch.py --jobs 10
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

from ctadesk.app.batch import run_batch

ROOT = Path(__file__).resolve().parents[1]
SPANS = ('[["region", "size_class"]]', '[["region", "industry"]]', '[["industry", "size_class"]]',
         '[["region", "size_class"], ["region", "industry"]]')


def job_file(folder: Path, jobs: int) -> Path:
    shutil.copy(ROOT / "sample_data" / "business_microdata.csv", folder / "micro.csv")
    text = ('[defaults]\nmicrodata = "micro.csv"\nresponse = "turnover"\ntime_limit = 60\n'
            'rules = { min_frequency = 3, p_percent = [15] }\n')
    text += "".join(f'\n[[job]]\nname = "j{k}"\nspans = {SPANS[k % len(SPANS)]}\nseed = {k + 1}\n'
                    for k in range(jobs))
    (folder / "jobs.toml").write_text(text)
    return folder / "jobs.toml"


def timed(path: Path, **how) -> tuple[float, list, int]:
    started = time.perf_counter()
    report = run_batch(path, **how)
    return time.perf_counter() - started, [o.record for o in report.outcomes], sum(o.ok for o in report.outcomes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=50, help="jobs in the batch (default 50)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = job_file(Path(folder), args.jobs)
        print(f"{args.jobs} jobs from business_microdata.csv; {os.cpu_count()} cores, "
              f"load average {os.getloadavg()[0]:.2f}")
        runs = {}
        for workers in (1, 2):
            runs[f"--jobs {workers}"] = timed(path, workers=workers)
        try:
            from distributed import LocalCluster
        except ImportError:
            print("Dask: not installed (pip install ctadesk[dask])")
        else:
            started = time.perf_counter()
            with LocalCluster(processes=True, n_workers=2, threads_per_worker=1, host="127.0.0.1",
                              dashboard_address=None) as cluster:
                startup = time.perf_counter() - started
                runs["Dask, 2 workers"] = timed(path, scheduler=cluster.scheduler_address)
            print(f"(the local Dask cluster took {startup:.1f} s to start, not counted)")
        first = runs["--jobs 1"]
        print(f"{'run':<18}{'wall s':>9}{'jobs/s':>9}{'speed-up':>10}{'ok':>6}  same tables as --jobs 1")
        for name, (seconds, records, ok) in runs.items():
            print(f"{name:<18}{seconds:9.2f}{args.jobs / seconds:9.2f}{first[0] / seconds:10.2f}{ok:>6}  "
                  f"{'yes' if records == first[1] else 'NO'}")
        print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
