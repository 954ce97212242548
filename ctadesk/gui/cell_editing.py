"""Changing the table from the main window: safety rules, cell statuses, senses, protection levels,
bounds, typed and pasted values and recomputed totals, each one undoable edit of the session
(gui/commands.py), refused while a job runs."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QMenu

from ctadesk.app import additivity
from ctadesk.app.rules import rules_dict
from ctadesk.app.session import Edit
from ctadesk.engine.errors import CTAError
from ctadesk.gui.cell_dialogs import LimitsDialog
from ctadesk.gui.commands import CellEdit
from ctadesk.gui.window_base import WindowBase


class CellEditing(WindowBase):
    """The window's edits of the table shown (step 2, and the grid's own edits)."""

    def apply_rules(self) -> bool:
        """Flag cells by the panel's safety rules (cells marked by hand stay sensitive); undoable."""
        project = self.project
        if project is None or project.statistics is None:
            return False
        try:
            rules = self.rules_panel.rules()
            changes, result = self.open_session.rule_changes(rules)
        except Exception as error:
            self.report_error("The safety rules cannot be applied", error)
            return False
        self._push(changes, "Apply safety rules")
        project.rules = rules_dict(rules)
        self.audit_panel.set_rules(project.rules)
        self.rules_panel.show_counts(result)
        return True

    def _push(self, changes: dict, text: str) -> bool:
        """Apply changes as one undoable edit; False (and nothing changes) while a solve or an audit runs."""
        if self._busy():
            self.statusBar().showMessage("The table cannot change while a solve or an audit runs.", 5000)
            return False
        self.undo_stack.push(CellEdit(self.open_session, changes, text))
        return True

    def _edit_value(self, cell: int, value: float) -> None:
        """Set a cell's value (undoable); once the cell editor has closed, say which totals it
        left unequal to the sum of their parts, if any (check_additivity)."""
        previous = float(self.open_project.values[cell])
        text = f"Set {self.open_project.structure.cell_label(cell)} to {value:,.10g}"
        if self._push({"values": ([cell], [value])}, text):
            edit = self.open_session.history[-1]
            QTimer.singleShot(0, self, lambda: self.check_additivity(edit, cell, previous))

    def _paste_values(self, cells: np.ndarray, values: np.ndarray) -> None:
        """Set the pasted cells' values as one undoable edit; say how many relations the table now
        breaks (Edit > Recompute totals makes them add up)."""
        if not self._push({"values": (cells, values)}, f"Paste {cells.size:,} value(s)"):
            return
        project = self.open_project
        residual = np.abs(project.relations @ project.values - project.rhs)
        broken = int((residual > 1e-9 * max(1.0, float(np.abs(project.values).max()))).sum())
        self.statusBar().showMessage(f"Pasted {cells.size:,} value(s)" + (
            f"; {broken:,} total(s) no longer equal the sum of their parts (Edit > Recompute totals)" if broken
            else ""), 10000)

    def check_additivity(self, edit: Edit, cell: int, previous: float) -> None:
        """If the value edit `edit` (still the last thing done) unbalanced totals, name them and
        offer to recompute the totals (a second undoable edit) or to keep the table as typed."""
        session = self.session
        if session is None or session.position != len(session.history) or session.history[-1] is not edit:
            return
        project = self.open_project
        unbalanced = additivity.unbalanced_by_edit(project, cell, previous)
        if not unbalanced:
            return
        label = project.structure.cell_label(cell)
        totals = additivity.recomputed_totals(project)
        if totals is None or self.runner.running:  # nothing to offer: recomputing would not help, or cannot now
            first = unbalanced[0]
            self.statusBar().showMessage(f"{first.label} no longer adds up (off by {first.off_by:+,.6g}): "
                                         "protection makes the table add up by moving cells.", 15000)
            return
        reset = None if project.structure.inner_mask()[cell] else float(totals[cell])
        if self.confirm("Totals no longer add up",
                        additivity.question(label, float(project.values[cell]), unbalanced, reset)):
            self.recompute_totals()

    def mark_sensitive(self, cells: np.ndarray) -> None:
        cells = np.asarray(cells, np.int64)
        if cells.size == 0:
            self.statusBar().showMessage("Select cells first.", 5000)
            return
        share = self.default_protection.value() / 100
        levels = share * np.abs(self.open_project.values[cells])
        unset = (self.open_project.lower_protection[cells] == 0) & (self.open_project.upper_protection[cells] == 0)
        self._push({"sensitive": (cells, True), "fixed": (cells, False), "flagged_by": (cells, "manual"),
                    "lower_protection": (cells, np.where(unset, levels, self.open_project.lower_protection[cells])),
                    "upper_protection": (cells, np.where(unset, levels, self.open_project.upper_protection[cells]))},
                   f"Mark {cells.size} cell(s) sensitive")

    def mark_safe(self, cells: np.ndarray) -> None:
        cells = np.asarray(cells, np.int64)
        if cells.size:
            self._push({"sensitive": (cells, False), "flagged_by": (cells, "")}, f"Mark {cells.size} cell(s) safe")

    def set_fixed(self, cells: np.ndarray, fixed: bool) -> None:
        cells = np.asarray(cells, np.int64)
        if cells.size:
            changes: dict[str, tuple[np.ndarray, bool | str]] = {"fixed": (cells, fixed)}
            if fixed:
                changes.update(sensitive=(cells, False), flagged_by=(cells, ""))
            self._push(changes, f"{'Fix' if fixed else 'Unfix'} {cells.size} cell(s)")

    def set_senses(self, cells: np.ndarray, sense: int) -> None:
        cells = np.asarray(cells, np.int64)
        cells = cells[self.open_project.sensitive[cells]]
        if cells.size:
            word = {1: "up", -1: "down", 0: "free"}[sense]
            self._push({"senses": (cells, sense)}, f"Sense {word} for {cells.size} cell(s)")

    def set_protection_levels(self, cells: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> bool:
        """Set the lower/upper protection levels of the sensitive cells among cells (undoable)."""
        cells = np.asarray(cells, np.int64)
        keep = self.open_project.sensitive[cells]
        lower, upper = np.broadcast_to(lower, keep.shape)[keep], np.broadcast_to(upper, keep.shape)[keep]
        cells = cells[keep]
        if cells.size == 0:
            self.statusBar().showMessage("Select sensitive cells first: protection levels apply to them.", 5000)
            return False
        self._push({"lower_protection": (cells, lower), "upper_protection": (cells, upper)},
                   f"Protection levels for {cells.size} cell(s)")
        return True

    def set_bounds(self, cells: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> bool:
        """Set the bounds of cells (undoable); refused, naming the cell, when they exclude its value."""
        cells = np.asarray(cells, np.int64)
        lower, upper = np.broadcast_to(lower, cells.shape), np.broadcast_to(upper, cells.shape)
        values = self.open_project.values[cells]
        outside = np.flatnonzero((lower > values) | (upper < values))
        if outside.size:
            k = int(outside[0])
            self.report_error("Bounds not set", CTAError(
                f"cell {self.open_project.structure.cell_label(int(cells[k]))}: bounds [{lower[k]:g}, {upper[k]:g}] "
                f"exclude its value {values[k]:g}"))
            return False
        if cells.size:
            self._push({"lower": (cells, lower), "upper": (cells, upper)}, f"Bounds for {cells.size} cell(s)")
        return bool(cells.size)

    def protection_dialog(self) -> None:
        level = self.default_protection.value()
        dialog = LimitsDialog("protection", level, level, self)
        cells = self.editor.selected_cells()
        if self.run_dialog(dialog):
            self.set_protection_levels(cells, *dialog.limits(self.open_project.values[cells]))

    def bounds_dialog(self) -> None:
        dialog = LimitsDialog("bounds", 20.0, 20.0, self)
        cells = self.editor.selected_cells()
        if self.run_dialog(dialog):
            self.set_bounds(cells, *dialog.limits(self.open_project.values[cells]))

    def recompute_totals(self) -> None:
        totals = self.open_project.recompute_totals()
        cells = np.flatnonzero(totals != self.open_project.values)
        if cells.size == 0:
            self.statusBar().showMessage("Every total already equals the sum of its cells.", 5000)
            return
        self._push({"values": (cells, totals[cells])}, f"Recompute {cells.size} total(s)")

    def _cell_menu(self, position) -> None:
        menu = QMenu(self)
        for action in self.cell_actions:
            menu.addAction(action)
        menu.exec(self.editor.view.viewport().mapToGlobal(position))
