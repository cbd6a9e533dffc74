"""A trust anchor removed is not trusted by what is made one second later (issue 22 #14).

It was trusted for up to two minutes: bundles were re-checked every 60 s and the contexts kept
for many connections (engines, http.client's shared context, cached verdicts) lived one more
60-s generation. The removed CA's server stands for the MITM; the CA kept is its twin.
"""

from __future__ import annotations

import http.client
import os
import ssl
import subprocess
import sys
from pathlib import Path

import pytest
import trustme

import _pki
import _servers
import sslcustomize
from _fixtures import ManualClock, WritePolicy, memory_handshake, use_clock
from sslcustomize._runtime._state import current_runtime
from sslcustomize._trust import _anchors as _trust
from sslcustomize._x509._subjecthash import subject_hash


def _server(ca: trustme.CA) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ca.issue_cert("localhost").configure_cert(context)
    return context


def _accepts(context: ssl.SSLContext, ca: trustme.CA) -> bool:
    try:
        memory_handshake(context, _server(ca), "localhost")
    except ssl.SSLCertVerificationError:
        return False
    return True


def _shared() -> ssl.SSLContext:
    """The context http.client's default path gets (one shared per policy)."""
    return http.client.HTTPSConnection("localhost")._context  # type: ignore[attr-defined,no-any-return]


@pytest.fixture
def clock() -> ManualClock:
    """The trust sources' clock, moved by hand (the tests give it to their runtime)."""
    return ManualClock()


def test_a_ca_removed_from_a_bundle_is_refused_one_second_later(
    tmp_path: Path, clock: ManualClock, write_policy: WritePolicy
) -> None:
    """New and shared contexts stop trusting a removed CA 1 s later; the CA kept stays trusted."""
    kept, removed = trustme.CA(), trustme.CA()
    bundle = tmp_path / "bundle.pem"
    bundle.write_bytes(kept.cert_pem.bytes() + removed.cert_pem.bytes())
    sslcustomize.inject(write_policy(f"version = 1\ntrust = ['{bundle}']\n"))
    use_clock(clock)
    assert _accepts(ssl.create_default_context(), removed)
    assert _accepts(_shared(), removed)
    assert _trust.REFRESH_INTERVAL == 1.0
    bundle.write_bytes(kept.cert_pem.bytes())
    clock.now += 1.0  # one second, whatever the interval
    assert not _accepts(_shared(), removed)
    assert not _accepts(ssl.create_default_context(), removed)
    assert _accepts(ssl.create_default_context(), kept)
    assert _accepts(_shared(), kept)


def test_a_ca_removed_from_the_system_directory_is_refused_one_second_later(
    tmp_path: Path, clock: ManualClock, monkeypatch: pytest.MonkeyPatch, write_policy: WritePolicy
) -> None:
    """update-ca-certificates removing a hashed entry: refused 1 s later, the other CA kept."""
    kept, removed = trustme.CA(), trustme.CA()
    directory = tmp_path / "certs"
    directory.mkdir()
    entries = {}
    for ca in (kept, removed):
        der = ssl.PEM_cert_to_DER_cert(ca.cert_pem.bytes().decode("ascii"))
        entries[ca] = directory / f"{subject_hash(der):08x}.0"
        entries[ca].write_bytes(ca.cert_pem.bytes())
    store = _trust.SystemStore(file=None, directory=str(directory), found_by="test")
    monkeypatch.setattr(_trust, "find_system_store", lambda: store)
    sslcustomize.inject(write_policy("version = 1\ntrust = ['system']\n"))
    use_clock(clock)
    shared = _shared()
    assert _accepts(shared, removed)  # the shared context has now loaded the removed CA
    assert _accepts(ssl.create_default_context(), removed)
    entries[removed].unlink()
    clock.now += 1.0  # one second, whatever the interval
    assert not _accepts(_shared(), removed)
    assert not _accepts(ssl.create_default_context(), removed)
    assert _accepts(_shared(), kept)


def test_an_unchanged_source_keeps_what_was_built(
    tmp_path: Path, clock: ManualClock, write_policy: WritePolicy
) -> None:
    """The twin: with nothing changed, a re-check keeps the shared context (no rebuild)."""
    ca = trustme.CA()
    bundle = tmp_path / "bundle.pem"
    bundle.write_bytes(ca.cert_pem.bytes())
    os.utime(bundle, ns=(0, 0))
    sslcustomize.inject(write_policy(f"version = 1\ntrust = ['{bundle}']\n"))
    use_clock(clock)
    first = _shared()
    runtime = current_runtime()
    generation = runtime.generation()
    clock.now += 10 * _trust.REFRESH_INTERVAL
    assert runtime.generation() == generation
    assert _shared() is first
    assert _accepts(first, ca)


_PROGRAM = r"""
import http.client, os, ssl, sys, time
import requests
bundle, without, removed, kept = sys.argv[1:]
CLIENTS = ("http.client", "requests")

def verdict(client, port):
    try:
        if client == "http.client":  # a context per connection (the shared one under the hook)
            connection = http.client.HTTPSConnection("localhost", int(port), timeout=10)
            connection.request("GET", "/")
            connection.getresponse().read()
            connection.close()
        else:
            requests.get(f"https://localhost:{port}/", timeout=10)
        return "accepted"
    except (ssl.SSLCertVerificationError, requests.exceptions.SSLError):
        return "rejected"

out = [verdict(c, removed) for c in CLIENTS]
os.replace(without, bundle)
time.sleep(1.0)
out += [verdict(c, removed) for c in CLIENTS]
out += [verdict(c, kept) for c in CLIENTS]
print("\n".join(out))
"""


def test_a_running_program_refuses_a_removed_ca_one_second_later(tmp_path: Path) -> None:
    """Through the .pth hook, http.client and requests refuse a removed CA 1 s on; not the kept."""
    kept, removed = _pki.TestPKI(), _pki.TestPKI()
    bundle, without = tmp_path / "bundle.pem", tmp_path / "without.pem"
    bundle.write_bytes(kept.root_pem + removed.root_pem)
    without.write_bytes(kept.root_pem)
    policy = tmp_path / "policy.toml"
    policy.write_text(f"version = 1\ntrust = ['{bundle}']\n")
    env = {**os.environ, "SSLCUSTOMIZE_POLICY": str(policy)}
    with (
        _servers.serve_https(removed["good"]) as mitm,
        _servers.serve_https(kept["good"]) as good,
    ):
        argv = [str(bundle), str(without), str(mitm.port), str(good.port)]
        result = subprocess.run(
            [sys.executable, "-c", _PROGRAM, *argv],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["accepted"] * 2 + ["rejected"] * 2 + ["accepted"] * 2


_DELETING = r"""
import http.client, os, ssl, sys, time
ca_file, port, delete = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "delete"

def verdict():
    try:
        connection = http.client.HTTPSConnection("localhost", port, timeout=10)
        connection.request("GET", "/")
        connection.getresponse().read()
        connection.close()
        return "accepted"
    except ssl.SSLCertVerificationError:
        return "rejected"

out = [verdict()]
if delete:
    os.unlink(ca_file)
time.sleep(1.1)
out.append(verdict())
print("\n".join(out))
"""


@pytest.mark.parametrize(
    ("delete", "expected"),
    [
        pytest.param(True, ["accepted", "rejected"], id="deleted"),
        pytest.param(False, ["accepted", "accepted"], id="kept"),
    ],
)
def test_a_ca_file_deleted_from_disk_is_refused_one_second_later(
    tmp_path: Path, delete: bool, expected: list[str]
) -> None:
    """Through the .pth hook: a trusted CA file deleted is refused >1 s on; kept, still trusted."""
    pki = _pki.TestPKI()
    ca_file = tmp_path / "corp-ca.pem"
    ca_file.write_bytes(pki.root_pem)
    policy = tmp_path / "policy.toml"
    policy.write_text(f"version = 1\ntrust = ['system', '{ca_file}']\n")
    env = {**os.environ, "SSLCUSTOMIZE_POLICY": str(policy)}
    with _servers.serve_https(pki["good"]) as server:
        argv = [str(ca_file), str(server.port), "delete" if delete else "keep"]
        result = subprocess.run(
            [sys.executable, "-c", _DELETING, *argv],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == expected
