"""The PySide6 desktop application: builds requests, runs the engine in a worker, shows results."""

from ctadesk.gui.qt_compat import guard_singleton_refcounts

guard_singleton_refcounts()
