"""The HTTP table server: on-line CTA (Castro & González 2011, §4, ctadesk.app.online) behind a small
Starlette application run by uvicorn (the optional ``server`` extra).  A front end, like the
command line and the window: it turns requests into OnlineService calls and tables into JSON
or CSV.

    from ctadesk.server.app import create_app
    from ctadesk.server.limits import Limits
    from ctadesk.server.pool import ServicePool
    from ctadesk.server.run import serve
    with ServicePool(lambda: OnlineService("senses.db", microdata, rules, measure="Turnover"), 2) as pool:
        serve(create_app(pool, Limits()), "127.0.0.1", 8765)

limits.py  request and connection limits (no web framework: the command line reads them)
pool.py    one OnlineService per worker thread, each with its own store connection
app.py     the routes, errors as JSON
run.py     loopback by default, uvicorn
"""
