"""`ctadesk serve --store senses.db --microdata FILE --span Region Size Sector --response VAR ...`:
the HTTP table server (ctadesk.server): tables of the microdata requested one after another,
each protected at once and consistently with every table published before (Castro & González 2011, §4).

Loopback only unless --allow-remote; the microdata and safety-rule options are those of
`ctadesk online`, the variables a table may span given by --span.  Needs the ``server`` extra
(starlette, uvicorn).  The store is made, and the full table protected, once, by the same
command with --init-store, which then exits; servers are started without it (several of them
over one PostgreSQL store: README).
"""

from __future__ import annotations

import argparse
import logging
from collections.abc import Callable

from ctadesk.cli.commands.online import add_online_arguments, add_store_arguments
from ctadesk.cli.table_options import add_microdata_arguments, add_rules_arguments
from ctadesk.engine.errors import CTAError
from ctadesk.engine.settings import TIME_BUDGET
from ctadesk.server.limits import Connections, Limits

#: defaults of the server's options
HOST, PORT, WORKERS, TIME_LIMIT = "127.0.0.1", 8765, 2, 20.0
#: seconds a request may take beyond its solves (tabulation, the store, waiting for a worker)
REQUEST_MARGIN = 30.0


def _positive(kind: type) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not a {'whole ' * (kind is int)}number") from None
        if not value > 0:
            raise argparse.ArgumentTypeError(f"{text}: it must be positive")
        return value
    return parse


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "serve", help="serve protected tables over HTTP (on-line CTA, loopback only by default)",
        description="An HTTP table server: GET /tables?spanning=Region,Size returns the table protected by "
                    "two-stage on-line CTA (Castro & González 2011, §4), consistently with every table "
                    "published from the same store; GET /health, GET /store.")
    data = add_store_arguments(parser, "microdata")
    data.add_argument("--span", required=True, nargs="+", metavar="VAR",
                      help="the variables a table may span (with --hierarchy for the hierarchical ones)")
    add_microdata_arguments(data)
    add_rules_arguments(parser, manual=False)
    add_online_arguments(parser)
    server = parser.add_argument_group("server")
    server.add_argument("--host", default=HOST, help=f"address to listen on (default {HOST}, this machine only)")
    server.add_argument("--port", type=int, default=PORT, help=f"port (default {PORT})")
    server.add_argument("--allow-remote", action="store_true",
                        help="allow a --host other machines can reach (put the server behind the office's proxy)")
    server.add_argument("--workers", type=_positive(int), default=WORKERS, metavar="N",
                        help=f"tables protected at once, each in a thread with its own store connection "
                             f"(default {WORKERS})")
    server.add_argument("--time-limit", type=_positive(float), default=TIME_LIMIT, metavar="SECONDS",
                        help=f"time the second stage may take per table (default {TIME_LIMIT:g})")
    server.add_argument("--request-timeout", type=_positive(float), metavar="SECONDS",
                        help=f"wall-clock time a table request may take, waiting included (default: the time "
                             f"limit, plus the time budget with --senses table, plus {REQUEST_MARGIN:g})")
    server.add_argument("--max-body", type=_positive(int), default=Limits.max_body, metavar="BYTES",
                        help=f"largest request body (default {Limits.max_body})")
    server.add_argument("--max-cells", type=_positive(int), default=Limits.max_cells, metavar="N",
                        help=f"largest table served (default {Limits.max_cells})")
    server.add_argument("--max-connections", type=_positive(int), default=Limits.max_requests, metavar="N",
                        help=f"requests answered at once over all clients (idle connections do not count); more "
                             f"are answered 503 (default {Limits.max_requests})")
    server.add_argument("--max-per-client", type=_positive(int), default=Limits.max_client_requests, metavar="N",
                        help=f"requests answered at once for one client address; more are answered 503 "
                             f"(default {Limits.max_client_requests})")
    server.add_argument("--idle-timeout", type=_positive(float), default=Connections.idle_seconds, metavar="SECONDS",
                        help=f"time a connection has to send a whole request's headers, from its opening or its "
                             f"last answer; then it is closed (default {Connections.idle_seconds:g})")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ctadesk.app.online import OnlineService
    from ctadesk.cli.tables import read_microdata_for, safety_rules

    try:
        from ctadesk.server.app import create_app
        from ctadesk.server.pool import ServicePool
        from ctadesk.server.run import remote_warning, serve
    except ImportError as error:
        raise CTAError(f"ctadesk serve needs the server extra ({error.name} is missing): "
                       "pip install 'ctadesk[server]'") from None
    if not args.response:
        raise CTAError("--response VAR is required: the variable the tables sum")
    warning = remote_warning(args.host, args.allow_remote)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if warning:
        logging.getLogger("ctadesk.server").warning(warning)
    microdata = read_microdata_for(args, args.microdata, tuple(args.span))
    rules = safety_rules(args)
    request_seconds = args.request_timeout or (
        args.time_limit + ((args.time_budget or TIME_BUDGET) if args.senses == "table" else 0.0) + REQUEST_MARGIN)
    limits = Limits(max_body=args.max_body, max_cells=args.max_cells, request_seconds=request_seconds,
                    max_requests=args.max_connections, max_client_requests=args.max_per_client)
    connections = Connections(idle_seconds=args.idle_timeout, shutdown_seconds=request_seconds)

    def service(init_store: bool = False) -> OnlineService:
        return OnlineService(args.store, microdata, rules, measure=args.response, senses=args.senses,
                             values=args.values, time_budget=args.time_budget, weights=args.cell_weights,
                             time_limit=args.time_limit, init_store=init_store)

    with service(args.init_store) as first:
        for line in first.prepare():
            logging.getLogger("ctadesk.server").info(line)
        if args.init_store:
            logging.getLogger("ctadesk.server").info(f"sense store {first.store.location} made; start the server "
                                                     "(or servers) without --init-store")
            return 0
    with ServicePool(service, args.workers) as pool:
        serve(create_app(pool, limits), args.host, args.port, connections)
    return 0
