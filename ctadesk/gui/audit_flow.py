"""Step 4 of the main window: the protected table audited in the job runner (ctadesk.engine.audit,
under the audit tab's assumptions about the attacker), and the session's audit shown while it
still describes the table."""

from __future__ import annotations

from ctadesk.engine.audit import AuditResult
from ctadesk.gui.audit_panel import NO_AUDIT
from ctadesk.gui.errors import plain_message
from ctadesk.gui.jobs import AUDIT_CANCELLED, audit_job
from ctadesk.gui.window_base import AUDIT, AUDIT_CLEARED, AUDIT_NEEDS, WindowBase


class AuditFlow(WindowBase):
    """The window's audit: started, followed, cancelled, failed, shown and cleared."""

    def run_audit(self) -> None:
        """Audit the protected table in the background under the audit tab's assumptions; the
        table is locked until the audit ends (Cancel stops it)."""
        if not self.can_audit():
            self.statusBar().showMessage(AUDIT_NEEDS, 5000)
            return
        self.editor.commit_open_editor()
        try:
            knowledge = self.audit_panel.knowledge()
        except Exception as error:
            self.report_error("The audit's assumptions are not valid", error)
            return
        self.clear_audit("Auditing…")
        self.open_session.say("Auditing the protected table…")
        self.runner.start(AUDIT, audit_job(self.open_session, knowledge), AUDIT_CANCELLED)
        self._set_running(True, AUDIT)

    def _audit_progress(self, done: int, total: int) -> None:
        if total > 0:
            self.busy.setRange(0, total)
            self.busy.setValue(done)
            self.solve_state.setText(f"Auditing: {done:,} of {total:,} interval ends")

    def _audited(self, audit: AuditResult) -> None:
        self._set_running(False)
        self._show_audit()
        self.bottom_tabs.setCurrentWidget(self.results)
        self.results.setCurrentWidget(self.audit_panel)
        state = "every sensitive cell protected" if audit.safe else f"{audit.n_at_risk:,} cell(s) at risk"
        self.open_session.say(f"Audit: {audit.n_audited:,} cells audited, {state}")
        self.statusBar().showMessage(f"Audit finished in {audit.seconds:.2f} s: {state}", 10000)

    def _audit_cancelled(self) -> None:
        self._set_running(False)
        if not self._show_audit():
            self.audit_panel.clear("The audit was cancelled. Press Audit (F6) to run it again.")
        self.open_session.say("Audit cancelled.")

    def _audit_failed(self, error: BaseException) -> None:
        self._set_running(False)
        if not self._show_audit():
            self.audit_panel.clear("The audit failed: " + plain_message(error))
        self.open_session.say("The audit failed; the table is unchanged.")
        self.report_error("The audit failed", error)

    def clear_audit(self, message: str = NO_AUDIT) -> None:
        """Show no audit; ``message`` says why in the audit tab."""
        self.editor.show_audit(None)
        self.audit_panel.clear(message)

    def _show_audit(self) -> bool:
        """Show the session's audit of the table as it stands, if there is one (True then); an
        audit shown that no longer describes the table is cleared, saying so."""
        audit = self.audit_result
        if audit is None and self.editor.model.audit is not None:
            self.clear_audit(AUDIT_CLEARED)
            self.open_session.say("The audit was cleared: the table changed.")
        elif audit is not None and audit is not self.editor.model.audit:
            self.editor.show_audit(audit)
            self.audit_panel.show_audit(self.open_project, audit)
        return audit is not None
