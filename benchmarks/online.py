"""On-line CTA (Castro & González 2011, §4, ctadesk.app.online): seconds per table, first and repeated requests,
from 33 to 47 223 cells as the store grows; what the stored senses and published values cost
in distance against protecting each table alone (a fresh store); requests per second for small
tables, through the service and through the HTTP application (ctadesk.server, when installed).

Synthetic firms by Region (2 groups of 25), Size (10) and Sector (80), lognormal turnover with a
hundred dominant firms; rules minimum frequency 3 (safety range 10 %) and p% 10.  Issue 14's
target: under 1 s per table of up to 50 000 cells on 2 cores.  With ``data`` senses (the
default) the full table is protected once, before the first request (its time printed apart);
"alone" protects each table with a fresh store and its own best senses (``table``).  Local senses
come from the store's random secret, so with ``local`` a run's senses, and whether a table needs
the soft second stage (column "relaxed"), differ from run to run.

    .venv/bin/python benchmarks/online.py [--records 300000] [--senses data|local|table]
        [--values full|table] [--stream 12] [--small 100] [--time-limit 30] [--time-budget SECONDS]
    .venv/bin/python benchmarks/online.py --attack 300 [--senses ...] [--values ...]

With ``data`` senses a table's values are read from the full table's protected values (``full``,
the default) or come from the table's own second stage (``table``); the fixed tables are requested
smallest first, so with ``table`` the largest one meets the values the smaller ones published.
"""

from __future__ import annotations

import argparse
import os
import random
import tempfile
import time
from pathlib import Path

import numpy as np

from ctadesk.app.online import SENSE_CHOICES, VALUE_CHOICES, OnlineError, OnlineService, OnlineTable
from ctadesk.engine.rules.safety import SafetyRules
from ctadesk.engine.table.microdata import Microdata
from ctadesk.engine.table.structure import Dimension, TableStructure

RULES = SafetyRules(min_frequency=3, frequency_safety_range=10, p_percent=(10,))
TABLES = [("Region:1", "Size"), ("Region", "Size"), ("Size", "Sector"), ("Region:1", "Size", "Sector"),
          ("Region", "Sector"), ("Region", "Size", "Sector")]
#: firms large enough to dominate their cells even in the margins
DOMINANT = 100
SMALL = [("Region:1", "Size"), ("Size", "Region:1"), ("Region:1",), ("Size",)]


def firms(records: int, seed: int = 0) -> Microdata:
    groups = 25
    region_codes = ["N", *[f"N{k:02d}" for k in range(groups)], "S", *[f"S{k:02d}" for k in range(groups)]]
    region = Dimension.from_levels("Region", [1, *[2] * groups, 1, *[2] * groups], region_codes)
    structure = TableStructure((region, Dimension.flat("Size", [str(k) for k in range(10)]),
                                Dimension.flat("Sector", [f"C{k:02d}" for k in range(80)])))
    rng = np.random.default_rng(seed)
    codes = tuple(rng.choice(np.flatnonzero(d.is_leaf), records) for d in structure.dimensions)
    turnover = rng.lognormal(3.0, 1.2, records)
    dominant = rng.choice(records, DOMINANT, replace=False)
    turnover[dominant] = rng.lognormal(10.0, 1.0, DOMINANT)
    return Microdata(structure, codes, np.round(turnover, 1))


def relaxed(table: OnlineTable) -> str:
    """'yes' when a relation or protection level gave way, else how many values published
    before the table gives up ('no' for none)."""
    relaxation = table.office.relaxation
    if relaxation.broken:
        return "yes"
    return f"no ({len(relaxation.published)} earlier values given up)" if relaxation.published else "no"


def timed(service: OnlineService, spanning: tuple[str, ...]) -> tuple[OnlineTable | None, float]:
    """The published table (None: none within the service's time limit) and the seconds it took."""
    started = time.perf_counter()
    try:
        table = service.publish(spanning)
    except OnlineError:
        table = None
    return table, time.perf_counter() - started


def attack_stream(count: int, senses: str, values: str | None, time_budget: float | None) -> None:
    """Issue 30's check: ``count`` random tables (2-3 of four variables, hierarchies cut at random
    levels) from one store over the 500 firms of tests/app/online/test_random_tables.py, the truth
    recomputed from the records, and an outsider's attack on what was published
    (tests/app/online/attack.py): every count 0 but the last line's, whose share of sensitive
    cells must be near the base rate (or there be no such value)."""
    from ctadesk.engine.online import rule_shares
    from tests.app.online.attack import attack
    from tests.app.online.test_random_tables import firms as random_firms
    from tests.app.online.test_random_tables import random_tables

    microdata = random_firms()
    started = time.perf_counter()
    options = {"measure": "Turnover", "senses": senses, "values": values, "time_budget": time_budget}
    with tempfile.TemporaryDirectory() as folder, \
            OnlineService(Path(folder) / "senses.db", microdata, RULES, init_store=True, **options) as service:
        for line in service.prepare():
            print(line)
        findings = attack(service, microdata, random_tables(microdata, count), rule_shares(RULES))
        decimals = service.decimals
    print(f"attack: {count} random tables, senses '{senses}', values '{values or 'default'}', "
          f"{time.perf_counter() - started:.0f} s")
    for line in findings.lines(decimals):
        print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=300_000)
    parser.add_argument("--senses", choices=SENSE_CHOICES, default="data")
    parser.add_argument("--values", choices=VALUE_CHOICES, help="default: the service's")
    parser.add_argument("--time-budget", type=float, help="for the sense choice (default: the service's)")
    parser.add_argument("--stream", type=int, default=12, help="random tables after the fixed ones")
    parser.add_argument("--small", type=int, default=100, help="small-table requests for the rate")
    parser.add_argument("--time-limit", type=float, default=30.0, help="the second stage's, per table")
    parser.add_argument("--attack", type=int, metavar="TABLES",
                        help="instead: an outsider's attack on TABLES random tables from one store (attack_stream())")
    args = parser.parse_args()
    if args.attack:
        attack_stream(args.attack, args.senses, args.values, args.time_budget)
        return
    microdata = firms(args.records)
    print(f"{args.records} records, senses '{args.senses}', values '{args.values or 'default'}', "
          f"time limit {args.time_limit:g} s, load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    options = {"measure": "Turnover", "senses": args.senses, "values": args.values, "time_budget": args.time_budget,
               "time_limit": args.time_limit}
    alone_options = dict(options, senses="table", values="table", time_budget=5.0)
    with tempfile.TemporaryDirectory() as folder, \
            OnlineService(Path(folder) / "senses.db", microdata, RULES, init_store=True, **options) as service:
        started = time.perf_counter()
        for line in service.prepare():
            print(line)
        print(f"before the first request: {time.perf_counter() - started:.2f} s")
        print(f"\n{'table':26} {'cells':>6} {'sens.':>5} {'first s':>8} {'repeat s':>8} {'alone s':>8} "
              f"{'distance':>10} {'alone':>10} {'cost':>6}  relaxed")
        total = total_alone = 0.0
        for spanning in TABLES:
            first, first_seconds = timed(service, spanning)
            _, repeat_seconds = timed(service, spanning)
            with OnlineService(Path(folder) / f"alone{len(spanning)}{spanning[0]}.db", microdata, RULES,
                               init_store=True, **alone_options) as fresh:
                alone, alone_seconds = timed(fresh, spanning)
            if first is None or alone is None:
                print(f"{' x '.join(spanning):26} no table within the time limit ({first_seconds:.1f} s first, "
                      f"{alone_seconds:.1f} s alone)")
                continue
            total, total_alone = total + first.office.objective, total_alone + alone.office.objective
            cost = f"{first.office.objective / alone.office.objective:6.2f}" if alone.office.sensitive else "     -"
            print(f"{' x '.join(spanning):26} {first.structure.n_cells:6d} {first.office.sensitive:5d} "
                  f"{first_seconds:8.2f} {repeat_seconds:8.2f} {alone_seconds:8.2f} {first.office.objective:10.4g} "
                  f"{alone.office.objective:10.4g} {cost}  {relaxed(first)}")
        print(f"distance over these tables: {total:.4g} (each alone: {total_alone:.4g})")

        rng = random.Random(1)
        names = ("Region", "Size", "Sector")
        print(f"\n{args.stream} random tables as the store grows:")
        print(f"{'#':>3} {'table':26} {'cells':>6} {'seconds':>8} {'senses stored':>14} {'values stored':>14}  relaxed")
        worst = 0.0
        for k in range(args.stream):
            chosen = rng.sample(names, rng.choice([2, 3]))
            spanning = tuple("Region:1" if name == "Region" and rng.random() < 0.5 else name for name in chosen)
            table, seconds = timed(service, spanning)
            counts = service.store.counts()
            worst = max(worst, seconds)
            cells = table.structure.n_cells if table else service.problem(spanning)[0].n_cells
            relaxed_text = "no table" if table is None else relaxed(table)
            print(f"{k + 1:3d} {' x '.join(spanning):26} {cells:6d} {seconds:8.2f} "
                  f"{counts['senses']:14d} {counts['published_values']:14d}  {relaxed_text}")
        print(f"slowest of the stream: {worst:.2f} s")

        started = time.perf_counter()
        for k in range(args.small):
            service.publish(SMALL[k % len(SMALL)])
        rate = args.small / (time.perf_counter() - started)
        print(f"\nsmall tables ({', '.join(' x '.join(s) for s in SMALL)}), one after another: "
              f"{rate:.1f} requests/s through the service")
    try:
        from starlette.testclient import TestClient

        from ctadesk.server.app import create_app
        from ctadesk.server.pool import ServicePool
    except ImportError:
        print("(ctadesk.server not installed: no HTTP figure)")
        return
    with tempfile.TemporaryDirectory() as folder:
        with OnlineService(Path(folder) / "senses.db", microdata, RULES, init_store=True, **options) as first:
            first.prepare()                # as `ctadesk serve` does before it serves
        with ServicePool(lambda: OnlineService(Path(folder) / "senses.db", microdata, RULES, **options), 2) as pool:
            client = TestClient(create_app(pool))
            started = time.perf_counter()
            for k in range(args.small):
                spanning = ",".join(SMALL[k % len(SMALL)])
                assert client.get("/tables", params={"spanning": spanning}).status_code == 200
            rate = args.small / (time.perf_counter() - started)
            print(f"the same through the HTTP application (in-process client, 2 workers): {rate:.1f} requests/s")


if __name__ == "__main__":
    main()
