"""The HTTP table server (ctadesk.server.app) through Starlette's test client: tables served and
verified, consistent across requests, every bad request answered with JSON naming what is wrong
and nothing of the server's inside."""

import json
import logging
import time

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx2", reason="starlette's test client needs httpx2")

from starlette.testclient import TestClient

from ctadesk.app.online import OnlineService, cell_keys
from ctadesk.app.online.service import TableWithheld
from ctadesk.server.app import create_app
from ctadesk.server.limits import Limits
from tests.app.online.checker import both_sides, cell_names, full_original, problems
from tests.server.serving import MICRODATA
from tests.timing import timed


def client(pool, **limits) -> TestClient:
    return TestClient(create_app(pool, Limits(**limits)), raise_server_exceptions=False)


def assert_json_error(response, status: int, *named: str) -> str:
    """The response is ``status`` with a JSON body holding only an error message that names
    ``named`` and no traceback."""
    assert response.status_code == status
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert list(body) == ["error"]
    for word in named:
        assert word in body["error"]
    assert "Traceback" not in response.text and ".py" not in response.text
    return body["error"]


def published(response) -> dict:
    """Cell (its codes other than totals) -> published value, from a JSON table."""
    return {tuple(sorted((name, code) for name, code in cell.items() if name not in ("Turnover", "status")
                         and code != "Total")): cell["Turnover"] for cell in response.json()["cells"]}


def check(pool, spanning, values_by_cell) -> list[str]:
    """The independent checker's findings for a served table of ``spanning``."""
    with pool.service(1.0) as service:
        structure, problem = service.problem(spanning)
        keys = cell_keys(structure)
        stored = service.store.senses("Turnover", [keys[i] for i in problem.sensitive])
    original, _ = full_original(MICRODATA, spanning, structure)
    values = np.array([values_by_cell[name] for name in cell_names(structure)])
    senses = np.array([stored[keys[i]] for i in problem.sensitive])
    return problems(structure, original, values, problem.sensitive, problem.lower_protection,
                    problem.upper_protection, senses)


def test_a_table_is_served_and_verifies(pool):
    response = client(pool).get("/tables", params={"spanning": "Region,Size"})
    assert response.status_code == 200
    body = response.json()
    assert body["spanning"] == ["Region", "Size"] and body["measure"] == "Turnover"
    assert len(body["cells"]) == 7 * 4
    assert {cell["status"] for cell in body["cells"]} <= {"published", "empty"}
    with pool.service(1.0) as service:
        assert service.problem(("Region", "Size"))[1].n_sensitive > 0
    assert check(pool, ("Region", "Size"), published(response)) == []


def test_a_table_is_served_as_csv_and_by_post(pool):
    app = client(pool)
    text = app.get("/tables", params={"spanning": "Sector,Size", "format": "csv"})
    assert text.status_code == 200 and text.headers["content-type"].startswith("text/csv")
    lines = text.text.splitlines()
    assert lines[0] == "Sector,Size,Turnover,status" and len(lines) == 1 + 3 * 4
    posted = app.post("/tables", json={"spanning": ["Sector", "Size"]})
    assert posted.status_code == 200
    served = {tuple(line.split(",")[:2]): float(line.split(",")[2]) for line in lines[1:]}
    again = {(cell["Sector"], cell["Size"]): cell["Turnover"] for cell in posted.json()["cells"]}
    assert served.keys() == again.keys()


def test_requests_one_after_another_never_publish_a_cell_on_both_sides(pool):
    app = client(pool)
    tables = [("Region", "Size"), ("Size", "Region", "Sector"), ("Region:1", "Sector"), ("Region",), ("Sector", "Size")]
    seen: dict = {}
    withheld: list[str] = []
    for spanning in tables:
        response = app.get("/tables", params={"spanning": ",".join(spanning)})
        if response.status_code == 409:     # withheld: no table verifies with the senses stored (issue 30)
            withheld.append(response.json()["error"])
            continue
        assert response.status_code == 200
        values = published(response)
        assert check(pool, spanning, values) == []
        with pool.service(1.0) as service:
            structure, problem = service.problem(spanning)
        names = cell_names(structure)
        original = full_original(MICRODATA, spanning, structure)[0].reshape(-1)
        for i in problem.sensitive:
            seen.setdefault(names[i], []).append((original[i], values[names[i]]))
    # senses from each table ('table'): a later table that would give up values published before is
    # withheld, so fewer cells are seen twice
    assert sum(len(pairs) > 1 for pairs in seen.values()) >= 5 or withheld
    assert both_sides(seen) == []


def test_an_unknown_variable_is_a_400_naming_it(pool):
    response = client(pool).get("/tables", params={"spanning": "Region,Industry"})
    assert_json_error(response, 400, "Industry", "Region, Size, Sector")


@pytest.mark.parametrize("query, named", [({"spanning": "Region:9"}, "Region has levels 1 to 2"),
                                          ({"spanning": "Region,,Size"}, "no empty name"),
                                          ({}, "spanning=Region,Size"),
                                          ({"spanning": "Size", "format": "xml"}, "format 'xml'"),
                                          ({"spanning": "Size", "colour": "red"}, "unknown parameter 'colour'"),
                                          ({"spanning": "Region:\u00b2"}, "digits 0-9"),
                                          ({"spanning": "Region:\u0661,Size"}, "digits 0-9"),
                                          ({"spanning": "Region:" + "9" * 5000}, "spanning"),
                                          ({"spanning": "Region:100"}, "from 1 to 99"),
                                          ({"spanning": "Reg\x07ion"}, "spanning"),
                                          ({"spanning": "x" * 101}, "up to 100"),
                                          ({"spanning": ",".join(["Size"] * 17)}, "at most 16")])
def test_a_malformed_query_is_a_400_naming_what_is_wrong(pool, query, named):
    assert_json_error(client(pool).get("/tables", params=query), 400, named)


@pytest.mark.parametrize("body, named", [(b"{not json", "not JSON"), (b"[1, 2]", "JSON object"),
                                         (b'{"spanning": 3}', "spanning=Region,Size"),
                                         (b'{"spanning": ["Size"], "sort": 1}', "unknown key 'sort'"),
                                         (b'{"spanning": ' + b"[" * 5000 + b"]" * 5000 + b"}", "more than 4 deep"),
                                         (b'{"spanning": ' + b"7" * 5000 + b"}", "5000 digits"),
                                         (b'{"spanning": ["\\ud800"]}', "spanning: variable '\\ud800'"),
                                         (b'{"spanning": ["Size"], "format": "\\ud800"}', "format '\\ud800'"),
                                         (b'{"\\ud800": 1}', "unknown key '\\ud800'"),
                                         (b'{"spanning": NaN}', "NaN"),
                                         (b'{"spanning": ["Size"]}\xff', "not UTF-8"),
                                         (b'{"spanning": ["Region:\\u0661"]}', "digits 0-9")])
def test_a_malformed_body_is_a_400_naming_what_is_wrong(pool, body, named):
    response = client(pool).post("/tables", content=body, headers={"content-type": "application/json"})
    assert_json_error(response, 400, named)


def test_an_oversized_body_is_a_413_and_the_server_goes_on(pool):
    app = client(pool, max_body=1000)
    body = json.dumps({"spanning": ["Region"] * 400}).encode()
    assert_json_error(app.post("/tables", content=body), 413, "1000 bytes")
    assert app.post("/tables", json={"spanning": ["Region"]}).status_code == 200


def test_a_table_over_the_cell_limit_is_refused_before_any_work(pool):
    response = client(pool, max_cells=20).get("/tables", params={"spanning": "Region,Size"})
    assert_json_error(response, 400, "Region x Size has 28 cells", "up to 20")
    with pool.service(1.0) as service:
        assert service.store.counts()["tables_requested"] == 0


def test_an_unknown_path_and_method_are_json_errors(pool):
    app = client(pool)
    assert_json_error(app.get("/admin"), 404, "/admin")
    assert_json_error(app.delete("/tables"), 405, "DELETE")


def test_a_failure_inside_is_a_500_whose_detail_stays_in_the_log(pool, monkeypatch, caplog):
    def fail(self, spanning, abandoned=None):
        raise RuntimeError("inner detail: Region=N1 is sensitive")

    monkeypatch.setattr(OnlineService, "publish", fail)
    with caplog.at_level(logging.ERROR, logger="ctadesk.server"):
        response = client(pool).get("/tables", params={"spanning": "Region"})
    message = assert_json_error(response, 500, "reference 1")
    assert "N1" not in message and "sensitive" not in response.text
    assert "inner detail" in caplog.text and "reference 1" in caplog.text


def test_a_withheld_table_is_a_409_saying_why_and_nothing_is_recorded(pool, monkeypatch):
    def withhold(self, spanning, abandoned=None):
        raise TableWithheld("table Size is withheld: no table protects it consistently (2 relations given up)")

    monkeypatch.setattr(OnlineService, "publish", withhold)
    assert_json_error(client(pool).get("/tables", params={"spanning": "Size"}), 409, "withheld", "2 relations")
    assert client(pool).get("/store").json() == {"tables_requested": 0, "tables_published": 0}


@timed
def test_a_request_out_of_time_is_a_503_and_frees_its_worker_later(pool, monkeypatch, timed):
    slow = OnlineService.publish

    def publish(self, spanning, abandoned=None):
        time.sleep(1.0)
        return slow(self, spanning, abandoned)

    monkeypatch.setattr(OnlineService, "publish", publish)
    app = client(pool, request_seconds=0.3)
    started = time.perf_counter()
    assert_json_error(app.get("/tables", params={"spanning": "Size"}), 503, "0.3 s")
    assert not timed or time.perf_counter() - started < 0.9
    assert app.get("/health").status_code == 200
    monkeypatch.setattr(OnlineService, "publish", slow)
    time.sleep(1.5)
    # the abandoned table was worked out but not recorded as published: nobody received it
    assert app.get("/store").json() == {"tables_requested": 1, "tables_published": 0}
    assert client(pool).get("/tables", params={"spanning": "Size"}).status_code == 200
    assert app.get("/store").json() == {"tables_requested": 2, "tables_published": 1}


def test_health_and_store_say_what_is_on_offer_and_published_but_not_the_senses(pool):
    app = client(pool)
    health = app.get("/health").json()
    assert health["measure"] == "Turnover"
    assert health["variables"] == [{"name": "Region", "levels": 2}, {"name": "Size", "levels": 1},
                                   {"name": "Sector", "levels": 1}]
    assert app.get("/store").json() == {"tables_requested": 0, "tables_published": 0}
    app.get("/tables", params={"spanning": "Region,Size"})
    assert app.get("/store").json() == {"tables_requested": 1, "tables_published": 1}
    assert app.get("/senses").status_code == 404        # how many cells are sensitive is the office's


def test_the_slash_form_of_a_path_is_a_404_not_a_redirect_to_the_host_sent(pool):
    response = client(pool).get("/tables/", params={"spanning": "Size"}, headers={"host": "evil.example"},
                                follow_redirects=False)
    assert "location" not in response.headers
    assert "evil.example" not in assert_json_error(response, 404, "/tables/")


def test_an_exception_after_the_handlers_is_still_json(pool, monkeypatch):
    def fail(self, scope, receive, send):
        raise RuntimeError("inner detail")

    monkeypatch.setattr("starlette.applications.Starlette.__call__", fail)
    assert_json_error(client(pool).get("/health"), 500, "the server failed")
