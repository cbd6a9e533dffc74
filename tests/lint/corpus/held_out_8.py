"""An eighth held-out family: ruff's flake8-bandit fixtures, in other spellings; scored first.

Shapes from ruff's S501-S504 test fixtures (requests/httpx verify flags, weak protocols in
calls and parameter defaults), written with other import styles, lambdas, keyword-only
parameters, class constants and pyOpenSSL/urllib3 version bounds, after the fixes that
held_out_7 led to. Own code, nothing copied.
"""
import ssl
from ssl import PROTOCOL_TLSv1 as OLD_PROTOCOL
from ssl import SSLContext, TLSVersion, wrap_socket

import httpx
import requests
import urllib3
from OpenSSL import SSL
from OpenSSL.SSL import Context, TLSv1_1_METHOD


def aliased_constant_server():
    ctx = SSLContext(OLD_PROTOCOL)  # expect: SSC701
    ctx.load_cert_chain("server.pem", "server.key")
    return ctx


def keyword_only_default(sock, *, protocol=ssl.PROTOCOL_TLSv1):  # expect: SSC701
    return sock, protocol


async def async_default(host, version=ssl.PROTOCOL_SSLv3):  # expect: SSC701
    return host, version


opener = lambda sock, version=ssl.PROTOCOL_TLSv1_1: (sock, version)  # expect: SSC701


def imported_pyopenssl_method():
    return Context(TLSv1_1_METHOD)  # expect: SSC701


def imported_wrap_socket_old(sock):
    return wrap_socket(sock, ssl_version=OLD_PROTOCOL)  # expect: SSC701 SSC205


def imported_wrap_socket_plain(sock):
    return wrap_socket(sock)  # expect: SSC205


def httpx_request_off(url):
    return httpx.request("GET", url, verify=False)  # expect: SSC101


class Poller:
    def __init__(self):
        self.client = httpx.AsyncClient(verify=False)  # expect: SSC101


class Settings:
    PROTOCOL = ssl.PROTOCOL_TLSv1


def class_constant_context():
    ctx = ssl.SSLContext(Settings.PROTOCOL)  # expect: SSC701
    ctx.load_cert_chain("server.pem")
    return ctx


def imported_version_enum(host):
    ctx = ssl.create_default_context()
    ctx.minimum_version = TLSVersion.TLSv1_1  # expect: SSC702
    return ctx


def pyopenssl_min_proto(sock):
    ctx = SSL.Context(SSL.TLS_CLIENT_METHOD)  # expect: SSC210
    ctx.set_min_proto_version(SSL.TLS1_1_VERSION)  # expect: SSC702
    ctx.set_verify(SSL.VERIFY_PEER, lambda conn, cert, errno, depth, ok: ok)
    ctx.set_default_verify_paths()
    return SSL.Connection(ctx, sock)


def reenable_sslv3():
    ctx = ssl.create_default_context()
    ctx.options &= ~ssl.OP_NO_SSLv3  # expect: SSC703
    return ctx


def rc4_by_concatenation():
    ctx = ssl.create_default_context()
    ctx.set_ciphers("DEFAULT:" + "RC4-SHA")  # expect: SSC704
    return ctx


def urllib3_v2_floor(url):
    pool = urllib3.PoolManager(ssl_minimum_version=ssl.TLSVersion.TLSv1)  # expect: SSC702
    return pool.request("GET", url)


def inline_spread(url):
    return requests.get(url, timeout=30, **{"verify": False})  # expect: SSC101


# --- look-alikes ---------------------------------------------------------------------------

def modern_default(version=SSL.TLSv1_2_METHOD):  # expect: none
    return version


def negotiating_default(version=SSL.SSLv23_METHOD):  # expect: none
    return version


def negotiating_context():
    return SSL.Context(method=SSL.SSLv23_METHOD)  # expect: none


modern_opener = lambda sock, version=ssl.PROTOCOL_TLS_CLIENT: (sock, version)  # expect: none


def urllib3_v2_modern_floor(url):
    pool = urllib3.PoolManager(ssl_minimum_version=ssl.TLSVersion.TLSv1_2)  # expect: none
    return pool.request("GET", url)


def removes_sslv3():
    ctx = ssl.create_default_context()
    ctx.options |= ssl.OP_NO_SSLv3  # expect: none
    ctx.set_ciphers("ECDHE+AESGCM:!aNULL:!MD5:!RC4")  # expect: none
    return ctx


def pyopenssl_modern_min(sock):
    ctx = SSL.Context(SSL.TLS_CLIENT_METHOD)  # expect: SSC210
    ctx.set_min_proto_version(SSL.TLS1_2_VERSION)  # expect: none
    ctx.set_verify(SSL.VERIFY_PEER, lambda conn, cert, errno, depth, ok: ok)
    ctx.set_default_verify_paths()
    return SSL.Connection(ctx, sock)


def httpx_defaults(url):
    with httpx.Client() as client:  # expect: none
        return client.get(url)


def httpx_request_checked(url):
    return httpx.request("GET", url, verify=True)  # expect: none
