"""Where the server may listen: loopback addresses freely, any other only when the office says so."""

import pytest

pytest.importorskip("starlette")

from ctadesk.engine.errors import CTAError
from ctadesk.server.run import is_loopback, remote_warning


@pytest.mark.parametrize("host", ["127.0.0.1", "127.8.9.10", "::1", "[::1]", "localhost", "LOCALHOST"])
def test_loopback_addresses_are_served_without_a_word(host):
    assert is_loopback(host) and remote_warning(host, allow_remote=False) is None


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.5", "10.0.0.1", "tables.example.org", ""])
def test_any_other_host_is_refused_naming_it_unless_allowed_with_a_warning(host):
    assert not is_loopback(host)
    with pytest.raises(CTAError, match=f"--host {host} is not a loopback address.*--allow-remote"):
        remote_warning(host, allow_remote=False)
    assert "anyone who can reach this machine" in remote_warning(host, allow_remote=True)
