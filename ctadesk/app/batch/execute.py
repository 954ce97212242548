"""Running a batch's jobs: one after another in this process, side by side in worker processes
(``workers`` > 1; the spawn start method, so that a worker never inherits a solver's threads), or
on a Dask distributed cluster (``scheduler``: 'tcp://host:8786', the optional extra ``dask``).

Jobs are independent: each has its own budget (its request's time limit); a batch-wide deadline
shortens the time limit of a job that starts late, and a job that would start after it fails
saying so.  A job that fails does not stop the others.  Progress -- a job's gap as its solver
reports it -- comes back from worker processes through a queue; Dask workers report only when a
job ends.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import multiprocessing
import queue as queues
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from ctadesk.app.batch.jobs import JobOutcome

#: a running job's progress: (job number, relative gap: nan when the solver reports none)
OnProgress = Callable[[int, float], None]
#: seconds between two progress reports of one job
REPORT_EVERY = 0.5


def run_job(job: Any, deadline: float | None = None, report: Any = None,
            stop: threading.Event | None = None) -> JobOutcome:
    """Run ``job`` (module docstring) within ``deadline`` (time.time(); None: its own time limit
    only), reporting its gap to ``report`` (a callable or a queue) at most every REPORT_EVERY s."""
    if deadline is not None:
        left = deadline - time.time()
        if left <= 0:
            return JobOutcome(job, False, (), error=f"{job.title()}: the batch's time limit ran out before it started")
        job = dataclasses.replace(job, request=job.request.replace(time_limit=min(job.request.time_limit, left)))
    on_progress = None
    if report is not None:
        send = report if callable(report) else report.put
        last = [0.0]

        def on_progress(progress) -> None:
            now = time.monotonic()
            if now - last[0] >= REPORT_EVERY:
                last[0] = now
                send((job.number, progress.gap))
    try:
        return job.run(stop=stop, on_progress=on_progress)
    except Exception as error:   # a bug in one job must not end the batch: its outcome says what it was
        return JobOutcome(job, False, (), error=f"{job.title()}: {type(error).__name__}: {error}")


def execute(jobs: Sequence[Any], *, workers: int = 1, scheduler: str | None = None, deadline: float | None = None,
            stop: threading.Event | None = None, on_outcome: Callable[[JobOutcome], None] | None = None,
            on_progress: OnProgress | None = None) -> list[JobOutcome]:
    """Every job's outcome, in the jobs' order (module docstring); ``on_outcome`` as each ends."""
    if scheduler is not None:
        outcomes = _on_dask(jobs, scheduler, deadline, stop, on_outcome)
    elif workers > 1 and len(jobs) > 1:
        outcomes = _in_processes(jobs, workers, deadline, stop, on_outcome, on_progress)
    else:
        outcomes = []
        for job in jobs:
            if stop is not None and stop.is_set():
                break
            report = (lambda item: on_progress(*item)) if on_progress is not None else None
            outcomes.append(_local(run_job(job, deadline, report, stop), job))
            if on_outcome is not None:
                on_outcome(outcomes[-1])
    order = {id(job): k for k, job in enumerate(jobs)}
    return sorted(outcomes, key=lambda outcome: order[id(outcome.job)])


def _in_processes(jobs, workers, deadline, stop, on_outcome, on_progress) -> list[JobOutcome]:
    context = multiprocessing.get_context("spawn")
    outcomes: list[JobOutcome] = []
    with context.Manager() as manager, concurrent.futures.ProcessPoolExecutor(workers, mp_context=context) as pool:
        reports = manager.Queue() if on_progress is not None else None
        futures = {pool.submit(run_job, job, deadline, reports): job for job in jobs}
        listening = threading.Event()
        listener = None
        if reports is not None:
            def listen() -> None:
                while not listening.is_set():
                    try:
                        on_progress(*reports.get(timeout=0.2))
                    except queues.Empty:
                        continue
                    except (EOFError, OSError):
                        return
            listener = threading.Thread(target=listen, daemon=True)
            listener.start()
        pending = set(futures)
        try:
            while pending:
                done, pending = concurrent.futures.wait(pending, timeout=0.2,
                                                        return_when=concurrent.futures.FIRST_COMPLETED)
                for future in done:
                    outcome = _outcome(future, futures[future])
                    outcomes.append(_local(outcome, futures[future]))
                    if on_outcome is not None:
                        on_outcome(outcomes[-1])
                if stop is not None and stop.is_set():
                    for future in pending:
                        future.cancel()
                    pending = {future for future in pending if not future.cancelled()}
        finally:
            listening.set()
            if listener is not None:
                listener.join()
    return outcomes


def _on_dask(jobs, scheduler, deadline, stop, on_outcome) -> list[JobOutcome]:
    from ctadesk.engine.errors import CTAError

    try:
        from distributed import Client, as_completed
    except ImportError:
        raise CTAError(f"--scheduler {scheduler}: Dask is not installed; install ctadesk[dask]") from None
    outcomes: list[JobOutcome] = []
    try:
        client = Client(scheduler, timeout=30)
    except OSError as error:
        raise CTAError(f"--scheduler {scheduler}: no Dask scheduler answers ({error})") from None
    with client:
        futures = {client.submit(run_job, job, deadline, pure=False): job for job in jobs}
        for future in as_completed(list(futures)):
            outcome = _outcome(future, futures[future])
            outcomes.append(_local(outcome, futures[future]))
            if on_outcome is not None:
                on_outcome(outcomes[-1])
            if stop is not None and stop.is_set():
                client.cancel([f for f in futures if not f.done()])
                break
    return outcomes


def _outcome(future: Any, job: Any) -> JobOutcome:
    """A finished future's outcome; a worker that died is the job's failure."""
    try:
        return future.result()
    except Exception as error:
        return JobOutcome(job, False, (), error=f"{job.title()}: its worker failed: {type(error).__name__}: {error}")


def _local(outcome: JobOutcome, job: Any) -> JobOutcome:
    """The outcome holding this process's job (a worker sends back a copy, with its time limit)."""
    return dataclasses.replace(outcome, job=job)
