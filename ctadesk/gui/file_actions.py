"""Steps 1 and 5 of the main window: tables opened, imported and generated (the questions a format
needs asked here, the reading and making in the job runner), the project saved, exports written
in the job runner; dropped files, recent files and sense stores.  What replaces the table asks
first about unsaved work (save, discard or cancel)."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QFileDialog, QInputDialog, QMessageBox

from ctadesk.app import files
from ctadesk.app.formats import (
    Answers,
    Holds,
    Layout,
    Question,
    Requires,
    Totals,
    export_of,
    format_of,
    formats,
    microdata_columns,
    open_filter,
    read_table,
)
from ctadesk.engine.errors import CTAError
from ctadesk.engine.result import CTAResult
from ctadesk.engine.table.generate import COX_PRESET, GeneratorSpec
from ctadesk.gui.document_view import DocumentView
from ctadesk.gui.errors import plain_message
from ctadesk.gui.generator import GeneratorDialog
from ctadesk.gui.import_dialogs import AS_MICRODATA, ExcelImportDialog, MicrodataDialog, first_sheet, read_sheet
from ctadesk.gui.jobs import Loading, Reader, Retry, export_job, generated_project, with_advice, with_quality
from ctadesk.gui.sense_store_view import STORE_FILTER, SenseStoreDialog, store_name
from ctadesk.gui.window_base import EXPORT, LOAD, STALE_NOTICE
from ctadesk.io.additivity import NonAdditiveError
from ctadesk.io.csv_table import guess_csv_kind
from ctadesk.io.project import Project

RECENT_FILES = 8
OPEN_FILTER = open_filter()
MICRODATA_FILTER = open_filter(Holds.MICRODATA)
PROJECT_FORMAT = formats(Holds.PROJECT)[0]
CSV_KINDS = {"long": "Table, one line per cell (long)", "wide": "Table, labels left and on top (wide)",
             "microdata": "Microdata, one line per respondent"}
#: what _reader answers for a microdata file (tabulated as the microdata dialog says) and for a
#: workbook (read in the layouts the import dialog shows)
TABULATE, SHEETS = "tabulate", "sheets"


def _result_of(read: Any) -> tuple[Project, CTAResult | None]:
    """The project a load job read and its result (None for what comes before a project: the
    columns of a microdata file, a workbook)."""
    return (read, read.result) if isinstance(read, Project) else (read, None)


class FileActions(DocumentView):
    """The window's files: open, import, generate, save, export, drop, recent, sense stores."""

    def keep_work(self, action: str) -> bool:
        """Before ``action`` replaces the table: when it holds work not saved, ask to save it,
        discard it or cancel; True when the action may go on."""
        if self.session is None or not self.session.unsaved:
            return True
        buttons = QMessageBox.StandardButton
        answer = QMessageBox.question(self, "Unsaved changes",
                                      f"The table has changes that are not saved. Save the project before "
                                      f"{action}?", buttons.Save | buttons.Discard | buttons.Cancel)
        if answer == buttons.Save:
            return self.save()
        return answer == buttons.Discard

    def open_path(self, path: str | Path, wait: bool = True) -> bool:
        """Open or import any file ctadesk reads: the questions its format needs are asked here,
        the file is read in the background (the window stays live, saying what it reads) and the
        table shown when it is; on failure say why and keep the current table.  Unsaved work is
        saved or discarded first, as the user says.  ``wait``: return once the table is shown
        (True when it is); else return once reading has started (True when it has)."""
        path = Path(path)
        if not self.keep_work(f"opening {path.name}"):
            return False
        try:
            reading = self._reader(path)
        except Exception as error:  # the GUI edge: every failure becomes a message
            self.report_error(f"Could not open {path.name}", error)
            return False
        if reading is None:  # the user cancelled a dialog
            return False

        def place(project: Project) -> None:
            self.set_project(project, path if format_of(path).project else None, path)
            self._remember_recent(path)
            self.statusBar().showMessage(f"Opened {path}", 5000)

        if isinstance(reading, str):  # TABULATE or SHEETS: a dialog between reading and the table
            return (self._import_microdata if reading == TABULATE else self._import_workbook)(path, place, wait)
        read, retry = reading
        return self._load(Loading(f"Reading {path.name}", f"Could not open {path.name}", read, place, retry), wait)

    def _reader(self, path: Path) -> tuple[Reader, Retry | None] | str | None:
        """What reads the project a file stands for, once the questions its format lists
        (ctadesk.app.formats) are answered here, and what asks about totals that do not add up
        and reads again; TABULATE for microdata, SHEETS for a workbook; None when the user cancelled
        a question."""
        if not path.exists():
            raise CTAError(f"The file {path} does not exist.")
        fmt = format_of(path, Holds.PROJECT, Holds.TABLE, Holds.MICRODATA)
        if Question.SHEETS in fmt.questions:  # the dialog reads the sheets in the layouts the user corrects
            return SHEETS
        answers = Answers()
        if Question.TABLE_OR_MICRODATA in fmt.questions:
            kind = self.choose("Import CSV", f"What does {path.name} hold?", CSV_KINDS, guess_csv_kind(path))
            if kind is None or kind == "microdata":
                return None if kind is None else TABULATE
            answers = Answers(layout=Layout(kind))
        elif not fmt.holds & {Holds.PROJECT, Holds.TABLE}:
            return TABULATE

        def totals(error: BaseException) -> Reader | None:
            """Totals that do not add up: ask whether to recompute them from their parts."""
            if not isinstance(error, NonAdditiveError) or Question.TOTALS not in fmt.questions:
                return None
            broken = error.broken
            recompute = self.confirm(
                "Totals do not add up",
                f"{len(broken)} total(s) in {path.name} differ from the sum of their parts "
                f"(largest: {broken[0].label}, off by {broken[0].difference:,.6g}).\n\n"
                "Recompute the totals from their parts? (No keeps the file's values; protection "
                "then has to keep the differences.)")
            again = Answers(layout=answers.layout, totals=Totals.RECOMPUTE if recompute else Totals.KEEP)
            return lambda: read_table(path, again)

        return (lambda: read_table(path, answers)), totals

    def _load(self, loading: Loading, wait: bool) -> bool:
        """Read (or make) a table in the background, the window locked and saying what it does;
        then show it.  ``wait``: return once it is shown (True) or has failed (False, said)."""
        if self._busy():
            self.statusBar().showMessage("Wait for the job running to end (or cancel it) first.", 5000)
            return False
        self._loading = loading
        self._loaded_ok = False  # set once a table is shown (not by a step before it)
        self.solve_state.setText(f"{loading.doing}…")
        self.statusBar().showMessage(f"{loading.doing}…")
        self._set_running(True, LOAD)
        self.runner.start(LOAD, with_advice(with_quality(lambda feed: loading.read(), _result_of, self._keep_quality),
                                            self._keep_advice))
        if not wait:
            return True
        self.runner.wait()
        return self._loaded_ok

    def _loaded(self, value: Any) -> None:
        self._set_running(False)
        self.statusBar().clearMessage()
        self.solve_state.setText(self.session.note if self.session is not None else "")
        self._loading.place(value)
        self._loaded_ok = isinstance(value, Project)

    def _load_failed(self, error: BaseException) -> None:
        self._set_running(False)
        self.statusBar().clearMessage()
        self.solve_state.setText(self.session.note if self.session is not None else "")
        loading = self._loading
        again = loading.retry(error) if loading.retry is not None else None
        if again is not None:
            self._load(dataclasses.replace(loading, read=again), wait=False)
        else:
            self.report_error(loading.failure, error)

    def _import_microdata(self, path: Path, place: Callable[[Project], None], wait: bool) -> bool:
        """Read the columns of a microdata file, ask how to tabulate it (the microdata dialog),
        tabulate it and ``place`` the project: the reading and the tabulating in the background,
        the dialog between them.  A tabulation that fails shows the dialog again saying why,
        every choice kept.  ``wait`` as in open_path."""

        def choices(dialog: MicrodataDialog) -> Reader:
            """What tabulates the microdata as the dialog says (run in the background)."""
            from ctadesk.app.linked_tables import read_microdata_tables

            tables, response = dialog.tables(), dialog.response.currentText()
            weight, holding, hierarchies = dialog.weight.currentData(), dialog.holding.currentData(), \
                dialog.hierarchy_files()
            return lambda: read_microdata_tables(path, tables, response, weight=weight, holding=holding,
                                                 hierarchy_files=hierarchies)

        def ask(columns: list[str]) -> None:
            dialog = MicrodataDialog(path, columns, choices, self)

            def again(error: BaseException) -> Reader | None:
                dialog.error.setText(plain_message(error))
                return dialog.project if self.run_dialog(dialog) else None

            if self.run_dialog(dialog) and dialog.project is not None:  # accepted: the loader gave one
                self._load(Loading(f"Tabulating {path.name}", f"Could not tabulate {path.name}", dialog.project, place,
                                   again), wait=False)

        return self._load(Loading(f"Reading the columns of {path.name}", f"Could not read {path.name}",
                                  lambda: microdata_columns(path), ask), wait)

    def _import_workbook(self, path: Path, place: Callable[[Project], None], wait: bool) -> bool:
        """Open a workbook, let the user correct each sheet's layout (the import dialog), build
        its tables and ``place`` the project: opening and building in the background, the dialog
        between them.  A build that fails shows the dialog again saying why, every correction
        kept; a workbook of microdata goes on to the microdata dialog when the user says so.
        ``wait`` as in open_path."""

        def opened() -> tuple[Any, dict]:
            from ctadesk.io.excel import open_workbook

            workbook = open_workbook(path)
            sheet = first_sheet(workbook)
            return workbook, {} if sheet is None else {sheet: read_sheet(workbook, sheet, path)}

        def built(dialog: ExcelImportDialog) -> Reader:
            build = dialog.reader()
            return lambda: files.project_from_excel(build())

        def ask(read: tuple[Any, dict]) -> None:
            dialog = ExcelImportDialog(path, self, *read)

            def again(error: BaseException) -> Reader | None:
                dialog.error.setText(plain_message(error))
                return built(dialog) if self.run_dialog(dialog) else None

            if self.run_dialog(dialog):
                self._load(Loading(f"Reading the tables of {path.name}", f"Could not open {path.name}", built(dialog),
                                   place, again), wait=False)
            elif dialog.result() == AS_MICRODATA:
                self._import_microdata(path, place, wait=False)

        return self._load(Loading(f"Opening {path.name}", f"Could not open {path.name}", opened, ask), wait)

    def microdata_dialog(self) -> None:
        chosen, _ = QFileDialog.getOpenFileName(self, "Import microdata", self._last_dir(), MICRODATA_FILTER)
        if not chosen or not self.keep_work(f"importing {Path(chosen).name}"):
            return
        path = Path(chosen)

        def place(project: Project) -> None:
            self.set_project(project, source=path)
            self._remember_recent(path)

        self._import_microdata(path, place, wait=False)

    def new_generated(self, spec: GeneratorSpec = COX_PRESET, wait: bool = True) -> bool:
        """Show a generated table (``spec``, made in the background) in place of the one shown, once
        unsaved work is saved or discarded; ``wait`` as in open_path."""
        if not self.keep_work("generating a new table"):
            return False
        shape = " × ".join(map(str, spec.shape))
        return self._load(Loading(f"Generating a {shape} table", "Could not generate the table",
                                  lambda: generated_project(spec), self.set_project), wait)

    def generate_dialog(self) -> None:
        """The generator dialog, opened on the last table generated (remembered across sessions)."""
        saved = self.settings.value("generator/spec")
        try:
            spec = GeneratorSpec.from_dict(saved) if isinstance(saved, dict) else COX_PRESET
        except (TypeError, ValueError):
            spec = COX_PRESET
        dialog = GeneratorDialog(self, spec)
        if self.run_dialog(dialog):
            self.settings.setValue("generator/spec", dialog.spec().as_dict())
            self.new_generated(dialog.spec(), wait=False)

    def open_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open a table or project", self._last_dir(), OPEN_FILTER)
        if path:
            self.open_path(path, wait=False)

    def save(self) -> bool:
        if self.path is None:
            return self.save_as()
        return self.save_to(self.path)

    def save_as(self) -> bool:
        suffix = PROJECT_FORMAT.suffixes[0]
        path, _ = QFileDialog.getSaveFileName(self, "Save project", self._last_dir(),
                                              f"{PROJECT_FORMAT.label} ({PROJECT_FORMAT.pattern()})")
        if not path:
            return False
        if not path.endswith(suffix):
            path += suffix
        return self.save_to(Path(path))

    def save_to(self, path: Path) -> bool:
        """Write the project with the current options and log."""
        try:
            options = self.model_panel.options()
        except CTAError as error:
            self.report_error("Could not save the project", error)
            return False
        self.open_project.options = {**(self.open_project.options or {}), **options}
        self.open_project.log = self.log_pane.toPlainText()
        try:
            self.open_session.save(path)
        except Exception as error:
            self.report_error("Could not save the project", error)
            return False
        self._remember_recent(Path(path))
        self.statusBar().showMessage(f"Saved {path}", 5000)
        return True

    def export_dialog(self, kind: str) -> None:
        export = export_of(kind)
        stem = self.path.stem if self.path else "table"
        suffix = export.suffix
        default = str(Path(self._last_dir()) / f"{stem}{'-' + kind if kind in ('release', 'internal') else ''}{suffix}")
        path, _ = QFileDialog.getSaveFileName(self, export.menu.rstrip("…"), default, export.filter)
        if path:
            self.export_to(kind, Path(path if path.lower().endswith(suffix) else path + suffix), wait=False)

    def export_to(self, kind: str, path: Path, wait: bool = True) -> bool:
        """Write one export kind (ctadesk.app.formats.exports) in the background, the table locked
        meanwhile; a stale result is written only if the user says so.  ``wait``: return once
        written (True) or failed (False, said); else once writing has started."""
        if (export_of(kind).requires is not Requires.NOTHING and self.open_project.result is not None and self._stale()
                and not self.confirm("Stale result", STALE_NOTICE + "\n\nExport the stale result anyway?")):
            return False
        if self._busy():
            self.statusBar().showMessage("Wait for the job running to end (or cancel it) first.", 5000)
            return False
        if (export_of(kind).requires is not Requires.NOTHING and self.open_project.result is not None
                and self.open_project.result.protected and self.audit_result is None):
            self.log_pane.append_lines([f"{Path(path).name}: written without an audit of this result; step 4, Audit "
                                        "(F6), shows what an attacker can deduce from it."])
        self._exporting = path = Path(path)
        self._exported_ok = False
        self.solve_state.setText(f"Writing {path.name}…")
        self.statusBar().showMessage(f"Writing {path}…")
        self._set_running(True, EXPORT)
        self.runner.start(EXPORT, export_job(self.open_session, kind, path))
        if not wait:
            return True
        self.runner.wait()
        return self._exported_ok

    def _exported(self, written) -> None:
        from ctadesk.io.excel import ExportOutcome  # openpyxl: loaded by the export of a workbook

        self._set_running(False)
        self.solve_state.setText(self.open_session.note)
        left_out = ""
        if isinstance(written, ExportOutcome):
            self.log_pane.append_lines(written.lines())
            if written.dropped:
                left_out = f" — {len(written.dropped)} item(s) of the source left out, listed in the log"
        self.statusBar().showMessage(f"Wrote {self._exporting}{left_out}", 8000)
        self._exported_ok = True

    def _export_failed(self, error: BaseException) -> None:
        self._set_running(False)
        self.solve_state.setText(self.open_session.note)
        self.report_error(f"Could not write {self._exporting.name}", error)

    def dragEnterEvent(self, event) -> None:
        """Files dragged onto the window may be dropped while nothing runs."""
        urls = event.mimeData().urls()
        if urls and all(url.isLocalFile() for url in urls) and not self._busy():
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:
        """A dropped file opens as File > Open does (asking about unsaved work); one file at a time."""
        paths = [url.toLocalFile() for url in event.mimeData().urls() if url.isLocalFile()]
        if not paths:
            return
        event.acceptProposedAction()
        if len(paths) > 1:
            self.statusBar().showMessage(f"Opening {Path(paths[0]).name}: drop one file at a time.", 8000)
        QTimer.singleShot(0, self, lambda: self.open_path(paths[0]))  # after the drop ends: the dialogs are modal

    def _remember_recent(self, path: Path) -> None:
        path = Path(path).resolve()
        recent = [p for p in self.recent_files() if p != str(path)]
        self.settings.setValue("files/recent", [str(path), *recent][:RECENT_FILES])
        self.settings.setValue("files/last_dir", str(path.parent))
        self._update_recent_menu()

    def _update_recent_menu(self) -> None:
        self.recent_menu.clear()
        for path in self.recent_files():
            self.recent_menu.addAction(path, functools.partial(self.open_path, path, wait=False))
        self.recent_menu.setEnabled(bool(self.recent_files()))

    def sense_store_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open a sense store", self._last_dir(), STORE_FILTER)
        if path:
            self.open_sense_store(path)

    def sense_store_url_dialog(self) -> None:
        url, ok = QInputDialog.getText(self, "Open a sense store in a database",
                                       "PostgreSQL URL (postgresql://user@host:5432/database; the password from "
                                       "~/.pgpass or PGPASSWORD):", text="postgresql://")
        if ok and url.strip():
            self.open_sense_store(url.strip())

    def open_sense_store(self, path: str | Path) -> SenseStoreDialog | None:
        """Show the published tables and the senses of the sense store at ``path``, a file or a
        ``postgresql://`` URL (read-only)."""
        try:
            dialog = SenseStoreDialog(path, self)
        except Exception as error:
            self.report_error(f"Could not open the sense store {store_name(path)}", error)
            return None
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()
        return dialog
