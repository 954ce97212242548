"""A PostgreSQL server for the sense store's tests: the one CTADESK_TEST_POSTGRES names (.ci/run
starts one and sets it), else a throw-away server started here from the PostgreSQL binaries
(initdb, pg_ctl: Debian's postgresql package), on 127.0.0.1 with its socket in a temporary
folder, as the postgres user when the tests run as root (postgres refuses root).  Each test gets
a schema of its own (fresh_schema)."""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

#: the environment variable naming a running server (postgresql://user@host:port/database)
ENV = "CTADESK_TEST_POSTGRES"
#: seconds the throw-away server may take to start
START_WAIT = 60


def binaries() -> Path | None:
    """The folder holding initdb and pg_ctl (PATH first, then Debian's newest); None without."""
    found = shutil.which("pg_ctl")
    if found and shutil.which("initdb"):
        return Path(found).resolve().parent
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"), key=lambda p: int(p.parts[-3]))
    return versions[-1].parent if versions else None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def throwaway_server(bin_dir: Path) -> Iterator[str]:
    """A PostgreSQL server in a temporary folder for the length of the block; its URL."""
    folder = Path(tempfile.mkdtemp(prefix="ctadesk-pg-"))
    as_user: list[str] = []
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres")
        as_user = ["runuser", "-u", "postgres", "--"]
    data, port = folder / "data", _free_port()
    try:
        subprocess.run([*as_user, str(bin_dir / "initdb"), "-D", str(data), "-A", "trust", "-U", "ctadesk",
                        "--no-sync"], check=True, capture_output=True)
        subprocess.run([*as_user, str(bin_dir / "pg_ctl"), "-D", str(data), "-l", str(folder / "log"), "-w",
                        "-t", str(START_WAIT), "-o",
                        f"-c listen_addresses=127.0.0.1 -p {port} -k {folder} -c fsync=off", "start"],
                       check=True, capture_output=True)
        yield f"postgresql://ctadesk@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run([*as_user, str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
                       capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def fresh_schema(url: str) -> Iterator[str]:
    """A new, empty schema on the server at ``url`` for the length of the block; the URL that
    keeps a store in it (search_path), dropped with everything in it afterwards."""
    import psycopg

    name = f"test_{secrets.token_hex(6)}"
    with psycopg.connect(url, autocommit=True) as db:
        db.execute(f"CREATE SCHEMA {name}")
    separator = "&" if "?" in url else "?"
    try:
        yield f"{url}{separator}options=-csearch_path%3D{name}"
    finally:
        with psycopg.connect(url, autocommit=True) as db:
            db.execute(f"DROP SCHEMA {name} CASCADE")
