"""Verify a certificate chain offline, exactly as OpenSSL does during a handshake.

Report mode, pins and code opt-outs let a handshake complete without verification, then ask
what enforce mode would have decided. To get OpenSSL's own answer (the same chain building,
flags, security level, purpose and host name checks, not an imitation), the chain the server
sent is replayed into a fresh client ``SSLObject`` over memory BIOs: a synthesised TLS 1.2
ServerHello followed by a Certificate message. OpenSSL verifies the chain when it processes
the Certificate message; a client that then waits for more (``SSLWantReadError``) has accepted
the chain, one that raises ``SSLCertVerificationError`` has rejected it, with its code.

A leaf whose key TLS 1.2 cannot use (ML-DSA and SLH-DSA, which OpenSSL 3.5 verifies and
uses in TLS 1.3 only) is verified all the same: OpenSSL checks the key against the suite
only after the chain verified (``tls_post_process_server_certificate``: a failed
verification ends the handshake there), so ``WRONG_CERTIFICATE_TYPE`` with the chain
OpenSSL verified, starting at this leaf, is an acceptance. Anything else is a chain that
could not be judged (``judged=False``): never an acceptance (fail closed).
"""

from __future__ import annotations

import os
import ssl

from sslcustomize._support._frozen import dataclass
from sslcustomize._x509._der import DERError, key_algorithm

__all__ = ["ReplayResult", "der_chain", "replay_chain"]

_TLS12 = b"\x03\x03"
_HANDSHAKE = 22
_MAX_RECORD = 16384
# ECDHE_ECDSA_WITH_AES_128_GCM_SHA256 / ECDHE_RSA_WITH_AES_128_GCM_SHA256: the suite must suit
# the leaf's key, or OpenSSL stops with "wrong certificate type" after a successful verification.
_SUITE_ECDSA = b"\xc0\x2b"
_SUITE_RSA = b"\xc0\x2f"
# renegotiation_info (RFC 5746), empty: OpenSSL refuses servers without it.
_RENEGOTIATION_INFO = b"\xff\x01\x00\x01\x00"


@dataclass(frozen=True, slots=True, kw_only=True)
class ReplayResult:
    """OpenSSL's verdict on a chain.

    Attributes:
        accepted: Whether the chain verified.
        verify_code: OpenSSL's code when rejected (0 when accepted, -1 if it failed otherwise).
        verify_message: OpenSSL's message when rejected.
        verified_chain: The chain OpenSSL built, leaf to trust anchor, when accepted.
        judged: ``False`` when OpenSSL gave no verdict on the chain (the replay itself
            failed); the chain is then not accepted, and nothing is known against it.
    """

    accepted: bool
    verify_code: int = 0
    verify_message: str = "ok"
    verified_chain: tuple[bytes, ...] = ()
    judged: bool = True


def _u24(value: int) -> bytes:
    return value.to_bytes(3, "big")


def _handshake(kind: int, body: bytes) -> bytes:
    return bytes((kind,)) + _u24(len(body)) + body


def _records(payload: bytes) -> bytes:
    out = bytearray()
    for start in range(0, len(payload), _MAX_RECORD):
        chunk = payload[start : start + _MAX_RECORD]
        out += bytes((_HANDSHAKE,)) + _TLS12 + len(chunk).to_bytes(2, "big") + chunk
    return bytes(out)


# rsaEncryption and RSASSA-PSS keys sign in ECDHE_RSA suites; EC, Ed25519 and Ed448 keys in
# ECDHE_ECDSA ones; any other key (ML-DSA...) in none: see the module docstring.
_RSA_KEYS = frozenset({"1.2.840.113549.1.1.1", "1.2.840.113549.1.1.10"})


def _suite_for(leaf_der: bytes) -> bytes:
    try:
        rsa = key_algorithm(leaf_der) in _RSA_KEYS
    except DERError:  # OpenSSL will say what it thinks of this certificate
        rsa = False
    return _SUITE_RSA if rsa else _SUITE_ECDSA


def server_flight(chain: list[bytes] | tuple[bytes, ...]) -> bytes:
    """Return the bytes of a TLS 1.2 ServerHello and Certificate message for ``chain``."""
    hello = (
        _TLS12
        + os.urandom(32)
        + b"\x00"  # no session id
        + _suite_for(chain[0])
        + b"\x00"  # no compression
        + len(_RENEGOTIATION_INFO).to_bytes(2, "big")
        + _RENEGOTIATION_INFO
    )
    certificates = b"".join(_u24(len(der)) + der for der in chain)
    certificate = _u24(len(certificates)) + certificates
    return _records(_handshake(2, hello) + _handshake(11, certificate))


def replay_chain(
    context: ssl.SSLContext, chain: list[bytes] | tuple[bytes, ...], server_hostname: str | None
) -> ReplayResult:
    """Ask OpenSSL whether ``context`` accepts ``chain`` for ``server_hostname``.

    Args:
        context: A verifying client context (``CERT_REQUIRED``) with the trust anchors, flags
            and ``check_hostname`` to verify with. Its maximum version must allow TLS 1.2.
        chain: The certificates as the server sent them, DER, leaf first.
        server_hostname: The name to check (when ``context.check_hostname``).

    Returns:
        The verdict.
    """
    if not chain:
        return ReplayResult(accepted=False, verify_code=-1, verify_message="no certificate")
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    client = context.wrap_bio(incoming, outgoing, server_hostname=server_hostname)
    try:  # noqa: SIM105 - no contextlib on the first handshake (see _notyping)
        client.do_handshake()  # writes the ClientHello, then waits for the server
    except ssl.SSLWantReadError:
        pass
    incoming.write(server_flight(chain))
    try:
        client.do_handshake()
    except ssl.SSLWantReadError:
        return ReplayResult(accepted=True, verified_chain=_verified_chain(client))
    except ssl.SSLCertVerificationError as error:
        return ReplayResult(
            accepted=False, verify_code=error.verify_code, verify_message=error.verify_message
        )
    except ssl.SSLError as error:
        if getattr(error, "reason", None) == "WRONG_CERTIFICATE_TYPE":
            verified = _verified_chain(client)
            if verified and verified[0] == chain[0]:  # the key came after the verdict
                return ReplayResult(accepted=True, verified_chain=verified)
        return ReplayResult(accepted=False, verify_code=-1, verify_message=str(error), judged=False)
    return ReplayResult(
        accepted=False, verify_code=-1, verify_message="unexpected handshake", judged=False
    )


def _verified_chain(client: ssl.SSLObject) -> tuple[bytes, ...]:
    return der_chain(getattr(client, "_sslobj", None), verified=True)


def der_chain(sslobj: object, *, verified: bool = False) -> tuple[bytes, ...]:
    """Return a connection's chain as DER, leaf first: as sent, or as OpenSSL verified it.

    ``sslobj`` is the ``_ssl._SSLSocket`` behind an ``SSLSocket``/``SSLObject`` (3.10-3.12
    have the methods only there; 3.13 made them public and returns bytes).
    """
    method = "get_verified_chain" if verified else "get_unverified_chain"
    try:
        chain = getattr(sslobj, method)() or ()
    except (AttributeError, ValueError, ssl.SSLError):
        return ()
    encoding = ssl._ssl.ENCODING_DER  # type: ignore[attr-defined]  # noqa: SLF001
    return tuple(cert if isinstance(cert, bytes) else cert.public_bytes(encoding) for cert in chain)
