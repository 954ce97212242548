"""Live MILP progress: incumbent and bound against time (pyqtgraph), drawn while its tab shows."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg

from ctadesk.engine.result import Progress
from ctadesk.gui.lazy_plot import LazyPlot
from ctadesk.gui.numbers import figure


class ProgressPlot(LazyPlot):
    """The run's reports are kept as they come; the curves are built when the tab is first shown
    and drawn from the reports while it shows (gui/lazy_plot.py)."""

    def __init__(self, parent=None) -> None:
        super().__init__(self._build_curves, self._redraw, parent)
        self.setObjectName("progress_plot")
        self.incumbent: pg.PlotDataItem | None = None
        self.bound: pg.PlotDataItem | None = None
        self.reset()

    def _build_curves(self, plot: pg.PlotItem) -> None:
        plot.setLabel("bottom", "seconds")
        plot.setLabel("left", "objective (weighted change)")
        plot.addLegend(offset=(-10, 10))
        plot.showGrid(x=True, y=True, alpha=0.3)
        self.incumbent = plot.plot([], [], pen=pg.mkPen("#c0392b", width=2), name="incumbent", stepMode=None)
        self.bound = plot.plot([], [], pen=pg.mkPen("#2471a3", width=2), name="bound")

    def reset(self) -> None:
        self._seconds: list[float] = []
        self._objective: list[float] = []
        self._bound: list[float] = []
        self.changed()

    def add(self, reports: list[Progress]) -> None:
        for report in reports:
            self._seconds.append(report.seconds)
            self._objective.append(report.objective)
            self._bound.append(report.bound)
        self.changed()

    @property
    def points(self) -> int:
        return len(self._seconds)

    def _redraw(self) -> None:
        if self.incumbent is None or self.bound is None:  # LazyPlot builds the curves before it draws
            return
        seconds = np.asarray(self._seconds, float)
        for curve, reported in ((self.incumbent, self._objective), (self.bound, self._bound)):
            values = np.asarray(reported, float)
            finite = np.isfinite(values) & (np.abs(values) < 1e300)
            curve.setData(seconds[finite], values[finite])

    def state(self) -> str:
        """The run's state in words: "no table yet" until the first incumbent, the incumbent and
        bound (and their gap) once there are; never "nan"."""
        objective, bound = self.last()
        found = "no table yet" if math.isnan(objective) else f"best table so far: objective {figure(objective)}"
        if math.isnan(bound):
            return found
        gap = ""
        if not math.isnan(objective) and objective != 0:
            gap = f" (gap {figure(100 * abs(objective - bound) / abs(objective), 3)} %)"
        return f"{found}; bound {figure(bound)}{gap}"

    def last(self) -> tuple[float, float]:
        objective = next((v for v in reversed(self._objective) if math.isfinite(v)), math.nan)
        bound = next((v for v in reversed(self._bound) if math.isfinite(v)), math.nan)
        return objective, bound
