"""An eleventh held-out family: pyOpenSSL, Twisted-style and stdlib client code; scored first.

Shapes seen in public code: Twisted-style client context factories that choose the method as
a class attribute or build the context in ``getContext``, pyOpenSSL's example client (a
callback that returns ``ok``), a callback that accepts everything, an xmlrpc transport with a
TLS 1.0 context, a cached context made with ``CERT_NONE``, a requests adapter lowering the
cipher security level, and urllib3 contexts made with ``cert_reqs=None``. Own code, nothing
copied.
"""
import socket
import ssl
import xmlrpc.client
from functools import cache

from OpenSSL import SSL
from requests import adapters
from urllib3 import poolmanager
from urllib3.util.ssl_ import create_urllib3_context


class OldClientFactory:
    is_client = True
    method = SSL.SSLv3_METHOD  # expect: SSC701
    _factory = SSL.Context

    def getContext(self):  # noqa: N802
        ctx = self._factory(self.method)
        ctx.set_options(SSL.OP_NO_SSLv2)
        return ctx


class Tls10ClientFactory:
    def getContext(self):  # noqa: N802
        return SSL.Context(SSL.TLSv1_METHOD)  # expect: SSC701


def accept_all(conn, cert, errnum, depth, ok):
    return True


def connect_trusting_all(host, port):
    ctx = SSL.Context(SSL.TLS_CLIENT_METHOD)
    ctx.set_verify(SSL.VERIFY_PEER, accept_all)  # expect: SSC208
    conn = SSL.Connection(ctx, socket.create_connection((host, port)))
    conn.set_tlsext_host_name(host.encode())
    conn.set_connect_state()
    return conn


def connect_no_verify(host, port):
    ctx = SSL.Context(SSL.TLS_CLIENT_METHOD)
    ctx.set_verify(SSL.VERIFY_NONE, lambda *args: True)  # expect: SSC208
    conn = SSL.Connection(ctx, socket.create_connection((host, port)))
    conn.set_connect_state()
    return conn


class PinnedTransport(xmlrpc.client.SafeTransport):
    def __init__(self, cafile):
        super().__init__()
        self._ssl_context = ssl.SSLContext(ssl.PROTOCOL_TLSv1)  # expect: SSC701 SSC204
        self._ssl_context.load_verify_locations(cafile)


@cache
def shared_context():
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False  # expect: SSC202
    context.verify_mode = ssl.CERT_NONE  # expect: SSC201
    context.set_ciphers("DEFAULT:!DH")
    return context


class NoLevelAdapter(adapters.HTTPAdapter):
    def init_poolmanager(self, connections, maxsize, block=False, **pool_kwargs):
        ctx = ssl.create_default_context()
        ctx.set_ciphers("DEFAULT@SECLEVEL=0")  # expect: SSC704
        self.poolmanager = poolmanager.PoolManager(
            num_pools=connections, maxsize=maxsize, block=block, ssl_context=ctx
        )


# --- look-alikes ---------------------------------------------------------------------------

def verify_cb(conn, cert, errnum, depth, ok):
    print("certificate:", cert.get_subject())
    return ok


def example_client(host, port):
    ctx = SSL.Context(SSL.SSLv23_METHOD)  # expect: none
    ctx.set_options(SSL.OP_NO_SSLv2 | SSL.OP_NO_SSLv3)
    ctx.set_verify(SSL.VERIFY_PEER, verify_cb)  # expect: none
    ctx.load_verify_locations("/etc/ssl/certs/ca-certificates.crt")
    conn = SSL.Connection(ctx, socket.create_connection((host, port)))
    conn.set_connect_state()
    return conn


def only_when_clean(cnx, x509, err_no, err_depth, return_code):
    return err_no == 0


def strict_callback_client(host, port):
    ctx = SSL.Context(SSL.TLS_CLIENT_METHOD)
    ctx.set_default_verify_paths()
    ctx.set_verify(SSL.VERIFY_PEER | SSL.VERIFY_FAIL_IF_NO_PEER_CERT, only_when_clean)  # expect: none
    conn = SSL.Connection(ctx, socket.create_connection((host, port)))
    conn.set_connect_state()
    return conn


class LegacyCipherAdapter(adapters.HTTPAdapter):
    def init_poolmanager(self, connections, maxsize, block=False, **pool_kwargs):
        ctx = ssl.create_default_context()
        ctx.set_ciphers("DEFAULT@SECLEVEL=1")  # expect: none
        self.poolmanager = poolmanager.PoolManager(
            num_pools=connections, maxsize=maxsize, block=block, ssl_context=ctx
        )


class DefaultsAdapter(adapters.HTTPAdapter):
    def init_poolmanager(self, *args, **kwargs):
        kwargs["ssl_context"] = create_urllib3_context(ciphers=None, cert_reqs=None)  # expect: none
        return super().init_poolmanager(*args, **kwargs)


def no_tls13(host):
    context = ssl.create_default_context()
    context.options |= ssl.OP_NO_TLSv1 | ssl.OP_NO_TLSv1_1 | ssl.OP_NO_TLSv1_3  # expect: none
    context.set_ciphers("AES256-SHA")  # expect: none
    return socket.create_connection((host, 443)), context


def legacy_renegotiation():
    context = ssl.create_default_context()
    context.options |= getattr(ssl, "OP_LEGACY_SERVER_CONNECT", 0x4)  # expect: SSC703
    return context
