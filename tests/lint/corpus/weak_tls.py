"""Weak TLS: old protocol versions, low version bounds, cleared options, broken ciphers."""
import socket
import ssl
from ssl import PROTOCOL_TLSv1_1, TLSVersion

import requests
import urllib3
from OpenSSL import SSL
from requests.adapters import HTTPAdapter

OLD = ssl.PROTOCOL_SSLv3


def protocols(sock):
    a = ssl.SSLContext(ssl.PROTOCOL_TLSv1)  # expect: SSC204 SSC701
    b = ssl.SSLContext(protocol=PROTOCOL_TLSv1_1)  # expect: SSC204 SSC701
    c = ssl.SSLContext(OLD)  # expect: SSC204 SSC701
    d = ssl.SSLContext(ssl.PROTOCOL_SSLv2)  # expect: SSC204 SSC701
    for ctx in (a, b, c, d):
        ctx.verify_mode = ssl.CERT_REQUIRED
        ctx.check_hostname = True
    return ssl.wrap_socket(sock, cert_reqs=ssl.CERT_REQUIRED, ssl_version=ssl.PROTOCOL_TLSv1)  # expect: SSC701


def pyopenssl_methods():
    SSL.Context(SSL.TLSv1_METHOD)  # expect: SSC701
    SSL.Context(method=SSL.SSLv3_METHOD)  # expect: SSC701
    SSL.Context(SSL.TLSv1_1_METHOD)  # expect: SSC701


class OldTLSAdapter(HTTPAdapter):
    def init_poolmanager(self, *args, **kwargs):
        self.poolmanager = urllib3.PoolManager(*args, ssl_version=ssl.PROTOCOL_TLSv1, **kwargs)  # expect: SSC701


def old_default(host, ssl_version=ssl.PROTOCOL_TLSv1):  # expect: SSC701
    return host, ssl_version


def minimum_versions():
    ctx = ssl.create_default_context()
    ctx.minimum_version = ssl.TLSVersion.TLSv1  # expect: SSC702
    ctx.minimum_version = TLSVersion.MINIMUM_SUPPORTED  # expect: SSC702
    ctx.maximum_version = ssl.TLSVersion.TLSv1_1  # expect: SSC702
    pool = urllib3.PoolManager(ssl_minimum_version=ssl.TLSVersion.TLSv1_1)  # expect: SSC702
    octx = SSL.Context(SSL.TLS_METHOD)
    octx.set_min_proto_version(SSL.TLS1_VERSION)  # expect: SSC702
    return ctx, pool, octx


def cleared_options():
    ctx = ssl.create_default_context()
    ctx.options &= ~ssl.OP_NO_TLSv1  # expect: SSC703
    ctx.options = ctx.options & ~ssl.OP_NO_SSLv3  # expect: SSC703
    ctx.options &= ~ssl.OP_NO_TLSv1_1  # expect: SSC703
    return ctx


def weak_ciphers():
    ctx = ssl.create_default_context()
    ctx.set_ciphers("ALL:@SECLEVEL=0")  # expect: SSC704
    ctx.set_ciphers("RC4-SHA")  # expect: SSC704
    ctx.set_ciphers("DEFAULT:aNULL")  # expect: SSC704
    ctx.set_ciphers("EXPORT")  # expect: SSC704
    ctx.set_ciphers("ECDHE-RSA-DES-CBC3-SHA")  # expect: SSC704
    ctx.set_ciphers("eNULL")  # expect: SSC704
    ctx.set_ciphers("HIGH:MD5")  # expect: SSC704
    octx = SSL.Context(SSL.TLS_METHOD)
    octx.set_cipher_list(b"NULL-SHA256")  # expect: SSC704
    return urllib3.PoolManager(ssl_ciphers="RC4:HIGH")  # expect: SSC704


# --- look-alikes ---------------------------------------------------------------------------

def safe_versions(sock):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # expect: none
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2  # expect: none
    ctx.maximum_version = ssl.TLSVersion.MAXIMUM_SUPPORTED  # expect: none
    ctx.options |= ssl.OP_NO_TLSv1 | ssl.OP_NO_TLSv1_1  # expect: none
    ctx.options &= ~ssl.OP_NO_COMPRESSION  # expect: none
    ctx.set_ciphers("ECDHE+AESGCM:!aNULL:!eNULL:!MD5:!RC4:!DES")  # expect: none
    ctx.set_ciphers("HIGH:-EXPORT:@SECLEVEL=2")  # expect: none
    SSL.Context(SSL.TLS_CLIENT_METHOD)  # expect: none
    return ctx.wrap_socket(sock, server_hostname="example.org")


def version_tables(ctx):
    names = {"TLSv1": ssl.PROTOCOL_TLSv1, "TLSv1.2": ssl.PROTOCOL_TLSv1_2}  # expect: none
    if ctx.protocol == ssl.PROTOCOL_TLSv1:  # expect: none
        return "old"
    if ctx.minimum_version == ssl.TLSVersion.TLSv1:  # expect: none
        return "old"
    supported = hasattr(ssl, "PROTOCOL_TLSv1_1")  # expect: none
    return names, supported, ssl.get_protocol_name(ssl.PROTOCOL_SSLv23)  # expect: none


def not_ciphers(text):
    text.set_ciphers  # expect: none
    requests.get("https://example.org/rc4-md5-null", timeout=5)  # expect: none
    return socket.getaddrinfo("export.example.org", 443)  # expect: none
