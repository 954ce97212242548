"""A pyqtgraph plot built the first time it is shown (or asked for), drawn only while it shows.

A pyqtgraph PlotItem (axes, view box, context menus) takes some 25-75 ms to build; the window
holds five in tabs a user may never open, so building them all at the start held the window's
thread some 0.2-0.4 s.  A LazyPlot is a bare GraphicsView until then.  Whoever fills it marks
it stale (``changed()``); it draws again when it is on screen or when its plot is asked for
(``plot()``), so a result shown while another tab is open costs no drawing at all.
"""

from __future__ import annotations

from collections.abc import Callable

import pyqtgraph as pg
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QWidget


class LazyPlot(pg.GraphicsView):
    """``build(plot_item)`` adds the items once; ``draw()`` puts the current data in them, the
    first time the plot is shown or asked for after ``changed()``."""

    def __init__(self, build: Callable[[pg.PlotItem], None], draw: Callable[[], None],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent, background="w")
        self._build = build
        self._draw = draw
        self._plot: pg.PlotItem | None = None
        self._stale = True

    @property
    def built(self) -> bool:
        return self._plot is not None

    def plot(self) -> pg.PlotItem:
        """The PlotItem, built and drawn with the current data."""
        if self._plot is None:
            self._plot = pg.PlotItem()
            self.setCentralItem(self._plot)
            self._build(self._plot)
        if self._stale:
            self._stale = False
            self._draw()
        return self._plot

    def changed(self) -> None:
        """The data changed: draw again now if on screen, else when next shown."""
        self._stale = True
        if self.isVisible():
            self.plot()

    # what tests and scripts ask a pg.PlotWidget for
    def getPlotItem(self) -> pg.PlotItem:
        return self.plot()

    def getViewBox(self) -> pg.ViewBox:
        return self.plot().getViewBox()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.plot()
