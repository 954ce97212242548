import os
from collections.abc import Iterator

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A PostgreSQL server's URL (tests/postgres.py): CTADESK_TEST_POSTGRES, else a throw-away
    server started from the binaries; skipped only where neither is (CI installs them)."""
    from tests.postgres import ENV, binaries, throwaway_server

    if os.environ.get(ENV):
        yield os.environ[ENV]
        return
    bin_dir = binaries()
    if bin_dir is None:
        pytest.skip(f"no PostgreSQL server: set {ENV} or install the postgresql package")
    with throwaway_server(bin_dir) as url:
        yield url
