"""The pool the server tests serve from (tests.server.serving.make_pool)."""

import pytest


@pytest.fixture
def pool(tmp_path):
    from tests.server.serving import make_pool

    with make_pool(tmp_path) as pool:
        yield pool
