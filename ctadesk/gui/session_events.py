"""A session's changes as a Qt signal: app/session.py knows no Qt and calls its listeners on the
thread that made the change (an audit runs in the worker); the signal brings each change to the
GUI thread, as napari's Qt viewer connects to its ViewerModel's events."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from ctadesk.app.session import Session


class SessionEvents(QObject):
    """changed(Change): something in a session listened to changed (queued to this object's thread
    when the change is made on another)."""

    changed = Signal(object)

    def listen(self, session: Session) -> None:
        """Emit ``changed`` for every change of ``session``."""
        session.connect(self.changed.emit)
