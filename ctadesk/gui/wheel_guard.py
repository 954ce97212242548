"""The mouse wheel over a settings panel scrolls the panel: a combo box or spin box takes the
wheel only once the user has clicked or tabbed into it, so scrolling past the method or a rule's
parameter never changes it."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QAbstractSpinBox, QComboBox, QWidget


class _WheelGuard(QObject):
    """Event filter: a wheel event over an unfocused widget is left to its parents (the scroll area)."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Wheel and isinstance(watched, QWidget) and not watched.hasFocus():
            event.ignore()  # not accepted: Qt offers it to the parent widgets
            return True
        return False


def guard_wheel(root: QWidget) -> None:
    """Make every combo box and spin box under root ignore the wheel until it has the focus
    (and stop the wheel from giving it the focus)."""
    guard = _WheelGuard(root)
    for widget in (*root.findChildren(QComboBox), *root.findChildren(QAbstractSpinBox)):
        widget.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        widget.installEventFilter(guard)
