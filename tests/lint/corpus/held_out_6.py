"""A sixth held-out family: the shapes of real projects' client code, scored before any change.

Shapes seen in public projects' code (scrapers, API clients, MCP tools, device libraries)
that call requests, aiohttp, httpx, ftplib and websocket-client; own code, nothing copied.
"""
import ftplib
import functools
import http.client
import os
import ssl

import aiohttp
import certifi
import httpx
import requests
import websocket
from scrapelib import Scraper

from .config import VERIFY_SSL

requests.get = functools.partial(requests.get, verify=False)  # expect: SSC101 SSC302
requests.get = functools.partial(requests.get, timeout=30)  # expect: none


def create_session(verify_ssl=False):  # expect: SSC102
    session = requests.Session()
    session.verify = verify_ssl
    return session


def get_session(insecure):
    session = requests.Session()
    if insecure:
        session.verify = False  # expect: none
    else:
        session.verify = True  # expect: none
    return session


class InvalidHTTPSScraper(Scraper):
    def request(self, *args, **kwargs):
        return super().request(*args, verify=False, **kwargs)  # expect: SSC101


def get_unverified_context():
    context = None
    if hasattr(ssl, "_create_unverified_context"):
        context = ssl._create_unverified_context()  # expect: SSC203
    return context


def patch_ssl_everywhere():
    os.environ["PYTHONHTTPSVERIFY"] = "0"  # expect: SSC303
    ssl._create_default_https_context = ssl._create_unverified_context  # expect: SSC301
    original_init = aiohttp.TCPConnector.__init__

    def new_init(self, *args, **kwargs):
        kwargs["ssl"] = False  # expect: SSC103
        return original_init(self, *args, **kwargs)

    aiohttp.TCPConnector.__init__ = new_init


def create_no_verify_ssl_context():
    sslcontext = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    sslcontext.check_hostname = False  # expect: SSC202
    sslcontext.verify_mode = ssl.CERT_NONE  # expect: SSC201
    sslcontext.minimum_version = ssl.TLSVersion.MINIMUM_SUPPORTED  # expect: SSC702
    sslcontext.set_ciphers("ALL:@SECLEVEL=0")  # expect: SSC704
    return sslcontext


def create_relaxed_httpx_client():
    ctx = ssl.create_default_context()
    ctx.set_ciphers("DEFAULT:@SECLEVEL=1")  # expect: none
    if not VERIFY_SSL:
        ctx.check_hostname = False  # expect: SSC202
        ctx.verify_mode = ssl.CERT_NONE  # expect: SSC201
    return httpx.AsyncClient(transport=httpx.AsyncHTTPTransport(verify=ctx))


def create_aiohttp_session(headers=None, verify=True):
    if not verify:
        connector = aiohttp.TCPConnector(ssl=False)  # expect: none
        return aiohttp.ClientSession(headers=headers or {}, connector=connector)
    ctx = ssl.create_default_context(cafile=certifi.where())
    return aiohttp.ClientSession(connector=aiohttp.TCPConnector(ssl=ctx))  # expect: none


def legacy_ftps(host, user, password):
    ftps = ftplib.FTP_TLS()  # expect: SSC605
    ftps.ssl_version = ssl.PROTOCOL_TLSv1  # expect: SSC701
    ftps.connect(host, 21)
    ftps.login(user, password)
    return ftps


def legacy_websocket(url):
    ws = websocket.WebSocket(sslopt={"ssl_version": ssl.PROTOCOL_TLSv1_1})  # expect: SSC701
    ws.connect(url)
    return ws


def pinned_tls12_connection(host):
    conn = http.client.HTTPSConnection(host, context=ssl.SSLContext(ssl.PROTOCOL_TLSv1_2))  # expect: SSC204
    conn.request("GET", "/")
    return conn.getresponse()


# --- look-alikes ---------------------------------------------------------------------------

class EnvIgnoringSession(requests.Session):
    def merge_environment_settings(self, url, proxies, stream, verify, *args, **kwargs):
        if self.verify is False:
            verify = False  # expect: none
        return super().merge_environment_settings(url, proxies, stream, verify, *args, **kwargs)


def certifi_everywhere():
    os.environ["REQUESTS_CA_BUNDLE"] = certifi.where()  # expect: none
    os.environ["SSL_CERT_FILE"] = certifi.where()  # expect: none


def restore_default_context():
    ssl._create_default_https_context = ssl.create_default_context  # expect: none


def read_switch():
    return os.environ.get("PYTHONHTTPSVERIFY", "1") == "0"  # expect: none


def modern_ftps(host, user, password):
    ftps = ftplib.FTP_TLS(context=ssl.create_default_context())  # expect: none
    ftps.connect(host, 21)
    ftps.login(user, password)
    ftps.prot_p()
    return ftps


def websocket_with_ca(url):
    ws = websocket.WebSocket(sslopt={"cert_reqs": ssl.CERT_REQUIRED, "ca_certs": certifi.where()})  # expect: none
    ws.connect(url)
    return ws
