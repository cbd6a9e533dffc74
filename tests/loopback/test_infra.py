"""Self-tests of the test infrastructure: the PKI cases and the loopback servers.

Only the standard library's clients and ``ssl.create_default_context(cadata=...)`` are used,
passed explicitly to each client, so these tests hold whether or not sslcustomize works. Each
success has a twin that fails with the wrong CA or host.
"""

from __future__ import annotations

import asyncio
import contextlib
import ftplib
import functools
import hashlib
import http.client
import imaplib
import poplib
import smtplib
import socket
import ssl
import sys
import threading
import warnings
import xmlrpc.client
from base64 import b64encode
from types import ModuleType
from typing import TYPE_CHECKING

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa

import _pki
import _servers

if TYPE_CHECKING:
    from collections.abc import Callable
    from contextlib import AbstractContextManager
    from pathlib import Path

    from conftest import StartServer

# The OpenSSL verify_code a stock client (ssl.create_default_context) reports for each case
# when it connects by DNS name. Observed with OpenSSL 3.0 on CPython 3.10 to 3.13.
VERIFY_CODES = {
    "expired": 10,  # X509_V_ERR_CERT_HAS_EXPIRED
    "not_yet_valid": 9,  # X509_V_ERR_CERT_NOT_YET_VALID
    "wrong_host": 62,  # X509_V_ERR_HOSTNAME_MISMATCH
    "self_signed": 18,  # X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT
    "unknown_issuer": 19,  # X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN
    "incomplete_chain": 20,  # X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY
    "weak_key": 66,  # X509_V_ERR_EE_KEY_TOO_SMALL
    "weak_signature": 68,  # X509_V_ERR_CA_MD_TOO_WEAK
    "not_for_server_auth": 26,  # X509_V_ERR_INVALID_PURPOSE
    "expired_wrong_host": 62,  # the name is checked before the dates: only one code shows
}
# Connecting by IP address, a name mismatch is X509_V_ERR_IP_ADDRESS_MISMATCH instead.
IP_MISMATCH = 64

HAS_NNTPLIB = sys.version_info < (3, 13)


def client_context(ca_pem: bytes) -> ssl.SSLContext:
    """A stock verifying client context trusting only *ca_pem*."""
    return ssl.create_default_context(cadata=ca_pem.decode("ascii"))


@pytest.fixture
def ctx(pki: _pki.TestPKI) -> ssl.SSLContext:
    """A client context trusting the test root."""
    return client_context(pki.root_pem)


@pytest.fixture
def wrong_ctx(pki: _pki.TestPKI) -> ssl.SSLContext:
    """A client context trusting only a root that issued none of the served chains."""
    return client_context(pki.foreign_root_pem)


def https_get(
    host: str, port: int, context: ssl.SSLContext, path: str = "/"
) -> http.client.HTTPResponse:
    """GET *path*; return the response with its body already read."""
    conn = http.client.HTTPSConnection(host, port, context=context, timeout=5)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        response.read()
        return response
    finally:
        conn.close()


# -- the PKI -----------------------------------------------------------------------------------


def test_cases_cover_every_reason(pki: _pki.TestPKI) -> None:
    """Every case exists, in order, and the failing ones name SPEC reason codes."""
    assert [case.name for case in pki] == list(_pki.CASE_NAMES)
    assert pki["good"].ok
    assert pki["good"].reason is None
    assert pki["expired"].reason == "expired"
    assert pki["expired_wrong_host"].reasons == {"expired", "hostname_mismatch"}
    with pytest.raises(ValueError, match="several reasons"):
        _ = pki["expired_wrong_host"].reason
    for name in _pki.FAILING_CASE_NAMES:
        assert not pki[name].ok
        assert pki[name].ca_pem == pki.root_pem


def test_case_chains_have_the_promised_shape(pki: _pki.TestPKI) -> None:
    """Leaf first; intermediates, keys, AIA, EKU and signatures are what each case says."""

    def chain(name: str) -> list[x509.Certificate]:
        return x509.load_pem_x509_certificates(pki[name].chain_pem)

    intermediate = x509.load_pem_x509_certificate(pki.intermediate_pem)
    assert chain("good")[1] == intermediate
    assert chain("good")[0].issuer == intermediate.subject
    assert len(chain("incomplete_chain")) == 1
    aia = chain("incomplete_chain")[0].extensions.get_extension_for_class(
        x509.AuthorityInformationAccess
    )
    assert aia.value[0].access_location.value == _pki.AIA_CA_ISSUERS_URL
    self_signed = chain("self_signed")
    assert len(self_signed) == 1
    assert self_signed[0].issuer == self_signed[0].subject
    assert not self_signed[0].extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    unknown = chain("unknown_issuer")
    assert unknown[1].subject == unknown[0].issuer != intermediate.subject
    weak_key = chain("weak_key")[0].public_key()
    assert isinstance(weak_key, rsa.RSAPublicKey)
    assert weak_key.key_size == 1024
    assert isinstance(chain("weak_signature")[0].signature_hash_algorithm, hashes.SHA1)
    eku = chain("not_for_server_auth")[0].extensions.get_extension_for_class(x509.ExtendedKeyUsage)
    assert list(eku.value) == [x509.oid.ExtendedKeyUsageOID.CLIENT_AUTH]
    assert pki["wrong_host"].names == ("wrong.example",)
    assert pki["good"].names == _pki.LOOPBACK_NAMES


def test_spki_pin_matches_the_served_key(pki: _pki.TestPKI, https_server: StartServer) -> None:
    """The pin is sha256/base64 of the SubjectPublicKeyInfo of the certificate a server sends."""
    host, port = https_server(pki["good"])
    with (
        socket.create_connection((host, port), timeout=5) as raw,
        client_context(pki.root_pem).wrap_socket(raw, server_hostname=host) as tls,
    ):
        der = tls.getpeercert(binary_form=True)
    assert der is not None
    spki = (
        x509.load_der_x509_certificate(der)
        .public_key()
        .public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    )
    expected = "sha256/" + b64encode(hashlib.sha256(spki).digest()).decode()
    assert pki["good"].pin == expected == _pki.spki_pin(pki["good"].chain_pem)
    assert pki["expired"].pin != expected


def test_write_case_files_load_into_ssl(pki: _pki.TestPKI, tmp_path: Path) -> None:
    """chain.pem, key.pem and ca.pem load into server and client contexts."""
    files = pki["good"].write(tmp_path / "good")
    assert files.chain.read_bytes() == pki["good"].chain_pem
    server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server.load_cert_chain(files.chain, files.key)
    client = ssl.create_default_context(cafile=files.ca)
    assert client.cert_store_stats()["x509_ca"] == 1


def test_issue_server_cert_makes_a_fresh_good_leaf(
    pki: _pki.TestPKI, https_server: StartServer, ctx: ssl.SSLContext
) -> None:
    """An extra leaf from the good intermediate verifies, with its own pin."""
    extra = pki.issue_server_cert("extra")
    assert extra.pin != pki["good"].pin
    assert https_get(*https_server(extra), ctx).status == 200


# -- every case against a stock client ---------------------------------------------------------


@pytest.mark.parametrize("name", _pki.CASE_NAMES)
def test_stock_client_verdict(
    pki: _pki.TestPKI, https_server: StartServer, loopback_host: str, name: str
) -> None:
    """A stock client trusting the root accepts only ``good``, with the recorded verify_code."""
    case = pki[name]
    host, port = https_server(case, loopback_host)
    if case.ok:
        assert https_get(host, port, client_context(case.ca_pem)).status == 200
        return
    with pytest.raises(ssl.SSLCertVerificationError) as excinfo:
        https_get(host, port, client_context(case.ca_pem))
    expected = VERIFY_CODES[name]
    if expected == 62 and host != "localhost":
        expected = IP_MISMATCH
    assert excinfo.value.verify_code == expected, excinfo.value.verify_message


def test_server_survives_rejected_handshakes(
    pki: _pki.TestPKI, https_server: StartServer, ctx: ssl.SSLContext, wrong_ctx: ssl.SSLContext
) -> None:
    """After clients abort the handshake, the same server still serves a good client."""
    host, port = https_server(pki["good"])
    for _ in range(3):
        with pytest.raises(ssl.SSLCertVerificationError):
            https_get(host, port, wrong_ctx)
    assert https_get(host, port, ctx).status == 200


SERVE_FUNCTIONS: dict[str, Callable[..., AbstractContextManager[_servers.ServerAddress]]] = {
    "https": _servers.serve_https,
    "smtp": _servers.serve_smtp,
    "smtp-starttls": functools.partial(_servers.serve_smtp, starttls=True),
    "ftps": _servers.serve_ftps,
    "imap": _servers.serve_imap,
    "imap-starttls": functools.partial(_servers.serve_imap, starttls=True),
    "pop3": _servers.serve_pop3,
    "nntp": _servers.serve_nntp,
}


IMPLICIT_TLS = {"https", "smtp", "imap", "pop3", "nntp"}


@pytest.mark.parametrize("kind", SERVE_FUNCTIONS)
def test_servers_stop_cleanly_with_clients_still_connected(
    pki: _pki.TestPKI, ctx: ssl.SSLContext, kind: str
) -> None:
    """Stopping closes lingering connections and joins every thread the server started."""
    before = set(threading.enumerate())
    with SERVE_FUNCTIONS[kind](pki["good"]) as (host, port):
        idle = socket.create_connection((host, port), timeout=5)  # connects, never speaks
        talking = socket.create_connection((host, port), timeout=5)
        if kind in IMPLICIT_TLS:
            talking = ctx.wrap_socket(talking, server_hostname=host)
        if kind != "https":
            assert talking.recv(100)  # the greeting: this connection is being served
    with idle, talking:
        # The server closed its end of both: reading reaches the end of the stream.
        for sock in (idle, talking):
            while sock.recv(4096):
                pass
    assert set(threading.enumerate()) == before


def _use_https(host: str, port: int, context: ssl.SSLContext) -> None:
    https_get(host, port, context)


def _use_smtp(host: str, port: int, context: ssl.SSLContext) -> None:
    with smtplib.SMTP_SSL(host, port, context=context, timeout=5) as client:
        client.noop()


def _use_smtp_starttls(host: str, port: int, context: ssl.SSLContext) -> None:
    with smtplib.SMTP(host, port, timeout=5) as client:
        client.starttls(context=context)
        client.noop()


def _use_imap(host: str, port: int, context: ssl.SSLContext) -> None:
    with imaplib.IMAP4_SSL(host, port, ssl_context=context, timeout=5) as client:
        client.noop()


def _use_imap_starttls(host: str, port: int, context: ssl.SSLContext) -> None:
    client = imaplib.IMAP4(host, port, timeout=5)
    try:
        client.starttls(ssl_context=context)
        client.noop()
        client.logout()
    finally:
        with contextlib.suppress(OSError):  # already shut down, or a socket wrap_socket detached
            client.shutdown()


def _use_pop3(host: str, port: int, context: ssl.SSLContext) -> None:
    poplib.POP3_SSL(host, port, context=context, timeout=5).quit()


def _use_pop3_stls(host: str, port: int, context: ssl.SSLContext) -> None:
    client = poplib.POP3(host, port, timeout=5)
    try:
        client.stls(context=context)
        client.quit()
    finally:
        with contextlib.suppress(OSError):  # on the socket that wrap_socket detached
            client.close()


def _use_ftps(host: str, port: int, context: ssl.SSLContext) -> None:
    with ftplib.FTP_TLS(context=context, timeout=5) as client:  # noqa: S321  # FTP over TLS
        client.connect(host, port)
        client.auth()


def _use_nntp(host: str, port: int, context: ssl.SSLContext) -> None:
    if not HAS_NNTPLIB:
        pytest.skip("nntplib was removed in Python 3.13 (PEP 594)")
    with _nntplib().NNTP_SSL(host, port, ssl_context=context, timeout=5):
        pass


# kind -> (start the server for a case, use it with a stdlib client and a client context)
PROTOCOLS: dict[
    str,
    tuple[
        Callable[..., AbstractContextManager[_servers.ServerAddress]],
        Callable[[str, int, ssl.SSLContext], None],
    ],
] = {
    "https": (_servers.serve_https, _use_https),
    "smtp": (_servers.serve_smtp, _use_smtp),
    "smtp-starttls": (functools.partial(_servers.serve_smtp, starttls=True), _use_smtp_starttls),
    "imap": (_servers.serve_imap, _use_imap),
    "imap-starttls": (functools.partial(_servers.serve_imap, starttls=True), _use_imap_starttls),
    "pop3": (_servers.serve_pop3, _use_pop3),
    "pop3-stls": (functools.partial(_servers.serve_pop3, starttls=True), _use_pop3_stls),
    "ftps": (_servers.serve_ftps, _use_ftps),
    "nntp": (_servers.serve_nntp, _use_nntp),
}


@pytest.mark.parametrize("name", _pki.CASE_NAMES)
@pytest.mark.parametrize("kind", PROTOCOLS)
def test_every_server_presents_every_case(pki: _pki.TestPKI, kind: str, name: str) -> None:
    """Each server presents each case as is: stock clients accept only good, same verify_code."""
    serve, use = PROTOCOLS[kind]
    case = pki[name]
    with serve(case, "localhost") as (host, port):
        if case.ok:
            use(host, port, client_context(case.ca_pem))
            return
        with pytest.raises(ssl.SSLCertVerificationError) as excinfo:
            use(host, port, client_context(case.ca_pem))
    assert excinfo.value.verify_code == VERIFY_CODES[name], excinfo.value.verify_message


def test_mutual_tls(pki: _pki.TestPKI, https_server: StartServer, tmp_path: Path) -> None:
    """The client certificate is accepted and echoed; without it the server refuses."""
    host, port = https_server(pki["good"], client_ca_pem=pki.client_cert.ca_pem)
    with_cert = client_context(pki.root_pem)
    with_cert.load_cert_chain(*pki.client_cert.write(tmp_path))
    response = https_get(host, port, with_cert)
    assert response.getheader("X-Client-Subject") == pki.client_cert.common_name
    with pytest.raises((ssl.SSLError, ConnectionError)):
        https_get(host, port, client_context(pki.root_pem))


def test_maximum_version(pki: _pki.TestPKI, https_server: StartServer) -> None:
    """A server capped at TLS 1.2 fails a client that requires TLS 1.3."""
    host, port = https_server(pki["good"], maximum_version=ssl.TLSVersion.TLSv1_2)
    client = client_context(pki.root_pem)
    assert https_get(host, port, client).status == 200
    client.minimum_version = ssl.TLSVersion.TLSv1_3
    with pytest.raises(ssl.SSLError):
        https_get(host, port, client)


# -- each stdlib client: success with the right CA, failure with the wrong CA or host ----------


def test_http_client(
    pki: _pki.TestPKI, https_server: StartServer, loopback_host: str, ctx: ssl.SSLContext
) -> None:
    """http.client gets 200 "ok" over HTTPS on every loopback name."""
    conn = http.client.HTTPSConnection(*https_server(pki["good"], loopback_host), context=ctx)
    try:
        conn.request("POST", "/anything", body=b"data")
        response = conn.getresponse()
        assert (response.status, response.read()) == (200, b"ok")
    finally:
        conn.close()


def test_http_client_wrong_ca(
    pki: _pki.TestPKI, https_server: StartServer, wrong_ctx: ssl.SSLContext
) -> None:
    """http.client refuses the good chain when trusting another root."""
    with pytest.raises(ssl.SSLCertVerificationError):
        https_get(*https_server(pki["good"]), wrong_ctx)


def test_xmlrpc_client(
    pki: _pki.TestPKI, https_server: StartServer, loopback_host: str, ctx: ssl.SSLContext
) -> None:
    """xmlrpc.client calls ping() -> "pong" over HTTPS."""
    address = https_server(pki["good"], loopback_host)
    with xmlrpc.client.ServerProxy(address.url(path="/RPC2"), context=ctx) as proxy:
        assert proxy.ping() == "pong"


def test_xmlrpc_client_wrong_host(
    pki: _pki.TestPKI, https_server: StartServer, ctx: ssl.SSLContext
) -> None:
    """xmlrpc.client refuses a certificate for another name."""
    address = https_server(pki["wrong_host"])
    with (
        xmlrpc.client.ServerProxy(address.url(path="/RPC2"), context=ctx) as proxy,
        pytest.raises(ssl.SSLCertVerificationError),
    ):
        proxy.ping()


@pytest.mark.parametrize("starttls", [False, True], ids=["SMTP_SSL", "starttls"])
def test_smtplib(
    pki: _pki.TestPKI,
    smtp_server: StartServer,
    loopback_host: str,
    ctx: ssl.SSLContext,
    starttls: bool,
) -> None:
    """smtplib sends a message over implicit TLS and after STARTTLS."""
    host, port = smtp_server(pki["good"], loopback_host, starttls=starttls)
    if starttls:
        client = smtplib.SMTP(host, port, timeout=5)
        client.starttls(context=ctx)
    else:
        client = smtplib.SMTP_SSL(host, port, context=ctx, timeout=5)
    with client:
        client.ehlo()
        refused = client.sendmail("a@example.org", ["b@example.org"], b"Subject: hi\r\n\r\nhi\r\n")
        assert refused == {}


@pytest.mark.parametrize("starttls", [False, True], ids=["SMTP_SSL", "starttls"])
def test_smtplib_wrong_ca(
    pki: _pki.TestPKI, smtp_server: StartServer, wrong_ctx: ssl.SSLContext, starttls: bool
) -> None:
    """smtplib refuses the good chain when trusting another root."""
    host, port = smtp_server(pki["good"], starttls=starttls)
    if starttls:
        with (
            smtplib.SMTP(host, port, timeout=5) as client,
            pytest.raises(ssl.SSLCertVerificationError),
        ):
            client.starttls(context=wrong_ctx)
    else:
        with pytest.raises(ssl.SSLCertVerificationError):
            smtplib.SMTP_SSL(host, port, context=wrong_ctx, timeout=5)


@pytest.mark.parametrize("starttls", [False, True], ids=["IMAP4_SSL", "starttls"])
def test_imaplib(
    pki: _pki.TestPKI,
    imap_server: StartServer,
    loopback_host: str,
    ctx: ssl.SSLContext,
    starttls: bool,
) -> None:
    """imaplib logs in and out over implicit TLS and after STARTTLS."""
    host, port = imap_server(pki["good"], loopback_host, starttls=starttls)
    if starttls:
        client = imaplib.IMAP4(host, port, timeout=5)
        assert client.starttls(ssl_context=ctx)[0] == "OK"
    else:
        client = imaplib.IMAP4_SSL(host, port, ssl_context=ctx, timeout=5)
    with client:
        assert client.login("user", "password")[0] == "OK"
        assert client.logout()[0] == "BYE"


@pytest.mark.parametrize("starttls", [False, True], ids=["IMAP4_SSL", "starttls"])
def test_imaplib_wrong_ca(
    pki: _pki.TestPKI, imap_server: StartServer, wrong_ctx: ssl.SSLContext, starttls: bool
) -> None:
    """imaplib refuses the good chain when trusting another root."""
    host, port = imap_server(pki["good"], starttls=starttls)
    if starttls:
        client = imaplib.IMAP4(host, port, timeout=5)
        try:
            with pytest.raises(ssl.SSLCertVerificationError):
                client.starttls(ssl_context=wrong_ctx)
        finally:
            with contextlib.suppress(OSError):  # on the socket that wrap_socket detached
                client.shutdown()
    else:
        with pytest.raises(ssl.SSLCertVerificationError):
            imaplib.IMAP4_SSL(host, port, ssl_context=wrong_ctx, timeout=5)


@pytest.mark.parametrize("starttls", [False, True], ids=["POP3_SSL", "stls"])
def test_poplib(
    pki: _pki.TestPKI,
    pop3_server: StartServer,
    loopback_host: str,
    ctx: ssl.SSLContext,
    starttls: bool,
) -> None:
    """poplib logs in and quits over implicit TLS and after STLS."""
    host, port = pop3_server(pki["good"], loopback_host, starttls=starttls)
    if starttls:
        client = poplib.POP3(host, port, timeout=5)
        assert client.stls(context=ctx).startswith(b"+OK")
    else:
        client = poplib.POP3_SSL(host, port, context=ctx, timeout=5)
    try:
        client.user("user")
        client.pass_("password")
        assert client.stat() == (0, 0)
        assert client.quit().startswith(b"+OK")
    finally:
        client.close()


@pytest.mark.parametrize("starttls", [False, True], ids=["POP3_SSL", "stls"])
def test_poplib_wrong_ca(
    pki: _pki.TestPKI, pop3_server: StartServer, wrong_ctx: ssl.SSLContext, starttls: bool
) -> None:
    """poplib refuses the good chain when trusting another root."""
    host, port = pop3_server(pki["good"], starttls=starttls)
    if starttls:
        client = poplib.POP3(host, port, timeout=5)
        try:
            with pytest.raises(ssl.SSLCertVerificationError):
                client.stls(context=wrong_ctx)
        finally:
            with contextlib.suppress(OSError):  # on the socket that wrap_socket detached
                client.close()
    else:
        with pytest.raises(ssl.SSLCertVerificationError):
            poplib.POP3_SSL(host, port, context=wrong_ctx, timeout=5)


def test_ftplib(
    pki: _pki.TestPKI, ftps_server: StartServer, loopback_host: str, ctx: ssl.SSLContext
) -> None:
    """ftplib.FTP_TLS logs in, protects the data channel, lists and downloads a file."""
    host, port = ftps_server(pki["good"], loopback_host)
    with ftplib.FTP_TLS(context=ctx, timeout=5) as client:  # noqa: S321  # FTP over TLS
        client.connect(host, port)
        client.login()
        client.prot_p()
        listing: list[str] = []
        client.retrlines("LIST", listing.append)
        assert any(_servers.FTP_FILE_NAME in line for line in listing)
        chunks: list[bytes] = []
        client.retrbinary(f"RETR {_servers.FTP_FILE_NAME}", chunks.append)
        assert b"".join(chunks) == _servers.FTP_FILE_CONTENT


def test_ftplib_wrong_ca(
    pki: _pki.TestPKI, ftps_server: StartServer, wrong_ctx: ssl.SSLContext
) -> None:
    """ftplib.FTP_TLS refuses the good chain when trusting another root."""
    host, port = ftps_server(pki["good"])
    with ftplib.FTP_TLS(context=wrong_ctx, timeout=5) as client:  # noqa: S321  # FTP over TLS
        client.connect(host, port)
        with pytest.raises(ssl.SSLCertVerificationError):
            client.auth()


def _nntplib() -> ModuleType:
    """Import nntplib (Python <= 3.12) without failing on its deprecation warning."""
    with warnings.catch_warnings():
        # "nntplib is deprecated and slated for removal in Python 3.13" (PEP 594)
        warnings.simplefilter("ignore", DeprecationWarning)
        import nntplib
    return nntplib


@pytest.mark.skipif(not HAS_NNTPLIB, reason="nntplib was removed in Python 3.13 (PEP 594)")
def test_nntplib(
    pki: _pki.TestPKI, nntp_server: StartServer, loopback_host: str, ctx: ssl.SSLContext
) -> None:
    """nntplib.NNTP_SSL connects, reads capabilities and quits."""
    host, port = nntp_server(pki["good"], loopback_host)
    with _nntplib().NNTP_SSL(host, port, ssl_context=ctx, timeout=5) as client:
        assert "READER" in client.getcapabilities()


@pytest.mark.skipif(not HAS_NNTPLIB, reason="nntplib was removed in Python 3.13 (PEP 594)")
def test_nntplib_wrong_ca(
    pki: _pki.TestPKI, nntp_server: StartServer, wrong_ctx: ssl.SSLContext
) -> None:
    """nntplib.NNTP_SSL refuses the good chain when trusting another root."""
    host, port = nntp_server(pki["good"])
    with pytest.raises(ssl.SSLCertVerificationError):
        _nntplib().NNTP_SSL(host, port, ssl_context=wrong_ctx, timeout=5)


async def _asyncio_get(host: str, port: int, context: ssl.SSLContext) -> bytes:
    reader, writer = await asyncio.open_connection(host, port, ssl=context)
    try:
        writer.write(b"GET / HTTP/1.0\r\nHost: test\r\n\r\n")
        return await reader.read()
    finally:
        writer.close()
        await writer.wait_closed()


def test_asyncio(
    pki: _pki.TestPKI, https_server: StartServer, loopback_host: str, ctx: ssl.SSLContext
) -> None:
    """asyncio.open_connection(ssl=ctx) speaks HTTPS to the server."""
    response = asyncio.run(_asyncio_get(*https_server(pki["good"], loopback_host), ctx))
    assert response.startswith(b"HTTP/1.0 200")
    assert response.endswith(b"\r\n\r\nok")


def test_asyncio_wrong_ca(
    pki: _pki.TestPKI, https_server: StartServer, wrong_ctx: ssl.SSLContext
) -> None:
    """asyncio refuses the good chain when trusting another root."""
    with pytest.raises(ssl.SSLCertVerificationError):
        asyncio.run(_asyncio_get(*https_server(pki["good"]), wrong_ctx))


# -- a port that never speaks TLS --------------------------------------------------------------


def test_plain_tcp_server_is_not_tls(plain_tcp_server: StartServer, ctx: ssl.SSLContext) -> None:
    """A TLS client gets a protocol error, not a verification error, from a plain port."""
    host, port = plain_tcp_server()
    with (
        socket.create_connection((host, port), timeout=5) as raw,
        pytest.raises(ssl.SSLError) as excinfo,
    ):
        ctx.wrap_socket(raw, server_hostname=host)
    assert not isinstance(excinfo.value, ssl.SSLCertVerificationError)


def test_plain_tcp_server_silent(plain_tcp_server: StartServer, ctx: ssl.SSLContext) -> None:
    """With reply=None the server never answers, so the handshake times out."""
    host, port = plain_tcp_server(reply=None)
    with (
        socket.create_connection((host, port), timeout=0.3) as raw,
        pytest.raises(TimeoutError),
    ):
        ctx.wrap_socket(raw, server_hostname=host)
