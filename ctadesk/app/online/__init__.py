"""On-line CTA for a table server (Castro & González 2011 §4): tables requested one after another
from one microdata set, protected at once and consistently by a two-stage method over a sense
store.

    from ctadesk.app.online import OnlineService
    with OnlineService("senses.db", microdata, rules, measure="Turnover") as service:
        table = service.publish(("Region", "Size"))

cells.py    a cell's key, the same in every table it appears in
levels.py   hierarchy levels of a requested table ("Region:1")
binding.py  what a store protects: the fingerprint of the microdata, measure and rules
store.py    the sense store: one interface (open_store) over SQLite (store_sqlite.py) and
            PostgreSQL (store_postgres.py)
service.py  OnlineService: the two stages (ctadesk.engine.online) over the store, or the full
            table's protected values, the published table, the office's report
"""

from ctadesk.app.online.binding import StoreBinding
from ctadesk.app.online.cells import cell_key, cell_keys
from ctadesk.app.online.errors import OnlineError, StoreError
from ctadesk.app.online.service import VALUE_CHOICES, OfficeReport, OnlineService, OnlineTable
from ctadesk.app.online.store import SCHEMA_VERSION, SenseStore, StoreState, open_store
from ctadesk.engine.online import SENSE_CHOICES, Relaxation, Shortfall

__all__ = ["SCHEMA_VERSION", "SENSE_CHOICES", "VALUE_CHOICES", "OfficeReport", "OnlineError", "OnlineService",
           "OnlineTable", "Relaxation", "SenseStore", "Shortfall", "StoreBinding", "StoreError", "StoreState",
           "cell_key", "cell_keys", "open_store"]
