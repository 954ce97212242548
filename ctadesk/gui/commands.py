"""Undoable edits in the window's QUndoStack, each one a step of the session's own history
(ctadesk.app.session): the stack is the Qt view of that history, the edits are data."""

from __future__ import annotations

import numpy as np
from PySide6.QtGui import QUndoCommand

from ctadesk.app.session import Session


class CellEdit(QUndoCommand):
    """Set some entries of some per-cell arrays of the session's project (Session.edit); undo
    and redo step the session's history (the session tells its listeners).

    changes maps an array name of Project (values, sensitive, fixed, senses,
    lower_protection, ...) to (cell indices, new entries).
    """

    def __init__(self, session: Session, changes: dict[str, tuple[np.ndarray, np.ndarray]], text: str) -> None:
        super().__init__(text)
        self._session = session
        self._changes: dict | None = changes

    def redo(self) -> None:
        if self._changes is not None:  # the first redo is the edit itself (QUndoStack.push)
            self._session.edit(self._changes, self.text())
            self._changes = None
        else:
            self._session.redo()

    def undo(self) -> None:
        self._session.undo()
