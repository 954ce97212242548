"""Showing the document in the main window: a new table replaces everything shown about the one
before (its audit, note, banner and options), and each change of the session (an edit, a result,
an audit, a note) is shown where it belongs; the model options a new table starts with."""

from __future__ import annotations

from pathlib import Path

from ctadesk.app.formats import export_of
from ctadesk.app.session import Change, Session
from ctadesk.gui.audit_panel import NO_AUDIT
from ctadesk.gui.protect_flow import ProtectFlow
from ctadesk.gui.table_model import Display
from ctadesk.io.project import Project


class DocumentView(ProtectFlow):
    """The window's view of its session: the table, its info and title, and the model options."""

    def set_project(self, project: Project, path: Path | None = None, source: Path | None = None) -> None:
        """Show ``project`` (saved at ``path``, read from the file ``source``, or new) in place of
        the table shown: the session starts afresh with it."""
        if self.session is None:
            self.session = Session(project, path, source)
            self.session_events.listen(self.session)
            self._session_changed(Change.TABLE)
        else:
            self.session.replace(project, path, source)

    def _session_changed(self, change: Change) -> None:
        """Show what changed in the session."""
        if change is Change.TABLE:
            self._show_table()
        elif change is Change.EDIT:
            self.model_panel.quality_terms.revalidate()
            self.editor.model.refresh()
            self._show_audit()
        elif change is Change.RESULT:
            result = self.open_project.result
            if result is not None:
                self._show_result(result)
            self._show_audit()
        elif change is Change.AUDIT:
            self._show_audit()
        elif change is Change.NOTE:
            self.solve_state.setText(self.open_session.note)
        self._update_stale()
        self._update_info()
        self._update_title()

    def _show_table(self) -> None:
        """A new table: everything shown about the one before goes (its audit, note, banner and
        options); the model options are the project's, else the defaults."""
        project = self.open_project
        self.undo_stack.clear()
        self.editor.set_project(project)  # shows no audit (and repaints the grid once)
        self.audit_panel.clear(NO_AUDIT)
        self.solve_state.setText(self.open_session.note)
        self.model_panel.set_table(project)
        self.model_panel.set_options(project.options or self.default_options())
        self.rules_panel.set_statistics(project.statistics)
        self.rules_panel.set_rules(project.rules)
        self.audit_panel.set_rules(project.rules)
        self.log_pane.set_text(project.log)
        self.progress_plot.reset()
        if project.result is not None:
            self._show_result(project.result)
        else:
            self.results.clear()
            self.editor.set_display(Display.ORIGINAL)
            self.bottom_tabs.setCurrentWidget(self.log_pane if project.log else self.results)
        self._advise_weights_before_run()

    def _update_title(self) -> None:
        self.setWindowTitle(f"ctadesk — {self.open_session.name}[*]")
        self.setWindowModified(self.open_session.unsaved)

    def _update_info(self) -> None:
        project = self.open_project
        shape = " × ".join(str(s) for s in project.structure.shape)
        self.table_info.setText(f"{shape} table, {project.n_cells:,} cells, {project.relations.shape[0]:,} relations")
        self.sensitive_info.setText(f"{int(project.sensitive.sum()):,} sensitive, {int(project.fixed.sum()):,} fixed. "
                                    "Select cells, right-click for status, sense and protection level.")
        for kind, action in self.export_actions.items():
            action.setEnabled(export_of(kind).available(project))
        self._update_audit_action()

    def default_options(self) -> dict:
        """The options a new table starts with: those the user made the defaults (Protect > Use
        these options for new tables), else the model panel's own."""
        chosen = self.settings.value("model/defaults")
        return chosen if isinstance(chosen, dict) else self.builtin_options

    def make_options_default(self) -> None:
        """Make the model panel's choices (not the table's quality terms) the defaults of new tables."""
        self.settings.setValue("model/defaults", self.model_panel.remembered_options())
        self.statusBar().showMessage("New tables will start with these options.", 5000)

    def reset_options(self) -> None:
        """Set the model panel to the defaults (the table's quality terms stay)."""
        terms = self.model_panel.options()["quality"]
        self.model_panel.set_options({**self.default_options(), "quality": terms})
