"""The tabulate dialog takes several tables of one microdata file ("Add table"): they become one
linked project, each shared cell one cell, and its release workbook has a sheet per table."""

from pathlib import Path

import numpy as np
import openpyxl

from ctadesk.app import ProtectionRequest
from ctadesk.app.files import export_excel
from ctadesk.app.linked_tables import LinkedTabulation
from ctadesk.engine.rules.safety import SafetyRules
from ctadesk.engine.table.linked import grand_total

SAMPLE = Path(__file__).parents[2] / "sample_data" / "business_microdata.csv"


def test_two_tables_added_in_the_dialog_make_one_linked_project(window, tmp_path):
    window.choose = lambda *args: "microdata"
    seen = {}

    def run(dialog):
        dialog.response.setCurrentText("turnover")
        dialog.add_table()                      # nothing ticked: refused, said in the dialog
        seen["refused"] = dialog.error.text()
        for span in (["region", "size_class"], ["region", "industry"]):
            dialog.set_spanning(span)
            dialog.add_table()
        dialog.add_table()                      # the same table again: refused
        seen["again"] = dialog.error.text()
        seen["tables"] = dialog.tables()
        dialog.accept()
        return dialog.result() == 1
    window.run_dialog = run
    assert window.open_path(SAMPLE)
    assert "Tick" in seen["refused"] and "listed already" in seen["again"]
    assert seen["tables"] == [["region", "size_class"], ["region", "industry"]]
    project = window.project
    source = project.source
    assert isinstance(source, LinkedTabulation)
    assert project.n_cells == source.linked.n_cells and source.linked.n_shared > 1
    session = window.session
    session.apply_rules(SafetyRules(min_frequency=3, frequency_safety_range=10, p_percent=(10,)))
    assert project.sensitive.any()
    protection = session.protect(ProtectionRequest(seed=3))
    session.keep(protection)
    export_excel(tmp_path / "release.xlsx", project, internal=False)
    book = openpyxl.load_workbook(tmp_path / "release.xlsx")
    assert book.sheetnames[:2] == ["region x size_class", "region x industry"]
    published = source.linked.scatter(protection.result.values)
    totals = [values.reshape(table.shape)[:, grand_total(table.dimensions[1])]
              for values, table in zip(published, source.structures)]
    np.testing.assert_array_equal(totals[0], totals[1])
