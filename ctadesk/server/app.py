"""The HTTP table server: a Starlette application over a pool of on-line services (paper 000 §4).

    GET  /tables?spanning=Region:1,Size[&format=csv]   a protected table (JSON by default)
    POST /tables  {"spanning": ["Region:1", "Size"], "format": "json"}
    GET  /health                                       the measure and the variables on offer
    GET  /store                                        how many tables were requested and published

A table's solve runs in a worker thread with a service of its own (ctadesk.server.pool), within
the request's wall-clock limit; the event loop stays free to answer other requests.  Every error
is JSON ``{"error": message}``: 400 names the variable, level, parameter or key at fault, 413
a body over the limit, 503 a request that ran out of time; anything else is a 500 whose detail
(and traceback) goes to the server's log only, under a reference the message gives.  Nothing
the office alone may see leaves the server: the table holds codes, values and the public
status; sensitive cells, senses and relaxations are logged, never sent.  Not even their number:
with senses chosen table by table, the count of senses stored before and after a request would
tell how many of its cells are sensitive (one, in a table that shows one new cell).
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import logging
import threading
from collections.abc import Callable
from typing import TypeVar

import anyio
import anyio.to_thread
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ctadesk.app.online import OnlineError, OnlineService, OnlineTable
from ctadesk.app.online.levels import levels
from ctadesk.app.online.service import table_microdata
from ctadesk.server.limits import Limits
from ctadesk.server.pool import ServicePool

logger = logging.getLogger("ctadesk.server")

#: the formats a table is served in
FORMATS = ("json", "csv")
#: the keys a POST /tables body may hold
BODY_KEYS = ("spanning", "format")
T = TypeVar("T")


class RequestError(Exception):
    """A request the server answers with ``status`` and ``message`` (JSON {"error": message})."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status, self.message = status, message


def create_app(pool: ServicePool, limits: Limits = Limits()) -> Starlette:
    """The server's application: routes over ``pool`` within ``limits`` (module docstring).
    The caller keeps ``pool`` open while the application serves and closes it after."""
    references = itertools.count(1)
    variables = [{"name": d.name, "levels": levels(d)} for d in pool.microdata.structure.dimensions]

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
                return await anyio.to_thread.run_sync(run, abandon_on_cancel=True)
        except TimeoutError:
            abandoned.set()
            raise RequestError(503, f"the server could not answer within {limits.request_seconds:g} s; "
                                    "ask again later or for a smaller table") from None

    async def health(request: Request) -> Response:
        return JSONResponse({"status": "ok", "measure": pool.measure, "variables": variables})

    async def store(request: Request) -> Response:
        counts = await in_worker(lambda service, _: service.store.counts())
        return JSONResponse({name: counts[name] for name in ("tables_requested", "tables_published")})

    async def tables(request: Request) -> Response:
        spanning, form = await table_request(request, limits.max_body)
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
        return JSONResponse({"error": error.message}, status_code=error.status)

    async def http_error(request: Request, error: Exception) -> Response:
        assert isinstance(error, HTTPException)
        message = (f"no such path {request.url.path}: the server answers /tables, /health and /store"
                   if error.status_code == 404 else f"{request.method} {request.url.path}: {error.detail}")
        return JSONResponse({"error": message}, status_code=error.status_code, headers=error.headers)

    async def server_error(request: Request, error: Exception) -> Response:
        reference = next(references)
        logger.error("reference %d: %s %s failed", reference, request.method, request.url.path, exc_info=error)
        return JSONResponse({"error": f"the server failed (reference {reference} in its log)"}, status_code=500)

    return Starlette(routes=[Route("/tables", tables, methods=["GET", "POST"]), Route("/health", health),
                             Route("/store", store)],
                     exception_handlers={RequestError: request_error, HTTPException: http_error,
                                         Exception: server_error})


async def table_request(request: Request, max_body: int) -> tuple[tuple[str, ...], str]:
    """(spanning, format) of a table request: the query of a GET, the JSON body of a POST."""
    if request.method == "POST":
        try:
            body = json.loads(await read_body(request, max_body) or b"null")
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            raise RequestError(400, f"the request body is not JSON ({error})") from None
        if not isinstance(body, dict):
            raise RequestError(400, 'the request body must be a JSON object such as {"spanning": ["Region", "Size"]}')
        unknown = [key for key in body if key not in BODY_KEYS]
        if unknown:
            raise RequestError(400, f"unknown key '{unknown[0]}' in the request body (keys: {', '.join(BODY_KEYS)})")
        spanning, form = body.get("spanning"), body.get("format", "json")
    else:
        unknown = [key for key in request.query_params if key not in BODY_KEYS]
        if unknown:
            raise RequestError(400, f"unknown parameter '{unknown[0]}' (parameters: {', '.join(BODY_KEYS)})")
        spanning, form = request.query_params.get("spanning"), request.query_params.get("format", "json")
    if isinstance(spanning, str):
        spanning = spanning.split(",")
    if not isinstance(spanning, list) or not all(isinstance(name, str) for name in spanning):
        raise RequestError(400, "name the table's spanning variables: spanning=Region,Size")
    spanning = tuple(name.strip() for name in spanning)
    if not spanning or not all(spanning):
        raise RequestError(400, "name the table's spanning variables: spanning=Region,Size (no empty name)")
    if form not in FORMATS:
        raise RequestError(400, f"format '{form}': choose {' or '.join(FORMATS)}")
    return spanning, form


async def read_body(request: Request, limit: int) -> bytes:
    """The request's body; RequestError 413 as soon as it (or its declared length) passes ``limit``
    bytes, so an oversized body is never held in memory."""
    too_large = RequestError(413, f"the request body is larger than this server takes ({limit} bytes)")
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise too_large
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise too_large
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
