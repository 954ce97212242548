"""Project files (``.ctaproj``): table, rules, options, result and log in one zip.

A project is the editable state of one protection job, as the desktop app
holds it: per-cell arrays (value, bounds, weight, status, protection levels,
sense, the rule that flagged the cell), the table's relations, the structure
used to display it, the chosen rules and solver options, the last result with
its verification and the versions that computed it, and the solver log.  The zip
holds ``arrays.npz`` (numbers, read with ``allow_pickle=False``) and
``project.json`` (everything else).
"""

from __future__ import annotations

import dataclasses
import io
import json
import math
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from ctadesk.engine.errors import CTAError, ProblemError
from ctadesk.engine.problem import NO_BOUND, CTAProblem
from ctadesk.engine.publish.verify import Verification, Violation
from ctadesk.engine.result import CTAResult, Status
from ctadesk.engine.table.guess import guess_structure
from ctadesk.engine.table.statistics import CellStatistics
from ctadesk.engine.table.structure import Dimension, TableStructure

FORMAT_VERSION = 1


class ProjectError(CTAError):
    """A project file cannot be read or written (names the file and the part at fault)."""


@dataclasses.dataclass(eq=False)
class Project:
    """The editable state of one job; per-cell arrays have one entry per cell (C order).

    lower_protection/upper_protection/senses are kept for every cell and matter
    only where sensitive is True, so marking a cell safe and sensitive again
    keeps its levels.  flagged_by names the safety rule(s) that made a cell
    sensitive ("" for none, "manual", or e.g. "dominance, p%").

    statistics (per-cell frequencies and top contributions, from microdata or a
    tau-argus .tab) is what the safety rules read; rules holds the rules' settings
    (SafetyRules fields).  result_stale says the table was edited after the
    result was computed.  versions names the ctadesk and solver versions that computed
    the result (ctadesk.app.provenance.versions; empty before a run).  outcome is what the run
    reported beside the result (ctadesk.app.outcome.Outcome.as_dict(): the precision reached, the
    cells changed, the quality terms' values).  source is the file
    the table came from as its reader returned it (for exporting in the same layout); it
    is not saved.  response names the response variable of a table tabulated from microdata
    ("Freq" for a frequency table; None for a table read as a table): a release .tab names its
    values after it, as tau-argus does.
    """

    structure: TableStructure
    values: np.ndarray
    relations: sp.csr_array
    rhs: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    weights: np.ndarray
    sensitive: np.ndarray
    lower_protection: np.ndarray
    upper_protection: np.ndarray
    fixed: np.ndarray
    senses: np.ndarray
    flagged_by: np.ndarray
    rules: dict[str, Any] = dataclasses.field(default_factory=dict)
    options: dict[str, Any] = dataclasses.field(default_factory=dict)
    result: CTAResult | None = None
    log: str = ""
    statistics: CellStatistics | None = None
    result_stale: bool = False
    versions: dict[str, str] = dataclasses.field(default_factory=dict)
    outcome: dict[str, Any] = dataclasses.field(default_factory=dict)
    source: Any = None
    response: str | None = None

    # ------------------------------------------------------------ building
    @classmethod
    def from_problem(cls, problem: CTAProblem, structure: TableStructure | None = None) -> Project:
        """A project holding problem; structure defaults to guess_structure(problem)."""
        n = problem.n_cells
        structure = structure or guess_structure(problem)
        if structure.n_cells != n:
            raise ProblemError(f"the table layout has {structure.n_cells} cells but the problem has {n}")
        sensitive = np.zeros(n, bool)
        sensitive[problem.sensitive] = True
        lower_protection = np.zeros(n)
        upper_protection = np.zeros(n)
        senses = np.zeros(n, np.int8)
        lower_protection[problem.sensitive] = problem.lower_protection
        upper_protection[problem.sensitive] = problem.upper_protection
        senses[problem.sensitive] = problem.senses
        flagged_by = np.full(n, "", dtype=object)  # one string object shared: no million of them made
        flagged_by[sensitive] = "given"
        return cls(structure=structure, values=problem.values.copy(), relations=problem.relations.copy(),
                   rhs=problem.rhs.copy(), lower=problem.lower.copy(), upper=problem.upper.copy(),
                   weights=problem.weights.copy(), sensitive=sensitive, lower_protection=lower_protection,
                   upper_protection=upper_protection, fixed=problem.fixed.copy(), senses=senses,
                   flagged_by=flagged_by)

    @property
    def n_cells(self) -> int:
        return int(self.values.size)

    def to_problem(self) -> CTAProblem:
        """The CTAProblem of the current state (validated: raises ProblemError naming the cell)."""
        sensitive = np.flatnonzero(self.sensitive)
        return CTAProblem(
            values=self.values, relations=self.relations, rhs=self.rhs, lower=self.lower,
            upper=self.upper, weights=self.weights, sensitive=sensitive,
            lower_protection=self.lower_protection[sensitive], upper_protection=self.upper_protection[sensitive],
            fixed=self.fixed, senses=self.senses[sensitive],
            cell_label=self.structure.cell_label, relation_label=self._relation_label())

    def _relation_label(self):
        # the shape of structure.relations(), counted without building it (a million cells: 0.05 s)
        shape = (sum(self.structure.relation_counts()), self.structure.n_cells)
        if shape == self.relations.shape and self.structure.n_cells > 1:
            return self.structure.relation_label
        return None

    def recompute_totals(self) -> np.ndarray:
        """Cell values with every total and subtotal set to the sum of its inner cells."""
        return self.structure.aggregate(self.values.reshape(self.structure.shape))


# --------------------------------------------------------------- file format
_STATISTICS = ("values", "freq", "top", "weighted_values", "weight_sums", "top_weights", "holding_freq",
               "holding_top", "request_top", "shadow")
#: cell arrays that must hold finite numbers (bounds may be infinite)
_FINITE = ("values", "rhs", "weights", "lower_protection", "upper_protection")
_CELL_ARRAYS = ("values", "rhs", "lower", "upper", "weights", "sensitive", "lower_protection",
                "upper_protection", "fixed", "senses")


def _jsonable(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if isinstance(value, (np.floating, np.integer, np.bool_)):
        return _jsonable(value.item())
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


def _number(value: Any) -> Any:
    if isinstance(value, str) and value in ("inf", "-inf", "nan"):
        return float(value)
    return value


def _restored(value: Any) -> Any:
    """Undo _jsonable's spelling of non-finite numbers inside rules and options."""
    if isinstance(value, dict):
        return {k: _restored(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_restored(v) for v in value]
    return _number(value)


def _verification_json(verification: Verification | None) -> dict | None:
    if verification is None:
        return None
    return _jsonable(dataclasses.asdict(verification))


def _verification_from(data: dict | None) -> Verification | None:
    if data is None:
        return None
    return Verification(ok=bool(data["ok"]), counts=dict(data["counts"]),
                        violations=tuple(Violation(v["kind"], int(v["index"]), float(_number(v["amount"])),
                                                   v["message"]) for v in data["violations"]),
                        max_relation_error=float(_number(data["max_relation_error"])),
                        max_bound_error=float(_number(data["max_bound_error"])),
                        min_protection_margin=float(_number(data["min_protection_margin"])))


def save_project(path: str | Path, project: Project) -> None:
    """Write project to path (a zip; written to a temporary name first, then renamed)."""
    path = Path(path)
    arrays = {name: np.asarray(getattr(project, name)) for name in _CELL_ARRAYS}
    relations = sp.csr_array(project.relations)
    arrays.update(relations_data=relations.data, relations_indices=relations.indices,
                  relations_indptr=relations.indptr)
    result = project.result
    if result is not None and result.values is not None:
        arrays["result_values"] = result.values
    if result is not None and result.senses is not None:
        arrays["result_senses"] = np.asarray(result.senses)
    if project.statistics is not None:
        arrays.update({f"statistics_{name}": getattr(project.statistics, name) for name in _STATISTICS
                       if getattr(project.statistics, name) is not None})
    flagged = {int(i): str(project.flagged_by[i]) for i in np.flatnonzero(project.flagged_by != "")}
    meta = {
        "format": "ctadesk-project", "version": FORMAT_VERSION,
        "n_cells": project.n_cells, "relations_shape": list(relations.shape),
        "dimensions": [{"name": d.name, "codes": list(d.codes), "parents": d.parents.tolist()}
                       for d in project.structure.dimensions],
        "flagged_by": flagged, "rules": _jsonable(project.rules), "options": _jsonable(project.options),
        "result": None if result is None else {
            "method": result.method, "status": result.status.value, "message": result.message,
            "objective": _jsonable(result.objective), "model_objective": _jsonable(result.model_objective),
            "bound": _jsonable(result.bound), "gap": _jsonable(result.gap), "log": result.log,
            "timings": _jsonable(dict(result.timings)), "info": _jsonable(dict(result.info)),
            "verification": _verification_json(result.verification)},
        "log": project.log, "result_stale": bool(project.result_stale),
        "versions": {str(k): str(v) for k, v in project.versions.items()}, "outcome": _jsonable(project.outcome),
        "response": project.response,
    }
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)  # type: ignore[arg-type]  # mypy matches **arrays with allow_pickle: bool
    partial = path.with_name(path.name + ".partial")
    try:
        with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("project.json", json.dumps(meta, indent=1))
            archive.writestr("arrays.npz", buffer.getvalue())
        partial.replace(path)
    except OSError as error:
        partial.unlink(missing_ok=True)
        raise ProjectError(f"cannot write project file {path}: {error.strerror or error}") from error


def _outcome_of(info: Mapping[str, Any]) -> dict[str, Any]:
    """The outcome of a project saved before it had one, from its result's diagnostics."""
    note = info.get("precision_note", "")
    return {"published": {"asked": "auto" if note else "full", "decimals": info.get("decimals"), "note": note},
            "cells_changed": info.get("cells_changed", 0), "quality_terms": info.get("quality_terms")}


def load_project(path: str | Path) -> Project:
    """Read a project written by save_project; ProjectError names the file and what is wrong."""
    path = Path(path)
    try:
        with zipfile.ZipFile(path) as archive:
            meta = json.loads(archive.read("project.json"))
            with np.load(io.BytesIO(archive.read("arrays.npz")), allow_pickle=False) as npz:
                arrays = {name: npz[name] for name in npz.files}
    except FileNotFoundError:
        raise ProjectError(f"project file {path} does not exist") from None
    except (zipfile.BadZipFile, KeyError, ValueError, OSError) as error:
        raise ProjectError(f"{path} is not a ctadesk project file ({error})") from None
    if meta.get("format") != "ctadesk-project":
        raise ProjectError(f"{path} is not a ctadesk project file")
    if meta.get("version", 0) > FORMAT_VERSION:
        raise ProjectError(f"{path} was written by a newer ctadesk (format {meta['version']})")
    try:
        structure = TableStructure(tuple(Dimension(d["name"], d["codes"], np.asarray(d["parents"]))
                                         for d in meta["dimensions"]))
        n = int(meta["n_cells"])
        relations = sp.csr_array((arrays["relations_data"], arrays["relations_indices"], arrays["relations_indptr"]),
                                 shape=tuple(meta["relations_shape"]))
        flagged_by = np.full(n, "", dtype=object)
        for cell, rule in meta["flagged_by"].items():
            flagged_by[int(cell)] = rule
        cells = {name: arrays[name].copy() for name in _CELL_ARRAYS}
        if any(cells[name].shape != (n,) for name in _CELL_ARRAYS if name != "rhs"):
            raise ProjectError(f"{path}: the cell arrays do not all have {n} entries")
        for name in _FINITE:
            bad = np.flatnonzero(~np.isfinite(cells[name].astype(float)))
            if bad.size:
                raise ProjectError(f"{path}: damaged project file: {name} of cell {int(bad[0])} is NaN or infinite")
        cells["lower"] = np.where(cells["lower"] <= -NO_BOUND, -np.inf, cells["lower"])
        cells["upper"] = np.where(cells["upper"] >= NO_BOUND, np.inf, cells["upper"])
        project = Project(structure=structure, relations=relations, flagged_by=flagged_by,
                          rules=_restored(meta.get("rules", {})), options=_restored(meta.get("options", {})),
                          log=meta.get("log", ""), result_stale=bool(meta.get("result_stale", False)),
                          versions={str(k): str(v) for k, v in meta.get("versions", {}).items()},
                          response=meta.get("response"), **cells)
        if "statistics_values" in arrays:
            project.statistics = CellStatistics(**{name: arrays[f"statistics_{name}"] for name in _STATISTICS
                                                   if f"statistics_{name}" in arrays})
        saved = meta.get("result")
        if saved is not None:
            project.result = CTAResult(
                method=saved["method"], status=Status(saved["status"]), message=saved["message"],
                values=arrays.get("result_values"), senses=arrays.get("result_senses"),
                objective=float(_number(saved["objective"])),
                model_objective=float(_number(saved["model_objective"])),
                bound=None if saved["bound"] is None else float(_number(saved["bound"])),
                gap=None if saved["gap"] is None else float(_number(saved["gap"])),
                log=saved["log"], timings=_restored(saved["timings"]), info=_restored(saved["info"]),
                verification=_verification_from(saved["verification"]))
            project.outcome = _restored(meta["outcome"]) if "outcome" in meta else _outcome_of(project.result.info)
    except ProjectError:
        raise
    except (KeyError, TypeError, ValueError, CTAError) as error:
        raise ProjectError(f"{path}: damaged project file ({type(error).__name__}: {error})") from None
    return project
