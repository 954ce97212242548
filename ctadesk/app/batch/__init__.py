"""Batch runs: a tau-argus batch file or ctadesk's TOML job file -> a plan of jobs (plan.py:
jobs.py for .arb, toml_jobs.py for .toml) -> the tables (tables.py, rules.py) -> CTA
(ctadesk.app.job) run one after another, in worker processes or on a Dask cluster (execute.py)
-> outputs and the logbook, from which a job can be repeated (runner.py)."""

from ctadesk.app.batch.jobs import BatchJob, JobOutcome, plan_jobs
from ctadesk.app.batch.plan import BatchPlan, plan_batch
from ctadesk.app.batch.runner import BatchReport, Repeat, repeat_logged, run_batch

__all__ = ["BatchJob", "BatchPlan", "BatchReport", "JobOutcome", "Repeat", "plan_batch", "plan_jobs",
           "repeat_logged", "run_batch"]
