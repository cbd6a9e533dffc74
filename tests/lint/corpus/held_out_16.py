"""A sixteenth held-out family: HTTP client wrappers driven by settings and dicts.

Shapes from SDKs and internal API clients: the verify flag in a settings dataclass or a
class-level default, in a dict of request options spread later, bound with
``functools.partial``, read from a config mapping with an insecure fallback, or handed to an
adapter; weak TLS versions held in the same settings. Own code, nothing copied.
"""
import dataclasses
import functools
import ssl

import httpx
import requests
from requests.adapters import HTTPAdapter


@dataclasses.dataclass
class ClientSettings:
    base_url: str
    verify_tls: bool = False  # expect: SSC101
    timeout: float = 10.0


class ApiClient:
    def __init__(self, settings: ClientSettings):
        self.settings = settings
        self.session = requests.Session()

    def get(self, path):
        return self.session.get(self.settings.base_url + path, verify=self.settings.verify_tls)


REQUEST_OPTIONS = {"timeout": 5, "verify": False}  # expect: SSC101


def fetch(url):
    return requests.get(url, **REQUEST_OPTIONS)


insecure_get = functools.partial(requests.get, timeout=10, verify=False)  # expect: SSC101


def fetch_config(url, config):
    verify = config.get("verify_ssl", False)
    return requests.get(url, verify=verify)  # expect: SSC101


def client_from_env(config):
    return httpx.Client(base_url=config["url"], verify=config.get("verify", True))  # expect: none


class Connector:
    DEFAULTS = {"verify": False, "timeout": 30}  # expect: SSC101

    def __init__(self, **overrides):
        self.options = dict(self.DEFAULTS, **overrides)

    def call(self, url):
        return requests.post(url, **self.options)


def options_built(url, token):
    options = {"headers": {"Authorization": token}}
    options["verify"] = False  # expect: SSC101
    return requests.get(url, **options)


def options_updated(url):
    options = {"timeout": 3}
    options.update({"verify": False})  # expect: SSC101
    return httpx.get(url, **options)


class TlsAdapter(HTTPAdapter):
    def init_poolmanager(self, *args, **kwargs):
        context = ssl.create_default_context()
        context.minimum_version = ssl.TLSVersion.TLSv1  # expect: SSC702
        kwargs["ssl_context"] = context
        return super().init_poolmanager(*args, **kwargs)


class LegacyAdapter(HTTPAdapter):
    def init_poolmanager(self, *args, **kwargs):
        kwargs["ssl_version"] = ssl.PROTOCOL_TLSv1_1  # expect: SSC701
        return super().init_poolmanager(*args, **kwargs)


def mounted(url):
    session = requests.Session()
    session.mount("https://", TlsAdapter())  # expect: none
    return session.get(url)


SETTINGS = {"ssl": {"verify": False}}


def nested(url):
    return requests.get(url, verify=SETTINGS["ssl"]["verify"])  # expect: SSC101


def httpx_transport(url):
    transport = httpx.HTTPTransport(verify=False, retries=2)  # expect: SSC101
    with httpx.Client(transport=transport) as client:
        return client.get(url)


def httpx_ok(url, cafile):
    context = ssl.create_default_context(cafile=cafile)
    with httpx.Client(verify=context) as client:  # expect: none
        return client.get(url)
