"""A twelfth held-out family: CodeQL's client-framework tests and an OWASP-style semgrep set.

Facts from CodeQL's Python library tests for requests, urllib3, aiohttp and httpx (the sites
they mark as certificate validation disabled: a flag given through a function's parameter, a
session's ``verify`` attribute, urllib3's ``cert_reqs`` and ``assert_hostname``, bare
contexts handed to aiohttp and httpx) and from a semgrep benchmark set of
improper-certificate-validation cases (urllib3 imported under an alias, a misspelt
``"CERT NONE"`` that urllib3 refuses). Own code, nothing copied.
"""
import ssl

import aiohttp
import certifi
import httpx
import requests
import urllib3 as u3
from urllib3 import PoolManager as Pools


def get_with(url, check):
    return requests.get(url, timeout=5, verify=check)


def callers(url):
    get_with(url, False)  # expect: SSC101
    get_with(url, True)  # expect: none
    get_with(url, "/etc/ssl/certs/ca-certificates.crt")  # expect: none


def session_attribute(url):
    with requests.Session() as session:
        session.verify = False  # expect: SSC102
        prepared = requests.Request("GET", url).prepare()
        return session.send(prepared)


def pool_without_host_check(host):
    pool = u3.HTTPSConnectionPool(host, 443, assert_hostname=False)  # expect: SSC104
    return pool.request("GET", "/")


def proxy_without_host_check(proxy, url):
    return u3.ProxyManager(proxy, assert_hostname=False).request("GET", url)  # expect: SSC104


def manager_both_off(url):
    manager = u3.PoolManager(cert_reqs="CERT_NONE", assert_hostname=False)  # expect: SSC104
    return manager.request("GET", url)


def aliased_proxy(url):
    proxy = u3.ProxyManager("http://127.0.0.1:3128/", cert_reqs=ssl.CERT_NONE)  # expect: SSC104
    return proxy.request("GET", url)


def aliased_manager(url):
    return Pools(10, cert_reqs="NONE").request("GET", url)  # expect: SSC104


async def aiohttp_old_flag(url):
    connector = aiohttp.TCPConnector(verify_ssl=False)  # expect: SSC103
    async with aiohttp.ClientSession(connector=connector) as session:
        return await session.get(url)


async def aiohttp_bare_context(url):
    context = ssl.SSLContext()  # expect: SSC204
    async with aiohttp.ClientSession() as session:
        return await session.get(url, ssl=context)


def httpx_chained(url):
    return httpx.Client(verify=False).get(url)  # expect: SSC101


def httpx_bare_context(url):
    return httpx.get(url, verify=ssl.SSLContext(ssl.PROTOCOL_TLS))  # expect: SSC204


# --- look-alikes ---------------------------------------------------------------------------

def misspelt_constant(url):
    return u3.connection_from_url(url, cert_reqs="CERT NONE")  # expect: none


def none_means_default(url):
    return requests.get(url, verify=None)  # expect: none


async def aiohttp_default(url):
    async with aiohttp.ClientSession() as session:
        return await session.get(url, ssl=None)  # expect: none


def httpx_default_context(url):
    return httpx.get(url, verify=ssl.create_default_context())  # expect: none


def pinned_host_name(host):
    return u3.HTTPSConnectionPool(host, assert_hostname="api.example.org")  # expect: none


def manager_required(url):
    manager = Pools(cert_reqs="CERT_REQUIRED", ca_certs=certifi.where())  # expect: none
    return manager.request("GET", url)


def session_reverified(url):
    with requests.Session() as session:
        return session.get(url, verify=True)  # expect: none
