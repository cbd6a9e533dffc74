"""A seventh held-out family: the shapes of precli's rule examples, scored before any change.

Shapes from the example files of precli's (securesauce/precli) Python rules for httpx,
aiohttp, ssl and the stdlib's mail and file-transfer clients; written after the fixes that
held_out_4 to held_out_6 led to. Own code, nothing copied.
"""
import asyncio
import imaplib
import nntplib
import poplib
import smtplib
import socket
import ssl

import aiohttp
import httpx


def httpx_stream_off(url):
    with httpx.stream("GET", url, verify=False) as response:  # expect: SSC101
        return b"".join(response.iter_bytes())


def httpx_client_context_manager(url):
    with httpx.Client(verify=False) as client:  # expect: SSC101
        return client.get(url)


async def httpx_async_put(url, body):
    async with httpx.AsyncClient() as client:
        return await client.put(url, content=body, verify=False)  # expect: SSC101


async def aiohttp_ws_verify_ssl_off(url):
    async with aiohttp.ClientSession() as session:
        async with session.ws_connect(url, verify_ssl=False) as ws:  # expect: SSC103
            return await ws.receive()


async def aiohttp_request_ssl_off(url):
    async with aiohttp.ClientSession() as session:
        async with session.request("OPTIONS", url, ssl=False) as response:  # expect: SSC103
            return response.status


def server_certificate_sslv3(host):
    return ssl.get_server_certificate((host, 443), ssl_version=ssl.PROTOCOL_SSLv3)  # expect: SSC701


def server_certificate_tls11_positional(host):
    return ssl.get_server_certificate((host, 443), ssl.PROTOCOL_TLSv1_1)  # expect: SSC701


def server_socket_sslv2(listener):
    conn, _ = listener.accept()
    return ssl.wrap_socket(conn, ssl_version=ssl.PROTOCOL_SSLv2, server_side=True)  # expect: SSC701


def smtp_starttls_bare(host):
    server = smtplib.SMTP(host, 587)
    server.starttls()  # expect: SSC602
    return server


def pop3_ssl_bare(host):
    return poplib.POP3_SSL(host)  # expect: SSC604


def nntp_ssl_bare(host):
    return nntplib.NNTP_SSL(host)  # expect: SSC606


def imap_starttls_unverified(host):
    imap = imaplib.IMAP4(host)
    imap.starttls(ssl_context=ssl._create_unverified_context())  # expect: SSC203
    return imap


async def asyncio_unverified_stream(host):
    ctx = ssl.create_default_context()
    ctx.verify_mode = ssl.CERT_NONE  # expect: SSC201
    ctx.check_hostname = False  # expect: SSC202
    return await asyncio.open_connection(host, 443, ssl=ctx)


def stdlib_context_tls1_client(host):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLSv1)  # expect: SSC701 SSC204
    with socket.create_connection((host, 443)) as sock:
        return ctx.wrap_socket(sock, server_hostname=host)


# --- look-alikes ---------------------------------------------------------------------------

def httpx_stream_checked(url):
    with httpx.stream("GET", url, verify=True) as response:  # expect: none
        return b"".join(response.iter_bytes())


async def aiohttp_ws_checked(url):
    async with aiohttp.ClientSession() as session:
        async with session.ws_connect(url, verify_ssl=True) as ws:  # expect: none
            return await ws.receive()


def server_certificate_default(host):
    return ssl.get_server_certificate((host, 443))  # expect: none


def server_certificate_tls12(host):
    return ssl.get_server_certificate((host, 443), ssl_version=ssl.PROTOCOL_TLSv1_2)  # expect: none


def smtp_starttls_with_context(host):
    server = smtplib.SMTP(host, 587)
    server.starttls(context=ssl.create_default_context())  # expect: none
    return server


def pop3_ssl_with_context(host):
    return poplib.POP3_SSL(host, context=ssl.create_default_context())  # expect: none


def nntp_ssl_with_context(host):
    return nntplib.NNTP_SSL(host, ssl_context=ssl.create_default_context())  # expect: none


async def asyncio_checked_stream(host):
    ctx = ssl.create_default_context(cafile="/etc/ssl/corp.pem")
    return await asyncio.open_connection(host, 443, ssl=ctx)  # expect: none


def server_context_tls12_floor():
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)  # expect: none
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    ctx.load_cert_chain("server.pem", "server.key")
    return ctx
