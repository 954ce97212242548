"""Undoable edits of a project's per-cell arrays (QUndoStack)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from PySide6.QtGui import QUndoCommand

from ctadesk.io.project import Project


class CellEdit(QUndoCommand):
    """Set some entries of some per-cell arrays; undo puts the old entries back.

    changes maps an array name of Project (values, sensitive, fixed, senses,
    lower_protection, ...) to (cell indices, new entries).
    """

    def __init__(self, project: Project, changes: dict[str, tuple[np.ndarray, np.ndarray]], text: str,
                 on_changed: Callable[[], None]) -> None:
        super().__init__(text)
        self._project = project
        self._on_changed = on_changed
        self._new = {}
        self._old = {}
        for name, (cells, entries) in changes.items():
            cells = np.asarray(cells, dtype=np.int64)
            array = getattr(project, name)
            self._new[name] = (cells, np.broadcast_to(np.asarray(entries, dtype=array.dtype), cells.shape).copy())
            self._old[name] = (cells, array[cells].copy())

    def _apply(self, entries: dict[str, tuple[np.ndarray, np.ndarray]]) -> None:
        for name, (cells, values) in entries.items():
            getattr(self._project, name)[cells] = values
        self._on_changed()

    def redo(self) -> None:
        self._apply(self._new)

    def undo(self) -> None:
        self._apply(self._old)
