"""Object names given to widgets where they are built.

PySide6 sets any Qt property passed to a constructor as a keyword, inherited ones included, but its
type stubs list only the properties the class itself declares: ``QLabel("", objectName="counts")``
works and fails type checking.  ``named(QLabel(""), "counts")`` does the same and keeps the
widget's own type, so the tests and the style sheet still find the widget by its name.
"""

from __future__ import annotations

from typing import TypeVar

from PySide6.QtCore import QObject

Named = TypeVar("Named", bound=QObject)


def named(thing: Named, name: str) -> Named:
    """``thing`` with the object name ``name``, for QObject.findChild and the tests."""
    thing.setObjectName(name)
    return thing
