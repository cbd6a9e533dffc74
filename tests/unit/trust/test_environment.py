"""CA-bundle variables under the policy: added for their clients, ignored under a lock."""

from __future__ import annotations

import os
import ssl
from pathlib import Path

import pytest

import _pki
from sslcustomize._policy._model import Origin
from sslcustomize._trust._anchors import TrustCache
from sslcustomize._trust._environment import (
    entry_for_path,
    ignored_notice,
    pip_config_cert,
    read_environment,
)
from sslcustomize._x509._subjecthash import subject_hash

LOCK = Origin(layer="system", path="/etc/sslcustomize/policy.toml", line=3)


@pytest.fixture
def bundle(pki: _pki.TestPKI, tmp_path: Path) -> Path:
    """A PEM bundle holding the test PKI's root."""
    path = tmp_path / "ca.pem"
    path.write_bytes(pki["good"].ca_pem)
    return path


def test_a_variable_adds_its_bundle_for_its_clients_only(bundle: Path) -> None:
    """REQUESTS_CA_BUNDLE adds for requests and pip, not for smtplib; SSL_CERT_FILE for all."""
    entries = read_environment({}, {"REQUESTS_CA_BUNDLE": str(bundle), "SSL_CERT_FILE": ""})
    (entry,) = entries  # an empty value counts as unset
    assert entry.state == "added"
    assert [source.path for source in entry.sources] == [str(bundle)]
    assert entry.sources[0].origin.path == "$REQUESTS_CA_BUNDLE"
    assert entry.applies_to("requests.adapters")
    assert entry.applies_to("pip._vendor.requests")
    assert not entry.applies_to("smtplib")
    assert not entry.applies_to("requestsfoo")
    (every,) = read_environment({}, {"SSL_CERT_FILE": str(bundle)})
    assert every.applies_to("smtplib")


def test_a_lock_on_trust_ignores_every_variable_without_reading_it(tmp_path: Path) -> None:
    """Attack: under the system layer's lock a variable adds nothing, even a readable bundle."""
    missing = tmp_path / "not-read.pem"
    (entry,) = read_environment({"trust": LOCK}, {"REQUESTS_CA_BUNDLE": str(missing)})
    assert entry.state == "ignored"
    assert entry.sources == ()
    assert entry.why == str(LOCK)
    notice = ignored_notice(entry)
    assert "locks trust (/etc/sslcustomize/policy.toml:3)" in notice
    assert notice.endswith("\n")


def test_a_variable_naming_nothing_usable_says_why(tmp_path: Path) -> None:
    """A missing file or a directory without hashes is unusable, with the reason."""
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "ca.pem").write_text("x", encoding="utf-8")
    entries = read_environment(
        {}, {"CURL_CA_BUNDLE": str(tmp_path / "missing.pem"), "SSL_CERT_DIR": str(plain)}
    )
    states = {entry.variable: entry for entry in entries}
    assert states["CURL_CA_BUNDLE"].state == "unusable"
    assert states["SSL_CERT_DIR"].state == "unusable"
    assert "hashed directory" in (states["SSL_CERT_DIR"].why or "")
    assert "verify with the policy's trust alone" in ignored_notice(states["CURL_CA_BUNDLE"])


def test_ssl_cert_dir_is_a_list_and_one_good_directory_is_enough(
    bundle: Path, tmp_path: Path
) -> None:
    """SSL_CERT_DIR is read as OpenSSL reads it: several directories, the usable ones added."""
    hashed = tmp_path / "hashed"
    hashed.mkdir()
    der = ssl.PEM_cert_to_DER_cert(bundle.read_text(encoding="ascii"))
    (hashed / f"{subject_hash(der):08x}.0").write_bytes(bundle.read_bytes())
    value = os.pathsep.join([str(tmp_path / "nothing"), str(hashed)])
    (entry,) = read_environment({}, {"SSL_CERT_DIR": value})
    assert entry.state == "added"
    assert [(s.kind, s.path) for s in entry.sources] == [("directory", str(hashed))]


def test_one_bundle_named_by_several_variables_is_checked_once(bundle: Path) -> None:
    """Four variables naming one bundle give four entries from one check."""
    trust = TrustCache()
    names = ("SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "PIP_CERT")
    entries = read_environment({}, dict.fromkeys(names, str(bundle)), trust=trust)
    assert [entry.variable for entry in entries] == list(names)
    assert {entry.state for entry in entries} == {"added"}


def test_a_path_equal_to_a_variable_is_that_variable(bundle: Path) -> None:
    """requests' verify=path is traced to its variable only for that variable's clients."""
    environment = read_environment({}, {"REQUESTS_CA_BUNDLE": str(bundle)})
    found = entry_for_path(environment, str(bundle), "requests.adapters")
    assert found is not None
    assert found.variable == "REQUESTS_CA_BUNDLE"
    assert entry_for_path(environment, str(bundle), "smtplib") is None
    assert entry_for_path(environment, "/other.pem", "requests") is None


def test_pip_cert_is_read_from_pips_configuration(tmp_path: Path) -> None:
    """pip.conf's [install] cert is found with its file; PIP_CONFIG_FILE=os.devnull reads none."""
    config = tmp_path / "pip.conf"
    config.write_text("[global]\ntimeout = 5\n[install]\ncert = /corp/ca.pem\n", encoding="utf-8")
    environ = {"PIP_CONFIG_FILE": str(config), "XDG_CONFIG_DIRS": str(tmp_path / "none")}
    environ["XDG_CONFIG_HOME"] = str(tmp_path / "home")
    assert pip_config_cert(environ) == ("/corp/ca.pem", f"{config} [install]")
    assert pip_config_cert({"PIP_CONFIG_FILE": os.devnull}) is None
