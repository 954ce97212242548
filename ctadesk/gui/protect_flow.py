"""Step 3 of the main window: a protection run in the job runner (ctadesk.app.protect), its progress,
and what follows it: the result shown, or the result before it kept and why; the fixes offered
(optimal senses when given senses conflict, another published precision, 1/value weights)."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QTimer

from ctadesk.app import WIDENING_SEED, Protection
from ctadesk.app.sense_conflicts import conflicting_cells, describe
from ctadesk.app.weight_advice import WeightAdvice, after_run
from ctadesk.engine.errors import CTAError
from ctadesk.engine.problem import CTAProblem
from ctadesk.engine.publish.widening import new_seed
from ctadesk.engine.quality.measures import QualityReport
from ctadesk.engine.result import CTAResult
from ctadesk.gui.audit_flow import AuditFlow
from ctadesk.gui.cell_editing import CellEditing
from ctadesk.gui.errors import plain_message
from ctadesk.gui.jobs import TABLE_WEIGHTS, UNIT_WEIGHTS, protection_job, weight_advice, with_quality
from ctadesk.gui.model_panel import method_label
from ctadesk.gui.table_model import Display
from ctadesk.gui.window_base import AUDIT, PROTECT
from ctadesk.io.project import Project


class ProtectFlow(CellEditing, AuditFlow):
    """The window's protection runs and the advice around them."""

    def protect(self) -> None:
        """Start the chosen method in the background; the table stays as typed whatever happens."""
        if self._busy() or self.project is None:
            return
        self.editor.commit_open_editor()
        try:
            options = self.model_panel.options()
        except CTAError as error:
            self.report_error("The quality terms are not valid", error)
            return
        if options["method"] is None:
            self.report_error("Cannot protect", CTAError("No solver is installed."))
            return
        try:
            problem = self.project.to_problem()
            seed = self.open_session.widening_seed or new_seed()
            request = self.model_panel.request().replace(seed=seed)
        except Exception as error:
            self.report_error("The table cannot be protected as it stands", error)
            return
        if problem.n_sensitive == 0:
            marked = self._sensitive_by_rules()
            if marked is None:
                return
            problem = marked
        self.project.options = {**options, WIDENING_SEED: seed}
        self.log_pane.clear()
        self.progress_plot.reset()
        self.solve_state.setText(f"Running {method_label(options['method'])}…")
        self._set_running(True)
        project = self.project
        self.runner.start(PROTECT, with_quality(protection_job(problem, request, self.solve),
                                                lambda protection: (project, protection.result), self._keep_quality))

    def _sensitive_by_rules(self) -> CTAProblem | None:
        """The problem once the safety rules of step 2 have marked its cells, for a table with no
        sensitive cell: on a table from microdata or a .tab whose rules were never applied, the
        user is asked to apply them (the CLI's ``protect`` applies them itself); None, said why,
        where nothing is to be protected or the user declined."""
        project = self.open_project
        if project.statistics is None:
            self.report_error("Nothing to protect", CTAError("No cell is sensitive: mark cells sensitive first."))
            return None
        if not project.rules:
            if not self.confirm("Apply the safety rules?",
                                "No cell is sensitive yet: the safety rules of step 2 have not been applied to this "
                                "table. Apply them now and protect the cells they find unsafe?"):
                return None
            if not self.apply_rules():
                return None
            problem = self.open_project.to_problem()
            if problem.n_sensitive:
                return problem
            found = "The safety rules find no unsafe cell in this table"
        else:
            found = "No cell is sensitive"
        self.report_error("Nothing to protect", CTAError(
            f"{found}: nothing needs protecting. Change the rules in step 2 and apply them, or mark cells "
            "sensitive by hand."))
        return None

    def cancel(self) -> None:
        if self.runner.running:
            self.runner.cancel()
            self.solve_state.setText("Cancelling… (the best table so far will be kept)" if self.runner.name == PROTECT
                                     else "Cancelling the audit…")

    def _elapsed(self, seconds: float) -> None:
        """The seconds a solve or an audit has run (reading or writing a file says what it does instead)."""
        if self.runner.name in (PROTECT, AUDIT):
            self.elapsed.setText(f"{seconds:.1f} s")

    def _progress(self, reports) -> None:
        self.progress_plot.add(reports)
        self.solve_state.setText(self.progress_plot.state())

    def _solved(self, protection: Protection) -> None:
        self._set_running(False)
        result = protection.result
        if not self.log_pane.toPlainText() and result.log:
            self.log_pane.set_text(result.log)
        state = "protected table" if result.protected else "no protected table"
        said = f"{result.status.value.replace('_', ' ')}: " + (
            result.message if result.message.startswith(state) else
            state + (f" — {result.message}" if result.message else ""))
        self.statusBar().showMessage(f"{method_label(result.method)} finished: {result.status.value}", 10000)
        failed_senses = protection.request.senses == "fixed" and not result.protected
        if not self.open_session.keep(protection):  # the table found before stays in view
            self.open_session.say(f"{said}. The result before this run is kept.")
            if failed_senses:
                self._offer_optimal_senses(protection)
            return
        if failed_senses:
            self._offer_optimal_senses(protection)
            return
        self.open_project.log = self.log_pane.toPlainText()
        self.open_session.say(said)
        self.results.show_advice(None if protection.request.weights == "inverse"
                                 else after_run(protection.required, result.values))
        if result.protected and not protection.precision_met:
            self._offer_precision(protection)

    def _offer_optimal_senses(self, protection: Protection) -> None:
        """A fixed-sense run found no table: name the cells whose senses conflict
        (app/sense_conflicts.py) and offer, in one click, to let the solver choose the senses and
        protect again."""
        senses = self.model_panel.senses
        if senses.findData("optimal") < 0:
            return
        problem = protection.solved
        given = problem.effective_senses
        cells = conflicting_cells(problem, given)
        named = f"These senses cannot all hold: {describe(problem, given, cells)}." if cells else (
            "The senses given (or chosen by ordering) cannot all hold.")
        given_here = [c for c in cells if self.open_project.senses[c] != 0]
        free = " (the senses set by hand on these cells are freed, undoably)" if given_here else ""
        if self.confirm("The senses given conflict",
                        f"{protection.result.message or 'No table satisfies the senses given'}.\n\n{named}\n\n"
                        f"Use optimal senses (the solver chooses each sensitive cell's direction){free} and "
                        "protect again?"):
            def again() -> None:  # once the run that failed has ended
                if given_here:
                    self.set_senses(np.array(given_here), 0)
                senses.setCurrentIndex(senses.findData("optimal"))
                self.protect()
            QTimer.singleShot(0, self, again)

    def _advise_weights_before_run(self) -> None:
        """On a table not yet protected whose weights would be one value (unit, or the table's own
        all equal) and whose cells span orders of magnitude, suggest 1/value weights (the advice
        the job that read the table worked out, else worked out here)."""
        project = self.open_project
        choice = self.model_panel.weights.currentData()
        if project.result is not None or choice == "inverse":
            self.results.show_advice(None)
            return
        kept, advice = self._advice
        if kept is not project:
            advice = weight_advice(project)
        self.results.show_advice(advice[TABLE_WEIGHTS if choice == "table" else UNIT_WEIGHTS])

    def _keep_advice(self, project: Project, advice: dict[str, WeightAdvice | None]) -> None:
        """Called by a load job in its own thread: the weight advice of the project it read."""
        self._advice = (project, advice)

    def use_inverse_weights(self) -> None:
        """The advice's one click: weights 1/value, and protect again when a run gave the advice."""
        self.model_panel.weights.setCurrentIndex(self.model_panel.weights.findData("inverse"))
        self.results.show_advice(None)
        if self.project is not None and self.project.result is not None:
            self.protect()

    def _offer_precision(self, protection: Protection) -> None:
        """The protected table is not at the precision asked, so it cannot be released: offer the
        finer precisions the model panel has, the next one first, and none (full), and protect
        again at the one chosen."""
        asked = protection.request.precision
        choices = self.model_panel.precision_choices()
        finer = [(key, label) for label, key in choices if isinstance(key, int) and isinstance(asked, int)
                 and key > asked] + [(key, label) for label, key in choices if key == "full"]
        why = protection.outcome.published.note or "no table at that precision was found"
        choice = self.choose("Publish at another precision",
                             f"{why}.\nThe table cannot be released as it stands. Publish it at:",
                             dict(finer), finer[0][0])
        if choice is None:
            return
        self.model_panel.set_precision(choice)
        self.protect()

    def _solve_failed(self, error: BaseException) -> None:
        self._set_running(False)
        result = self.open_project.result
        kept = " and the result before this run is kept" if result is not None and result.values is not None else ""
        self.open_session.say(f"The solve failed ({plain_message(error).rstrip('.')}); the table is unchanged{kept}.")
        self.report_error("The solve failed", error)

    def _keep_quality(self, result: CTAResult, quality: QualityReport | None) -> None:
        """Called by a job in its own thread, before it ends: the quality report of the result it
        came to, shown with the result (not computed again on the GUI thread)."""
        self._quality = (result, quality)

    def _show_result(self, result: CTAResult) -> None:
        self.editor.model.refresh()
        kept, quality = self._quality  # computed by the job that brought the result, if one did
        outcome = self.open_session.outcome
        self.results.show_result(self.open_project, result, self.editor.model.shown_layout,
                                 outcome.terms if outcome is not None else None, quality if kept is result else None)
        self.editor.set_display(Display.ORIGINAL if result.values is None else Display.ADJUSTED)
        self.bottom_tabs.setCurrentWidget(self.results)

    def _refresh_heatmap(self) -> None:
        if self.project is not None and self.project.result is not None:
            self.results.update_heatmap(self.project, self.project.result, self.editor.model.shown_layout)
