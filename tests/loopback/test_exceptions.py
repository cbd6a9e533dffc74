"""Scoped exceptions, report mode and code opt-outs, each success with its failure twin."""

from __future__ import annotations

import json
import socket
import ssl
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
import trustme

import _pki
import sslcustomize
from _fixtures import WritePolicy, memory_handshake
from sslcustomize._x509._der import spki_pin

if TYPE_CHECKING:
    from conftest import StartServer


@pytest.fixture(scope="module")
def appliance() -> trustme.LeafCert:
    """A self-signed-style server: its own throwaway CA, which nobody trusts."""
    return trustme.CA().issue_cert("nas.corp.example", "10.0.0.5")


def _server(leaf: trustme.LeafCert) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    leaf.configure_cert(context)
    return context


def _pin(leaf: trustme.LeafCert) -> str:
    return spki_pin(ssl.PEM_cert_to_DER_cert(leaf.cert_chain_pems[0].bytes().decode()))


def _records(path: Path) -> list[dict[str, object]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


def _exception(host: str, body: str, reason: str = "test") -> str:
    return f"[[exception]]\nhost = '{host}'\n{body}\nreason = '{reason}'\n"


def test_right_pin_accepts_wrong_pin_rejects(
    write_policy: WritePolicy, appliance: trustme.LeafCert
) -> None:
    """The pinned key is trusted for its host; a different pin rejects with pin_mismatch."""
    pin = _pin(appliance)
    sslcustomize.inject(write_policy(_exception("nas.corp.example", f"pin = ['{pin}']")))
    assert memory_handshake(ssl.create_default_context(), _server(appliance), "nas.corp.example")
    wrong = "sha256/" + "A" * 43 + "="
    sslcustomize.inject(write_policy(_exception("nas.corp.example", f"pin = ['{wrong}']")))
    with pytest.raises(sslcustomize.CertificateRejected) as caught:
        memory_handshake(ssl.create_default_context(), _server(appliance), "nas.corp.example")
    assert caught.value.reasons[0] == "pin_mismatch"
    assert caught.value.rule == "exception nas.corp.example"
    assert "matches none of the pins" in str(caught.value)


def test_pin_does_not_apply_to_another_host(
    write_policy: WritePolicy, appliance: trustme.LeafCert
) -> None:
    """A pin for nas.corp.example does not make the same key acceptable for 10.0.0.5."""
    pin = _pin(appliance)
    sslcustomize.inject(write_policy(_exception("nas.corp.example", f"pin = ['{pin}']")))
    with pytest.raises(sslcustomize.CertificateRejected) as caught:
        memory_handshake(ssl.create_default_context(), _server(appliance), "10.0.0.5")
    assert caught.value.rule == "default"


def test_pin_without_hostname_check_accepts_misnamed_certificate(
    write_policy: WritePolicy, appliance: trustme.LeafCert
) -> None:
    """check_hostname = false with a pin: the key is the identity, the name is not checked."""
    pin = _pin(appliance)
    text = _exception("wrong-name.example", f"pin = ['{pin}']\ncheck_hostname = false")
    sslcustomize.inject(write_policy(text))
    assert memory_handshake(ssl.create_default_context(), _server(appliance), "wrong-name.example")
    sslcustomize.inject(write_policy(_exception("wrong-name.example", f"pin = ['{pin}']")))
    with pytest.raises(sslcustomize.CertificateRejected) as caught:
        memory_handshake(ssl.create_default_context(), _server(appliance), "wrong-name.example")
    assert caught.value.reasons == ("hostname_mismatch",)


def test_pin_of_a_ca_in_the_verified_chain(write_policy: WritePolicy, tmp_path: Path) -> None:
    """A pin on the issuing CA's key accepts a chain that verifies; not one that does not."""
    ca = trustme.CA()
    leaf = ca.issue_cert("api.corp.example")
    ca_file = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    ca_pin = spki_pin(ssl.PEM_cert_to_DER_cert(ca.cert_pem.bytes().decode()))
    text = f"trust = ['{ca_file}']\n" + _exception("api.corp.example", f"pin = ['{ca_pin}']")
    sslcustomize.inject(write_policy(text))
    assert memory_handshake(ssl.create_default_context(), _server(leaf), "api.corp.example")
    # The same CA pin, but the CA is not trusted: a key merely present in an unverified chain
    # never satisfies a pin.
    sslcustomize.inject(write_policy(_exception("api.corp.example", f"pin = ['{ca_pin}']")))
    with pytest.raises(sslcustomize.CertificateRejected) as caught:
        memory_handshake(ssl.create_default_context(), _server(leaf), "api.corp.example")
    assert caught.value.reasons[0] == "pin_mismatch"


def test_per_host_ca_does_not_leak_to_other_hosts(
    write_policy: WritePolicy, tmp_path: Path
) -> None:
    """A CA given for one host verifies that host only; another name from it is rejected."""
    ca = trustme.CA()
    ca_file = tmp_path / "nas-ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    leaf = ca.issue_cert("nas.corp.example", "other.corp.example")
    sslcustomize.inject(write_policy(_exception("nas.corp.example", f"ca = ['{ca_file}']")))
    assert memory_handshake(ssl.create_default_context(), _server(leaf), "nas.corp.example")
    with pytest.raises(sslcustomize.CertificateRejected) as caught:
        memory_handshake(ssl.create_default_context(), _server(leaf), "other.corp.example")
    assert caught.value.reasons == ("unknown_issuer",)


@pytest.mark.parametrize(
    ("pattern", "host", "applies"),
    [
        ("*.corp.example", "nas.corp.example", True),
        ("*.corp.example", "a.nas.corp.example", False),
        ("10.0.0.0/8", "10.0.0.5", True),
        ("10.1.0.0/16", "10.0.0.5", False),
        ("10.0.0.5", "10.0.0.5", True),
    ],
)
def test_wildcard_ip_and_cidr_exceptions(
    write_policy: WritePolicy, appliance: trustme.LeafCert, pattern: str, host: str, applies: bool
) -> None:
    """Wildcards cover one label; addresses and networks match IP connections."""
    leaf = trustme.CA().issue_cert(host)
    pin = _pin(leaf)
    sslcustomize.inject(write_policy(_exception(pattern, f"pin = ['{pin}']")))
    context = ssl.create_default_context()
    if applies:
        assert memory_handshake(context, _server(leaf), host)
    else:
        with pytest.raises(sslcustomize.CertificateRejected):
            memory_handshake(context, _server(leaf), host)


def test_expired_exception_no_longer_applies(
    write_policy: WritePolicy, appliance: trustme.LeafCert
) -> None:
    """After its expiry date the exception is ignored and the connection verified normally."""
    pin = _pin(appliance)
    expired = _exception("nas.corp.example", f"pin = ['{pin}']\nexpires = 2020-01-01")
    sslcustomize.inject(write_policy(expired))
    with pytest.raises(sslcustomize.CertificateRejected) as caught:
        memory_handshake(ssl.create_default_context(), _server(appliance), "nas.corp.example")
    assert caught.value.rule == "default"
    current = _exception("nas.corp.example", f"pin = ['{pin}']\nexpires = 2999-01-01")
    sslcustomize.inject(write_policy(current))
    assert memory_handshake(ssl.create_default_context(), _server(appliance), "nas.corp.example")


def test_report_mode_proceeds_warns_once_and_records(
    write_policy: WritePolicy, appliance: trustme.LeafCert, tmp_path: Path
) -> None:
    """Report mode (smtplib's context): it proceeds, one warning per host and reason, records."""
    sink = tmp_path / "r.jsonl"
    sslcustomize.inject(
        write_policy(f"mode = 'report'\n[report]\nsink = 'jsonl'\npath = '{sink}'\n")
    )
    with pytest.warns(sslcustomize.UnverifiedConnectionWarning) as warned:
        connections = [
            memory_handshake(ssl._create_stdlib_context(), _server(appliance), "nas.corp.example")  # type: ignore[attr-defined]
            for _ in range(3)
        ]
    assert all(c.version() for c in connections)
    assert len(warned) == 1
    records = _records(sink)
    assert len(records) == 3
    record = records[0]
    assert record["version"] == 1
    assert record["verdict"] == "rejected"
    assert record["reasons"] == ["unknown_issuer"]
    assert record["host"] == "nas.corp.example"
    assert record["mode"] == "report"
    assert record["pin"] == _pin(appliance)
    assert len(record["chain_sha256"]) == 1  # type: ignore[arg-type]
    assert str(record["origin"]).endswith(":1")


def test_report_mode_per_exception_only(
    write_policy: WritePolicy, appliance: trustme.LeafCert, tmp_path: Path
) -> None:
    """mode = 'report' on one host's exception: that host proceeds, others are enforced.

    smtplib's kind of context (Python itself would not verify it): a context Python verifies
    keeps Python's floor in report mode (test_report_mode_exception_keeps_pythons_floor).
    """
    sink = tmp_path / "r.jsonl"
    text = _exception("nas.corp.example", "mode = 'report'") + (
        f"[report]\nsink = 'jsonl'\npath = '{sink}'\n"
    )
    sslcustomize.inject(write_policy(text))
    stdlib = ssl._create_stdlib_context  # type: ignore[attr-defined]
    with pytest.warns(sslcustomize.UnverifiedConnectionWarning):
        memory_handshake(stdlib(), _server(appliance), "nas.corp.example")
    with pytest.raises(sslcustomize.CertificateRejected):
        memory_handshake(stdlib(), _server(appliance), "10.0.0.5")
    with pytest.raises(sslcustomize.CertificateRejected):  # Python's floor
        memory_handshake(ssl.create_default_context(), _server(appliance), "nas.corp.example")
    assert [r["host"] for r in _records(sink)] == ["nas.corp.example"]


def test_report_mode_per_named_context(
    write_policy: WritePolicy, appliance: trustme.LeafCert
) -> None:
    """[context.x] mode = 'report' applies to that module's contexts only."""
    sslcustomize.inject(
        write_policy(f"[context.{__name__}]\nmode = 'report'\n[report]\nsink = 'none'\n")
    )
    with pytest.warns(sslcustomize.UnverifiedConnectionWarning):
        memory_handshake(ssl._create_stdlib_context(), _server(appliance), "nas.corp.example")  # type: ignore[attr-defined]
    with pytest.raises(sslcustomize.CertificateRejected):
        memory_handshake(sslcustomize.context_for("other"), _server(appliance), "nas.corp.example")


def test_report_mode_good_certificate_records_nothing(
    write_policy: WritePolicy, ca_file: Path, server_context: ssl.SSLContext, tmp_path: Path
) -> None:
    """A chain that verifies is not reported."""
    sink = tmp_path / "r.jsonl"
    sslcustomize.inject(
        write_policy(
            f"mode = 'report'\ntrust = ['{ca_file}']\n[report]\nsink = 'jsonl'\npath = '{sink}'\n"
        )
    )
    assert memory_handshake(ssl.create_default_context(), server_context, "localhost")
    assert _records(sink) == []


def test_code_opt_out_obeyed_and_recorded(
    write_policy: WritePolicy, appliance: trustme.LeafCert, tmp_path: Path
) -> None:
    """verify_mode = CERT_NONE set by code is obeyed and recorded as code_opt_out, not warned.

    Not warned at the connection: the code asked; a warning once per host would make a
    warnings-as-errors suite depend on test order (filterwarnings = error here).
    """
    sink = tmp_path / "r.jsonl"
    sslcustomize.inject(write_policy(f"[report]\nsink = 'jsonl'\npath = '{sink}'\n"))
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    assert memory_handshake(context, _server(appliance), "nas.corp.example")
    (record,) = _records(sink)
    assert record["reasons"] == ["code_opt_out", "unknown_issuer"]
    assert record["verdict"] == "opt_out"


def test_unverified_context_hook_is_an_opt_out(
    write_policy: WritePolicy, appliance: trustme.LeafCert
) -> None:
    """ssl._create_unverified_context() is obeyed by default and refused when forbidden."""
    sslcustomize.inject(write_policy("[report]\nsink = 'none'\n"))
    context = ssl._create_unverified_context()  # noqa: S323 - the opt-out under test
    for _ in range(2):  # the same at every connection: no warning, whatever came before
        assert memory_handshake(context, _server(appliance), "nas.corp.example")
    sslcustomize.inject(write_policy("allow_code_opt_out = false\n"))
    refused = ssl._create_unverified_context()  # noqa: S323 - the opt-out under test
    assert refused.verify_mode == ssl.CERT_NONE  # the code's settings are kept...
    with pytest.raises(sslcustomize.CertificateRejected):  # ...but verification happens
        memory_handshake(refused, _server(appliance), "nas.corp.example")
    assert refused.verify_mode == ssl.CERT_NONE


def test_opt_out_refused_in_report_mode_is_reported(
    write_policy: WritePolicy, appliance: trustme.LeafCert
) -> None:
    """allow_code_opt_out = false in report mode: proceeds, reported as a failure."""
    sslcustomize.inject(
        write_policy("allow_code_opt_out = false\nmode = 'report'\n[report]\nsink = 'none'\n")
    )
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    with pytest.warns(sslcustomize.UnverifiedConnectionWarning):
        assert memory_handshake(context, _server(appliance), "nas.corp.example")


@pytest.fixture
def tls_server(appliance: trustme.LeafCert) -> Iterator[tuple[str, int]]:
    """A TLS server on 127.0.0.1 that sends 'hello' after the handshake."""
    listener = socket.create_server(("127.0.0.1", 0))
    server = _server(appliance)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            with connection:
                try:
                    with server.wrap_socket(connection, server_side=True) as tls:
                        tls.sendall(b"hello")
                        tls.recv(1)
                except (OSError, ssl.SSLError):
                    pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield listener.getsockname()[:2]
    stop.set()
    listener.shutdown(socket.SHUT_RDWR)  # wakes the blocked accept() on Linux
    listener.close()
    thread.join(5)


def test_port_scoped_exception(
    write_policy: WritePolicy, appliance: trustme.LeafCert, tls_server: tuple[str, int]
) -> None:
    """An exception for host:port applies on that port only, over real sockets."""
    host, port = tls_server
    pin = _pin(appliance)
    sslcustomize.inject(
        write_policy(_exception(f"{host}:{port}", f"pin = ['{pin}']\ncheck_hostname = false"))
    )
    with (
        socket.create_connection((host, port)) as raw,
        ssl.create_default_context().wrap_socket(raw, server_hostname=host) as tls,
    ):
        assert tls.recv(5) == b"hello"
    other = port + 1 if port < 65535 else port - 1
    sslcustomize.inject(
        write_policy(_exception(f"{host}:{other}", f"pin = ['{pin}']\ncheck_hostname = false"))
    )
    with (
        socket.create_connection((host, port)) as raw,
        pytest.raises(sslcustomize.CertificateRejected) as caught,
    ):
        ssl.create_default_context().wrap_socket(raw, server_hostname=host)
    assert caught.value.port == port


def test_pin_mismatch_closes_before_application_data(
    write_policy: WritePolicy, appliance: trustme.LeafCert, tls_server: tuple[str, int]
) -> None:
    """On a pin mismatch nothing can be sent or read: every later call raises the rejection."""
    host, port = tls_server
    wrong = "sha256/" + "B" * 43 + "="
    sslcustomize.inject(
        write_policy(_exception(host, f"pin = ['{wrong}']\ncheck_hostname = false"))
    )
    raw = socket.create_connection((host, port))
    tls = ssl.create_default_context().wrap_socket(
        raw, server_hostname=host, do_handshake_on_connect=False
    )
    with pytest.raises(sslcustomize.CertificateRejected) as caught:
        tls.do_handshake()
    for call in (lambda: tls.sendall(b"secret"), lambda: tls.recv(10), tls.unwrap):
        with pytest.raises(sslcustomize.CertificateRejected) as again:
            call()
        assert again.value is caught.value
    tls.close()
    raw.close()


def test_port_scoped_exception_over_asyncio(
    write_policy: WritePolicy, appliance: trustme.LeafCert, tls_server: tuple[str, int]
) -> None:
    """asyncio connections (memory BIOs) know their port too: port-scoped exceptions apply."""
    import asyncio

    host, port = tls_server
    pin = _pin(appliance)
    body = f"pin = ['{pin}']\ncheck_hostname = false"

    async def connect() -> bytes:
        reader, writer = await asyncio.open_connection(host, port, ssl=True, server_hostname=host)
        data = await reader.readexactly(5)
        writer.close()
        await writer.wait_closed()
        return data

    sslcustomize.inject(write_policy(_exception(f"{host}:{port}", body)))
    assert asyncio.run(connect()) == b"hello"
    sslcustomize.inject(write_policy(_exception(f"{host}:{port + 1}", body)))
    with pytest.raises(sslcustomize.CertificateRejected) as caught:
        asyncio.run(connect())
    assert caught.value.port == port


@pytest.mark.parametrize("case", sorted(_pki.FAILING_CASE_NAMES))
def test_report_mode_records_what_enforce_rejects_for_each_case(
    case: str, pki: _pki.TestPKI, https_server: StartServer, write_policy: WritePolicy,
    tmp_path: Path,
) -> None:  # fmt: skip
    """For every certificate case, report mode records exactly enforce mode's reason codes."""
    import http.client

    def stdlib() -> ssl.SSLContext:  # a client Python would not verify: report mode's case
        return ssl._create_stdlib_context()  # type: ignore[attr-defined, no-any-return]

    root = tmp_path / "root.pem"
    root.write_bytes(pki.root_pem)
    host, port = https_server(pki[case], "localhost")
    sslcustomize.inject(write_policy(f"trust = ['{root}']\n"))
    with pytest.raises(sslcustomize.CertificateRejected) as caught:
        http.client.HTTPSConnection(host, port, timeout=10, context=stdlib()).request("GET", "/")
    sink = tmp_path / "r.jsonl"
    sslcustomize.inject(
        write_policy(
            f"mode = 'report'\ntrust = ['{root}']\n[report]\nsink = 'jsonl'\npath = '{sink}'\n"
        )
    )
    connection = http.client.HTTPSConnection(host, port, timeout=10, context=stdlib())
    with pytest.warns(sslcustomize.UnverifiedConnectionWarning):
        connection.request("GET", "/")
    assert connection.getresponse().read() == b"ok"
    connection.close()
    (record,) = _records(sink)
    assert tuple(record["reasons"]) == caught.value.reasons  # type: ignore[arg-type]


def test_locked_enforce_mode_wins_over_a_user_report_mode(
    pki: _pki.TestPKI, https_server: StartServer, write_policy: WritePolicy,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    """The system layer locks mode = enforce: a user's report mode is ignored with a warning."""
    import http.client

    system = write_policy("mode = 'enforce'\nlock = ['mode']\n")
    user = write_policy("mode = 'report'\n")
    monkeypatch.setattr("sslcustomize._support._bootstrap.SYSTEM_POLICY", str(system))
    monkeypatch.setenv("SSLCUSTOMIZE_POLICY", str(user))
    host, port = https_server(pki["self_signed"], "localhost")

    def inject_and_make_a_context() -> None:
        # The policy is read, and its warnings said, once: at the first context, or already
        # at inject() where a hooked library (aiohttp) is imported and gets its contexts.
        sslcustomize.inject()
        ssl.create_default_context()

    with pytest.warns(sslcustomize.PolicyWarning, match="'mode' is locked"):
        inject_and_make_a_context()
    connection = http.client.HTTPSConnection(host, port, timeout=10)
    with pytest.raises(sslcustomize.CertificateRejected):
        connection.request("GET", "/")


def test_shared_context_across_threads_never_lets_a_bad_host_through(
    write_policy: WritePolicy, appliance: trustme.LeafCert
) -> None:
    """One context, many threads: pinned-host connections never relax other hosts' checks."""
    from concurrent.futures import ThreadPoolExecutor

    pin = _pin(appliance)
    stranger = trustme.CA().issue_cert("other.corp.example")
    sslcustomize.inject(write_policy(_exception("nas.corp.example", f"pin = ['{pin}']")))
    shared = ssl.create_default_context()

    def pinned(_: int) -> bool:
        return bool(memory_handshake(shared, _server(appliance), "nas.corp.example"))

    def unpinned(_: int) -> bool:
        try:
            memory_handshake(shared, _server(stranger), "other.corp.example")
        except sslcustomize.CertificateRejected:
            return False
        return True

    with ThreadPoolExecutor(max_workers=8) as pool:
        good = pool.map(pinned, range(60))
        bad = pool.map(unpinned, range(60))
        assert all(good)
        assert not any(bad)
