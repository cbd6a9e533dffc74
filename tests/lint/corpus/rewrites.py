"""Trivial rewrites of reported forms, as someone hiding a weakening from a linter writes them."""
import os
import ssl
import ssl as tls_module
import urllib.request

import aiohttp
import httpx
import requests
import urllib3


class Client:
    verify_tls = False

    def fetch(self, url):
        return requests.get(url, verify=self.verify_tls)  # expect: SSC101


def spreads(url):
    requests.get(url, **{"verify": False})  # expect: SSC101
    requests.get(url, **dict(verify=False))  # expect: SSC101
    return requests.post(url, verify=(flag := False))  # expect: SSC101


def constructors(url):
    requests.get(url, verify=bool())  # expect: SSC101
    requests.get(url, verify=int())  # expect: SSC101
    requests.get(url, verify=str())  # expect: SSC101
    return requests.get(url, verify=None or False)  # expect: SSC101


def indexing(url):
    requests.get(url, verify=[False][0])  # expect: SSC101
    requests.get(url, verify={"on": True, "off": False}["off"])  # expect: SSC101
    return requests.get(url, verify=(True, False)[1])  # expect: SSC101


def contexts(sock, host):
    ctx = ssl.create_default_context()
    ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE  # expect: SSC202 SSC201
    other = ssl.create_default_context()
    other.verify_mode = getattr(ssl, "CERT_NONE")  # expect: SSC201
    third = ssl.create_default_context()
    third.__setattr__("check_hostname", False)  # expect: SSC202
    fourth = ssl.create_default_context()
    fourth.verify_mode = ssl.VerifyMode["CERT_NONE"]  # expect: SSC201
    for c in (ctx, other, third, fourth):
        c.wrap_socket(sock, server_hostname=host)


def aliases(url):
    make = tls_module._create_unverified_context
    urllib.request.urlopen(url, context=make())  # expect: SSC203
    unverified = getattr(tls_module, "_create_unverified_context")()  # expect: SSC203
    return urllib.request.urlopen(url, context=unverified)


def clients_in_lambdas(url):
    return lambda: requests.get(url, verify=False)  # expect: SSC101


async def async_clients(url):
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(verify_ssl=0)) as s:  # expect: SSC103
        await s.get(url)
    async with httpx.AsyncClient(verify=ssl._create_unverified_context()) as c:  # expect: SSC203
        return await c.get(url)


def environment():
    os.environ.update(PYTHONHTTPSVERIFY="0")  # expect: SSC303
    os.environ.setdefault("CURL_CA_BUNDLE", "")  # expect: SSC303
    return urllib3.PoolManager(cert_reqs=ssl.VerifyMode.CERT_NONE)  # expect: SSC104


# --- look-alikes ---------------------------------------------------------------------------

class Strict:
    verify_tls = True

    def fetch(self, url):
        return requests.get(url, verify=self.verify_tls)  # expect: none


def harmless(url):
    requests.get(url, verify=bool(1))  # expect: none
    requests.get(url, verify=[True][0])  # expect: none
    requests.get(url, verify={"on": True, "off": False}["on"])  # expect: none
    return requests.get(url, **{"verify": True})  # expect: none
