"""Issue 14 in the app: File > Open sense store shows the tables an on-line server published and
the sense stored for each sensitive cell, read-only, sortable and filterable."""

import contextlib
import sqlite3

from hypothesis import given
from hypothesis import strategies as st
from PySide6.QtCore import Qt

from ctadesk.app.online import OnlineService, StoreBinding, cell_key, open_store
from ctadesk.app.online.service import TableWithheld
from ctadesk.gui.sense_store_view import cell_text, key_parts
from tests.app.online.synthetic import RULES, firms
from tests.postgres import fresh_schema

MEASURE = "turnover"
BINDING = StoreBinding(MEASURE, "f" * 64, 10, {"region": "a" * 64}, {})


def _store(location, decisions, create=True):
    """A store holding ``decisions``: (spanning, {cell key: sense}, published?) in order."""
    with open_store(location, BINDING, create=create) as store:
        for spanning, senses, published in decisions:
            table, _ = store.decide(MEASURE, spanning, list(senses), senses, "local")
            if published:
                store.publish(table, MEASURE, {})
    return location


def _column(proxy, column) -> list[str]:
    return [proxy.index(row, column).data() for row in range(proxy.rowCount())]


DECISIONS = [(("region", "size"), {cell_key({"region": "N1", "size": "2"}): 1,
                                   cell_key({"region": "S", "size": "1"}): -1}, True),
             (("region",), {cell_key({"region": "N1"}): -1}, True),
             (("region", "industry"), {cell_key({"region": "S", "industry": "C|10"}): 1}, False)]


def test_file_open_sense_store_lists_the_published_tables_and_every_stored_sense(qtbot, window, tmp_path):
    path = _store(tmp_path / "senses.db", DECISIONS)
    file_menu = next(action.menu() for action in window.menuBar().actions() if action.text() == "&File")
    assert "act_open_store" in [a.objectName() for a in file_menu.actions()]
    dialog = window.open_sense_store(path)
    qtbot.addWidget(dialog)
    assert dialog.isVisible()
    tables = dialog.tables_proxy
    assert _column(tables, 0) == ["1", "2", "3"]
    assert _column(tables, 2) == ["region × size", "region", "region × industry"]
    assert _column(tables, 4)[2] == "not published" and _column(tables, 4)[0][:2] == "20"
    assert _column(tables, 5) == ["2", "1", "1"]  # senses first chosen for each table
    with sqlite3.connect(path) as db:  # an independent read of the file
        rows = db.execute("SELECT cell, sense, first_table FROM senses ORDER BY cell").fetchall()
    senses = dialog.senses_proxy
    assert senses.rowCount() == len(rows) == 4
    shown = {senses.index(r, 1).data(Qt.ItemDataRole.UserRole): (senses.index(r, 2).data(),
                                                                 senses.index(r, 4).data(Qt.ItemDataRole.UserRole))
             for r in range(senses.rowCount())}
    assert shown == {cell: (("▲ up" if sense == 1 else "▼ down") + (" (published above)" if sense == 1 else
                                                                  " (published below)"), table)
                     for cell, sense, table in rows}
    assert "industry=C|10, region=S" in _column(senses, 1)  # the escaped | read back
    assert "3 table(s) requested, 2 published; 4 sense(s) stored (2 up, 2 down)" in dialog.header.text()


def test_the_senses_filter_and_sort_and_nothing_can_be_edited(qtbot, window, tmp_path):
    dialog = window.open_sense_store(_store(tmp_path / "senses.db", DECISIONS))
    qtbot.addWidget(dialog)
    dialog.filter.setText("down")
    assert sorted(_column(dialog.senses_proxy, 1)) == ["region=N1", "region=S, size=1"]
    dialog.filter.setText("")
    dialog.senses_view.sortByColumn(4, Qt.SortOrder.DescendingOrder)
    firsts = [dialog.senses_proxy.index(r, 4).data(Qt.ItemDataRole.UserRole) for r in range(4)]
    assert firsts == sorted(firsts, reverse=True)
    for view in (dialog.tables_view, dialog.senses_view):
        index = view.model().index(0, 0)
        assert not view.model().flags(index) & Qt.ItemFlag.ItemIsEditable
        assert view.editTriggers() == view.EditTrigger.NoEditTriggers


def test_refresh_shows_a_table_published_after_the_store_was_opened(qtbot, window, tmp_path):
    path = _store(tmp_path / "senses.db", DECISIONS[:1])
    dialog = window.open_sense_store(path)
    qtbot.addWidget(dialog)
    assert dialog.tables_proxy.rowCount() == 1
    _store(path, DECISIONS[1:], create=False)
    dialog.refresh_button.click()
    assert dialog.tables_proxy.rowCount() == 3 and dialog.senses_proxy.rowCount() == 4


def test_a_missing_file_or_another_database_is_refused_and_no_store_is_made(window, tmp_path):
    missing = tmp_path / "typo.db"
    assert window.open_sense_store(missing) is None
    assert "does not exist" in window.last_error and not missing.exists()
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE customers (name TEXT)")
    assert window.open_sense_store(other) is None
    assert "not a ctadesk sense store" in window.last_error


names = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=1, max_size=6)


@given(st.dictionaries(names, names, max_size=4))
def test_a_cell_key_reads_back_as_its_codes(codes):
    """key_parts undoes ctadesk.app.online.cell_key, escapes of | = \\ included."""
    assert key_parts(cell_key(codes)) == sorted(codes.items())
    if not codes:
        assert cell_text(cell_key(codes)) == "grand total"


def test_the_app_reads_a_store_written_by_the_on_line_service(qtbot, window, tmp_path):
    path = tmp_path / "senses.db"
    with OnlineService(path, firms(seed=4), RULES, measure="Turnover", senses="table", init_store=True) as service:
        first = service.publish(("Region", "Size"))
        with contextlib.suppress(TableWithheld):     # a table that would give up published values (issue 30)
            service.publish(("Region", "Size", "Sector"))
        records = service.store.sense_records()
    assert first.office.new_senses > 0
    dialog = window.open_sense_store(path)
    qtbot.addWidget(dialog)
    assert _column(dialog.tables_proxy, 2) == ["Region × Size", "Region × Size × Sector"]
    assert dialog.senses_proxy.rowCount() == len(records) >= first.office.new_senses
    assert set(_column(dialog.senses_proxy, 3)) == {record.chosen_by for record in records}


def test_the_app_reads_a_store_in_postgresql_and_never_shows_its_password(qtbot, window, postgres_url):
    with fresh_schema(postgres_url) as url:
        _store(url, DECISIONS)
        shown = url.replace("postgresql://ctadesk@", "postgresql://ctadesk:s3cret@")   # trust: any password
        dialog = window.open_sense_store(shown)
        qtbot.addWidget(dialog)
        assert _column(dialog.tables_proxy, 2) == ["region × size", "region", "region × industry"]
        assert dialog.senses_proxy.rowCount() == 4
        assert "s3cret" not in dialog.windowTitle() + dialog.header.text()
        assert "postgresql://ctadesk@127.0.0.1" in dialog.header.text()
    assert window.open_sense_store(url) is None and "holds no sense store" in window.last_error

