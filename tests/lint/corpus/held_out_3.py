"""A third held-out family, written after every other fix and scored before any change.

Scored before any change: 8 of 8 sites, no false alarm; nothing was changed for it.
"""
import imaplib
import smtplib
import ssl

import aiohttp
import httpx
import requests
from OpenSSL import SSL
from requests import Session


def lowercase_factory(url):
    session = requests.session()
    session.verify = False  # expect: SSC102
    return session.get(url)


def imported_session(url):
    s = Session()
    return s.get(url, cert=("client.pem", "client.key"), verify=False)  # expect: SSC101


def chained_session(url):
    return requests.Session().request("GET", url, verify=False)  # expect: SSC101


def mail_hostname_off(host):
    ctx = ssl.create_default_context()
    ctx.check_hostname = False  # expect: SSC202
    return smtplib.SMTP_SSL(host, context=ctx)


def imap_unverified(host):
    return imaplib.IMAP4_SSL(host, ssl_context=ssl._create_unverified_context())  # expect: SSC203


async def aiohttp_inline(url):
    async with aiohttp.ClientSession() as session, session.get(url, ssl=False) as response:  # expect: SSC103
        return await response.text()


async def httpx_http2(url):
    async with httpx.AsyncClient(verify=False, http2=True) as client:  # expect: SSC101
        return await client.get(url)


def pyopenssl_old_method_client(sock):
    ctx = SSL.Context(SSL.SSLv23_METHOD)  # expect: SSC209
    conn = SSL.Connection(ctx, sock)
    conn.set_connect_state()
    return conn


# --- look-alikes ---------------------------------------------------------------------------

def string_false(url):
    session = requests.Session()
    session.verify = "False"  # expect: none
    return session.get(url)


def checking_lambda(sock):
    ctx = SSL.Context(SSL.TLS_CLIENT_METHOD)  # expect: SSC210
    ctx.set_verify(SSL.VERIFY_PEER, lambda conn, cert, errno, depth, ok: ok)  # expect: none
    ctx.set_default_verify_paths()
    conn = SSL.Connection(ctx, sock)
    conn.set_connect_state()
    return conn


def client_with_ca(url, cafile):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # expect: none
    ctx.load_verify_locations(cafile)
    return httpx.get(url, verify=ctx)  # expect: none
