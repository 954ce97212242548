"""The cell-information pane shows what is known about the current cell."""

import numpy as np

from ctadesk.app import files

from .conftest import solve_and_wait
from .test_rules_panel import MICRODATA, _set_rules


def _shown(window) -> dict[str, str]:
    return {name: label.text() for name, label in window.cell_info.values.items()}


def test_selecting_a_cell_shows_its_frequency_contributions_rules_sense_and_interval(window, tmp_path):
    path = tmp_path / "firms.csv"
    path.write_text(MICRODATA)
    window.set_project(files.read_microdata_file(path, ["Region", "Size"], "Turnover"))
    assert window.cell_info.placeholder.isVisibleTo(window)  # no cell yet
    _set_rules(window.rules_panel)
    window.apply_rules()
    window.set_senses(np.array([1]), -1)
    window.editor.select_cells([1])  # A,y: 100 + 1 + 1, dominated by one firm
    shown = _shown(window)
    assert shown["cell"] == "Region=A, Size=y" and shown["original"] == "102"
    assert shown["frequency"] == "3" and shown["largest contributions"] == "100, 1, 1"
    assert shown["flagged by"] == "dominance, p%" and shown["sense"] == "down"
    assert shown["protection interval"] == "(79, 125)" and shown["status"] == "sensitive (primary)"
    window.editor.select_cells([3])  # B,x: four firms of 10, safe
    shown = _shown(window)
    assert shown["status"] == "safe" and "protection interval" not in shown and shown["frequency"] == "4"


def test_after_protection_the_pane_shows_the_adjusted_value_and_where_it_went(qtbot, window):
    result = solve_and_wait(qtbot, window, "lp")
    cell = int(np.flatnonzero(window.project.sensitive & (result.values != window.project.values))[0])
    window.editor.select_cells([cell])
    shown = _shown(window)
    moved = "up" if result.values[cell] > window.project.values[cell] else "down"
    assert shown["adjusted"].startswith(f"{window.editor.model.numbers.text(result.values[cell])} (change ")
    assert shown["sense"] == f"free; the adjusted value went {moved}"
    assert "frequency" not in shown  # a generated table has no statistics
