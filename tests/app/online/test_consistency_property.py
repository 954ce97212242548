"""Property (Castro & González 2011, §4, consistency on output): over random microdata sets and random
sequences of requested tables, no sensitive cell is ever published on both sides of its value."""

import itertools
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctadesk.app.online import OnlineService
from tests.app.online.published import both_sides, publish_all
from tests.app.online.synthetic import RULES, VARIABLES, firms

SPANNINGS = [spanning for size in (1, 2, 3) for spanning in itertools.permutations(VARIABLES, size)]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), records=st.integers(8, 60), regions=st.integers(1, 3),
       sizes=st.integers(2, 3), tables=st.lists(st.sampled_from(SPANNINGS), min_size=2, max_size=5),
       senses=st.sampled_from(["local", "table"]))
def test_no_sensitive_cell_is_published_on_both_sides(seed, records, regions, sizes, tables, senses):
    microdata = firms(seed=seed, records=records, regions=regions, sizes=sizes)
    with tempfile.TemporaryDirectory() as folder, \
            OnlineService(Path(folder) / "senses.db", microdata, RULES, measure="Turnover", senses=senses,
                          time_budget=1.0, init_store=True) as service:
        seen = publish_all(service, tables)
    assert both_sides(seen) == []
