"""A protection session: one project (the table, its statuses, rules and options), its edits
as data (undo and redo), the safety rules, protection runs and exports -- what the desktop
app, the command line and a server do to a table, in one place.

    session = Session.open("turnover.ctaproj")
    session.edit({"sensitive": ([4, 9], True)}, "Mark 2 cells sensitive")
    protection = session.protect(ProtectionRequest(method="lp"))
    session.audit().summary()       # what an attacker learns from the release (issue 13)
    session.export("release", "turnover-release.xlsx")
    session.undo()                  # the edit is undone; the result is now stale
    session.save("turnover.ctaproj")

The session is the document a front end shows: it holds the table, where it is saved, its result,
its latest audit and a note on its latest run, and tells its listeners what changed (a Change),
as napari's ViewerModel emits events its Qt viewer turns into repaints.  ``replace`` puts a new
table in the session, and everything that belonged to the old one goes with it.
"""

from __future__ import annotations

import dataclasses
import enum
import itertools
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ctadesk.app.job import Protection, Solve, engine_solve, protect
from ctadesk.app.outcome import Outcome
from ctadesk.app.provenance import versions
from ctadesk.app.request import WIDENING_SEED, ProtectionRequest
from ctadesk.engine.errors import CTAError
from ctadesk.engine.result import CTAResult, Progress
from ctadesk.io.project import Project, load_project, save_project

if TYPE_CHECKING:
    from ctadesk.engine.audit import AttackerKnowledge, AuditOptions, AuditResult
    from ctadesk.engine.rules.safety import RuleResult, SafetyRules

#: the per-cell arrays of a Project an edit may change
EDITABLE = ("values", "sensitive", "fixed", "senses", "lower_protection", "upper_protection", "lower", "upper",
            "weights", "flagged_by")
_revisions = itertools.count(1)


@dataclasses.dataclass(frozen=True, eq=False)
class Edit:
    """Some entries of some per-cell arrays of a project, before and after: undo as data.

    new and old map an array name (EDITABLE) to (cell indices, entries)."""

    text: str
    new: Mapping[str, tuple[np.ndarray, np.ndarray]]
    old: Mapping[str, tuple[np.ndarray, np.ndarray]]
    revision: int = dataclasses.field(default_factory=lambda: next(_revisions))

    @classmethod
    def of(cls, project: Project, changes: Mapping[str, tuple[Sequence[int] | np.ndarray, Any]],
           text: str) -> Edit:
        """The edit that sets ``changes`` (name -> (cells, entries, broadcast to the cells)) on project."""
        new, old = {}, {}
        for name, (cells, entries) in changes.items():
            if name not in EDITABLE:
                raise CTAError(f"'{name}' is not a per-cell setting an edit can change ({', '.join(EDITABLE)})")
            cells = np.asarray(cells, dtype=np.int64).reshape(-1)
            if cells.size and (cells.min() < 0 or cells.max() >= project.n_cells):
                bad = int(cells[(cells < 0) | (cells >= project.n_cells)][0])
                raise CTAError(f"cell {bad} is not in the table (it has {project.n_cells} cells)")
            array = getattr(project, name)
            new[name] = (cells, np.broadcast_to(np.asarray(entries, dtype=array.dtype), cells.shape).copy())
            old[name] = (cells, array[cells].copy())
        return cls(text, new, old)

    def apply(self, project: Project) -> None:
        _put(project, self.new)

    def revert(self, project: Project) -> None:
        _put(project, self.old)


def _put(project: Project, entries: Mapping[str, tuple[np.ndarray, np.ndarray]]) -> None:
    for name, (cells, values) in entries.items():
        getattr(project, name)[cells] = values


class Change(enum.Enum):
    """What changed in a session (what a listener is told)."""

    TABLE = "table"    # a new table (replace): everything that belonged to the old one is gone
    EDIT = "edit"      # cells changed: an edit, an undo or a redo
    RESULT = "result"  # a protection run's result was kept
    AUDIT = "audit"    # an audit was kept
    NOTE = "note"      # the note on the latest run changed
    SAVED = "saved"    # the project was saved (its path, no unsaved work)


Listener = Callable[[Change], None]


def replaces(result: CTAResult, kept: CTAResult | None) -> bool:
    """Whether a run's ``result`` takes the place of the result ``kept``: a run that found no
    protected table (it failed, was cancelled before its first table, or its table failed
    verification) leaves a table already kept in place."""
    return result.protected or kept is None or kept.values is None


class Session:
    """One project and what is done to it.  The history is a list of Edits; ``position`` of them
    are applied.  A result is stale when the table differs from the one it was computed on.

    Listeners (``connect``) are called with each Change, on the thread that made it."""

    def __init__(self, project: Project, path: str | Path | None = None, source: str | Path | None = None) -> None:
        self.listeners: list[Listener] = []
        self._load(project, path, source)

    def _load(self, project: Project, path: str | Path | None, source: str | Path | None) -> None:
        self.project = project
        self.path = Path(path) if path is not None else None
        self._source = Path(source) if source is not None else None
        self.history: list[Edit] = []
        self.position = 0
        self._result_revision: int | None = 0 if project.result is not None and not project.result_stale else None
        self._saved_revision: int | None = 0 if self.path is not None else None
        self._kept_at: tuple[int, CTAResult | None] = (0, project.result)
        self._audit: AuditResult | None = None
        #: what the latest run on this table came to, in words (empty: none yet)
        self.note = ""

    def replace(self, project: Project, path: str | Path | None = None, source: str | Path | None = None) -> None:
        """Put a new table in the session (a project opened from ``path``, a table read from the
        file ``source``, or new): its history, result, audit and note start afresh; the listeners stay."""
        self._load(project, path, source)
        self._emit(Change.TABLE)

    @property
    def name(self) -> str:
        """What the table is called: its project file's name, else the name of the file it was
        read from, else 'untitled'."""
        named = self.path or self._source
        return named.name if named is not None else "untitled"

    # ------------------------------------------------------------- listeners
    def connect(self, listener: Listener) -> None:
        """Call ``listener(change)`` after every change."""
        self.listeners.append(listener)

    def disconnect(self, listener: Listener) -> None:
        self.listeners.remove(listener)

    def _emit(self, change: Change) -> None:
        for listener in list(self.listeners):
            listener(change)

    def say(self, note: str) -> None:
        """Set the note on the latest run (what it came to, or why it left the table as it was)."""
        self.note = note
        self._emit(Change.NOTE)

    @classmethod
    def open(cls, path: str | Path) -> Session:
        """A session on a saved project."""
        return cls(load_project(path), path)

    # ------------------------------------------------------------------ edits
    @property
    def revision(self) -> int:
        """Which state the table is in (0: as opened)."""
        return self.history[self.position - 1].revision if self.position else 0

    def edit(self, changes: Mapping[str, tuple[Sequence[int] | np.ndarray, Any]], text: str) -> Edit:
        """Apply ``changes`` as one undoable edit (the redo history after this point is dropped)."""
        edit = Edit.of(self.project, changes, text)
        edit.apply(self.project)
        del self.history[self.position:]
        self.history.append(edit)
        self.position += 1
        self._update_stale()
        self._emit(Change.EDIT)
        return edit

    def undo(self) -> Edit | None:
        if self.position == 0:
            return None
        self.position -= 1
        edit = self.history[self.position]
        edit.revert(self.project)
        self._update_stale()
        self._emit(Change.EDIT)
        return edit

    def redo(self) -> Edit | None:
        if self.position == len(self.history):
            return None
        edit = self.history[self.position]
        edit.apply(self.project)
        self.position += 1
        self._update_stale()
        self._emit(Change.EDIT)
        return edit

    @property
    def stale(self) -> bool:
        """There is a result with a table, and the table was edited since it was computed."""
        result = self.project.result
        return result is not None and result.values is not None and self._result_revision != self.revision

    @property
    def modified(self) -> bool:
        """The table differs from the saved project (always true for a session never saved)."""
        return self._saved_revision != self.revision

    @property
    def unsaved(self) -> bool:
        """There is work that would be lost with the session: edits or a result since the table
        was opened, made or last saved (a table only read or generated can be had again)."""
        revision, result = self._kept_at
        return revision != self.revision or result is not self.project.result

    def _update_stale(self) -> None:
        self.project.result_stale = self.stale

    # ------------------------------------------------------------------ rules
    def apply_rules(self, rules: SafetyRules) -> RuleResult:
        """Flag cells by ``rules`` (cells marked by hand stay sensitive), as one undoable edit."""
        from ctadesk.app.rules import rules_dict

        changes, result = self.rule_changes(rules)
        self.edit(changes, "Apply safety rules")
        self.project.rules = rules_dict(rules)
        return result

    def rule_changes(self, rules: SafetyRules) -> tuple[dict[str, tuple[np.ndarray, Any]], RuleResult]:
        """The edit applying ``rules`` would make (statuses, rule names, protection levels; a
        flagged cell is no longer fixed), and the rules' result.  The rules' modules load here: a
        table read with its sensitive cells (a JJ file) is solved without them."""
        from ctadesk.app.rules import flagged_names
        from ctadesk.engine.rules.safety import apply_rules

        project = self.project
        if project.statistics is None:
            raise CTAError("the safety rules need cell statistics (frequencies, contributions): "
                           "tabulate microdata or read a tau-argus .tab")
        result = apply_rules(project.statistics, rules, manual=np.flatnonzero(project.flagged_by == "manual"))
        cells = np.arange(project.n_cells)
        unsafe = np.asarray(result.flags) != 0
        changes = {"sensitive": (cells, unsafe), "flagged_by": (cells, flagged_names(result)),
                   "lower_protection": (cells, np.where(unsafe, result.lower_protection, project.lower_protection)),
                   "upper_protection": (cells, np.where(unsafe, result.upper_protection, project.upper_protection)),
                   "fixed": (cells, project.fixed & ~unsafe)}
        return changes, result

    # ---------------------------------------------------------------- protect
    def request(self, **settings: Any) -> ProtectionRequest:
        """The request the project's saved options stand for, with ``settings`` changed; the
        project's widening seed is kept (drawn once per project)."""
        return ProtectionRequest.from_options(self.project.options or {}).replace(**settings)

    def protect(self, request: ProtectionRequest, *, on_log: Callable[[str], None] | None = None,
                on_progress: Callable[[Progress], None] | None = None, stop: threading.Event | None = None,
                solve: Solve = engine_solve) -> Protection:
        """Run ``request`` on the table as it stands (ctadesk.app.protect); the result and the
        options (with the widening seed) are kept in the project."""
        protection = protect(self.project.to_problem(), request, on_log=on_log, on_progress=on_progress, stop=stop,
                             solve=solve)
        self.keep(protection)
        return protection

    def keep(self, protection: Protection) -> bool:
        """Keep a protection run's result, its outcome and options, computed on the table at this
        revision, and the versions of ctadesk and the solvers that computed it (ctadesk.app.provenance);
        False, and nothing changes, when the run found no protected table and a table is kept
        already (``replaces``)."""
        if not replaces(protection.result, self.project.result):
            return False
        self.project.result = protection.result
        self.project.outcome = protection.outcome.as_dict()
        self.project.options = protection.request.options()
        self.project.versions = versions()
        self.project.log = protection.result.log
        self._result_revision = self.revision
        self._audit = None
        self._update_stale()
        self._emit(Change.RESULT)
        return True

    @property
    def outcome(self) -> Outcome | None:
        """The outcome of the result the project holds (None without a result)."""
        return None if self.project.result is None else Outcome.from_dict(self.project.outcome)

    # ------------------------------------------------------------------ audit
    def audit(self, knowledge: AttackerKnowledge | None = None, options: AuditOptions | None = None) -> AuditResult:
        """What an attacker learns about each sensitive cell from the protected table as it would be
        released (ctadesk.engine.audit, loaded here: protecting a table needs none of it; the
        assumptions default to those of a CTA release, the options to AuditOptions())."""
        from ctadesk.engine.audit import AuditOptions, Release, audit

        result = self.project.result
        if result is None or result.values is None:
            raise CTAError("there is no protected table to audit yet: protect the table first")
        if self.stale:
            raise CTAError("the table was edited after it was protected: protect it again before auditing")
        release = Release.adjusted(np.asarray(result.values, float))
        self._audit = audit(self.project.to_problem(), release, knowledge, options or AuditOptions())
        self._emit(Change.AUDIT)
        return self._audit

    @property
    def last_audit(self) -> AuditResult | None:
        """The latest audit of the protected table as it stands (None once a new protection run
        or an edit has made it stale); the internal workbook holds it."""
        return None if self.stale else self._audit

    # ----------------------------------------------------------------- files
    def export(self, kind: str, path: str | Path):
        """Write export ``kind`` (ctadesk.app.formats.exports: release, internal, csv, jj, sol, tab)."""
        from ctadesk.app.formats import Requires, export_of

        export = export_of(kind)
        if export.requires is Requires.PROTECTED and self.stale:
            raise CTAError("the table was edited after it was protected: protect it again before releasing it")
        if kind == "internal":
            from ctadesk.app.files import export_excel

            return export_excel(path, self.project, internal=True, audit=self.last_audit)
        return export.writer()(path, self.project)

    def save(self, path: str | Path | None = None) -> Path:
        """Save the project (to ``path``, or where it was opened or last saved)."""
        path = Path(path) if path is not None else self.path
        if path is None:
            raise CTAError("the session has no project file yet: name one")
        save_project(path, self.project)
        self.path = path
        self._saved_revision = self.revision
        self._kept_at = (self.revision, self.project.result)
        self._emit(Change.SAVED)
        return path

    @property
    def widening_seed(self) -> int | None:
        return (self.project.options or {}).get(WIDENING_SEED)
