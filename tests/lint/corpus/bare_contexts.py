"""Bare client contexts: SSLContext without PROTOCOL_TLS_CLIENT, used by a client."""
import asyncio
import http.client
import socket
import ssl
import urllib.request
from ssl import PROTOCOL_TLS, SSLContext


def bare_then_used(host):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS)  # expect: SSC204
    with socket.create_connection((host, 443)) as sock:
        return ctx.wrap_socket(sock, server_hostname=host)


def bare_tls12(host):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLSv1_2)  # expect: SSC204
    return http.client.HTTPSConnection(host, context=ctx)


def bare_no_argument(url):
    ctx = SSLContext()  # expect: SSC204
    return urllib.request.urlopen(url, context=ctx, timeout=10)


def bare_from_import(url):
    return urllib.request.urlopen(url, context=SSLContext(PROTOCOL_TLS))  # expect: SSC204


async def bare_in_asyncio(host):
    return await asyncio.open_connection(host, 443, ssl=ssl.SSLContext(ssl.PROTOCOL_TLS))  # expect: SSC204


def bare_sslv23(host):
    ctx = ssl.SSLContext(ssl.PROTOCOL_SSLv23)  # expect: SSC204
    ctx.load_default_certs()
    return http.client.HTTPSConnection(host, context=ctx)


# --- look-alikes ---------------------------------------------------------------------------

def client_context(host):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # expect: none
    ctx.load_default_certs()
    return http.client.HTTPSConnection(host, context=ctx)


def bare_made_strict(host):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS)  # expect: none
    ctx.verify_mode = ssl.CERT_REQUIRED
    ctx.check_hostname = True
    ctx.load_default_certs()
    return http.client.HTTPSConnection(host, context=ctx)


def server_context(listener):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)  # expect: none
    ctx.load_cert_chain("/etc/app/cert.pem", "/etc/app/key.pem")
    return ctx.wrap_socket(listener, server_side=True)


def legacy_server(listener):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS)  # expect: none
    ctx.load_cert_chain("/etc/app/cert.pem", "/etc/app/key.pem")
    return ctx.wrap_socket(listener, server_side=True)


def purpose_client_auth():
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)  # expect: none
    ctx.load_cert_chain("/etc/app/cert.pem")
    return ctx


async def serve(handler):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS)  # expect: none
    ctx.load_cert_chain("/etc/app/cert.pem", "/etc/app/key.pem")
    return await asyncio.start_server(handler, "127.0.0.1", 8443, ssl=ctx)
