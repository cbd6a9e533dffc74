"""Held-out family 18: pyOpenSSL verification and bare client contexts.

Shapes from sonar-python's S4830 check tests (pyOpenSSL `set_verify` with `VERIFY_NONE` alone or
OR-ed, callbacks that accept whatever they are told), CodeQL's py/insecure-default-protocol and
request-without-cert-validation tests (an `SSLContext` made without a protocol or with
`PROTOCOL_TLS` and handed to a client), and client code of real projects (banner grabbers,
certificate probes, asyncio clients, Twisted-style context factories). Own code, nothing copied;
written without reading the linter.
"""

import asyncio
import http.client
import socket
import ssl
import urllib.request

import httpx
from OpenSSL import SSL

TRUSTED_DIGESTS = {"AB:CD:EF"}


def _trust_everything(conn, cert, errnum, depth, preverify_ok):
    return True


def _report_then_trust(conn, cert, errnum, depth, preverify_ok):
    if not preverify_ok:
        print("certificate problem", errnum, "at depth", depth)
    return 1


def _keep_openssl_verdict(conn, cert, errnum, depth, preverify_ok):
    return preverify_ok


def _pinned_or_verified(conn, cert, errnum, depth, preverify_ok):
    return bool(preverify_ok) and cert.digest("sha256").decode() in TRUSTED_DIGESTS


def grab_banner(host):
    """Read what a TLS service says first; its certificate is never looked at."""
    ctx = SSL.Context(SSL.TLS_CLIENT_METHOD)
    ctx.set_verify(SSL.VERIFY_NONE, _keep_openssl_verdict)  # expect: SSC208
    conn = SSL.Connection(ctx, socket.create_connection((host, 443)))
    conn.set_tlsext_host_name(host.encode())
    conn.set_connect_state()
    conn.do_handshake()
    return conn.recv(1024)


def probe_with_logging(host):
    """VERIFY_PEER, but the callback accepts every failure after logging it."""
    ctx = SSL.Context(SSL.TLS_CLIENT_METHOD)
    ctx.set_verify(SSL.VERIFY_PEER, _report_then_trust)  # expect: SSC208
    ctx.set_default_verify_paths()
    conn = SSL.Connection(ctx, socket.socket())
    conn.connect((host, 443))
    return conn


def probe_with_lambda(host):
    ctx = SSL.Context(SSL.TLS_CLIENT_METHOD)
    ctx.set_verify(SSL.VERIFY_PEER | SSL.VERIFY_FAIL_IF_NO_PEER_CERT, lambda *args: True)  # expect: SSC208
    conn = SSL.Connection(ctx, socket.socket())
    conn.connect((host, 443))
    return conn


def probe_by_keyword(host):
    ctx = SSL.Context(SSL.TLS_CLIENT_METHOD)
    ctx.set_verify(mode=SSL.VERIFY_NONE, callback=None)  # expect: SSC208
    conn = SSL.Connection(ctx, socket.socket())
    conn.connect((host, 443))
    return conn


def probe_with_zero(host):
    """VERIFY_NONE is 0: the literal says the same."""
    ctx = SSL.Context(SSL.TLS_CLIENT_METHOD)
    ctx.set_verify(0)  # expect: SSC208
    conn = SSL.Connection(ctx, socket.socket())
    conn.connect((host, 443))
    return conn


def probe_by_name(host):
    ctx = SSL.Context(SSL.TLS_CLIENT_METHOD)
    ctx.set_verify(getattr(SSL, "VERIFY_" + "NONE"))  # expect: SSC208
    conn = SSL.Connection(ctx, socket.socket())
    conn.connect((host, 443))
    return conn


class CertProbe:
    """A probe whose bound-method callback accepts anything."""

    def _verify(self, conn, cert, errnum, depth, ok):
        return True

    def connect(self, host):
        ctx = SSL.Context(SSL.TLS_CLIENT_METHOD)
        ctx.set_verify(SSL.VERIFY_PEER, self._verify)  # expect: SSC208
        conn = SSL.Connection(ctx, socket.socket())
        conn.connect((host, 443))
        return conn


def fetch_chain(host):
    """A client connection from a context that never asked for verification."""
    ctx = SSL.Context(SSL.TLS_METHOD)  # expect: SSC209
    conn = SSL.Connection(ctx, socket.create_connection((host, 443)))
    conn.set_connect_state()
    conn.do_handshake()
    return conn.get_peer_cert_chain()


def fetch_chain_verified(host):
    ctx = SSL.Context(SSL.TLS_METHOD)  # expect: SSC210
    ctx.set_verify(SSL.VERIFY_PEER, _keep_openssl_verdict)  # expect: none
    ctx.set_default_verify_paths()
    conn = SSL.Connection(ctx, socket.create_connection((host, 443)))
    conn.set_connect_state()
    conn.do_handshake()
    return conn.get_peer_cert_chain()


def fetch_pinned(host):
    ctx = SSL.Context(SSL.TLS_METHOD)  # expect: none
    ctx.set_verify(SSL.VERIFY_PEER | SSL.VERIFY_CLIENT_ONCE, _pinned_or_verified)  # expect: none
    ctx.load_verify_locations("/etc/ssl/certs/ca-certificates.crt")
    conn = SSL.Connection(ctx, socket.socket())
    conn.connect((host, 443))
    return conn


def serve_anonymous(listener):
    """A server that asks no client certificate: VERIFY_NONE is the normal server setting."""
    ctx = SSL.Context(SSL.TLS_SERVER_METHOD)
    ctx.use_certificate_file("server.pem")
    ctx.use_privatekey_file("server.key")
    ctx.set_verify(SSL.VERIFY_NONE, _trust_everything)  # expect: none
    conn = SSL.Connection(ctx, listener.accept()[0])
    conn.set_accept_state()
    return conn


# Bare stdlib contexts used by clients.
def get_status(host):
    """Loading a CA file does not turn verification on for PROTOCOL_TLS."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS)  # expect: SSC204
    ctx.load_verify_locations("/etc/ssl/certs/internal-ca.pem")
    conn = http.client.HTTPSConnection(host, context=ctx)
    conn.request("GET", "/status")
    return conn.getresponse()


def read_feed(url):
    return urllib.request.urlopen(url, context=ssl.SSLContext()).read()  # expect: SSC204


async def pinned_version_client(host):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLSv1_2)  # expect: SSC204
    reader, writer = await asyncio.open_connection(host, 443, ssl=ctx, server_hostname=host)
    return reader, writer


def wrap_raw(host):
    ctx = ssl.SSLContext(ssl.PROTOCOL_SSLv23)  # expect: SSC204
    return ctx.wrap_socket(socket.create_connection((host, 443)), server_hostname=host)


api = httpx.Client(verify=ssl.SSLContext(ssl.PROTOCOL_TLS))  # expect: SSC204


def chain_only(host):
    """CERT_REQUIRED without the name check: any trusted certificate passes for this host."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS)  # expect: SSC206
    ctx.verify_mode = ssl.CERT_REQUIRED
    ctx.load_default_certs()
    return ctx.wrap_socket(socket.create_connection((host, 443)), server_hostname=host)


# Look-alikes.
def fully_configured(host):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS)  # expect: none
    ctx.verify_mode = ssl.CERT_REQUIRED
    ctx.check_hostname = True
    ctx.load_default_certs()
    return ctx.wrap_socket(socket.create_connection((host, 443)), server_hostname=host)


def client_protocol(host):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # expect: none
    ctx.load_default_certs()
    return http.client.HTTPSConnection(host, context=ctx)


def tls_listener(sock):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS)  # expect: none
    ctx.load_cert_chain("server.pem", "server.key")
    return ctx.wrap_socket(sock, server_side=True)


async def start_tls_service(handler):
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)  # expect: none
    ctx.load_cert_chain("server.pem", "server.key")
    return await asyncio.start_server(handler, "127.0.0.1", 8443, ssl=ctx)
