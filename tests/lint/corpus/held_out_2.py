"""A second held-out family, written after all other fixes, then scored: shapes of real code.

Scored before any change: 7 of 9 sites, no false alarm. The two misses were a client family the
linter did not know, tornado's ``validate_cert=False``, which then got its rule (SSC513).
"""
import ssl
import urllib.request

import aiohttp
import certifi
import httpx
import requests
from requests.adapters import HTTPAdapter
from tornado.httpclient import AsyncHTTPClient, HTTPRequest


class ApiClient:
    def __init__(self, base_url, insecure=False):
        self.base_url = base_url
        self.session = requests.Session()
        self.session.verify = False  # expect: SSC102
        self.session.mount("https://", HTTPAdapter(max_retries=3))

    def get(self, path):
        return self.session.get(self.base_url + path, timeout=10)


async def fetch_all(urls):
    ctx = ssl.create_default_context()
    ctx.check_hostname = False  # expect: SSC202
    ctx.verify_mode = ssl.CERT_NONE  # expect: SSC201
    connector = aiohttp.TCPConnector(ssl=ctx, limit=10)
    async with aiohttp.ClientSession(connector=connector) as session:
        return [await session.get(u) for u in urls]


def opener_without_checks():
    ctx = ssl.create_default_context()
    ctx.check_hostname = False  # expect: SSC202
    ctx.verify_mode = ssl.CERT_NONE  # expect: SSC201
    return urllib.request.build_opener(urllib.request.HTTPSHandler(context=ctx))


def tornado_fetch(url):
    request = HTTPRequest(url, validate_cert=False)  # expect: SSC513
    return AsyncHTTPClient().fetch(request)


def tornado_direct(url):
    return AsyncHTTPClient().fetch(url, validate_cert=False)  # expect: SSC513


def httpx_transport():
    transport = httpx.HTTPTransport(retries=2, verify=False)  # expect: SSC101
    return httpx.Client(transport=transport)


def install_opener_globally():
    ctx = ssl._create_unverified_context()  # expect: SSC203
    urllib.request.install_opener(urllib.request.build_opener(urllib.request.HTTPSHandler(context=ctx)))


# --- look-alikes ---------------------------------------------------------------------------

class SafeClient:
    def __init__(self, base_url, ca_bundle=None):
        self.session = requests.Session()
        self.session.verify = ca_bundle or certifi.where()  # expect: none


async def fetch_verified(urls):
    ctx = ssl.create_default_context(cafile=certifi.where())  # expect: none
    connector = aiohttp.TCPConnector(ssl=ctx)  # expect: none
    async with aiohttp.ClientSession(connector=connector) as session:
        return [await session.get(u) for u in urls]


def tornado_verified(url):
    return AsyncHTTPClient().fetch(url, validate_cert=True, ca_certs=certifi.where())  # expect: none


def httpx_verified():
    return httpx.Client(verify=ssl.create_default_context(cafile=certifi.where()))  # expect: none
