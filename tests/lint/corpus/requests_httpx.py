"""requests and httpx: verify flags, followed through aliases, constants, kwargs and partials."""
import functools

import httpx
import requests
import requests as rq
from requests import get as fetch
from requests import post

VERIFY_TLS = False
NO_VERIFY = {"verify": False}  # expect: SSC101
SAFE_OPTS = {"verify": True, "timeout": 5}


def plain(url):
    requests.get(url, verify=False)  # expect: SSC101
    rq.post(url, data={}, verify=False)  # expect: SSC101
    fetch(url, verify=False)  # expect: SSC101
    post(url, json={}, verify=False)  # expect: SSC101
    requests.request("PATCH", url, verify=False)  # expect: SSC101
    requests.api.delete(url, verify=False)  # expect: SSC101


def through_constant(url):
    return requests.get(url, verify=VERIFY_TLS)  # expect: SSC101


def through_local(url):
    check = False
    return requests.head(url, verify=check)  # expect: SSC101


def through_kwargs(url):
    return requests.get(url, **NO_VERIFY)


def through_dict_call(url):
    options = dict(timeout=3, verify=False)  # expect: SSC101
    return requests.put(url, **options)


def through_partial():
    return functools.partial(requests.get, verify=False)  # expect: SSC101


def insecure_default(url, verify=False):  # expect: SSC101
    return requests.get(url, verify=verify)


def session_call(url):
    with requests.Session() as session:
        return session.get(url, verify=False)  # expect: SSC101


def unknown_receiver(client, url):
    return client.post(url, verify=False)  # expect: SSC101


def httpx_calls(url):
    httpx.get(url, verify=False)  # expect: SSC101
    with httpx.Client(verify=False) as client:  # expect: SSC101
        client.get(url)


async def httpx_async(url):
    async with httpx.AsyncClient(http2=True, verify=False) as client:  # expect: SSC101
        return await client.get(url)


def httpx_transport():
    return httpx.HTTPTransport(retries=2, verify=False)  # expect: SSC101


# --- look-alikes: must stay silent ---------------------------------------------------------

import certifi
import jwt
import numpy as np


def safe(url, ca_path):
    requests.get(url, verify=True)  # expect: none
    requests.get(url, verify=ca_path)  # expect: none
    requests.get(url, verify="/etc/ssl/certs/corp.pem")  # expect: none
    requests.get(url, verify=certifi.where())  # expect: none
    requests.get(url, **SAFE_OPTS)  # expect: none
    httpx.Client(verify=True)  # expect: none
    jwt.decode(token, key, verify=False)  # expect: none
    np.testing.assert_allclose(a, b, verify=False)  # expect: none
    # requests.get(url, verify=False) in a comment  # expect: none
    text = "requests.get(url, verify=False)"  # expect: none
    if kwargs.get("verify") is False:  # expect: none
        raise ValueError("refusing verify=False")  # expect: none


def secure_default(url, verify=True):  # expect: none
    return requests.get(url, verify=verify)


def documented(url):
    """Never call requests.get(url, verify=False) here."""  # expect: none
    return requests.get(url)


# --- falsy values; a caller one level up; a constant from a sibling module ------------------

from ._corpus_settings import INSECURE_TLS as SIBLING_VERIFY  # noqa: E402
from ._corpus_settings import CA_PATH  # noqa: E402


def falsy_values(url):
    requests.get(url, verify=0)  # expect: SSC101
    httpx.get(url, verify="")  # expect: SSC101
    requests.post(url, verify=[])  # expect: SSC101
    requests.get(url, verify=None)  # expect: none
    requests.get(url, verify="/etc/ssl/ca.pem")  # expect: none
    requests.get(url, verify=1)  # expect: none
    requests.get(url, verify=not True)  # expect: SSC101
    httpx.get(url, verify=bool(0))  # expect: SSC101
    requests.get(url, verify=not False)  # expect: none
    requests.get(url, verify=bool(url))  # expect: none


def mutated_kwargs(url):
    kwargs = {}
    kwargs["verify"] = False  # expect: SSC101
    requests.get(url, **kwargs)
    options = {"timeout": 5}
    options.update(verify=False)  # expect: SSC101
    httpx.get(url, **options)
    pinned = {}
    pinned["verify"] = "/etc/corp/ca.pem"  # expect: none
    pinned.setdefault("verify", False)  # expect: none
    requests.get(url, **pinned)
    unused = {}
    unused["verify"] = False  # expect: none


class NoVerifyAdapter(requests.adapters.HTTPAdapter):
    def cert_verify(self, conn, url, verify, cert):
        return super().cert_verify(conn, url, False, cert)  # expect: SSC101


class LooseAdapter(requests.adapters.HTTPAdapter):
    def init_poolmanager(self, *args, **kwargs):
        kwargs["cert_reqs"] = "CERT_NONE"  # expect: SSC104
        return super().init_poolmanager(*args, **kwargs)


class PinnedAdapter(requests.adapters.HTTPAdapter):
    def cert_verify(self, conn, url, verify, cert):
        return super().cert_verify(conn, url, "/etc/corp/ca.pem", cert)  # expect: none

    def init_poolmanager(self, *args, **kwargs):
        kwargs["cert_reqs"] = "CERT_REQUIRED"  # expect: none
        return super().init_poolmanager(*args, **kwargs)


def download(url, check):
    return requests.get(url, verify=check)


def download_safely(url, check=True):
    return requests.get(url, verify=check)


def callers(url):
    download(url, False)  # expect: SSC101
    download(url, check=0)  # expect: SSC101
    download(url, True)  # expect: none
    download_safely(url)  # expect: none
    download_safely(url, check="/etc/ssl/ca.pem")  # expect: none


class Fetcher:
    def fetch(self, url, verify):
        return requests.get(url, verify=verify)

    def run(self, url):
        return self.fetch(url, False)  # expect: SSC101


def sibling_constant(url):
    requests.get(url, verify=SIBLING_VERIFY)  # expect: SSC101
    requests.get(url, verify=CA_PATH)  # expect: none


def libraries_built_on_requests(url, urls):
    import cloudscraper
    import grequests
    from requests_futures.sessions import FuturesSession

    future = FuturesSession().get(url, verify=False)  # expect: SSC101
    scraper = cloudscraper.create_scraper()
    scraper.get(url, verify=False)  # expect: SSC101
    pending = [grequests.get(u, verify=False) for u in urls]  # expect: SSC101
    checked = [grequests.get(u, timeout=5) for u in urls]  # expect: none
    return future, pending, checked
