"""The lattice of the 2^K marginal sub-tables of a count table (Karr, Dobra & Sanil (undated), "OTR components"),
drawn in layers by sub-table size (the full table on top, the grand total at the bottom), each
node coloured by its critical width CW(T) ("Alternative 2") and drawn released or withheld
under a release; lines join a sub-table to the ones a single attribute smaller.  A layer of
more than ROW_NODES sub-tables is drawn zigzag over several rows, in its order from left to
right, so the widest layer of a 2^6 lattice (20 sub-tables) stays as wide as 10 labels.

The colour scale runs from red (CW = 0: MPR(T) alone bounds a small cell exactly) through yellow
(CW = alpha, the width the user requires) to green (CW >= 2 alpha, or no cell at risk).
"""

from __future__ import annotations

import math

import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QLinearGradient, QPainter, QPen
from PySide6.QtWidgets import (
    QGraphicsLineItem,
    QGraphicsRectItem,
    QGraphicsScene,
    QGraphicsSimpleTextItem,
    QGraphicsView,
    QWidget,
)

from ctadesk.engine.releases import CountTable, Release, Subtable, lattice

#: the colour scale of critical widths, over CW / (2 alpha) in [0, 1]
WIDTH_COLOURS = pg.ColorMap(pos=[0.0, 0.5, 1.0], color=[(192, 57, 43), (244, 208, 63), (39, 174, 96)])
#: how much of a withheld node's colour is kept (the rest is white)
WITHHELD_STRENGTH = 0.35
NODE_HEIGHT, LAYER_GAP, ROW_GAP, NODE_GAP, PADDING = 24.0, 46.0, 6.0, 8.0, 8.0
#: most sub-tables side by side in one row of a layer
ROW_NODES = 10
#: above this many sub-tables only the lines between released sub-tables are drawn
ALL_EDGES_UP_TO = 256
#: zoom never goes below this when fitting the whole lattice (scroll instead)
MIN_SCALE = 0.55


def width_scale(alpha: float, widths: dict[Subtable, float]) -> float:
    """The critical width shown at the green end: 2 alpha, or the largest finite width when alpha <= 0."""
    if alpha > 0:
        return 2.0 * alpha
    finite = [w for w in widths.values() if math.isfinite(w)]
    return max(finite, default=1.0) or 1.0


def width_colour(width: float, scale: float) -> QColor:
    """The colour of critical width ``width`` on a scale whose green end is ``scale``."""
    position = 1.0 if not math.isfinite(width) else min(max(width / scale, 0.0), 1.0)
    return WIDTH_COLOURS.mapToQColor(position)


def faded(colour: QColor, strength: float = WITHHELD_STRENGTH) -> QColor:
    """``colour`` blended with white, keeping ``strength`` of it."""
    return QColor(*(round(255 - strength * (255 - c)) for c in (colour.red(), colour.green(), colour.blue())))


def subtable_label(table: CountTable, subtable: Subtable) -> str:
    """'[ACD]' (Karr, Dobra & Sanil's notation); 'total' for the grand total."""
    return table.subtable_name(subtable) if subtable else "total"


class LatticeNode(QGraphicsRectItem):
    """One sub-table: its attributes, critical width, and whether it is released (on the frontier)."""

    def __init__(self, table: CountTable, subtable: Subtable, width: float, colour: QColor, released: bool,
                 frontier: bool, font: QFont, rect: QRectF) -> None:
        super().__init__(rect)
        self.subtable, self.critical_width, self.released, self.frontier = subtable, width, released, frontier
        self.colour = colour
        pen = QPen(QColor(20, 20, 20) if released else QColor(150, 150, 150),
                   3.0 if frontier else 1.5 if released else 1.0)
        if not released:
            pen.setStyle(Qt.PenStyle.DashLine)
        self.setPen(pen)
        self.setBrush(QBrush(colour if released else faded(colour)))
        self.setZValue(1)
        label = QGraphicsSimpleTextItem(subtable_label(table, subtable), self)
        label.setFont(font)
        label.setBrush(QBrush(QColor(0, 0, 0) if released else QColor(110, 110, 110)))
        box = label.boundingRect()
        label.setPos(rect.center() - QPointF(box.width() / 2, box.height() / 2))
        names = " × ".join(table.names[a] for a in sorted(subtable)) or "the grand total"
        shown = "∞ (no cell at risk)" if not math.isfinite(width) else f"{width:g}"
        state = ("released, on the frontier" if frontier else "released") if released else "withheld"
        self.setToolTip(f"{subtable_label(table, subtable)}: {names}\ncritical width CW = {shown}\n{state}")
        self.setAcceptHoverEvents(True)


class LatticeView(QGraphicsView):
    """The lattice drawing.  node_clicked(frozenset) names the sub-table clicked."""

    node_clicked = Signal(object)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("lattice_view")
        self.setScene(QGraphicsScene(self))
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setBackgroundBrush(QBrush(QColor(255, 255, 255)))
        self.nodes: dict[Subtable, LatticeNode] = {}
        self.scale_end = 1.0

    def show_lattice(self, table: CountTable, widths: dict[Subtable, float], alpha: float,
                     release: Release | None = None) -> None:
        """Draw every sub-table of ``table`` coloured by its critical width (``widths``), released
        or withheld under ``release`` (None: nothing released yet)."""
        scene = self.scene()
        scene.clear()
        self.nodes = {}
        self.scale_end = width_scale(alpha, widths)
        released = release.subtables() if release is not None else frozenset()
        frontier = release.frontier if release is not None else frozenset()
        font = QFont(self.font())
        font.setPointSizeF(max(7.0, font.pointSizeF() * 0.9))
        metrics = QFontMetricsF(font)
        subtables = lattice(table.n_axes)
        node_width = max(metrics.horizontalAdvance(subtable_label(table, s)) for s in subtables) + 2 * PADDING
        layers: dict[int, list[Subtable]] = {}
        for subtable in subtables:
            layers.setdefault(len(subtable), []).append(subtable)
        span = min(ROW_NODES, max(len(layer) for layer in layers.values())) * (node_width + NODE_GAP)
        centres: dict[Subtable, QPointF] = {}
        y = 0.0
        for size in sorted(layers, reverse=True):
            layer = layers[size]
            rows = math.ceil(len(layer) / ROW_NODES)
            step = span / len(layer)
            for position, subtable in enumerate(layer):
                centre = centres[subtable] = QPointF((position + 0.5) * step,
                                                     y + (position % rows) * (NODE_HEIGHT + ROW_GAP))
                rect = QRectF(centre.x() - node_width / 2, centre.y() - NODE_HEIGHT / 2, node_width, NODE_HEIGHT)
                colour = width_colour(widths.get(subtable, math.inf), self.scale_end)
                node = LatticeNode(table, subtable, widths.get(subtable, math.inf), colour, subtable in released,
                                   subtable in frontier, font, rect)
                scene.addItem(node)
                self.nodes[subtable] = node
            y += rows * (NODE_HEIGHT + ROW_GAP) + LAYER_GAP
        self._draw_edges(centres, released, len(subtables) <= ALL_EDGES_UP_TO)
        scene.setSceneRect(scene.itemsBoundingRect().adjusted(-10, -10, 10, 10))
        self.fit()

    def _draw_edges(self, centres: dict[Subtable, QPointF], released: frozenset[Subtable], every: bool) -> None:
        strong = QPen(QColor(60, 60, 60), 1.3)
        light = QPen(QColor(205, 205, 205), 0.7)
        half = NODE_HEIGHT / 2
        for subtable, top in centres.items():
            for axis in subtable:
                below = subtable - {axis}
                both = subtable in released and below in released
                if not (every or both):
                    continue
                line = QGraphicsLineItem(top.x(), top.y() + half, centres[below].x(), centres[below].y() - half)
                line.setPen(strong if both else light)
                line.setZValue(0.5 if both else 0)
                self.scene().addItem(line)

    def fit(self) -> None:
        """The whole lattice in view, unless that would make its labels too small to read."""
        rect = self.scene().sceneRect()
        if rect.isEmpty():
            return
        self.resetTransform()
        scale = min(self.viewport().width() / rect.width(), self.viewport().height() / rect.height(), 1.6)
        scale = max(scale, MIN_SCALE)
        self.scale(scale, scale)
        self.centerOn(rect.center())

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.fit()

    def mousePressEvent(self, event) -> None:
        item = self.itemAt(event.position().toPoint())
        while item is not None and not isinstance(item, LatticeNode):
            item = item.parentItem()
        if item is not None:
            self.node_clicked.emit(item.subtable)
        super().mousePressEvent(event)


class WidthLegend(QWidget):
    """The colour scale of critical widths (0, alpha, 2 alpha and above) and how released and
    withheld sub-tables are drawn."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("lattice_legend")
        self.alpha: float | None = None
        self.scale_end = 1.0
        self.setMinimumHeight(44)

    def set_scale(self, alpha: float, scale_end: float) -> None:
        self.alpha, self.scale_end = alpha, scale_end
        self.update()

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        metrics = painter.fontMetrics()
        title = "critical width CW(T)"
        left = 8 + metrics.horizontalAdvance(title) + 10
        bar = QRectF(left, 6, min(260.0, max(120.0, self.width() * 0.3)), 12)
        painter.drawText(QPointF(8, bar.bottom()), title)
        gradient = QLinearGradient(bar.topLeft(), bar.topRight())
        for position in (0.0, 0.25, 0.5, 0.75, 1.0):
            gradient.setColorAt(position, WIDTH_COLOURS.mapToQColor(position))
        painter.fillRect(bar, gradient)
        painter.setPen(QColor(80, 80, 80))
        painter.drawRect(bar)
        ticks = [(0.0, "0")]
        if self.alpha is not None and self.alpha > 0:
            ticks += [(0.5, f"α = {self.alpha:g}"), (1.0, f"≥ {self.scale_end:g}")]
        else:
            ticks += [(1.0, f"≥ {self.scale_end:g}")]
        for position, text in ticks:
            x = bar.left() + position * bar.width()
            painter.drawLine(QPointF(x, bar.bottom()), QPointF(x, bar.bottom() + 4))
            painter.drawText(QPointF(x - metrics.horizontalAdvance(text) / 2, bar.bottom() + 6 + metrics.ascent()),
                             text)
        x = bar.right() + 40
        for released, text in ((True, "released (thick outline: frontier)"), (False, "withheld")):
            box = QRectF(x, 4, 30, 16)
            pen = QPen(QColor(20, 20, 20) if released else QColor(150, 150, 150), 1.5 if released else 1.0)
            if not released:
                pen.setStyle(Qt.PenStyle.DashLine)
            painter.setPen(pen)
            colour = WIDTH_COLOURS.mapToQColor(0.75)
            painter.setBrush(colour if released else faded(colour))
            painter.drawRect(box)
            painter.setPen(QColor(40, 40, 40))
            painter.drawText(QPointF(box.right() + 6, box.bottom() - 3), text)
            x = box.right() + 16 + metrics.horizontalAdvance(text)
        painter.end()
