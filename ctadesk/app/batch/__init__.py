"""tau-argus batch files run by ctadesk: commands -> jobs (jobs.py) -> tables (tables.py, rules.py)
-> CTA (ctadesk.app.job) -> outputs and the logbook (runner.py)."""

from ctadesk.app.batch.jobs import BatchJob, JobOutcome, plan_jobs
from ctadesk.app.batch.runner import BatchReport, run_batch

__all__ = ["BatchJob", "BatchReport", "JobOutcome", "plan_jobs", "run_batch"]
