"""A real table server for the tests: services over the synthetic firms (make_pool), the
application under uvicorn with the guarded protocol (ctadesk.server.run) in a thread, on
127.0.0.1 and a free port; raw sockets and a small HTTP client to talk to it."""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import uvicorn
from starlette.types import ASGIApp

from ctadesk.app.online import OnlineService
from ctadesk.engine.table.microdata import Microdata
from ctadesk.server.limits import Connections
from ctadesk.server.pool import ServicePool
from ctadesk.server.run import server_config
from tests.app.online.synthetic import RULES, firms

#: the only address the tests listen on or connect to
LOOPBACK = "127.0.0.1"
#: seconds to wait for the server to start or stop, and for a socket to answer
WAIT = 30.0
MICRODATA = firms(seed=0)


def make_pool(folder: Path, size: int = 2, microdata: Microdata = MICRODATA) -> ServicePool:
    """``size`` services (senses chosen table by table) over a store made in ``folder``."""
    OnlineService(folder / "senses.db", microdata, RULES, measure="Turnover", senses="table", init_store=True).close()
    return ServicePool(lambda: OnlineService(folder / "senses.db", microdata, RULES, measure="Turnover",
                                             senses="table"), size)


@contextlib.contextmanager
def running(app: ASGIApp, connections: Connections = Connections()) -> Iterator[int]:
    """``app`` served on LOOPBACK for the length of the block; its port."""
    server = uvicorn.Server(server_config(app, LOOPBACK, 0, connections))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    ends = time.monotonic() + WAIT
    while not server.started:
        if not thread.is_alive() or time.monotonic() > ends:
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    try:
        yield server.servers[0].sockets[0].getsockname()[1]
    finally:
        server.should_exit = True
        thread.join(WAIT)


def request(port: int, method: str, path: str, body: bytes | None = None,
            headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    """(status, headers with lower-case names, body) of one request on a connection of its own."""
    connection = http.client.HTTPConnection(LOOPBACK, port, timeout=WAIT)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def json_error(status: int, headers: dict[str, str], body: bytes) -> str:
    """The message of a JSON error answer (and nothing else in it)."""
    assert headers["content-type"].startswith("application/json"), (status, headers, body)
    payload = json.loads(body)
    assert list(payload) == ["error"], payload
    return payload["error"]


def raw(port: int, data: bytes = b"") -> socket.socket:
    """A connection to the server that sent ``data`` (maybe nothing, maybe half a request)."""
    sock = socket.create_connection((LOOPBACK, port), timeout=WAIT)
    if data:
        sock.sendall(data)
    return sock


def read_all(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (within WAIT seconds)."""
    received = b""
    while chunk := sock.recv(65536):
        received += chunk
    return received


def parse(response: bytes) -> tuple[int, dict[str, str], bytes]:
    """(status, headers, body) of a whole HTTP/1.1 response read from a raw socket."""
    head, _, body = response.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {name.strip().lower(): value.strip() for name, _, value in (line.partition(":") for line in lines[1:])}
    return int(lines[0].split()[1]), headers, body
