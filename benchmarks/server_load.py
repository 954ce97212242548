"""The table server under load (issue 30): ``--clients`` concurrent clients on 127.0.0.1, each
asking for small tables one after another over a kept-alive connection for ``--seconds``,
while ``--idle`` silent connections are held open (and opened again as the server drops them):
requests answered, per second, latency percentiles of the tables served, answers by status,
and errors (anything but a 200 or a deliberate JSON answer — 503 over a limit, 409 a table
withheld by the service —: a refused or dropped connection, a 500, a plain-text answer).

The server runs in a process of its own (this script with ``--serve``), as ``ctadesk serve``
does: the synthetic firms of benchmarks/online.py, senses chosen table by table, a store made
for them, ``--workers`` services, the default connection limits, at most ``--clients`` requests
per client (every client here is 127.0.0.1).

    .venv/bin/python benchmarks/server_load.py [--clients 16] [--seconds 60] [--idle 8]
        [--records 20000] [--workers 2] [--store postgresql://…]
"""

from __future__ import annotations

import argparse
import collections
import http.client
import json
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.online import RULES, SMALL, firms
from ctadesk.app.online import OnlineService

#: the only address served and asked
LOOPBACK = "127.0.0.1"
#: seconds to wait for the server to start, and for one answer
WAIT = 120.0
#: answers the server gives on purpose, as JSON: over a limit (503), a table withheld (409)
DELIBERATE = (503, 409)
#: the tables asked for: the small ones of benchmarks/online.py and a few more
TABLES = [*SMALL, ("Size", "Region"), ("Region",), ("Size", "Region:1", "Sector")]


def serve(folder: Path, port: int, records: int, workers: int, clients: int, store: str | None = None) -> None:
    """The server process: a store made for the firms (in ``folder``, or at the PostgreSQL URL
    ``store``, a fresh database or schema), served on ``port``."""
    from ctadesk.server.app import create_app
    from ctadesk.server.limits import Limits
    from ctadesk.server.pool import ServicePool
    from ctadesk.server.run import serve as run

    microdata = firms(records)

    def service(init_store: bool = False) -> OnlineService:
        return OnlineService(store or folder / "senses.db", microdata, RULES, measure="Turnover", senses="table",
                             time_limit=20.0, init_store=init_store)

    service(init_store=True).close()
    with ServicePool(service, workers) as pool:
        run(create_app(pool, Limits(max_client_requests=clients)), LOOPBACK, port)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((LOOPBACK, 0))
        return probe.getsockname()[1]


class Tally:
    """Answers by status, latencies of the 200s, errors by kind; any thread adds."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.statuses: collections.Counter[int] = collections.Counter()
        self.errors: collections.Counter[str] = collections.Counter()
        self.latencies: list[float] = []

    def answer(self, status: int, seconds: float, deliberate: bool) -> None:
        with self.lock:
            self.statuses[status] += 1
            if status == 200:
                self.latencies.append(seconds)
            elif not deliberate:
                self.errors[f"status {status}"] += 1

    def error(self, kind: str) -> None:
        with self.lock:
            self.errors[kind] += 1


def client(port: int, k: int, ends: float, tally: Tally) -> None:
    """Tables one after another over one kept-alive connection (opened again if dropped)."""
    connection = http.client.HTTPConnection(LOOPBACK, port, timeout=WAIT)
    i = k
    while time.monotonic() < ends:
        path = "/tables?spanning=" + ",".join(TABLES[i % len(TABLES)])
        i += 1
        started = time.perf_counter()
        try:
            connection.request("GET", path)
            response = connection.getresponse()
            body = response.read()
        except (OSError, http.client.HTTPException) as error:
            tally.error(type(error).__name__)
            connection.close()
            connection = http.client.HTTPConnection(LOOPBACK, port, timeout=WAIT)
            continue
        seconds = time.perf_counter() - started
        deliberate = response.status in DELIBERATE and response.getheader("content-type", "").startswith(
            "application/json") and "error" in json.loads(body)
        tally.answer(response.status, seconds, deliberate)
    connection.close()


def idle_flood(port: int, count: int, ends: float, opened: list[int]) -> None:
    """``count`` silent connections held open until ``ends``, each opened again once dropped."""
    socks: list[socket.socket | None] = [None] * count
    while time.monotonic() < ends:
        for k, sock in enumerate(socks):
            if sock is not None:
                sock.setblocking(False)
                try:
                    if sock.recv(1) != b"":
                        continue
                except BlockingIOError:
                    continue
                except OSError:
                    pass
                sock.close()
            socks[k] = socket.create_connection((LOOPBACK, port), timeout=WAIT)
            opened[0] += 1
        time.sleep(0.1)
    for sock in socks:
        if sock is not None:
            sock.close()


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--idle", type=int, default=8, help="silent connections held open meanwhile")
    parser.add_argument("--records", type=int, default=20_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--store", metavar="URL", help="a fresh PostgreSQL database or schema (default: SQLite)")
    parser.add_argument("--serve", nargs=2, metavar=("FOLDER", "PORT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(Path(args.serve[0]), int(args.serve[1]), args.records, args.workers, args.clients, args.store)
        return
    with tempfile.TemporaryDirectory() as folder, open(Path(folder) / "server.log", "w") as log:
        port = free_port()
        server = subprocess.Popen([sys.executable, __file__, "--serve", folder, str(port), "--records",
                                   str(args.records), "--workers", str(args.workers), "--clients",
                                   str(args.clients), *(["--store", args.store] if args.store else [])],
                                  stdout=log, stderr=subprocess.STDOUT)
        try:
            started = time.monotonic()
            while True:
                try:
                    connection = http.client.HTTPConnection(LOOPBACK, port, timeout=WAIT)
                    connection.request("GET", "/health")
                    if connection.getresponse().status == 200:
                        break
                except OSError:
                    pass
                if server.poll() is not None or time.monotonic() - started > WAIT:
                    raise SystemExit("the server did not start:\n" + (Path(folder) / "server.log").read_text())
                time.sleep(0.2)
            print(f"server up in {time.monotonic() - started:.1f} s ({args.records} firms, {args.workers} workers); "
                  f"{args.clients} clients for {args.seconds:g} s, {args.idle} idle connections held open")
            tally, opened = Tally(), [0]
            ends = time.monotonic() + args.seconds
            threads = [threading.Thread(target=client, args=(port, k, ends, tally)) for k in range(args.clients)]
            threads.append(threading.Thread(target=idle_flood, args=(port, args.idle, ends, opened)))
            began = time.perf_counter()
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            elapsed = time.perf_counter() - began
            connection = http.client.HTTPConnection(LOOPBACK, port, timeout=WAIT)
            connection.request("GET", "/health")
            health = connection.getresponse().status
        finally:
            server.terminate()
            server.wait(60)
    answered = sum(tally.statuses.values())
    lat = tally.latencies
    print(f"answers: {answered} in {elapsed:.1f} s ({answered / elapsed:.1f}/s); by status: "
          f"{dict(sorted(tally.statuses.items()))}")
    print(f"latency of the 200s: p50 {percentile(lat, 0.5) * 1000:.0f} ms, p95 {percentile(lat, 0.95) * 1000:.0f} ms, "
          f"p99 {percentile(lat, 0.99) * 1000:.0f} ms, max {max(lat, default=float('nan')) * 1000:.0f} ms")
    print(f"errors (not 200, not a deliberate 503/409 JSON): {sum(tally.errors.values())} {dict(tally.errors)}")
    print(f"idle connections opened: {opened[0]} (each dropped by the server after its idle timeout); "
          f"/health at the end: {health}")


if __name__ == "__main__":
    main()
