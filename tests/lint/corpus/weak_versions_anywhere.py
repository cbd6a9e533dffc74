"""Weak protocol versions outside SSLContext(): pyOpenSSL methods, keywords, defaults, bounds."""
import socket
import ssl
from ssl import TLSVersion

import OpenSSL
import urllib3
from OpenSSL import SSL
from OpenSSL.SSL import Context, SSLv3_METHOD, TLSv1_METHOD
from urllib3.util.ssl_ import ssl_wrap_socket


def pyopenssl_positional_and_keyword():
    one = SSL.Context(SSL.SSLv2_METHOD)  # expect: SSC701
    two = Context(SSLv3_METHOD)  # expect: SSC701
    three = OpenSSL.SSL.Context(method=OpenSSL.SSL.TLSv1_METHOD)  # expect: SSC701
    four = SSL.Context(method=SSL.TLSv1_1_METHOD)  # expect: SSC701
    five = Context(TLSv1_METHOD)  # expect: SSC701
    return one, two, three, four, five


def keywords_to_any_callable(sock, host):
    conn = ssl_wrap_socket(sock, ssl_version=ssl.PROTOCOL_SSLv3)  # expect: SSC701
    pool = urllib3.HTTPSConnectionPool(host, ssl_version=ssl.PROTOCOL_TLSv1_1)  # expect: SSC701
    helper = open_channel(host, method=SSL.TLSv1_METHOD)  # expect: SSC701
    wrapped = make_tls(sock, ssl_version=ssl.PROTOCOL_SSLv2)  # expect: SSC701
    return conn, pool, helper, wrapped


def open_channel(host, method=SSL.SSLv3_METHOD):  # expect: SSC701
    return SSL.Context(method), host


def make_tls(sock, ssl_version=ssl.PROTOCOL_TLSv1):  # expect: SSC701
    return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT).wrap_socket(sock, server_hostname="a.example")


def open_ssl_socket(version=ssl.PROTOCOL_SSLv2):  # expect: SSC701
    return version


class Legacy:
    def connect(self, host, *, protocol=ssl.PROTOCOL_TLSv1_1):  # expect: SSC701
        return host, protocol


def bounds(ctx):
    ctx.minimum_version = TLSVersion.TLSv1  # expect: SSC702
    ctx.minimum_version = ssl.TLSVersion.SSLv3  # expect: SSC702
    setattr(ctx, "minimum_version", ssl.TLSVersion.TLSv1_1)  # expect: SSC702
    return ctx


def lambda_and_partial():
    factory = lambda: SSL.Context(SSL.TLSv1_METHOD)  # expect: SSC701
    return factory


# --- look-alikes ---------------------------------------------------------------------------

def negotiating(sock, host):
    a = SSL.Context(SSL.SSLv23_METHOD)  # expect: none
    b = SSL.Context(SSL.TLS_METHOD)  # expect: none
    c = SSL.Context(method=SSL.TLSv1_2_METHOD)  # expect: none
    d = ssl_wrap_socket(sock, ssl_version=ssl.PROTOCOL_TLS)  # expect: none
    e = urllib3.HTTPSConnectionPool(host, ssl_version=ssl.PROTOCOL_TLS_CLIENT)  # expect: none
    f = open_channel(host, method=SSL.TLS_CLIENT_METHOD)  # expect: none
    g = make_tls(sock, ssl_version=ssl.PROTOCOL_TLSv1_2)  # expect: none
    return a, b, c, d, e, f, g


def good_default(host, version=ssl.PROTOCOL_TLS_CLIENT, method=SSL.TLS_METHOD):  # expect: none
    return host, version, method


def good_bounds(ctx):
    ctx.minimum_version = TLSVersion.TLSv1_2  # expect: none
    ctx.minimum_version = ssl.TLSVersion.TLSv1_3  # expect: none
    return ctx


def reporting(ctx):
    legacy = {SSL.TLSv1_METHOD: "TLS 1.0", SSL.SSLv3_METHOD: "SSL 3"}  # expect: none
    if ctx.protocol in (ssl.PROTOCOL_TLSv1, ssl.PROTOCOL_TLSv1_1):  # expect: none
        raise ValueError("refusing an old protocol")
    return legacy.get(SSL.TLSv1_METHOD)  # expect: none


def rejects_old(version):
    if version == ssl.PROTOCOL_SSLv3:  # expect: none
        raise ValueError("SSLv3 is not allowed")
    assert version != ssl.PROTOCOL_TLSv1  # expect: none
    return socket.getaddrinfo("tlsv1.example", 443)  # expect: none
