"""ctadesk's own job file (TOML) for what a tau-argus batch file cannot say: each `[[job]]` is one
table (or several linked tables of one microdata set) with its ProtectionRequest -- distance,
senses, precision, widening, quality terms, time limit -- and the outputs to write.

    [defaults]                       # every job's settings unless it gives its own
    time_limit = 60
    seed = 1

    [[job]]
    name = "region"
    microdata = "survey.csv"         # or: table = "table.tab" (a table file, its sensitive cells)
    spans = [["Region", "Size"], ["Region", "Sector"]]
    response = "Turnover"
    rules = { min_frequency = 3, p_percent = [15] }
    distance = "l2"
    outputs = { json = "out/region.json", release = "out/region.xlsx" }

A job's microdata tables are tabulated, judged by its rules and protected together as linked
tables (ctadesk.app.linked_tables); a table file is protected as read.  Paths are taken beside the
job file.  A mistake is a BatchError naming the file, the job (its name and place) and the key.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import tomllib

from ctadesk.app.request import WIDENING_SEED, ProtectionRequest
from ctadesk.engine.errors import CTAError
from ctadesk.engine.result import Progress
from ctadesk.engine.rules.safety import SafetyRules
from ctadesk.io.tauargus_batch import BatchError

#: the keys of a job that make its request (ProtectionRequest's fields; seed: the widening seed)
REQUEST_KEYS = ("distance", "senses", "method", "parameters", "weights", "preserve", "quality", "quality_price",
                "time_limit", "gap", "threads", "widen", "seed", "precision", "rounding_base")
#: the keys that say what a job protects
INPUT_KEYS = ("name", "microdata", "table", "spans", "response", "weight", "holding", "rules", "cost", "metadata")
#: what a job can write: each a path
OUTPUTS = ("json", "project", "release", "internal", "csv", "tab")


@dataclasses.dataclass(frozen=True)
class TomlJob:
    """One `[[job]]` of a job file (module docstring), ready to run in any process.

    number, name   its place (from 1) and name (default: 'job N')
    microdata      a microdata file with ``spans`` (tables), ``response``, ``weight``, ``holding``
    table          or a table file (its metadata: ``metadata``, else the one beside it)
    rules          the safety rules applied to microdata tables
    cost           the cells' costs of microdata tables (ctadesk.app.linked_tables.COSTS)
    outputs        kind -> path (OUTPUTS)
    """

    number: int
    batch: str
    name: str
    request: ProtectionRequest
    microdata: Path | None = None
    spans: tuple[tuple[str, ...], ...] = ()
    response: str | None = None
    weight: str | None = None
    holding: str | None = None
    rules: SafetyRules = dataclasses.field(default_factory=SafetyRules)
    cost: str = "inverse"
    table: Path | None = None
    metadata: Path | None = None
    outputs: tuple[tuple[str, Path], ...] = ()

    def title(self) -> str:
        return f"job {self.number} ({self.name})"

    def run(self, stop: threading.Event | None = None, on_log: Callable[[str], None] | None = None,
            on_progress: Callable[[Progress], None] | None = None, write: bool = True):
        """Protect and write the outputs (``write``); never raises for a failing job: the outcome
        names the job file, the job and what went wrong."""
        from ctadesk.app.batch.jobs import JobOutcome

        started = time.perf_counter()
        lines: list[str] = []
        try:
            session, published, protection = self._protect(lines, stop, on_log, on_progress)
            result = protection.result
            lines.append(f"CTA ({result.method}): {result.status.value}, weighted absolute change "
                         f"{result.objective:g}{'' if result.protected else ' (NOT fully protected)'}")
            if not result.protected or published is None:
                raise CTAError(f"no protected table: {result.message}")
            record = job_record(protection.request, published)
            written = tuple(str(self._write(kind, path, session, protection)) for kind, path in self.outputs) \
                if write else ()
            lines += [f"written {path}" for path in written]
            return JobOutcome(self, True, tuple(lines), written, seconds=time.perf_counter() - started,
                              record=record)
        except (CTAError, OSError) as error:
            message = str(error) if isinstance(error, CTAError) else f"{error.filename or ''}: {error.strerror}"
            return JobOutcome(self, False, tuple(lines), error=f"{Path(self.batch).name}, {self.title()}: {message}",
                              seconds=time.perf_counter() - started)

    def _protect(self, lines: list[str], stop, on_log, on_progress):
        """(what the outputs are written from, each table's published values, the protection)."""
        from ctadesk.app.job import protect

        if self.table is not None:
            from ctadesk.app.formats import Answers, read_table
            from ctadesk.app.session import Session

            project = read_table(self.table, Answers(metadata=self.metadata))
            problem = project.to_problem()
            lines.append(f"{self.table.name}: {problem.n_cells} cells, {problem.n_sensitive} unsafe")
            protection = protect(problem, self.request, stop=stop, on_log=on_log, on_progress=on_progress)
            session = Session(project)
            session.keep(protection)
            values = protection.result.values
            return session, None if values is None else [values], protection
        from ctadesk.app.formats import read_microdata
        from ctadesk.app.linked_tables import protect_linked, tabulate_linked
        from ctadesk.io.microdata import MicrodataSpec

        variables = tuple(dict.fromkeys(name for span in self.spans for name in span))
        spec = MicrodataSpec(variables, self.response, weight=self.weight, holding=self.holding)
        top = max(self.rules.contributions_needed(), 2)
        if self.microdata is None:
            raise CTAError(f"{self.title()} names no input")
        tabulation = tabulate_linked(read_microdata(self.microdata, spec), self.spans, top_k=top,
                                     holding_top_k=max(self.rules.contributions_needed(holding=True), 2))
        linked = protect_linked(tabulation, self.rules, self.request, cost=self.cost, stop=stop, on_log=on_log,
                                on_progress=on_progress)
        lines.append(linked.summary())
        return linked, linked.published(), linked.protection

    def _write(self, kind: str, path: Path, session, protection) -> Path:
        """Output ``kind`` to ``path``: a table file's through its session's exports, linked
        microdata tables' through ctadesk.app.linked_tables."""
        import json

        path.parent.mkdir(parents=True, exist_ok=True)
        if kind == "json":
            document = protection.as_dict()
            if self.table is None:
                document["tables"] = [{"span": list(span), "values": values.tolist()}
                                      for span, values in zip(self.spans, session.published())]
            path.write_text(json.dumps({**document, "job": self.name}, indent=1), encoding="utf-8")
            return path
        if self.table is not None:
            if kind == "project":
                return session.save(path)
            session.export(kind, path)
            return path
        from ctadesk.app.linked_tables import export_linked_workbook, linked_project
        from ctadesk.app.session import Session

        if kind in ("release", "internal"):
            export_linked_workbook(path, session, internal=kind == "internal")
        elif kind == "project":
            project = Session(linked_project(session.tabulation, self.rules, session.problem, session.rules))
            project.keep(protection)
            project.save(path)
        elif kind == "csv":
            rows = ["table,cell,original,published"]
            for t, (original, values) in enumerate(zip(session.original(), session.published())):
                structure = session.tabulation.structures[t]
                rows += [f'{t + 1},"{structure.cell_label(i)}",{a!r},{b!r}'
                         for i, (a, b) in enumerate(zip(original.tolist(), values.tolist()))]
            path.write_text("\n".join(rows) + "\n", encoding="utf-8")
        else:
            raise CTAError(f"a .tab is written only for a table read from one; job {self.name} reads microdata")
        return path


def job_record(request: ProtectionRequest, published: list[np.ndarray]) -> dict[str, Any]:
    """What repeats a job and checks the repeat: the request as run (its seed with it) and a
    digest of every published table's values."""
    from ctadesk.app.provenance import request_record

    digest = hashlib.sha256()
    for values in published:
        digest.update(np.ascontiguousarray(values, dtype=float).tobytes())
    return {"request": request_record(request.options()), "published": digest.hexdigest()}


def plan_toml(path: str | Path, request: ProtectionRequest | None = None, as_cta: bool = False):
    """The jobs of a job file (``request``: settings the command line gives, under the file's)."""
    from ctadesk.app.batch.plan import BatchPlan

    path = Path(path)
    try:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise BatchError(f"not a TOML job file: {error}", file=path) from None
    except UnicodeDecodeError:
        raise BatchError("not a TOML job file: it is not UTF-8 text", file=path) from None
    unknown = set(document) - {"defaults", "job", "logbook"}
    if unknown:
        raise BatchError(f"unknown key '{sorted(unknown)[0]}' (a job file has [defaults], [[job]] and logbook)",
                         file=path)
    defaults = document.get("defaults", {})
    entries = document.get("job", [])
    if not isinstance(entries, list) or not entries:
        raise BatchError("no [[job]] in the job file", file=path)
    base = (request or ProtectionRequest()).options()
    jobs = tuple(_job(path, number, {**defaults, **entry}, base) for number, entry in enumerate(entries, start=1))
    logbook = path.parent / document["logbook"] if "logbook" in document else path.with_suffix(".log")
    return BatchPlan(path, jobs, (), logbook)


def _job(path: Path, number: int, entry: Mapping[str, Any], base: Mapping[str, Any]) -> TomlJob:
    name = str(entry.get("name", f"job {number}"))

    def fail(key: str, message: str) -> BatchError:
        return BatchError(f"job {number} ({name}), key '{key}': {message}", file=path)

    for key in entry:
        if key not in (*REQUEST_KEYS, *INPUT_KEYS, "outputs"):
            raise fail(key, "unknown key; a job takes " + ", ".join((*INPUT_KEYS, *REQUEST_KEYS, "outputs")))
    options = dict(base)
    for key in REQUEST_KEYS:
        if key in entry:
            options[WIDENING_SEED if key == "seed" else key] = entry[key]
    if options.get("time_limit") is None:
        options["time_limit"] = math.inf
    try:
        request = ProtectionRequest.from_options(options)
    except (CTAError, TypeError, ValueError) as error:
        key = next((k for k in REQUEST_KEYS if k in entry and k in str(error)), "request")
        raise fail(key, str(error)) from None
    where = path.parent

    def file(key: str) -> Path | None:
        value = entry.get(key)
        if value is None:
            return None
        if not isinstance(value, str):
            raise fail(key, f"{value!r} is not a file name")
        found = where / value
        if not found.exists():
            raise fail(key, f"the file {found} does not exist")
        return found

    microdata, table = file("microdata"), file("table")
    if (microdata is None) == (table is None):
        raise fail("microdata", "give one input: microdata (with spans) or table")
    spans: tuple[tuple[str, ...], ...] = ()
    rules = SafetyRules()
    if microdata is not None:
        raw = entry.get("spans")
        if not isinstance(raw, list) or not raw or not all(
                isinstance(span, list) and span and all(isinstance(v, str) for v in span) for span in raw):
            raise fail("spans", "a list of tables, each a list of spanning variables: [[\"Region\", \"Size\"]]")
        spans = tuple(tuple(span) for span in raw)
        settings: dict[str, Any] = {key: tuple(tuple(v) if isinstance(v, list) else v for v in value)
                                    if isinstance(value, list) else value
                                    for key, value in dict(entry.get("rules", {})).items()}
        try:
            rules = SafetyRules(**settings)
        except (CTAError, TypeError, ValueError) as error:
            raise fail("rules", str(error)) from None
    outputs = entry.get("outputs", {})
    if not isinstance(outputs, Mapping):
        raise fail("outputs", "a table of kind = path: " + ", ".join(OUTPUTS))
    for kind, value in outputs.items():
        if kind not in OUTPUTS:
            raise fail(f"outputs.{kind}", "unknown output; choose from " + ", ".join(OUTPUTS))
        if not isinstance(value, str):
            raise fail(f"outputs.{kind}", f"{value!r} is not a file name")
    cost = entry.get("cost", "inverse")
    from ctadesk.app.linked_tables import COSTS

    if cost not in COSTS:
        raise fail("cost", f"'{cost}': choose one of {', '.join(COSTS)}")
    return TomlJob(number, str(path), name, request, microdata=microdata, spans=spans,
                   response=entry.get("response"), weight=entry.get("weight"), holding=entry.get("holding"),
                   rules=rules, cost=cost, table=table, metadata=file("metadata"),
                   outputs=tuple((kind, where / value) for kind, value in outputs.items()))
