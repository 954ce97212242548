"""Issue 30: nothing a server publishes lets arithmetic undo it.  Over random microdata sets and
random streams of tables with the default service (senses from the full table, values read from
its protected table), an outsider who knows the rules recovers no sensitive value by dividing a
published value by 1 +/- p, finds no cell with two values and no table that does not add up, and
every value sits on the data's grid (so "more decimals than the data" separates nothing)."""

import itertools
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctadesk.app.online import OnlineService
from tests.app.online.attack import attack
from tests.app.online.synthetic import RULES, VARIABLES, firms

SPANNINGS = [spanning for size in (1, 2, 3) for spanning in itertools.permutations(VARIABLES, size)]
#: the rules' percentages an outsider divides by (p % 10, frequency safety range 10 %)
SHARES = (0.10,)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), records=st.integers(20, 80), regions=st.integers(1, 3),
       tables=st.lists(st.sampled_from(SPANNINGS), min_size=2, max_size=6))
def test_no_published_value_gives_a_sensitive_one_away(seed, records, regions, tables):
    microdata = firms(seed=seed, records=records, regions=regions, sizes=3)
    with tempfile.TemporaryDirectory() as folder, \
            OnlineService(Path(folder) / "senses.db", microdata, RULES, measure="Turnover", init_store=True,
                          time_budget=5.0) as service:
        findings = attack(service, microdata, tables, SHARES)
    assert findings.non_additive == 0 and findings.both_sides == 0
    assert findings.recovered == 0, findings.lines(1)
    assert findings.differenced == 0
    assert findings.finer_than_data == 0
