"""Run x509-limbo server cases as real TLS handshakes, entirely in memory.

The verdict of a client context on a case comes from an actual handshake: a server
:class:`ssl.SSLObject` presents the case's ``peer_certificate`` (with its untrusted
intermediates) and signs with its ``peer_certificate_key``; the client :class:`ssl.SSLObject`
comes from the context under test, which names ``expected_peer_name`` as the server. Bytes move
between the two through :class:`ssl.MemoryBIO` pairs: no sockets, no threads, no network.

Usage::

    for case in load_cases():
        if skip_reason(case) is None:
            verdict = handshake_verdict(client_context, case)

.. warning::
    OpenSSL verifies at the current time; Python gives no way to set the verification time, so
    a case's ``validation_time`` is not honoured and ``max_chain_depth`` is not applied either
    (Python does not expose the depth). Verdicts of two contexts on the same case are compared
    at the same moment, which is what the "never weaker" invariant needs; agreement with the
    suite's ``expected_result`` is only indicative for cases that depend on the time or depth.

The data: x509-limbo (C2SP/x509-limbo, Apache-2.0), schema version 1, regenerated offline
with that project's generators; see ``tests/data/README.md``.
"""

from __future__ import annotations

import functools
import json
import ssl
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

__all__ = [
    "LIMBO_JSON",
    "Case",
    "PeerName",
    "Verdict",
    "handshake_verdict",
    "load_cases",
    "server_context",
    "skip_reason",
    "unverified_error",
]

LIMBO_JSON = Path(__file__).parent / "data" / "x509-limbo.json"

# A handshake takes four flights at most (TLS 1.2 with a failure alert); more means a bug.
_MAX_ROUNDS = 16


@dataclass(frozen=True, slots=True, kw_only=True)
class PeerName:
    """The name a client expects the peer to have."""

    kind: Literal["DNS", "IP", "RFC822"]
    value: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Case:
    """One x509-limbo test case (the fields this harness uses)."""

    id: str
    description: str
    features: tuple[str, ...]
    validation_kind: Literal["SERVER", "CLIENT"]
    trusted_certs: tuple[str, ...]
    untrusted_intermediates: tuple[str, ...]
    peer_certificate: str
    peer_certificate_key: str | None
    validation_time: str | None
    expected_peer_name: PeerName | None
    max_chain_depth: int | None
    expected_result: Literal["SUCCESS", "FAILURE"]

    @property
    def expected_success(self) -> bool:
        """Tell whether the suite expects the chain to be accepted."""
        return self.expected_result == "SUCCESS"

    @property
    def server_hostname(self) -> str | None:
        """Return the name a TLS client asks for: ``expected_peer_name``'s value, if any."""
        return self.expected_peer_name.value if self.expected_peer_name else None

    @property
    def trusted_pem(self) -> str:
        """Return the trust anchors as one PEM text (for ``cadata`` or a bundle file)."""
        return "".join(_pem_line_end(pem) for pem in self.trusted_certs)

    @property
    def chain_pem(self) -> str:
        """Return what the server sends: the peer certificate, then the intermediates."""
        certs = (self.peer_certificate, *self.untrusted_intermediates)
        return "".join(_pem_line_end(pem) for pem in certs)


def _pem_line_end(pem: str) -> str:
    return pem if pem.endswith("\n") else pem + "\n"


def _case(raw: Mapping[str, Any]) -> Case:
    name = raw.get("expected_peer_name")
    return Case(
        id=raw["id"],
        description=raw.get("description", ""),
        features=tuple(raw.get("features") or ()),
        validation_kind=raw["validation_kind"],
        trusted_certs=tuple(raw["trusted_certs"]),
        untrusted_intermediates=tuple(raw["untrusted_intermediates"]),
        peer_certificate=raw["peer_certificate"],
        peer_certificate_key=raw.get("peer_certificate_key"),
        validation_time=raw.get("validation_time"),
        expected_peer_name=PeerName(kind=name["kind"], value=name["value"]) if name else None,
        max_chain_depth=raw.get("max_chain_depth"),
        expected_result=raw["expected_result"],
    )


@functools.cache
def load_cases(path: Path = LIMBO_JSON) -> tuple[Case, ...]:
    """Return every case of an x509-limbo file, in file order.

    Raises:
        ValueError: The file is not limbo schema version 1.
    """
    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("version") != 1:
        raise ValueError(f"{path}: expected x509-limbo schema version 1, got {data.get('version')}")
    return tuple(_case(raw) for raw in data["testcases"])


# --- The server side ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class _Server:
    context: ssl.SSLContext | None = None
    skip: str | None = None
    unverified_error: str | None = None


@functools.cache
def _server_setup(case: Case) -> _Server:
    """Return a server context that can present ``case``, or why none can (cached per case)."""
    if case.validation_kind != "SERVER":
        return _Server(
            skip="CLIENT validation (a server verifying client certificates) is out of scope: "
            "sslcustomize governs TLS clients"
        )
    if not case.peer_certificate_key:
        return _Server(
            skip="no peer_certificate_key: a TLS server must prove possession of the key, so no "
            "handshake can present this certificate"
        )
    try:
        server = _load_server(case)
    except (ssl.SSLError, ValueError) as error:
        return _Server(skip=f"OpenSSL refuses to serve this certificate and key: {error}")
    # No client with Python's defaults may be able to connect, verifying or not (for example,
    # it offers no signature algorithm for the key): every verdict is then a rejection, which is
    # still a verdict, so such cases run.
    return _Server(context=server, unverified_error=_unverified_handshake_error(server, case))


def _load_server(case: Case) -> ssl.SSLContext:
    server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    # The server is only the vehicle: let it load any key OpenSSL can use. The client's own
    # security level still judges the certificate.
    server.set_ciphers("DEFAULT:@SECLEVEL=0")
    assert case.peer_certificate_key is not None
    with tempfile.TemporaryDirectory(prefix="limbo-server-") as directory:
        chain = Path(directory, "chain.pem")
        key = Path(directory, "key.pem")
        chain.write_text(case.chain_pem, encoding="ascii")
        key.write_text(case.peer_certificate_key, encoding="ascii")
        server.load_cert_chain(chain, key)
    return server


def _unverified_handshake_error(server: ssl.SSLContext, case: Case) -> str | None:
    """Return the error of a handshake with a client that verifies nothing, if any."""
    # The same defaults (ciphers, security level, versions) as create_default_context's
    # contexts, minus verification: a failure here is not about the chain.
    client = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    client.check_hostname = False  # before verify_mode: CERT_NONE needs it off
    client.verify_mode = ssl.CERT_NONE
    outcome = _handshake(client, server, case.server_hostname)
    if outcome.client_done:
        return None
    return str(outcome.client_error or outcome.server_error)


def skip_reason(case: Case) -> str | None:
    """Return why ``case`` cannot be run as a handshake, or ``None`` when it can."""
    return _server_setup(case).skip


def unverified_error(case: Case) -> str | None:
    """Return the handshake error even a client that verifies nothing gets, if any.

    Such a case fails before (or regardless of) certificate verification for every client
    with Python's TLS defaults, for example a DSA or P-192 key no offered signature algorithm
    can use. Handshakes still run and every verdict is a rejection.
    """
    return _server_setup(case).unverified_error


def server_context(case: Case) -> ssl.SSLContext:
    """Return a server context that presents ``case``'s certificate chain.

    Raises:
        ValueError: The case cannot be run; the message says why.
    """
    server = _server_setup(case)
    if server.context is None:
        raise ValueError(f"{case.id}: {server.skip}")
    return server.context


# --- The handshake -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Verdict:
    """What a client decided about a case.

    Attributes:
        accepted: The client completed the handshake.
        verify_code: OpenSSL's verification result when certificate verification failed.
        error: The client's error message when it did not complete the handshake.
        exception: The client's exception itself (not compared).
    """

    accepted: bool
    verify_code: int | None = None
    error: str | None = None
    exception: ssl.SSLError | None = field(default=None, compare=False, repr=False)


@dataclass(slots=True)
class _Outcome:
    client_done: bool = False
    server_done: bool = False
    client_error: ssl.SSLError | None = None
    server_error: ssl.SSLError | None = None


def _step(side: ssl.SSLObject) -> tuple[bool, ssl.SSLError | None]:
    try:
        side.do_handshake()
    except ssl.SSLWantReadError:
        return False, None
    except ssl.SSLError as error:  # CertificateRejected included: it subclasses SSLError
        return False, error
    return True, None


def _handshake(
    client: ssl.SSLContext, server: ssl.SSLContext, server_hostname: str | None
) -> _Outcome:
    c_in, c_out, s_in, s_out = (ssl.MemoryBIO() for _ in range(4))
    client_side = client.wrap_bio(c_in, c_out, server_hostname=server_hostname)
    server_side = server.wrap_bio(s_in, s_out, server_side=True)
    outcome = _Outcome()
    for _ in range(_MAX_ROUNDS):
        if not outcome.client_done and outcome.client_error is None:
            outcome.client_done, outcome.client_error = _step(client_side)
        to_server = c_out.read()
        s_in.write(to_server)
        if not outcome.server_done and outcome.server_error is None:
            outcome.server_done, outcome.server_error = _step(server_side)
        to_client = s_out.read()
        c_in.write(to_client)
        client_over = outcome.client_done or outcome.client_error is not None
        server_over = outcome.server_done or outcome.server_error is not None
        if client_over and (server_over or not to_server):
            return outcome
        if not (to_server or to_client):
            break
    raise AssertionError(f"handshake stalled: {outcome}")


def handshake_verdict(client_context: ssl.SSLContext, case: Case) -> Verdict:
    """Return what ``client_context`` decides about ``case`` in a real TLS handshake.

    The client names ``case.server_hostname``; a context that checks host names needs one, so
    for a case without ``expected_peer_name`` turn ``check_hostname`` off first.

    Raises:
        ValueError: The case cannot be run (see :func:`skip_reason`), or the context checks
            host names and the case names none.
    """
    outcome = _handshake(client_context, server_context(case), case.server_hostname)
    if outcome.client_done:
        return Verdict(accepted=True)
    error = outcome.client_error
    if error is None:  # the server gave up first; the client saw no alert (cannot happen)
        error = outcome.server_error
    assert error is not None
    code = error.verify_code if isinstance(error, ssl.SSLCertVerificationError) else None
    return Verdict(accepted=False, verify_code=code, error=str(error), exception=error)
