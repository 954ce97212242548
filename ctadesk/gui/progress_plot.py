"""Live MILP progress: incumbent and bound against time (pyqtgraph)."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg

from ctadesk.engine.result import Progress
from ctadesk.gui.numbers import figure


class ProgressPlot(pg.PlotWidget):
    def __init__(self, parent=None) -> None:
        super().__init__(parent, background="w")
        self.setObjectName("progress_plot")
        self.setLabel("bottom", "seconds")
        self.setLabel("left", "objective (weighted change)")
        self.addLegend(offset=(-10, 10))
        self.showGrid(x=True, y=True, alpha=0.3)
        self.incumbent = self.plot([], [], pen=pg.mkPen("#c0392b", width=2), name="incumbent", stepMode=None)
        self.bound = self.plot([], [], pen=pg.mkPen("#2471a3", width=2), name="bound")
        self.reset()

    def reset(self) -> None:
        self._seconds: list[float] = []
        self._objective: list[float] = []
        self._bound: list[float] = []
        self._redraw()

    def add(self, reports: list[Progress]) -> None:
        for report in reports:
            self._seconds.append(report.seconds)
            self._objective.append(report.objective)
            self._bound.append(report.bound)
        self._redraw()

    @property
    def points(self) -> int:
        return len(self._seconds)

    def _redraw(self) -> None:
        seconds = np.asarray(self._seconds, float)
        for curve, values in ((self.incumbent, self._objective), (self.bound, self._bound)):
            values = np.asarray(values, float)
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
