"""A batch file as a list of jobs, each runnable on its own (in this process, a worker process or
a cluster): a job is one `<SUPPRESS>` -- the tables it protects, the request, the outputs its
`<WRITETABLE>` commands ask for -- or the outputs of a table no `<SUPPRESS>` protects.

tau-argus's methods of secondary suppression (GH, MOD, OPT, NET) are refused, naming the line,
unless the batch runs with ``as_cta``: then they run as CTA and the log says so.  Its controlled
rounding, `RND(table, base, ...)`, runs as what it is: CTA published as a controlled rounding to
multiples of the base, additive and protected (ProtectionRequest.rounding_base); its further
arguments (steps, partitioning, stop rule, time) are tau-argus's rounder's and are noted, not run.
Table 0 (`GH(0,...)`, `MOD(0,...)`: linked tables) protects every table of the batch as linked
tables (ctadesk.app.linked_tables): a cell two tables hold is published once.

Tables of one batch tabulated from the same microdata (same `.asc`, `.rda`, response, shadow,
cost and weighting) are linked whatever `<SUPPRESS>` lines ask for them: their jobs become one,
protected as one CTA over the union of their relations (de Wolf & Giessing; Petrenko 2017,
§5.1), so that a cell two of them hold -- Region x Total of Region x Size and Region x Sector --
is published with one value.  Protected one by one, each CTA would move it its own way.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ctadesk.app.batch.tables import BuiltTable, TableSource, build_table
from ctadesk.app.batch.toml_jobs import job_record
from ctadesk.app.job import Protection, protect
from ctadesk.app.provenance import request_record
from ctadesk.app.request import ProtectionRequest, RequestError
from ctadesk.engine.errors import CTAError
from ctadesk.engine.result import Progress
from ctadesk.io.jj import write_jj
from ctadesk.io.tauargus_batch import (
    SUPPRESSION_METHODS,
    AprioriCommand,
    BatchCommand,
    BatchError,
    BatchFile,
    FileCommand,
    ReadTable,
    SafetyRule,
    SpecifyTable,
    Suppress,
    WriteTable,
)
from ctadesk.io.tauargus_output import OutputTable, write_output


@dataclasses.dataclass(frozen=True)
class JobOutcome:
    """How a job ended: ok, the lines for the logbook, the files written, the error if it failed,
    and its record (toml_jobs.job_record: the request as run and a digest of what it published)."""

    job: Any
    ok: bool
    lines: tuple[str, ...]
    written: tuple[str, ...] = ()
    error: str | None = None
    seconds: float = 0.0
    record: dict[str, Any] | None = None


@dataclasses.dataclass(frozen=True)
class BatchJob:
    """One job of a batch file (module docstring).

    number    its place in the batch (from 1)
    command   the `<SUPPRESS>` it runs, or None: the tables are written unprotected
    tables    the tables it protects (several: linked)
    writes    the `<WRITETABLE>` commands of its tables
    request   how CTA runs
    refusal   why the job cannot run (a method not run without --as-cta); it then fails
    """

    number: int
    batch: str
    command: Suppress | None
    tables: tuple[TableSource, ...]
    writes: tuple[WriteTable, ...]
    request: ProtectionRequest
    notes: tuple[str, ...] = ()
    refusal: str | None = None
    linked: tuple[Suppress, ...] = ()

    @property
    def row(self) -> int:
        return self.command.row if self.command is not None else self.writes[0].row

    def title(self) -> str:
        what = f"line {self.row}: <SUPPRESS> {self.command.text}" if self.command else f"line {self.row}: <WRITETABLE>"
        what += "".join(f"; line {other.row}: <SUPPRESS> {other.text}" for other in self.linked)
        return f"job {self.number} ({what})"

    def run(self, stop: threading.Event | None = None, on_log: Callable[[str], None] | None = None,
            on_progress: Callable[[Progress], None] | None = None, write: bool = True) -> JobOutcome:
        """Build the tables, protect them, write the outputs (``write``); never raises for a failing
        table: the outcome says what went wrong, naming the batch file, the line and the command."""
        started = time.perf_counter()
        lines = list(self.notes)
        try:
            if self.refusal is not None:
                raise BatchError(self.refusal, file=self.batch, row=self.row, command="SUPPRESS")
            built = [build_table(table) for table in self.tables]
            for table in built:
                lines += [f"{table.source.title()}: {note}" for note in table.notes]
                lines.append(f"{table.source.title()}: {table.structure.n_cells} cells, "
                             f"{table.problem.n_sensitive} unsafe")
            published, protection = self._protect(built, stop, on_log, on_progress)
            record = None
            if protection is not None:
                result = protection.result
                lines += list(protection.notes)
                lines.append(f"CTA ({result.method}): {result.status.value}, weighted absolute change "
                             f"{result.objective:g}{'' if result.protected else ' (NOT fully protected)'}; "
                             f"request {request_record(protection.request.options())}")
                if not result.protected:
                    raise CTAError(f"no protected table: {result.message}")
                record = job_record(protection.request, published)
            written = tuple(str(self._write(table, built, published, protection)) for table in self.writes) \
                if write else ()
            lines += [f"written {path}" for path in written]
            return JobOutcome(self, True, tuple(lines), written, seconds=time.perf_counter() - started,
                              record=record)
        except CTAError as error:
            message = str(error)
            if self.command is not None and not isinstance(error, BatchError):
                message = f"{self.batch.rsplit('/', 1)[-1]}, line {self.row}: <SUPPRESS>: {message}"
            return JobOutcome(self, False, tuple(lines), error=message, seconds=time.perf_counter() - started)
        except OSError as error:
            return JobOutcome(self, False, tuple(lines), error=f"{error.filename or ''}: {error.strerror or error}",
                              seconds=time.perf_counter() - started)

    def _protect(self, built: list[BuiltTable], stop, on_log, on_progress) -> tuple[list[np.ndarray],
                                                                                     Protection | None]:
        """Each table's published values and the protection run (None: written unprotected)."""
        if self.command is None:
            return [table.problem.values for table in built], None
        if len(built) == 1:
            protection = protect(built[0].problem, self.request, stop=stop, on_log=on_log, on_progress=on_progress)
            values = protection.result.values
            return [values if values is not None else built[0].problem.values], protection
        return self._protect_linked(built, stop, on_log, on_progress)

    def _protect_linked(self, built: list[BuiltTable], stop, on_log, on_progress) -> tuple[list[np.ndarray],
                                                                                            Protection]:
        """Several tables as one CTA over the union of their relations: a cell two tables hold
        is one variable (engine/table/linked.py), its status the most protective of the tables'."""
        from ctadesk.engine.table.linked import LinkedTables

        linked = LinkedTables.link([table.structure for table in built])
        values = linked.gather([table.problem.values for table in built])
        for t, table in enumerate(built):
            mine = linked.scatter(values)[t]
            if not np.allclose(mine, table.problem.values, rtol=1e-9, atol=1e-9):
                raise CTAError(f"{table.source.title()} gives a shared cell another value than an earlier table; "
                               "linked tables must come from one data set and response")
        n = linked.n_cells
        sensitive, lower_level, upper_level = np.zeros(n, bool), np.zeros(n), np.zeros(n)
        fixed, weights = np.zeros(n, bool), np.zeros(n)
        lower, upper = np.full(n, -np.inf), np.full(n, np.inf)
        for t, table in enumerate(built):
            cells = linked.cell_maps[t]
            problem = table.problem
            mine = cells[problem.sensitive]
            sensitive[mine] = True
            lower_level[mine] = np.maximum(lower_level[mine], problem.lower_protection)
            upper_level[mine] = np.maximum(upper_level[mine], problem.upper_protection)
            fixed[cells] |= problem.fixed
            np.maximum.at(weights, cells, problem.weights)
            np.maximum.at(lower, cells, problem.lower)
            np.minimum.at(upper, cells, problem.upper)
        chosen = np.flatnonzero(sensitive)
        fixed[chosen] = False
        from ctadesk.engine.problem import CTAProblem

        problem = CTAProblem(values, linked.relations(), lower=lower, upper=upper, weights=weights, sensitive=chosen,
                             lower_protection=lower_level[chosen], upper_protection=upper_level[chosen], fixed=fixed,
                             cell_label=linked.cell_label, relation_label=linked.relation_label)
        protection = protect(problem, self.request, stop=stop, on_log=on_log, on_progress=on_progress)
        result = protection.result.values
        return linked.scatter(result if result is not None else values), protection

    def _write(self, write: WriteTable, built: list[BuiltTable], published: list[np.ndarray],
               protection: Protection | None):
        position = next(t for t, source in enumerate(self.tables) if source.number == write.table)
        table = built[position]
        if write.output == 6:
            write_jj(write.path, table.problem)
            return write.path
        decimals = table.decimals
        if protection is not None and protection.decimals is not None:
            decimals = max(decimals, protection.decimals)
        output = OutputTable(table.structure, table.source.specify.response or "Freq", table.problem.values,
                             published[position], table.status(), decimals, protected=protection is not None)
        return write_output(write.path, output, write.output, write.options)


@dataclasses.dataclass
class _State:
    """What the commands read so far say: the files open, the tables specified."""

    data: FileCommand | None = None
    metadata: FileCommand | None = None
    tables: list[TableSource] = dataclasses.field(default_factory=list)


def plan_jobs(batch: BatchFile, request: ProtectionRequest, as_cta: bool = False) -> tuple[list[BatchJob], list[str]]:
    """The jobs of ``batch`` in order, and the notes on commands that make no job (LOGBOOK,
    SOLVER, GOINTERACTIVE, ...).  A command out of place (SPECIFYTABLE before the files are open,
    SUPPRESS of a table not specified) is a BatchError naming its line."""
    state = _State()
    notes: list[str] = []
    jobs: list[dict] = []
    name = str(batch.path)

    def fail(command: BatchCommand, message: str) -> BatchError:
        return BatchError(message, file=batch.path, row=command.row, command=command.keyword)

    def table(command: BatchCommand, number: int) -> TableSource:
        if not 1 <= number <= len(state.tables):
            raise fail(command, f"table {number} is not specified ({len(state.tables)} table(s) so far)")
        return state.tables[number - 1]

    def replace_table(source: TableSource, **changes) -> None:
        state.tables[source.number - 1] = dataclasses.replace(source, **changes)

    for command in batch.commands:
        notes += [f"line {command.row}: {note}" for note in command.notes]
        if isinstance(command, FileCommand) and command.keyword in ("OPENMICRODATA", "OPENTABLEDATA"):
            state.data, state.metadata = command, None
        elif isinstance(command, FileCommand) and command.keyword == "OPENMETADATA":
            if state.data is None:
                raise fail(command, "open the data first (OPENMICRODATA or OPENTABLEDATA)")
            state.metadata = command
        elif isinstance(command, SpecifyTable):
            if state.data is None or state.metadata is None:
                raise fail(command, "open the data and its metadata first")
            state.tables.append(TableSource(len(state.tables) + 1, command, state.data.path, state.metadata.path,
                                            state.data.keyword == "OPENMICRODATA"))
        elif isinstance(command, SafetyRule):
            if not state.tables:
                raise fail(command, "specify a table first (SPECIFYTABLE)")
            replace_table(state.tables[-1], rules=command)
        elif isinstance(command, ReadTable):
            for source in state.tables:
                if not source.microdata:
                    replace_table(source, read=command)
        elif isinstance(command, AprioriCommand):
            source = table(command, command.table)
            replace_table(source, apriori=(*source.apriori, command))
        elif isinstance(command, Suppress):
            refusal, job_notes, job_request = None, [], request
            if command.method in SUPPRESSION_METHODS:
                if as_cta:
                    job_notes.append(f"line {command.row}: {command.method} (secondary cell suppression) run as CTA "
                                     "(--as-cta)")
                else:
                    refusal = (f"{command.method} is tau-argus's secondary cell suppression; ctadesk protects by "
                               f"controlled tabular adjustment: write CTA({command.table}), or run with --as-cta")
            elif command.method == "RND":
                job_request, refusal, job_notes = _rounding(command, request)
            sources = list(state.tables) if command.table == 0 else [table(command, command.table)]
            jobs.append({"command": command, "tables": sources, "writes": [], "notes": job_notes,
                         "refusal": refusal, "request": job_request})
        elif isinstance(command, WriteTable):
            source = table(command, command.table)
            owner = next((job for job in reversed(jobs) if source in job["tables"]), None)
            if owner is None:
                owner = {"command": None, "tables": [source], "writes": [], "notes": [], "refusal": None,
                         "request": request}
                jobs.append(owner)
            owner["writes"].append(command)
        elif command.keyword == "CLEAR":
            state = _State()
        elif command.keyword == "GOINTERACTIVE":
            notes.append(f"line {command.row}: GOINTERACTIVE: a batch run has no window; the run ends here")
            break
    planned = [BatchJob(number, name, job["command"], tuple(job["tables"]), tuple(job["writes"]), job["request"],
                        tuple(job["notes"]), job["refusal"], tuple(job.get("linked", ())))
               for number, job in enumerate(_link_microdata_jobs(jobs), start=1)]
    return planned, notes


def _rounding(command: Suppress, request: ProtectionRequest) -> tuple[ProtectionRequest, str | None, list[str]]:
    """The request of `RND(table, base, ...)`: ``request`` rounded to multiples of the base, or why it
    cannot be (the batch's request asks for a precision or quality terms); and the job's notes."""
    base = int(command.arguments[0])
    notes = [f"line {command.row}: RND: CTA published as a controlled rounding to multiples of {base}"]
    if len(command.arguments) > 1:
        notes.append(f"line {command.row}: RND: tau-argus's rounder's arguments "
                     f"({', '.join(command.arguments[1:])}) are not used")
    try:
        return request.replace(rounding_base=base), None, notes
    except RequestError as error:
        return request, f"RND({command.table}, {base}): {error}", notes


def _microdata_key(source: TableSource) -> tuple:
    """What tables must share to be linked: the records and the numbers tabulated from them."""
    specify = source.specify
    weighted = any(rule.name == "WGT" and rule.numbers[0] == 1 for rule in (source.rules.rules if source.rules else ()))
    return (source.data.resolve(), source.metadata.resolve(), (specify.response or "").lower(),
            (specify.shadow or "").lower(), str(specify.cost).lower(), specify.cost_lambda, weighted)


def _link_microdata_jobs(jobs: list[dict]) -> list[dict]:
    """The jobs with those protecting tables of one microdata set (``_microdata_key``) with one
    request (RND's and CTA's publish differently) merged into the first of them (module
    docstring); a job refused, writing unprotected tables, or protecting
    a table the group protects already (a second `<SUPPRESS>` of it) is kept on its own."""
    merged: list[dict] = []
    groups: dict[tuple, dict] = {}
    for job in jobs:
        keys = {_microdata_key(source) for source in job["tables"]}
        linkable = (job["command"] is not None and job["refusal"] is None and len(keys) == 1
                    and all(source.microdata for source in job["tables"]))
        key = (*next(iter(keys)), repr(job["request"])) if linkable else None
        group = groups.get(key) if key is not None else None
        if group is not None and not {s.number for s in group["tables"]} & {s.number for s in job["tables"]}:
            group["tables"] = [*group["tables"], *job["tables"]]
            group["writes"] = [*group["writes"], *job["writes"]]
            group["linked"] = [*group.get("linked", ()), job["command"]]
            group["notes"] = [*group["notes"], *job["notes"],
                              f"line {job['command'].row}: {', '.join(s.title() for s in job['tables'])} protected "
                              f"with line {group['command'].row}'s as linked tables of one microdata set"]
            continue
        merged.append(job)
        if key is not None:
            groups[key] = job
    return merged
