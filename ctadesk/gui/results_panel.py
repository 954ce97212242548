"""Results: summary, quality report (Cox 2005a), the quality terms' report (issue 16), heatmap of
relative change, scatter of adjusted vs original, histogram of changes, the verifier's findings
and the disclosure audit (issue 13), their cells selectable."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ctadesk.app.files import project_quality
from ctadesk.app.weight_advice import WeightAdvice
from ctadesk.engine.methods.figures import figures
from ctadesk.engine.quality.measures import QualityReport
from ctadesk.engine.result import CTAResult
from ctadesk.gui.audit_panel import AuditPanel
from ctadesk.gui.lazy_plot import LazyPlot
from ctadesk.gui.model_panel import method_label
from ctadesk.gui.naming import named
from ctadesk.gui.numbers import figure
from ctadesk.gui.quality_table import QualityTable, QualityTermsView, summary_text
from ctadesk.gui.table_model import SliceLayout, relative_change
from ctadesk.io.project import Project

#: most points drawn in the scatter (a random sample of the changed inner cells beyond that;
#: pyqtgraph takes ~15 ms for 5 000 points, ~110 ms for 20 000)
SCATTER_POINTS = 5_000
#: most pixels a side of the heatmap's image (a larger slice is shown by blocks of cells)
HEATMAP_PIXELS = 400
#: most labels on a heatmap axis's coarsest tick level (finer levels are labelled where they fit)
COARSE_LABELS = 6
#: most codes on a heatmap axis that get a tick mark each
MAX_TICKS = 1000


def _nice_steps():
    """1, 2, 5, 10, 20, 50, 100, ..."""
    scale = 1
    while True:
        yield from (scale, 2 * scale, 5 * scale)
        scale *= 10


def axis_ticks(codes: Sequence[str]) -> list[list[tuple[float, str]]]:
    """pyqtgraph tick levels naming categories at the centres of their pixels (code k spans [k, k+1]):
    the s-th, 2s-th, ... code on the first level, s a step of 1, 2, 5, 10, 20, ... leaving at most
    COARSE_LABELS labels; a finer step on the next; every code on the last (up to MAX_TICKS codes).
    pyqtgraph writes the first level's labels always and a finer level's where they fit."""
    n = len(codes)
    coarse = next(step for step in _nice_steps() if n <= COARSE_LABELS * step)
    steps = [coarse]
    middle = coarse // (5 if str(coarse).startswith("5") else 2)
    if middle > 1:
        steps.append(middle)
    if coarse > 1 and n <= MAX_TICKS:
        steps.append(1)
    levels = []
    for level, step in enumerate(steps):
        coarser = steps[level - 1] if level else None
        levels.append([(k + 0.5, str(codes[k])) for k in range(step - 1, n, step)
                       if coarser is None or (k + 1) % coarser])
    return levels


def largest_in_blocks(values: np.ndarray, most: int) -> np.ndarray:
    """``values`` (2-D) at most ``most`` a side: each block of cells shown by its value largest in
    magnitude (a single large change stays visible, as a mean would not show it); a smaller
    array is returned as it is."""
    n_rows, n_columns = values.shape
    rows, columns = -(-n_rows // most), -(-n_columns // most)  # cells a block, ceiling
    if rows == 1 and columns == 1:
        return values
    padded = np.zeros((-(-n_rows // rows) * rows, -(-n_columns // columns) * columns))
    padded[:n_rows, :n_columns] = values
    split = padded.reshape(padded.shape[0] // rows, rows, padded.shape[1] // columns, columns)
    blocks = split.transpose(0, 2, 1, 3).reshape(split.shape[0], split.shape[2], rows * columns)
    largest = np.abs(blocks).argmax(axis=2)
    return np.take_along_axis(blocks, largest[..., None], axis=2)[..., 0]


def summary_figures(report: QualityReport, result: CTAResult) -> dict[str, float]:
    """The few quality figures the summary shows, read from the quality report."""
    inner, other = report["inner cells"], report["not sensitive"]
    return {"cells changed": sum(g.cells_changed for g in report.groups if g.name in ("sensitive", "not sensitive")),
            "of them not sensitive": other.cells_changed,
            "weighted change (objective)": float(result.objective),
            "largest relative change of a non-sensitive cell (%)": other.largest_relative_change,
            "inner cells: mean change (%)": inner.mean_change,
            "inner cells: variance change (%)": inner.variance_change,
            "inner cells: regression slope change (%)": inner.slope_change}


class Plotted(NamedTuple):
    """What the plots show: the project, the result's adjusted values and the table editor's slice."""

    project: Project
    adjusted: np.ndarray
    layout: SliceLayout


class ResultsPanel(QTabWidget):
    """cell_selected(list[int]) asks the table editor to show and select cells;
    inverse_weights_requested() asks for 1/value weights (the advice's button)."""

    cell_selected = Signal(list)
    inverse_weights_requested = Signal()

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("results_panel")
        self.summary = QLabel("No result yet: mark sensitive cells (or apply the safety rules) and press Protect.")
        self.summary.setObjectName("results_summary")
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.summary.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.summary.setWordWrap(True)
        self.advice = named(QFrame(frameShape=QFrame.Shape.StyledPanel), "weight_advice")
        self.advice.setStyleSheet("#weight_advice { background: #fcf3cf; border: 1px solid #f1c40f }")
        self.advice_text = named(QLabel("", wordWrap=True), "weight_advice_text")
        self.advice_cells: tuple[int, ...] = ()
        self.advice_text.linkActivated.connect(lambda _: self.cell_selected.emit(list(self.advice_cells)))
        self.use_inverse = named(QPushButton("Use 1/value weights"), "use_inverse_weights")
        self.use_inverse.clicked.connect(self.inverse_weights_requested)
        advice_row = QHBoxLayout(self.advice)
        advice_row.setContentsMargins(6, 4, 6, 4)
        advice_row.addWidget(self.advice_text, 1)
        advice_row.addWidget(self.use_inverse)
        self.advice.hide()
        summary_page = QWidget()
        summary_column = QVBoxLayout(summary_page)
        summary_column.addWidget(self.advice)
        summary_column.addWidget(self.summary, 1)
        self.heatmap = LazyPlot(self._build_heatmap, self._draw_heatmap)
        self.heatmap.setObjectName("heatmap")
        self.scatter = LazyPlot(self._build_scatter, self._draw_scatter)
        self.scatter.setObjectName("scatter")
        self.histogram = LazyPlot(self._build_histogram, self._draw_histogram)
        self.histogram.setObjectName("histogram")
        #: what the plots show, drawn when a plot's tab shows (None: no adjusted values)
        self._shown: Plotted | None = None
        self.quality = QualityTable()
        self.quality.cell_selected.connect(self.cell_selected)
        self.findings = named(QListWidget(), "findings")
        self.findings.itemClicked.connect(self._finding_clicked)
        self.findings.itemActivated.connect(self._finding_clicked)
        self.audit = AuditPanel()
        self.audit.cell_selected.connect(self.cell_selected)
        self.addTab(summary_page, "Summary")
        self.addTab(self.quality, "Quality")
        self.terms = QualityTermsView()
        self.addTab(self.terms, "Quality terms")
        self.setTabVisible(self.indexOf(self.terms), False)
        self.addTab(self.heatmap, "Heatmap")
        self.addTab(self.scatter, "Adjusted vs original")
        self.addTab(self.histogram, "Changes")
        self.addTab(self.findings, "Verification")
        self.addTab(self.audit, "Audit")

    def clear(self) -> None:
        self.summary.setText("No result yet: mark sensitive cells (or apply the safety rules) and press Protect.")
        self._show_plots(None)
        self.findings.clear()
        self.quality.show_report(None)
        self.show_terms(None)

    # ---------------------------------------------------------------- plots
    # Each plot is built the first time its tab shows and drawn from self._shown while it shows
    # (gui/lazy_plot.py): showing a result costs no plotting until a plot is looked at.
    def _show_plots(self, shown: Plotted | None) -> None:
        self._shown = shown
        for plot in (self.heatmap, self.scatter, self.histogram):
            plot.changed()

    @property
    def image(self) -> pg.ImageItem:
        """The heatmap's image (built and drawn)."""
        self.heatmap.plot()
        return self._image

    @property
    def scatter_points(self) -> pg.ScatterPlotItem:
        """The scatter's points (built and drawn)."""
        self.scatter.plot()
        return self._scatter_points

    @property
    def histogram_curve(self) -> pg.PlotCurveItem:
        """The histogram's bars (built and drawn)."""
        self.histogram.plot()
        return self._histogram_curve

    def _build_heatmap(self, plot: pg.PlotItem) -> None:
        plot.invertY(True)
        plot.setAspectLocked(False)
        for side in ("left", "bottom"):  # label a finer level of codes whenever its labels do not overlap
            plot.getAxis(side).setStyle(textFillLimits=[(0, 0.9)])
        self._image = pg.ImageItem(axisOrder="row-major")
        plot.addItem(self._image)
        self.colorbar = pg.ColorBarItem(values=(-20, 20), colorMap=pg.colormap.get("CET-D1"), label="relative change %")
        self.colorbar.setImageItem(self._image, insert_in=plot)

    def _build_scatter(self, plot: pg.PlotItem) -> None:
        plot.setLabel("bottom", "original (inner cells)")
        plot.setLabel("left", "adjusted")
        self._scatter_points = pg.ScatterPlotItem(size=5, pen=None, brush=pg.mkBrush(36, 113, 163, 160))
        self.diagonal = pg.PlotCurveItem(pen=pg.mkPen("#888", style=Qt.PenStyle.DashLine))
        plot.addItem(self.diagonal)
        plot.addItem(self._scatter_points)

    def _build_histogram(self, plot: pg.PlotItem) -> None:
        plot.setLabel("bottom", "change (adjusted - original) of changed cells")
        plot.setLabel("left", "cells")
        self._histogram_curve = pg.PlotCurveItem(x=[0.0, 1.0], y=[0.0], stepMode="center", fillLevel=0,
                                                 brush=pg.mkBrush(192, 57, 43, 120), pen=pg.mkPen("#c0392b"))
        plot.addItem(self._histogram_curve)

    def show_advice(self, advice: WeightAdvice | None) -> None:
        """Say why 1/value weights would do better, with the button to use them (None: hide it)."""
        self.advice.setVisible(advice is not None)
        self.advice_cells = advice.cells if advice is not None else ()
        if advice is not None:
            self.advice_text.setText(f"{advice.text()} <a href='cells'>Show the cells</a>")
            self.setCurrentIndex(0)

    def show_terms(self, report: Mapping[str, Any] | None) -> None:
        """The quality terms' report (TermsReport.as_dict()); its tab is shown only for a run with terms."""
        self.terms.show_report(report)
        self.setTabVisible(self.indexOf(self.terms), report is not None)

    def show_result(self, project: Project, result: CTAResult, layout: SliceLayout,
                    terms: Mapping[str, Any] | None = None, quality: QualityReport | None = None) -> None:
        """Fill every tab from result and the quality terms' report ``terms`` (TermsReport.as_dict(),
        None: the run had none); the heatmap shows the table editor's slice (layout).  ``quality``:
        the result's quality report when a job has computed it already (else computed here)."""
        lines = [f"<b>{method_label(result.method)}</b>: {result.message or result.status.value.replace('_', ' ')}",
                 figures(result, figure),
                 "time " + ", ".join(f"{k} {v:.2f} s" for k, v in result.timings.items())]
        if result.verification is not None:
            lines.append(("✔ " if result.verification.ok else "✘ ") + result.verification.summary())
        report = quality if quality is not None else project_quality(project, result)
        self.quality.show_report(report)
        self.show_terms(terms)
        if terms is not None:
            lines.append(f"{summary_text(terms)} (<i>Quality terms</i> tab)")
        if report is not None:
            lines.append("<table>" + "".join(f"<tr><td>{name}</td><td align=right>&nbsp;{figure(value)}</td></tr>"
                                             for name, value in summary_figures(report, result).items())
                         + "</table>")
        else:
            lines.append("No adjusted table came back; the original table is unchanged.")
        self.summary.setText("<br>".join(lines))
        self._fill_findings(project, result)
        self._show_plots(Plotted(project, result.values, layout) if result.values is not None else None)

    def _draw_histogram(self) -> None:
        """The changes of the changed cells, in at most 60 bins."""
        if self._shown is None:
            self._histogram_curve.setData([0, 1], [0.0])
            return
        original, adjusted = self._shown.project.values, self._shown.adjusted
        changed = np.flatnonzero(adjusted != original)
        if changed.size:
            counts, edges = np.histogram(adjusted[changed] - original[changed], bins=min(60, max(5, changed.size // 4)))
            self._histogram_curve.setData(edges, counts.astype(float))
        else:
            self._histogram_curve.setData([0, 1], [0.0])

    def _draw_scatter(self) -> None:
        """Adjusted against original of the changed inner cells (totals, orders of magnitude larger,
        would squeeze every inner cell into a corner), beside the diagonal over the inner cells' range;
        a random sample of SCATTER_POINTS of them on a large table."""
        if self._shown is None:
            self._scatter_points.setData([], [])
            self.diagonal.setData([], [])
            return
        project, adjusted, _ = self._shown
        original = project.values
        inner = project.structure.inner_mask()
        shown = np.flatnonzero(inner & (adjusted != original))
        if shown.size > SCATTER_POINTS:
            shown = np.sort(np.random.default_rng(0).choice(shown, SCATTER_POINTS, replace=False))
        self._scatter_points.setData(original[shown], adjusted[shown])
        inner_values = original[inner] if inner.any() else original
        low, high = float(inner_values.min()), float(inner_values.max())
        self.diagonal.setData([low, high], [low, high])

    def update_heatmap(self, project: Project, result: CTAResult, layout: SliceLayout) -> None:
        """Show the relative change of another slice (the table editor's)."""
        if self._shown is not None and result.values is not None and result.values.shape == project.values.shape:
            self._shown = Plotted(project, result.values, layout)
            self.heatmap.changed()

    def _draw_heatmap(self) -> None:
        """Relative change of the slice's cells, its axes labelled with the row and column codes; a
        slice over HEATMAP_PIXELS a side shows each block of cells by its largest change."""
        if self._shown is None or self._shown.adjusted.shape != self._shown.project.values.shape:
            self._image.clear()
            return
        project, adjusted, layout = self._shown
        relative = relative_change(project.values[layout.cells], adjusted[layout.cells])
        relative = np.clip(np.nan_to_num(relative, posinf=100.0, neginf=-100.0), -100, 100)
        n_rows, n_columns = relative.shape
        self._image.setImage(largest_in_blocks(relative, HEATMAP_PIXELS), autoLevels=False)
        self._image.setRect(QRectF(0, 0, n_columns, n_rows))
        limit = max(1.0, float(np.abs(relative).max()))
        self.colorbar.setLevels((-limit, limit))
        dimensions = project.structure.dimensions
        plot = self.heatmap.plot()
        for side, dim in (("left", layout.row_dim), ("bottom", layout.column_dim)):
            codes = dimensions[dim].codes if dim is not None else ["value"]
            plot.getAxis(side).setTicks(axis_ticks(codes))
            plot.setLabel(side, dimensions[dim].name if dim is not None else "")

    def _fill_findings(self, project: Project, result: CTAResult) -> None:
        self.findings.clear()
        verification = result.verification
        if verification is None:
            self.findings.addItem("No table to verify.")
            return
        if verification.ok:
            self.findings.addItem(verification.summary())
        for violation in verification.violations:
            item = QListWidgetItem(f"[{violation.kind}] {violation.message}")
            relations = project.relations
            if violation.kind != "relation":
                cells = [violation.index]
            elif violation.index < relations.shape[0]:
                start, end = relations.indptr[violation.index:violation.index + 2]
                cells = relations.indices[start:end].tolist()
            else:  # a quality-preserving relation (ctadesk.engine.quality.measures.preserve) spans the whole table
                cells = []
            item.setData(Qt.ItemDataRole.UserRole, [int(c) for c in cells if c >= 0])
            self.findings.addItem(item)

    def _finding_clicked(self, item: QListWidgetItem) -> None:
        cells = item.data(Qt.ItemDataRole.UserRole)
        if cells:
            self.cell_selected.emit(list(cells))
