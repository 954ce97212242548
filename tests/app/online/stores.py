"""Stores made for the tests as ``ctadesk serve --init-store`` makes them."""

from pathlib import Path

from ctadesk.app.online import SenseStore, StoreBinding, open_store
from ctadesk.engine.rules.safety import SafetyRules
from ctadesk.engine.table.microdata import Microdata


def new_store(location: str | Path, microdata: Microdata, rules: SafetyRules, measure: str = "Turnover") -> SenseStore:
    """A store made at ``location`` for ``measure`` of ``microdata`` under ``rules``."""
    return open_store(location, StoreBinding.of(microdata, rules, measure), create=True)
