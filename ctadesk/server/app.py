"""The HTTP table server: a Starlette application over a pool of on-line services (Castro & González 2011, §4).

    GET  /tables?spanning=Region:1,Size[&format=csv]   a protected table (JSON by default)
    POST /tables  {"spanning": ["Region:1", "Size"], "format": "json"}
    GET  /health                                       the measure and the variables on offer
    GET  /store                                        how many tables were requested and published

A table's solve runs in a worker thread with a service of its own (ctadesk.server.pool), within
the request's wall-clock limit; the event loop stays free to answer other requests.  Requests
answered at once are counted over all clients and per client (RequestLimits); past either
limit a request is answered 503 at once.  Every error is JSON ``{"error": message}``: 400 names
the variable, level, parameter or key at fault (names printable and bounded, levels in ASCII
digits, JSON bodies bounded in depth and numbers), 404 a path (``/tables/`` too: no redirect
built from the Host header), 408 a body that does not arrive, 409 a table withheld (none
protects it consistently with the tables published before; nothing recorded), 413 a body over
the limit, 503 a request that ran out of time, one over the limits, or a sense store that
cannot be used (the cause named in SQLite's words, ctadesk.server.health; /health then fails
too); anything else is a 500 whose detail (and traceback) goes to the server's log only, under
a reference the message gives.  Nothing the office alone may see leaves the server: the table
holds codes, values and the public status; sensitive cells, senses and relaxations are logged,
never sent.  Not even their number: with senses chosen table by table, the count of senses
stored before and after a request would tell how many of its cells are sensitive (one, in a
table that shows one new cell).
"""

from __future__ import annotations

import collections
import csv
import io
import itertools
import json
import logging
import threading
from collections.abc import Callable
from typing import NoReturn, TypeVar, cast

import anyio
import anyio.to_thread
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ctadesk.app.online import OnlineError, OnlineService, OnlineTable
from ctadesk.app.online.levels import levels
from ctadesk.app.online.service import TableWithheld, table_microdata
from ctadesk.server.health import StoreHealth, store_cause
from ctadesk.server.limits import Limits
from ctadesk.server.pool import ServicePool

logger = logging.getLogger("ctadesk.server")

#: the formats a table is served in
FORMATS = ("json", "csv")
#: the keys a POST /tables body may hold
BODY_KEYS = ("spanning", "format")
#: characters of a variable name (with its level), and names in a table request
MAX_NAME, MAX_NAMES = 100, 16
#: how deep a request body's JSON may nest ({"spanning": [...]} is 2), digits of a number in it
MAX_DEPTH, MAX_DIGITS = 4, 20
#: characters of a client's value shown back in an error message
SHOWN = 40
T = TypeVar("T")


class RequestError(Exception):
    """A request the server answers with ``status`` and ``message`` (JSON {"error": message})."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status, self.message = status, message


class RequestLimits:
    """ASGI middleware: at most ``limits.max_requests`` requests answered at once, and
    ``limits.max_client_requests`` for one client (remote address); more are answered 503 JSON
    at once.  An exception ends here, so that uvicorn never answers in plain text: after the
    response started (Starlette's error handler answers and logs, then raises again) it is in
    the log already; before, it is logged and answered 500 JSON."""

    def __init__(self, app: ASGIApp, limits: Limits) -> None:
        self.app, self.limits = app, limits
        self.running = 0
        self.by_client: collections.Counter[str] = collections.Counter()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        client = scope["client"][0] if scope.get("client") else ""
        if self.running >= self.limits.max_requests:
            message = f"the server is answering {self.running} requests, as many as it takes at once; ask again later"
        elif self.by_client[client] >= self.limits.max_client_requests:
            message = (f"this client has {self.by_client[client]} requests being answered, as many as the server "
                       "takes from one client; ask again when one is answered")
        else:
            await self.counted(client, scope, receive, send)
            return
        logger.warning("503 for %s: %s", client, message)
        await JSONResponse({"error": message}, status_code=503, headers={"retry-after": "1"})(scope, receive, send)

    async def counted(self, client: str, scope: Scope, receive: Receive, send: Send) -> None:
        """The request answered by the application, counted while it runs."""
        started = False

        async def sending(message: Message) -> None:
            nonlocal started
            started = True
            await send(message)

        self.running += 1
        self.by_client[client] += 1
        try:
            await self.app(scope, receive, sending)
        except Exception as error:
            if not started:
                logger.error("%s %s failed before any answer", scope["method"], scope["path"], exc_info=error)
                await JSONResponse({"error": "the server failed"}, status_code=500)(scope, receive, send)
        finally:
            self.running -= 1
            self.by_client[client] -= 1
            if not self.by_client[client]:
                del self.by_client[client]


def create_app(pool: ServicePool, limits: Limits = Limits()) -> RequestLimits:
    """The server's application: routes over ``pool`` within ``limits`` (module docstring).
    The caller keeps ``pool`` open while the application serves and closes it after."""
    references = itertools.count(1)
    variables = [{"name": d.name, "levels": levels(d)} for d in pool.microdata.structure.dimensions]
    store_health = StoreHealth(pool)

    def store_failed(error: BaseException, cause: str) -> NoReturn:
        """A 503 naming ``cause`` for a request that met the store's ``error`` (logged under a
        reference); /health probes the store again."""
        reference = next(references)
        logger.error("reference %d: the sense store failed: %s", reference, cause, exc_info=error)
        store_health.failed(cause)
        raise RequestError(503, f"the sense store cannot be used: {cause} (reference {reference} in the server's "
                                "log)") from None

    async def in_worker(work: Callable[[OnlineService, Callable[[], bool]], T]) -> T:
        """``work(service, abandoned)`` done in a worker thread with a service of its own, within
        the request's wall-clock limit.  A request out of time is answered at once; its thread,
        which Python cannot stop, finishes its work (bounded by the solve's time limit), told by
        ``abandoned()`` that nobody waits for it (a table is then not recorded as published), and
        frees its service."""
        abandoned = threading.Event()

        def run() -> T | None:
            with pool.service(limits.request_seconds) as service:
                return None if abandoned.is_set() else work(service, abandoned.is_set)

        try:
            with anyio.fail_after(limits.request_seconds):
                done = await anyio.to_thread.run_sync(run, abandon_on_cancel=True)
            # None comes only from a thread abandoned after the timeout below, whose result nobody awaits
            return cast(T, done)
        except TimeoutError:
            abandoned.set()
            raise RequestError(503, f"the server could not answer within {limits.request_seconds:g} s; "
                                    "ask again later or for a smaller table") from None
        except Exception as error:
            cause = store_cause(error)
            if cause is None:
                raise
            store_failed(error, cause)

    async def health(request: Request) -> Response:
        state = await run_in_threadpool(store_health.state)
        if not state.ok:
            raise RequestError(503, f"the sense store is {state.status}: no table can be published now")
        return JSONResponse({"status": "ok", "store": state.status, "measure": pool.measure, "variables": variables})

    async def store(request: Request) -> Response:
        counts = await in_worker(lambda service, _: service.store.counts())
        return JSONResponse({name: counts[name] for name in ("tables_requested", "tables_published")})

    async def tables(request: Request) -> Response:
        spanning, form = await table_request(request, limits)
        try:
            structure = (await run_in_threadpool(table_microdata, pool.microdata, spanning)).structure
        except OnlineError as error:
            raise RequestError(400, str(error)) from None
        if structure.n_cells > limits.max_cells:
            raise RequestError(400, f"table {' x '.join(spanning)} has {structure.n_cells} cells; this server "
                                    f"serves tables of up to {limits.max_cells}")
        try:
            table = await in_worker(lambda service, abandoned: service.publish(spanning, abandoned))
        except RequestError:
            raise
        except TableWithheld as error:             # its message names counts, never a cell or value
            raise RequestError(409, str(error)) from None
        except Exception:
            reference = next(references)
            logger.exception("reference %d: table %s could not be published", reference, " x ".join(spanning))
            raise RequestError(500, f"the table could not be published (reference {reference} in the server's "
                                    "log)") from None
        log_office(table, spanning)
        if form == "csv":
            return Response(csv_text(table), media_type="text/csv; charset=utf-8")
        return JSONResponse({"spanning": list(spanning), "measure": table.measure, "cells": table.records()})

    async def request_error(request: Request, error: Exception) -> Response:
        assert isinstance(error, RequestError)
        # a body left unread (413) or still to come (408) ends the connection
        closing = {"connection": "close"} if error.status in (408, 413) else None
        return JSONResponse({"error": error.message}, status_code=error.status, headers=closing)

    async def http_error(request: Request, error: Exception) -> Response:
        assert isinstance(error, HTTPException)
        message = (f"no such path {shown(request.url.path)}: the server answers /tables, /health and /store"
                   if error.status_code == 404 else f"{request.method} {shown(request.url.path)}: {error.detail}")
        return JSONResponse({"error": message}, status_code=error.status_code, headers=error.headers)

    async def server_error(request: Request, error: Exception) -> Response:
        reference = next(references)
        logger.error("reference %d: %s %s failed", reference, request.method, request.url.path, exc_info=error)
        return JSONResponse({"error": f"the server failed (reference {reference} in its log)"}, status_code=500)

    app = Starlette(routes=[Route("/tables", tables, methods=["GET", "POST"]), Route("/health", health),
                            Route("/store", store)],
                    exception_handlers={RequestError: request_error, HTTPException: http_error,
                                        Exception: server_error})
    app.router.redirect_slashes = False        # its redirect would point at whatever Host was sent
    return RequestLimits(app, limits)


async def table_request(request: Request, limits: Limits) -> tuple[tuple[str, ...], str]:
    """(spanning, format) of a table request: the query of a GET, the JSON body of a POST;
    RequestError 400 naming the key, parameter or name at fault."""
    if request.method == "POST":
        body = parse_body(await read_body(request, limits))
        if not isinstance(body, dict):
            raise RequestError(400, 'the request body must be a JSON object such as {"spanning": ["Region", "Size"]}')
        unknown = [key for key in body if key not in BODY_KEYS]
        if unknown:
            raise RequestError(400, f"unknown key {shown(unknown[0])} in the request body (keys: "
                                    f"{', '.join(BODY_KEYS)})")
        spanning, form = body.get("spanning"), body.get("format", "json")
    else:
        unknown = [key for key in request.query_params if key not in BODY_KEYS]
        if unknown:
            raise RequestError(400, f"unknown parameter {shown(unknown[0])} (parameters: {', '.join(BODY_KEYS)})")
        spanning, form = request.query_params.get("spanning"), request.query_params.get("format", "json")
    if isinstance(spanning, str):
        spanning = spanning.split(",")
    if not isinstance(spanning, list) or not all(isinstance(name, str) for name in spanning):
        raise RequestError(400, "spanning: name the table's spanning variables: spanning=Region,Size")
    if len(spanning) > MAX_NAMES:
        raise RequestError(400, f"spanning: {len(spanning)} variables; a table spans at most {MAX_NAMES}")
    spanning = tuple(name.strip() for name in spanning)
    if not spanning or not all(spanning):
        raise RequestError(400, "spanning: name the table's spanning variables: spanning=Region,Size (no empty name)")
    for name in spanning:
        if len(name) > MAX_NAME or not name.isprintable():
            raise RequestError(400, f"spanning: variable {shown(name)} is not a name of up to {MAX_NAME} printable "
                                    "characters")
    if form not in FORMATS:
        raise RequestError(400, f"format {shown(form)}: choose {' or '.join(FORMATS)}")
    return spanning, form


def shown(value: object) -> str:
    """A client's ``value`` quoted for an error message: as sent when it is short printable
    text, else escaped (a lone surrogate cannot be written as UTF-8) and cut to SHOWN characters."""
    text = value if isinstance(value, str) else json.dumps(value)
    if len(text) <= SHOWN and text.isprintable():
        return f"'{text}'"
    return ascii(text[:SHOWN]) + ("..." if len(text) > SHOWN else "")


def parse_body(body: bytes) -> object:
    """The request body's JSON; RequestError 400 when it is not UTF-8 JSON, nests deeper than
    MAX_DEPTH, or holds a number of more than MAX_DIGITS digits, NaN or Infinity (each of which
    Python's json would read at a cost, or fail on with a ValueError)."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as error:
        raise RequestError(400, f"the request body is not UTF-8 ({error.reason} at byte {error.start})") from None
    if nesting(text) > MAX_DEPTH:
        raise RequestError(400, f"the request body nests JSON more than {MAX_DEPTH} deep")

    def number(digits: str) -> int:
        if len(digits) > MAX_DIGITS:
            raise RequestError(400, f"the request body holds a number of {len(digits)} digits (at most {MAX_DIGITS})")
        return int(digits)

    def constant(name: str) -> NoReturn:
        raise RequestError(400, f"the request body holds {name}, which is not JSON")

    try:
        return json.loads(text or "null", parse_int=number, parse_constant=constant)
    except json.JSONDecodeError as error:
        raise RequestError(400, f"the request body is not JSON ({error})") from None


def nesting(text: str) -> int:
    """How deep arrays and objects nest in the JSON ``text`` (brackets within strings left out),
    counted without recursion: Python's json meets a RecursionError a few thousand deep."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


async def read_body(request: Request, limits: Limits) -> bytes:
    """The request's body; RequestError 413 as soon as it (or its declared length) passes
    ``limits.max_body`` bytes, so an oversized body is never held in memory, and 408 when it
    has not arrived within ``limits.body_seconds``."""
    too_large = RequestError(413, f"the request body is larger than this server takes ({limits.max_body} bytes)")
    declared = request.headers.get("content-length")
    if declared is not None and declared.isascii() and declared.isdigit() \
            and (len(declared) > len(str(limits.max_body)) or int(declared) > limits.max_body):
        raise too_large
    body = bytearray()
    try:
        with anyio.fail_after(limits.body_seconds):
            async for chunk in request.stream():
                body += chunk
                if len(body) > limits.max_body:
                    raise too_large
    except TimeoutError:
        raise RequestError(408, f"the request body did not arrive within {limits.body_seconds:g} s") from None
    return bytes(body)


def csv_text(table: OnlineTable) -> str:
    """The table's records (codes, value, public status) as CSV with a header line."""
    records = table.records()
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(records[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(records)
    return buffer.getvalue()


def log_office(table: OnlineTable, spanning: tuple[str, ...]) -> None:
    """What the office alone may see of a published table, to the server's log: its report, and
    a warning per relaxation."""
    logger.info("table %d (%s): %s", table.table_id, " x ".join(spanning), "; ".join(table.office.lines()[:2]))
    for line in table.office.relaxation.lines():
        logger.warning("table %d (%s) relaxed: %s", table.table_id, " x ".join(spanning), line)
