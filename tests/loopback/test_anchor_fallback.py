"""A trust source that breaks between its check and its first use: both ways fail alike, closed.

``load_anchors`` gives a context the policy's anchors in two ways: deferred (a policy
context records them and registers them at its first use) and at once (a library's own
context, a shared one). A source that fails the trust check gives the system store on both;
one that passed the check and cannot be loaded when first used (deleted or rewritten within
the check's interval) is replaced by nothing on both, and nothing connects with it (a bundle
turned into a cached hashed directory at the check is a copy that does not break). The trust
cache runs on a clock the test holds still, so the source is not checked again in between.
Each case has its twin with the source intact: the policy's server connects, the attacker's
(a certificate from a CA of its own, for the same name) is refused.
"""

from __future__ import annotations

import http.client
import ssl
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
import trustme

import _servers
import sslcustomize
from _fixtures import ManualClock, WritePolicy, use_clock, wrapped_rejection
from sslcustomize._connection._contexts import load_anchors
from sslcustomize._runtime._state import current_runtime
from sslcustomize._support._sslclass import StdlibContext

Break = Callable[[Path], None]


def _garbage(path: Path) -> None:
    path.write_text("not a certificate any more\n", "utf-8")


def _deleted(path: Path) -> None:
    path.unlink()


BREAKS = {"rewritten as garbage": _garbage, "deleted": _deleted}


def _server(ca: trustme.CA) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ca.issue_cert("127.0.0.1").configure_cert(context)
    return context


@pytest.fixture
def servers(test_ca: trustme.CA) -> Iterator[dict[str, _servers.ServerAddress]]:
    """The policy's server (its CA in the policy) and the attacker's (a CA of its own)."""
    with (
        _servers.serve_tls(_server(test_ca)) as legitimate,
        _servers.serve_tls(_server(trustme.CA())) as attacker,
    ):
        yield {"legitimate": legitimate, "attacker": attacker}


@pytest.fixture
def corp_ca(
    test_ca: trustme.CA, tmp_path: Path, write_policy: WritePolicy, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """The policy's only trust source, checked once: the trust cache's clock then stands still.

    Loaded as the file itself: no cache directory can be made (XDG_CACHE_HOME names a file),
    so nothing is a copy of it (a bundle turned into a cached hashed directory is read once,
    at the check, and its copy does not break with it).
    """
    not_a_directory = tmp_path / "cache"
    not_a_directory.write_text("", "utf-8")
    monkeypatch.setenv("XDG_CACHE_HOME", str(not_a_directory))
    path = tmp_path / "corp.pem"
    test_ca.cert_pem.write_to_path(str(path))
    sslcustomize.inject(write_policy(f"trust = ['{path}']\n"))
    use_clock(ManualClock())
    current_runtime().trust.anchors_for(current_runtime().base_decision(None).trust)
    return path


def _get(context: ssl.SSLContext, server: _servers.ServerAddress) -> int:
    connection = http.client.HTTPSConnection(server.host, server.port, context=context, timeout=10)
    try:
        connection.request("GET", "/")
        return connection.getresponse().status
    finally:
        connection.close()


# --- Deferred: a policy context registers its anchors at its first use -------------------------


@pytest.mark.parametrize("broken", BREAKS)
def test_deferred_anchors_broken_before_first_use_refuse_every_server(
    corp_ca: Path, servers: dict[str, _servers.ServerAddress], broken: str
) -> None:
    """The source breaks after the context is made: its first connections are refused."""
    context = ssl.create_default_context()
    assert isinstance(context, sslcustomize.PolicyContext)
    BREAKS[broken](corp_ca)
    for server in servers.values():  # the policy's own too: nothing stands in for the source
        with pytest.raises(sslcustomize.CertificateRejected):
            _get(context, server)


def test_deferred_anchors_intact_connect_the_policy_server_only(
    corp_ca: Path, servers: dict[str, _servers.ServerAddress]
) -> None:
    """The twin: the source intact, the policy's server connects and the attacker's is refused."""
    context = ssl.create_default_context()
    assert _get(context, servers["legitimate"]) == 200
    with pytest.raises(sslcustomize.CertificateRejected):
        _get(context, servers["attacker"])


# --- At once: a library's own context gets the anchors when it is handed to the policy ---------


class _OwnContextAdapter(requests.adapters.HTTPAdapter):
    """A requests adapter whose pools use a context the program made itself (no policy class)."""

    def __init__(self, context: ssl.SSLContext) -> None:
        self.own_context = context
        super().__init__()

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        kwargs["ssl_context"] = self.own_context
        super().init_poolmanager(*args, **kwargs)


def _requests_get(context: ssl.SSLContext, server: _servers.ServerAddress) -> int:
    with requests.Session() as session:
        session.mount("https://", _OwnContextAdapter(context))
        return session.get(server.url(), timeout=10).status_code


@pytest.mark.parametrize("broken", BREAKS)
def test_anchors_at_once_broken_before_first_use_refuse_every_server(
    corp_ca: Path, servers: dict[str, _servers.ServerAddress], broken: str
) -> None:
    """requests hands its own context to the policy after the source broke: no connection."""
    context = StdlibContext(ssl.PROTOCOL_TLS_CLIENT)
    BREAKS[broken](corp_ca)
    for server in servers.values():
        with pytest.raises(sslcustomize.TrustError, match="cannot be loaded any more"):
            _requests_get(context, server)
        assert context.cert_store_stats()["x509_ca"] == 0  # nothing loaded in its place
    with pytest.raises(sslcustomize.TrustError):
        load_anchors(StdlibContext(ssl.PROTOCOL_TLS_CLIENT), current_runtime().base_decision(None))


def test_anchors_at_once_intact_connect_the_policy_server_only(
    corp_ca: Path, servers: dict[str, _servers.ServerAddress]
) -> None:
    """The twin: requests' own context with the policy's anchors verifies as the policy says."""
    context = StdlibContext(ssl.PROTOCOL_TLS_CLIENT)
    assert _requests_get(context, servers["legitimate"]) == 200
    with pytest.raises(requests.exceptions.SSLError) as raised:
        _requests_get(context, servers["attacker"])
    assert isinstance(raised.value, requests.exceptions.SSLError)
    assert wrapped_rejection(raised.value) is not None or "CERTIFICATE_VERIFY_FAILED" in str(
        raised.value
    )


# --- A source that fails the check: the system store, on both ways ------------------------------


def test_a_source_failing_the_check_gives_the_system_store_on_both_ways(
    corp_ca: Path,
    servers: dict[str, _servers.ServerAddress],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Broken before the runtime checks it: both ways trust the system store (said once)."""
    _garbage(corp_ca)
    use_clock(ManualClock())  # a new runtime: its trust cache checks the source afresh
    capsys.readouterr()
    deferred = ssl.create_default_context()
    at_once = StdlibContext(ssl.PROTOCOL_TLS_CLIENT)
    load_anchors(at_once, current_runtime().base_decision(None))
    for context in (deferred, at_once):
        for server in servers.values():  # the test CAs are in no system store
            with pytest.raises(ssl.SSLCertVerificationError):
                _get(context, server)
    assert capsys.readouterr().err.count("using the system store") == 1
