"""The policy as values: origins, expiry, the variables' clients, the fallback's words."""

from __future__ import annotations

import datetime as dt

from sslcustomize._policy._hosts import parse_host_pattern
from sslcustomize._policy._model import (
    DEFAULT,
    EnvTrust,
    HostException,
    LayerFile,
    Origin,
    Policy,
    TrustSource,
    clients_text,
)
from sslcustomize.exceptions import PolicyError

HERE = Origin(layer="user", path="/p.toml", line=4)


def test_an_origin_reads_as_path_and_line() -> None:
    """path:line, the path alone, or <layer> for a built-in value."""
    assert str(HERE) == "/p.toml:4"
    assert str(Origin(layer="user", path="/p.toml")) == "/p.toml"
    assert str(DEFAULT) == "<default>"


def test_a_trust_source_reads_as_the_policy_writes_it() -> None:
    """A file is its path; the system store is its kind."""
    assert str(TrustSource(kind="file", path="/ca.pem")) == "/ca.pem"
    assert str(TrustSource(kind="system")) == "system"


def test_an_exception_expires_on_its_date() -> None:
    """It applies the day before, and not on or after the date."""
    exception = HostException(
        host=parse_host_pattern("nas.example"), reason="r", origin=HERE,
        expires_day=dt.date(2027, 3, 1).toordinal(),
    )  # fmt: skip
    assert not exception.expired(dt.date(2027, 2, 28))
    assert exception.expired(dt.date(2027, 3, 1))
    assert exception.expires == dt.date(2027, 3, 1)
    forever = HostException(host=parse_host_pattern("nas.example"), reason="r", origin=HERE)
    assert not forever.expired(dt.date(9999, 1, 1))
    assert forever.expires is None


def test_a_variable_applies_to_its_clients_and_their_submodules() -> None:
    """requests' variable applies to requests.adapters, not to requests_toolbelt."""
    entry = EnvTrust(variable="REQUESTS_CA_BUNDLE", value="/ca.pem", clients=("requests",),
                     state="added")  # fmt: skip
    assert entry.applies_to("requests")
    assert entry.applies_to("requests.adapters")
    assert not entry.applies_to("requests_toolbelt")
    assert not entry.applies_to(None)
    assert entry.describe() == "REQUESTS_CA_BUNDLE adds its CAs to the policy's trust for requests"
    every = EnvTrust(variable="SSL_CERT_FILE", value="/x", clients=(), state="unusable", why="no")
    assert every.applies_to(None)
    assert every.describe() == "SSL_CERT_FILE is ignored: no"


def test_clients_are_named_for_a_person() -> None:
    """() is every client; several are joined with and."""
    assert clients_text(()) == "every client"
    assert clients_text(("requests", "pip")) == "requests and pip"


def test_the_fallback_says_what_applies() -> None:
    """With errors the policy is the fallback; its summary depends on a system layer."""
    assert not Policy().fallback
    error = PolicyError("bad", path="/p", line=None, key=None)
    assert Policy(errors=(error,)).fallback_summary.startswith("strict defaults")
    system = LayerFile(layer="system", path="/etc/p.toml", scalars={})
    kept = Policy(errors=(error,), files=(system,))
    assert kept.fallback
    assert kept.fallback_summary.startswith("the system policy as written")


def test_the_defaults_are_strict() -> None:
    """No file: enforce, the system store, TLS 1.2 at least, no exceptions."""
    policy = Policy()
    assert policy.mode.value == "enforce"
    assert [source.kind for source in policy.trust] == ["system"]
    assert policy.minimum_tls.value == "1.2"
    assert policy.exceptions == ()
