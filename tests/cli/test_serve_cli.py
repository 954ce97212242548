"""`ctadesk serve`: the table server over real HTTP on loopback (uvicorn in a subprocess):
concurrent requests, a malformed one, an oversized one and a broken HTTP request are all
answered, the service stays up, and the concurrent tables agree on every sensitive cell."""

import concurrent.futures
import json
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from ctadesk.app.online import OnlineService
from ctadesk.cli import main
from ctadesk.io.microdata import MicrodataSpec, read_csv_microdata
from tests.app.online.checker import both_sides, cell_names, full_original
from tests.app.online.synthetic import RULES, firms

RULE_OPTIONS = ["--min-freq", "3", "--freq-range", "10", "--p-percent", "10"]
TABLES = ["Region,Size", "Size,Sector", "Region,Sector", "Region,Size,Sector", "Sector,Region", "Size", "Region",
          "Sector,Size,Region"]
STARTUP = 60.0


def firms_csv(path) -> None:
    """The synthetic firms (tests.app.online.synthetic, Region flat) as a CSV file."""
    microdata = firms(seed=0)
    lines = ["Region,Size,Sector,Turnover"]
    for r in range(microdata.n_records):
        codes = [d.codes[c[r]] for d, c in zip(microdata.structure.dimensions, microdata.codes)]
        lines.append(",".join([*codes, repr(float(microdata.response[r]))]))
    path.write_text("\n".join(lines) + "\n")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def fetch(url: str, body: bytes | None = None) -> tuple[int, dict | str]:
    request = urllib.request.Request(url, data=body, headers={"content-type": "application/json"} if body else {})
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            status, text, kind = response.status, response.read().decode(), response.headers["content-type"]
    except urllib.error.HTTPError as error:
        status, text, kind = error.code, error.read().decode(), error.headers["content-type"]
    return status, json.loads(text) if kind.startswith("application/json") else text


@pytest.fixture
def server(tmp_path):
    pytest.importorskip("uvicorn")
    pytest.importorskip("starlette")
    firms_csv(tmp_path / "firms.csv")
    port = free_port()
    log = (tmp_path / "server.log").open("w")
    options = ["--store", str(tmp_path / "senses.db"), "--microdata", str(tmp_path / "firms.csv"), "--span", "Region",
               "Size", "Sector", "--response", "Turnover", *RULE_OPTIONS]
    assert main(["serve", *options, "--init-store"]) == 0
    process = subprocess.Popen(
        [sys.executable, "-m", "ctadesk", "serve", *options, "--port", str(port), "--max-body", "2000", "--workers",
         "2"], stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    ends = time.monotonic() + STARTUP
    while True:
        try:
            if fetch(url + "/health")[0] == 200:
                break
        except OSError:
            pass
        if process.poll() is not None or time.monotonic() > ends:
            process.kill()
            pytest.fail("the server did not start: " + (tmp_path / "server.log").read_text())
        time.sleep(0.2)
    yield url, tmp_path
    process.send_signal(signal.SIGINT)
    try:
        assert process.wait(30) == 0
    finally:
        process.kill()
        log.close()


def test_the_server_answers_everything_over_loopback_and_stays_consistent(server):
    url, folder = server
    with concurrent.futures.ThreadPoolExecutor(len(TABLES)) as workers:
        answers = list(workers.map(lambda spanning: fetch(f"{url}/tables?spanning={spanning}"), TABLES))
    statuses = [status for status, _ in answers]
    # a table no protected table fits consistently is withheld (409, issue 30); the rest are served
    assert set(statuses) <= {200, 409} and statuses.count(200) >= len(TABLES) // 2, answers

    status, body = fetch(f"{url}/tables?spanning=Region,Industry")
    assert status == 400 and "Industry" in body["error"]
    status, body = fetch(f"{url}/tables", json.dumps({"spanning": ["Region"] * 500}).encode())
    assert status == 413 and list(body) == ["error"]
    with socket.create_connection(("127.0.0.1", int(url.rsplit(":", 1)[1])), timeout=10) as broken:
        broken.sendall(b"NOT HTTP AT ALL\r\n\r\n")
        assert broken.recv(100).startswith(b"HTTP/1.1 400")
    assert fetch(f"{url}/health")[0] == 200
    status, body = fetch(f"{url}/tables?spanning=Size,Region&format=csv")
    assert status == 200 and body.splitlines()[0] == "Size,Region,Turnover,status"

    seen: dict = {}
    microdata = read_csv_microdata(folder / "firms.csv", MicrodataSpec(("Region", "Size", "Sector"), "Turnover"))
    with OnlineService(folder / "senses.db", microdata, RULES, measure="Turnover") as service:
        for spanning, (status, table) in zip(TABLES, answers):
            if status != 200:
                continue
            spanning = tuple(spanning.split(","))
            structure, problem = service.problem(spanning)
            names = cell_names(structure)
            original = full_original(microdata, spanning, structure)[0].reshape(-1)
            values = {tuple(sorted((name, code) for name, code in cell.items()
                                   if name not in ("Turnover", "status") and code != "Total")): cell["Turnover"]
                      for cell in table["cells"]}
            for i in problem.sensitive:
                seen.setdefault(names[i], []).append((original[i], values[names[i]]))
        assert service.store.counts()["tables_published"] == statuses.count(200) + 1   # and the CSV one
    assert sum(len(pairs) > 1 for pairs in seen.values()) >= 5 or 409 in statuses
    assert both_sides(seen) == []
    assert "Traceback" not in (folder / "server.log").read_text()


def test_a_host_other_machines_reach_is_refused_without_allow_remote(tmp_path, capsys):
    pytest.importorskip("starlette")
    firms_csv(tmp_path / "firms.csv")
    code = main(["serve", "--store", str(tmp_path / "senses.db"), "--microdata", str(tmp_path / "firms.csv"),
                 "--span", "Region", "Size", "--response", "Turnover", "--host", "0.0.0.0"])
    assert code == 2
    assert "--host 0.0.0.0 is not a loopback address" in capsys.readouterr().err
    assert not (tmp_path / "senses.db").exists()


def test_the_server_starts_only_on_a_store_made_for_its_data(tmp_path, capsys):
    pytest.importorskip("starlette")
    firms_csv(tmp_path / "firms.csv")
    options = ["serve", "--store", str(tmp_path / "senses.db"), "--microdata", str(tmp_path / "firms.csv"),
               "--span", "Region", "Size", "--response", "Turnover", "--senses", "local", *RULE_OPTIONS]
    assert main(options) == 2
    assert "senses.db does not exist: a sense store is made only by --init-store" in capsys.readouterr().err
    assert main([*options, "--init-store"]) == 0
    assert main([*options, "--init-store"]) == 2
    assert "already holds a sense store" in capsys.readouterr().err
    assert main([*options[:-6], "--min-freq", "4", *RULE_OPTIONS[2:]]) == 2
    assert "other safety rules (min_frequency 3 there, 4 here)" in capsys.readouterr().err
