"""Written after this round's fixes, then scored: shapes from public rule suites' tests.

Scored before any change: 14 of 16 sites, one false alarm. The false alarm was a label (a dict
spread is reported where its entry is written, as documented, not at the call); the one miss
left, urllib3's ``ssl_version="TLSv1"`` string, was then fixed.
"""
import asyncio
import http.client
import smtplib
import socket
import ssl
import xmlrpc.client

import requests
import urllib3
from OpenSSL import SSL

METHOD = SSL.SSLv2_METHOD
PROTOCOL = ssl.PROTOCOL_TLSv1
NO_VERIFY = {"verify": False, "timeout": 3}  # expect: SSC101


def module_constants(sock):
    SSL.Context(METHOD)  # expect: SSC701
    return ssl.wrap_socket(sock, ssl_version=PROTOCOL, cert_reqs=ssl.CERT_REQUIRED)  # expect: SSC701


def context_tweaks(host):
    ctx = ssl.create_default_context()
    ctx.options &= ~ssl.OP_NO_SSLv3  # expect: SSC703
    ctx.minimum_version = ssl.TLSVersion.MINIMUM_SUPPORTED  # expect: SSC702
    return http.client.HTTPSConnection(host, context=ctx)


def stdlib_private_defaults(host):
    ctx = ssl._create_default_https_context()
    ctx.check_hostname = False  # expect: SSC202
    return http.client.HTTPSConnection(host, context=ctx)


def rpc(url):
    return xmlrpc.client.ServerProxy(url, context=ssl._create_unverified_context())  # expect: SSC203


def mail(host):
    server = smtplib.SMTP(host, 587)
    server.starttls()  # expect: SSC602
    return server


def asyncio_unverified(host):
    ctx = ssl.create_default_context()
    ctx.check_hostname = False  # expect: SSC202
    ctx.verify_mode = ssl.CERT_NONE  # expect: SSC201
    return asyncio.open_connection(host, 443, ssl=ctx)


def spread_constant(url):
    return requests.get(url, **NO_VERIFY)  # reported where the entry is written (above)


def session_verify(url):
    with requests.Session() as s:
        s.verify = False  # expect: SSC102
        return s.get(url)


def pool_optional_chain(url):
    return urllib3.PoolManager(cert_reqs="CERT_NONE", assert_hostname=False).request("GET", url)  # expect: SSC104


def pyopenssl_method_keyword_client(host):
    ctx = SSL.Context(method=SSL.TLSv1_1_METHOD)  # expect: SSC701 SSC209
    conn = SSL.Connection(ctx, socket.create_connection((host, 443)))
    conn.set_connect_state()
    return conn


def verify_none_then_connect(host):
    ctx = SSL.Context(SSL.TLS_CLIENT_METHOD)
    ctx.set_verify(SSL.VERIFY_NONE, lambda *args: True)  # expect: SSC208
    conn = SSL.Connection(ctx, socket.create_connection((host, 443)))
    conn.set_connect_state()
    return conn


def urllib3_ssl_version(host):
    return urllib3.connection_from_url(host, ssl_version="TLSv1")  # expect: SSC701


# --- look-alikes ---------------------------------------------------------------------------

def strict_everything(host, sock):
    ctx = ssl.create_default_context()  # expect: none
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2  # expect: none
    ctx.options |= ssl.OP_NO_SSLv3  # expect: none
    conn = http.client.HTTPSConnection(host, context=ctx)  # expect: none
    wrapped = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT).wrap_socket(sock, server_hostname=host)  # expect: none
    return conn, wrapped


def mail_with_context(host):
    server = smtplib.SMTP(host, 587)
    server.starttls(context=ssl.create_default_context())  # expect: none
    return server


def describe(ctx):
    if ctx.verify_mode == ssl.CERT_NONE:  # expect: none
        return "unverified"
    return {ssl.PROTOCOL_TLSv1: "1.0"}.get(ctx.protocol, "modern")  # expect: none


def pinned_client(url, ca):
    return requests.get(url, verify=ca, timeout=5)  # expect: none
