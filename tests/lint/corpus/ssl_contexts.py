"""ssl contexts: attributes switched off, bare client contexts, private unverified factories."""
import asyncio
import http.client
import socket
import ssl
import urllib.request
from ssl import CERT_NONE, SSLContext, create_default_context

NOVERIFY = ssl.CERT_NONE


def attributes(host):
    ctx = ssl.create_default_context()
    ctx.check_hostname = False  # expect: SSC202
    ctx.verify_mode = ssl.CERT_NONE  # expect: SSC201
    return urllib.request.urlopen("https://" + host, context=ctx)


def imported_names():
    ctx = create_default_context()
    ctx.check_hostname = False  # expect: SSC202
    ctx.verify_mode = CERT_NONE  # expect: SSC201
    return ctx


def module_constant():
    context = ssl.create_default_context()
    context.check_hostname = False  # expect: SSC202
    context.verify_mode = NOVERIFY  # expect: SSC201
    return context


def verify_mode_enum():
    ctx = ssl.create_default_context()
    ctx.check_hostname = False  # expect: SSC202
    ctx.verify_mode = ssl.VerifyMode.CERT_NONE  # expect: SSC201
    return ctx


def with_setattr(host):
    ctx = ssl.create_default_context()
    setattr(ctx, "check_hostname", False)  # expect: SSC202
    setattr(ctx, "verify_mode", ssl.CERT_NONE)  # expect: SSC201
    setattr(ctx, "minimum_version", ssl.TLSVersion.TLSv1_2)  # expect: none
    return urllib.request.urlopen("https://" + host, context=ctx)


def falsy_attributes(host):
    ctx = ssl.create_default_context()
    ctx.check_hostname = 0  # expect: SSC202
    ctx.verify_mode = ssl.VerifyMode(0)  # expect: SSC201
    strict = ssl.create_default_context()
    strict.check_hostname = 1  # expect: none
    strict.verify_mode = ssl.VerifyMode(2)  # expect: none
    urllib.request.urlopen("https://" + host, context=strict)
    return urllib.request.urlopen("https://" + host, context=ctx)


def dynamic_lookup(host):
    ctx = getattr(ssl, "_create_unverified_context")()  # expect: SSC203
    good = getattr(ssl, "create_default_context")()  # expect: none
    urllib.request.urlopen("https://" + host, context=good)
    return urllib.request.urlopen("https://" + host, context=ctx)


import importlib  # noqa: E402


def dynamic_import(host):
    module = __import__("ssl")
    ctx = module._create_unverified_context()  # expect: SSC203
    other = importlib.import_module("ssl")
    loose = other._create_unverified_context()  # expect: SSC203
    data = __import__("json").loads("{}")  # expect: none
    urllib.request.urlopen("https://" + host, context=loose, data=data)
    return urllib.request.urlopen("https://" + host, context=ctx)


def bare_contexts(host):
    a = ssl.SSLContext()  # expect: SSC204
    b = SSLContext(ssl.PROTOCOL_TLS)  # expect: SSC204
    c = ssl.SSLContext(protocol=ssl.PROTOCOL_SSLv23)  # expect: SSC204
    d = ssl.SSLContext(ssl.PROTOCOL_TLSv1_2)  # expect: SSC204
    conn = http.client.HTTPSConnection(host, context=ssl.SSLContext(ssl.PROTOCOL_TLS))  # expect: SSC204
    return a, b, c, d, conn


def unverified(host):
    urllib.request.urlopen("https://" + host, context=ssl._create_unverified_context())  # expect: SSC203
    ctx = ssl._create_stdlib_context()  # expect: SSC203
    return ctx


def wrap_socket_legacy(host):
    sock = socket.create_connection((host, 443))
    ssl.wrap_socket(sock)  # expect: SSC205
    ssl.wrap_socket(sock, cert_reqs=ssl.CERT_NONE)  # expect: SSC205


class Client:
    def __init__(self):
        self.ctx = ssl.create_default_context()

    def weaken(self):
        self.ctx.check_hostname = False  # expect: SSC202
        self.ctx.verify_mode = ssl.CERT_NONE  # expect: SSC201


def parameter_context(context):
    context.check_hostname = False  # expect: SSC202
    context.verify_mode = ssl.CERT_NONE  # expect: SSC201


async def asyncio_client(host):
    ctx = ssl.create_default_context()
    ctx.check_hostname = False  # expect: SSC202
    ctx.verify_mode = ssl.CERT_NONE  # expect: SSC201
    return await asyncio.open_connection(host, 443, ssl=ctx)


# --- look-alikes ---------------------------------------------------------------------------

def server_contexts(cert, key, sock, handler):
    srv = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)  # expect: none
    srv.verify_mode = ssl.CERT_NONE  # expect: none
    srv.load_cert_chain(cert, key)
    purpose = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)  # expect: none
    purpose.verify_mode = ssl.CERT_NONE  # expect: none
    legacy = ssl.SSLContext(ssl.PROTOCOL_TLS)  # expect: none
    legacy.check_hostname = False  # expect: none
    legacy.verify_mode = ssl.CERT_NONE  # expect: none
    legacy.load_cert_chain(cert, key)
    wrapped = legacy.wrap_socket(sock, server_side=True)  # expect: none
    return asyncio.start_server(handler, "127.0.0.1", 0, ssl=srv), wrapped


def server_socket_helper(sock, ctx):
    ctx.verify_mode = ssl.CERT_NONE  # expect: none
    return ctx.wrap_socket(sock, server_side=True)


def safe_clients(ctx, host):
    ctx = ssl.create_default_context()  # expect: none
    ctx.verify_mode = ssl.CERT_REQUIRED  # expect: none
    ctx.check_hostname = True  # expect: none
    client = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # expect: none
    manual = ssl.SSLContext(ssl.PROTOCOL_TLS)  # expect: none
    manual.verify_mode = ssl.CERT_REQUIRED  # expect: none
    manual.check_hostname = True  # expect: none
    if ctx.verify_mode == ssl.CERT_NONE:  # expect: none
        raise ValueError("unverified")
    assert ctx.verify_mode != CERT_NONE  # expect: none
    assert ctx.check_hostname is not False  # expect: none
    return client, manual


# --- per-context decisions: a client context next to a server's ---------------------------

def proxy_both_sides(cert, key, upstream, listener):
    srv = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)  # expect: none
    srv.load_cert_chain(cert, key)
    up = ssl.SSLContext(ssl.PROTOCOL_TLS)  # expect: SSC204
    inbound = srv.wrap_socket(listener, server_side=True)
    outbound = http.client.HTTPSConnection(upstream, context=up)
    return inbound, outbound


def relay_with_unverified_upstream(cert, key, handler, upstream):
    srv = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)  # expect: none
    srv.load_cert_chain(cert, key)
    out = ssl.create_default_context()
    out.verify_mode = ssl.CERT_NONE  # expect: SSC201
    out.check_hostname = False  # expect: SSC202
    server = asyncio.start_server(handler, "127.0.0.1", 0, ssl=srv)
    return server, urllib.request.urlopen(upstream, context=out)


def wrap_as_client(sock, host):
    ctx = SSLContext(ssl.PROTOCOL_SSLv23)  # expect: SSC204
    return ctx.wrap_socket(sock, server_side=False)


# --- host name check left off; a server-purpose context handed to a client ----------------

def required_without_name_check(host):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS)  # expect: SSC206
    ctx.verify_mode = ssl.CERT_REQUIRED
    ctx.load_default_certs()
    return http.client.HTTPSConnection(host, context=ctx)


def client_auth_in_client(url):
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)  # expect: SSC207
    return urllib.request.urlopen(url, context=ctx)


async def client_auth_purpose_keyword(host):
    ctx = ssl.create_default_context(purpose=ssl.Purpose.CLIENT_AUTH)  # expect: SSC207
    return await asyncio.open_connection(host, 443, ssl=ctx)


def name_check_on_too(host):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS)  # expect: none
    ctx.verify_mode = ssl.CERT_REQUIRED
    ctx.check_hostname = True
    return http.client.HTTPSConnection(host, context=ctx)


def tls_client_protocol_required(host):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # expect: none
    ctx.verify_mode = ssl.CERT_REQUIRED  # expect: none
    return http.client.HTTPSConnection(host, context=ctx)


def mutual_tls_server(cert, key, listener):
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)  # expect: none
    ctx.verify_mode = ssl.CERT_REQUIRED
    ctx.load_cert_chain(cert, key)
    return ctx.wrap_socket(listener, server_side=True)


# --- unverified contexts repaired before use; comparisons ----------------------------------

def repaired_unverified(url):
    ctx = ssl._create_unverified_context()  # expect: none
    ctx.verify_mode = ssl.CERT_REQUIRED
    ctx.check_hostname = True
    ctx.load_default_certs()
    return urllib.request.urlopen(url, context=ctx)


def half_repaired(url):
    # CERT_REQUIRED without the name check: the chain is verified, any host accepted (SSC206).
    ctx = ssl._create_unverified_context()  # expect: SSC206
    ctx.verify_mode = ssl.CERT_REQUIRED
    return urllib.request.urlopen(url, context=ctx)


def is_patched():
    if ssl._create_default_https_context() == ssl._create_unverified_context():  # expect: none
        return True
    return ssl._create_unverified_context() is None  # expect: none


# --- pyOpenSSL -------------------------------------------------------------------------------

from OpenSSL import SSL  # noqa: E402


def pyopenssl_client(sock, host):
    ctx = SSL.Context(SSL.TLS_CLIENT_METHOD)  # expect: SSC209
    conn = SSL.Connection(ctx, sock)
    conn.set_tlsext_host_name(host)
    conn.set_connect_state()
    conn.do_handshake()
    return conn


def pyopenssl_verify_none(sock):
    ctx = SSL.Context(SSL.TLS_METHOD)
    ctx.set_verify(SSL.VERIFY_NONE, lambda *a: True)  # expect: SSC208
    conn = SSL.Connection(ctx, sock)
    conn.set_connect_state()
    return conn


def pyopenssl_verify_none_unknown(context):
    context.set_verify(SSL.VERIFY_NONE)  # expect: SSC208


def pyopenssl_verifying_client(sock, host):
    ctx = SSL.Context(SSL.TLS_CLIENT_METHOD)  # expect: SSC210
    ctx.set_verify(SSL.VERIFY_PEER | SSL.VERIFY_FAIL_IF_NO_PEER_CERT)  # expect: none
    ctx.set_default_verify_paths()
    conn = SSL.Connection(ctx, sock)
    conn.set_connect_state()
    return conn


def pyopenssl_server(sock, cert, key):
    ctx = SSL.Context(SSL.TLS_SERVER_METHOD)  # expect: none
    ctx.use_certificate_file(cert)
    ctx.use_privatekey_file(key)
    ctx.set_verify(SSL.VERIFY_NONE)  # expect: none
    conn = SSL.Connection(ctx, sock)
    conn.set_accept_state()
    return conn


# --- real-code look-alikes: wrapper classes, a library's opt-out branch, its default path ---

import os  # noqa: E402


class WrappedContext:
    def __init__(self, protocol):
        self.protocol = protocol
        self.check_hostname = False  # expect: none
        self.verify_mode = ssl.CERT_NONE  # expect: none


def library_context(verify=True):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    if verify is False:
        ctx.check_hostname = False  # expect: none
        ctx.verify_mode = ssl.CERT_NONE  # expect: none
    return ctx


def library_context_else(verified):
    if verified:
        return ssl.create_default_context()
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    return ctx


def default_path_unverified(host, context=None):
    if context is None:
        context = ssl._create_stdlib_context()  # expect: SSC203
    return context


def insecure_by_environment(url):
    ctx = ssl.create_default_context()
    if os.environ.get("APP_INSECURE"):
        ctx.check_hostname = False  # expect: SSC202
    return urllib.request.urlopen(url, context=ctx)


def insecure_by_default_flag(url, insecure=True):
    ctx = ssl.create_default_context()
    if insecure:
        ctx.check_hostname = False  # expect: SSC202
    return urllib.request.urlopen(url, context=ctx)
