"""The quality terms of the model selector (issue 16; Cox 2005, *Quality-preserving CTA*, paper
002 §3): a list of terms, each a measure (the mean change m(y), the variance term L(y), the
correlation Corr(a, x)) over a group of cells, kept hard, within a bound or at a weight, and
whether to price each term.  The terms themselves are the engine's (ctadesk.engine.quality.terms):
every row is checked by building its QualityTerm on the table as it stands, and the engine's
message is shown under the row.

A group is one of: the inner cells, all cells, the sensitive cells, the inner cells that are not
sensitive, a size class (inner cells with LO <= value < HI, quality_terms.size_class), a row,
column or slice by name (quality_terms.slice_cells), or the cells a term was saved with when its
group is none of these (a term written by `ctadesk solve --quality ...@cells=...`).  A project
keeps each term as QualityTerm.as_dict(); the group's name says which choice it was, so the
choice is restored and its cells are read again from the table when the run starts.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ctadesk.engine.errors import CTAError, ProblemError
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.quality.measures import inner_cells
from ctadesk.engine.quality.terms import INNER, QualityTerm, size_class, slice_cells
from ctadesk.gui.naming import named
from ctadesk.gui.wheel_guard import guard_wheel
from ctadesk.io.project import Project

#: measure -> what the list calls it
MEASURE_LABELS = {"L": "L(y): variance, slope", "mean": "mean", "correlation": "correlation"}
MEASURE_TIPS = {
    "mean": "The mean change of the group, m(y) = (1/t) Σ (x - a), in the table's units (Cox 2005a, model (2))",
    "L": "L(y) = Σ (a - mean a)(x - a) / Σ (a - mean a)²: the slope of adjusted on original minus 1; the "
         "variance changes by 2 L(y) to first order (Cox 2005a, §3, model (3))",
    "correlation": "Corr(original, adjusted) over the group, kept at or above a target (cutting planes)",
}
#: mode -> what the list calls it
MODE_LABELS = {"hard": "kept exactly", "bounded": "bounded", "weighted": "weighted"}
MODE_TIPS = {"hard": "An extra relation: the measure does not move at all (may leave no protected table)",
             "bounded": "The measure stays within the bound (a correlation: at or above the target)",
             "weighted": "The distance gains weight × |measure|: the solver trades it against the change"}
#: (measure, mode) -> the sign before the number field and the number a new row starts with
NUMBER_SIGNS = {("mean", "bounded"): "|m| ≤", ("L", "bounded"): "|L| ≤", ("correlation", "bounded"): "≥",
                ("mean", "weighted"): "weight", ("L", "weighted"): "weight"}
DEFAULT_NUMBERS = {("mean", "bounded"): "1", ("L", "bounded"): "0.001", ("correlation", "bounded"): "0.999",
                   ("mean", "weighted"): "1", ("L", "weighted"): "1000"}
NUMBER_TIPS = {("mean", "bounded"): "The group's mean may move by at most this, in the table's units",
               ("L", "bounded"): "|L(y)| at most this: the slope of adjusted on original stays within 1 ± this",
               ("correlation", "bounded"): "The lowest Corr(original, adjusted) allowed, strictly between 0 and 1",
               ("mean", "weighted"): "What one unit of |m(y)| costs, in the units of the distance",
               ("L", "weighted"): "What one unit of |L(y)| costs, in the units of the distance"}

#: group kinds and their names in a term (QualityTerm.group)
ALL, SENSITIVE, NOT_SENSITIVE, SIZE, SLICE, SAVED = "all", "sensitive", "not sensitive", "size", "slice", "saved"
GROUP_NAMES = {"inner": INNER, ALL: "all cells", SENSITIVE: "sensitive cells",
               NOT_SENSITIVE: "inner cells not sensitive"}
GROUP_LABELS = {"inner": "inner cells", ALL: "all cells (totals too)", SENSITIVE: "sensitive cells",
                NOT_SENSITIVE: "inner cells not sensitive", SIZE: "size class (LO ≤ value < HI)"}
_SIZE_NAME = re.compile(r"cells of size \[(\S+), (\S+)\)")


def table_problem(project: Project) -> CTAProblem:
    """The table's values, relations and sensitive cells: all a term's group and value read (the
    inner cells are those of the table's own relations, as in ctadesk.app.files.project_quality)."""
    return CTAProblem(values=project.values, relations=project.relations, sensitive=np.flatnonzero(project.sensitive))


def size_name(low: float, high: float) -> str:
    """The group name of a size class, as quality_terms.parse_term writes it (each end in full)."""
    return f"cells of size [{number_text(low)}, {number_text(high)})"


def number_text(number: float | None) -> str:
    """A number as the user would type it, reading back to the same float."""
    if number is None:
        return ""
    short = f"{number:g}"
    return short if float(short) == number else repr(float(number))


def _number(text: str, what: str) -> float | None:
    """The number typed in a field (None when empty); ProblemError naming the field otherwise."""
    text = text.strip()
    if not text:
        return None
    try:
        return float(text)
    except ValueError:
        hint = " (write the decimal mark as a point)" if "," in text else ""
        raise ProblemError(f"the {what} '{text}' is not a number{hint}") from None


def group_of(kind: str, detail: Any, project: Project, problem: CTAProblem, low: str = "",
             high: str = "") -> tuple[tuple[int, ...] | None, str]:
    """(cells, name) of a group choice on the table as it stands (cells None: the inner cells,
    which the engine reads off the relations).  ``detail`` is (dimension, code) of a slice and
    (cells, name) of a saved group; ``low``/``high`` the typed ends of a size class.  ProblemError
    naming the group when it has no cells."""
    if kind == "inner":
        return None, INNER
    name = GROUP_NAMES.get(kind, "")
    if kind == SAVED:
        cells, name = np.asarray(detail[0], np.int64), detail[1]
    elif kind == ALL:
        cells = np.arange(project.n_cells)
    elif kind == SENSITIVE:
        cells = np.flatnonzero(project.sensitive)
    elif kind == NOT_SENSITIVE:
        cells = np.setdiff1d(inner_cells(problem), np.flatnonzero(project.sensitive))
    elif kind == SIZE:
        low_value, high_value = _number(low, "lower end"), _number(high, "upper end")
        low_value = -math.inf if low_value is None else low_value
        high_value = math.inf if high_value is None else high_value
        if not low_value < high_value:
            raise ProblemError(f"the size class from {low_value:g} to below {high_value:g} is empty: the lower end "
                               "must be below the upper end")
        cells, name = size_class(problem, low_value, high_value), size_name(low_value, high_value)
    elif kind == SLICE:
        dimension, code = detail
        cells, name = slice_cells(project.structure, dimension, code), f"{dimension}={code}"
    else:
        raise ProblemError(f"unknown group '{kind}'")
    if cells.size == 0:
        raise ProblemError(f"the group '{name}' has no cells")
    return tuple(int(i) for i in cells), name


def group_choice(term: QualityTerm, project: Project | None) -> tuple[str, Any, str, str]:
    """(kind, detail, low, high) of the group choice a saved term stands for (group_of's inverse,
    read from the term's group name); a name it does not know is a saved group of fixed cells."""
    name = term.group
    kinds = {text: kind for kind, text in GROUP_NAMES.items()}
    if name in kinds and (name != INNER or term.cells is None):
        return kinds[name], None, "", ""
    size = _SIZE_NAME.fullmatch(name)
    if size is not None:
        low, high = (float(end) for end in size.groups())
        return SIZE, None, "" if math.isinf(low) else number_text(low), "" if math.isinf(high) else number_text(high)
    dimension, sep, code = name.partition("=")
    if project is not None and sep:
        dimensions = {d.name: d for d in project.structure.dimensions}
        if dimension in dimensions and code in dimensions[dimension].codes:
            return SLICE, (dimension, code), "", ""
    cells = term.cells if term.cells is not None else ()
    return SAVED, (tuple(cells), name), "", ""


class TermRow(QFrame):
    """One term: measure, mode, number, the group; the engine's verdict on it under them.

    changed()   the user changed the term
    removed()   the user asked to remove it
    """

    changed = Signal()
    removed = Signal()

    def __init__(self, project: Project | None, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("quality_term")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.project = project
        self.measure = named(QComboBox(), "term_measure")
        for key, label in MEASURE_LABELS.items():
            self.measure.addItem(label, key)
            self.measure.setItemData(self.measure.count() - 1, MEASURE_TIPS[key], Qt.ItemDataRole.ToolTipRole)
        self.mode = named(QComboBox(), "term_mode")
        for key, label in MODE_LABELS.items():
            self.mode.addItem(label, key)
            self.mode.setItemData(self.mode.count() - 1, MODE_TIPS[key], Qt.ItemDataRole.ToolTipRole)
        self.sign = named(QLabel(), "term_sign")
        self.number = named(QLineEdit(), "term_number")
        self.number.setMaximumWidth(80)
        self.remove = named(QToolButton(), "term_remove")
        self.remove.setText("✕")
        self.remove.setToolTip("Remove this term")
        self.remove.clicked.connect(self.removed)
        self.group = named(QComboBox(), "term_group")
        self.group.setToolTip("The cells the term is measured over")
        self.low = named(QLineEdit(placeholderText="from"), "term_size_low")
        self.high = named(QLineEdit(placeholderText="below"), "term_size_high")
        for end in (self.low, self.high):
            end.setMaximumWidth(64)
            end.setToolTip("A size class: the inner cells whose original value v has from ≤ v < below (either may be "
                           "left empty)")
        self.message = named(QLabel(wordWrap=True), "term_message")
        self._fill_groups()
        grid = QGridLayout(self)
        grid.setContentsMargins(4, 3, 4, 3)
        grid.setHorizontalSpacing(4)
        grid.setVerticalSpacing(2)
        first = QHBoxLayout()
        first.setSpacing(6)
        first.addWidget(self.measure, 3)
        first.addWidget(self.mode, 2)
        first.addWidget(self.sign)
        first.addWidget(self.number, 2)
        grid.addLayout(first, 0, 0)
        grid.addWidget(self.remove, 0, 1)
        second = QHBoxLayout()
        second.setSpacing(6)
        second.addWidget(QLabel("over"))
        second.addWidget(self.group, 1)
        second.addWidget(self.low)
        second.addWidget(self.high)
        grid.addLayout(second, 1, 0, 1, 2)
        grid.addWidget(self.message, 2, 0, 1, 2)
        self._last_default = ""
        self.set_term(QualityTerm("L", "bounded", bound=0.001))
        self.measure.currentIndexChanged.connect(self._kind_changed)
        self.mode.currentIndexChanged.connect(self._kind_changed)
        self.group.currentIndexChanged.connect(self._group_changed)
        for field in (self.number, self.low, self.high):
            field.textChanged.connect(self._edited)
        guard_wheel(self)

    # ----------------------------------------------------------- the choices
    def _fill_groups(self) -> None:
        """The group list: the fixed groups, then every row, column or slice of the table (the
        combo's data: the index of the choice in self.choices)."""
        self.group.blockSignals(True)
        self.group.clear()
        self.choices: list[tuple[str, Any]] = []
        for kind, label in GROUP_LABELS.items():
            self._add_choice(label, kind)
        structure = self.project.structure if self.project is not None else None
        if structure is not None and len(structure.dimensions) > 1:  # a slice of a one-way table is one cell
            self.group.insertSeparator(self.group.count())
            for dimension in structure.dimensions:
                for code in dimension.codes:
                    self._add_choice(f"{dimension.name} = {code}", SLICE, (dimension.name, code))
        self.group.blockSignals(False)

    def _add_choice(self, label: str, kind: str, detail: Any = None) -> None:
        self.choices.append((kind, detail))
        self.group.addItem(label, len(self.choices) - 1)

    def group_chosen(self) -> tuple[str, Any]:
        """(kind, detail) of the group chosen (group_of)."""
        return self.choices[self.group.currentData()]

    def _kind_changed(self) -> None:
        """Correlation is kept as a target only; the number field shows what it holds and, while it
        holds the last choice's default, the new choice's default."""
        measure = self.measure.currentData()
        if measure == "correlation" and self.mode.currentData() != "bounded":
            self.mode.blockSignals(True)
            self.mode.setCurrentIndex(self.mode.findData("bounded"))
            self.mode.blockSignals(False)
        self.mode.setEnabled(measure != "correlation")
        key = (measure, self.mode.currentData())
        if self.number.text() in ("", self._last_default):
            self.number.blockSignals(True)
            self.number.setText(DEFAULT_NUMBERS.get(key, ""))
            self.number.blockSignals(False)
        self._last_default = DEFAULT_NUMBERS.get(key, "")
        self._show_number()
        self._edited()

    def _show_number(self) -> None:
        key = (self.measure.currentData(), self.mode.currentData())
        self.sign.setText(NUMBER_SIGNS.get(key, ""))
        self.sign.setVisible(key in NUMBER_SIGNS)
        self.number.setVisible(key in NUMBER_SIGNS)
        self.number.setToolTip(NUMBER_TIPS.get(key, ""))

    def _group_changed(self) -> None:
        sized = self.group.currentData() is not None and self.group_chosen()[0] == SIZE
        self.low.setVisible(sized)
        self.high.setVisible(sized)
        self._edited()

    def _edited(self) -> None:
        self.validate()
        self.changed.emit()

    # ---------------------------------------------------------------- the term
    def term(self, problem: CTAProblem | None = None) -> QualityTerm:
        """The term as set, its group read from the table as it stands (ProblemError: the engine's
        message on what is wrong)."""
        if self.project is None:
            raise ProblemError("open a table first")
        problem = table_problem(self.project) if problem is None else problem
        measure, mode = self.measure.currentData(), self.mode.currentData()
        kind, detail = self.group_chosen()
        cells, name = group_of(kind, detail, self.project, problem, self.low.text(), self.high.text())
        number = _number(self.number.text(), "weight" if mode == "weighted" else
                         "target" if measure == "correlation" else "bound") if mode != "hard" else None
        term = QualityTerm(measure, mode, bound=number if mode == "bounded" else None,
                           weight=number if mode == "weighted" else None, cells=cells, group=name)
        term.group_cells(problem)
        return term

    def validate(self, problem: CTAProblem | None = None) -> QualityTerm | None:
        """Show the engine's verdict under the row: the group's size, or what is wrong; the term
        when it is valid."""
        if problem is None and self.project is not None:
            problem = table_problem(self.project)
        try:
            if problem is None:  # no table: as term() says
                raise ProblemError("open a table first")
            term = self.term(problem)
        except CTAError as error:
            self.message.setText(str(error))
            self.message.setStyleSheet("color: #922b21")
            return None
        size = term.group_cells(problem).size
        self.message.setText(f"{size:,} cell{'s' * (size != 1)}: {term.name}")
        self.message.setStyleSheet("color: #566573")
        return term

    def set_term(self, term: QualityTerm) -> None:
        """Show a term (from a project or the request), its group chosen as it was."""
        for combo, value in ((self.measure, term.measure), (self.mode, term.mode)):
            combo.blockSignals(True)
            combo.setCurrentIndex(combo.findData(value))
            combo.blockSignals(False)
        self.mode.setEnabled(term.measure != "correlation")
        number = term.bound if term.mode == "bounded" else term.weight
        kind, detail, low, high = group_choice(term, self.project)
        self.group.blockSignals(True)
        if kind == SAVED:
            self._add_choice(f"{detail[1]} (as saved, {len(detail[0]):,} cells)", SAVED, detail)
            self.group.setCurrentIndex(self.group.count() - 1)
        else:
            self.group.setCurrentIndex(self.group.findData(self.choices.index((kind, detail))))
        self.group.blockSignals(False)
        for field, text in ((self.number, number_text(number)), (self.low, low), (self.high, high)):
            field.blockSignals(True)
            field.setText(text)
            field.blockSignals(False)
        self._last_default = DEFAULT_NUMBERS.get((term.measure, term.mode), "")
        self._show_number()
        self._group_changed()


class QualityTermsPanel(QWidget):
    """The list of terms, Add, and 'report the price of each term'.  changed(): a term changed."""

    changed = Signal()

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("quality_terms")
        self.project: Project | None = None
        self.rows: list[TermRow] = []
        self._list = QVBoxLayout()
        self._list.setContentsMargins(0, 0, 0, 0)
        self._list.setSpacing(3)
        self.add_button = named(QPushButton("Add term"), "add_quality_term")
        self.add_button.setToolTip("Keep the mean, the variance term L(y) or the correlation of a group of cells: "
                                   "exactly, within a bound, or at a price")
        self.add_button.clicked.connect(lambda: self.add_term())
        self.price = named(QCheckBox("Report the price of each term"), "quality_price")
        self.price.setToolTip("Solve once more without each term and report how much more change the term costs "
                              "(one extra solve per term)")
        self.message = named(QLabel(wordWrap=True), "quality_terms_message")
        self.message.setStyleSheet("color: #922b21")
        self.message.hide()
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(3)
        column.addLayout(self._list)
        buttons = QHBoxLayout()
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.price, 1)
        column.addLayout(buttons)
        column.addWidget(self.message)
        self.add_button.setEnabled(False)

    def set_table(self, project: Project | None) -> None:
        """The table the terms' groups are read from (its rows, columns and slices); the list starts empty."""
        self.project = project
        self.set_terms([])
        self.add_button.setEnabled(project is not None)

    def add_term(self, term: QualityTerm | None = None) -> TermRow:
        row = TermRow(self.project, self)
        if term is not None:
            row.set_term(term)
        row.validate()
        row.changed.connect(self.changed)
        row.removed.connect(lambda: self.remove_row(row))
        self.rows.append(row)
        self._list.addWidget(row)
        self.changed.emit()
        return row

    def remove_row(self, row: TermRow) -> None:
        self.rows.remove(row)
        self._list.removeWidget(row)
        row.deleteLater()
        self.changed.emit()

    def revalidate(self) -> None:
        """Check every row again against the table as it now stands (after an edit)."""
        if self.project is not None and self.rows:
            problem = table_problem(self.project)
            for row in self.rows:
                row.validate(problem)

    def terms(self) -> tuple[QualityTerm, ...]:
        """The terms as set, groups read from the table as it stands; CTAError naming the first
        term that is not valid."""
        problem = table_problem(self.project) if self.rows and self.project is not None else None
        terms = []
        for number, row in enumerate(self.rows, 1):
            try:
                terms.append(row.term(problem))
            except CTAError as error:
                row.validate(problem)
                raise CTAError(f"quality term {number}: {error}") from None
        return tuple(terms)

    def set_terms(self, terms: Sequence[QualityTerm | Mapping[str, Any]]) -> None:
        """Show these terms (QualityTerm or QualityTerm.as_dict(), as a project keeps them); a saved
        term that cannot be read is left out and named under the list."""
        for row in list(self.rows):
            self.remove_row(row)
        unread = []
        for number, term in enumerate(terms, 1):
            try:
                self.add_term(term if isinstance(term, QualityTerm) else QualityTerm.from_dict(term))
            except (CTAError, TypeError, ValueError) as error:
                unread.append(f"quality term {number} of the project was not read: {error}")
        self.message.setText("\n".join(unread))
        self.message.setVisible(bool(unread))
