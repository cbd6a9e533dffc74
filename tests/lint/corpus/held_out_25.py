"""Held-out family 25 (independent): settings, command lines, class hierarchies and rewrites.

Shapes from public code found through the code search: ``requests.get =
functools.partial(requests.get, verify=False)`` (MenxLi/Lires), settings objects and
``getattr(settings, "VERIFY_SSL", False)`` defaults (sensors.AFRICA-api's InfluxDB client), env
variables with insecure defaults, ``argparse`` flags feeding ``verify=``, API client base
classes with a class-level ``verify`` (OpenAPI and SDK wrappers), and the rewrites an attacker
would try on a reported form (aliases, lambdas, ``getattr``, walrus, star-args, ``dict(...)``,
conditional imports). Own code, nothing copied.

Labels: a command-line flag that turns verification off only when the user asks for it, with a
verifying default, is a negative (a reviewer accepts an explicit ``--insecure``, as in curl); a
default that is off is a positive, reported where the off value is written (parameter default,
dict entry, ``default=``) or at the keyword argument that receives it.
"""

import argparse
import functools
import json
import os

import requests
from requests import Session as HttpSession
from requests import post as send

try:
    import httpx as http
except ImportError:
    import requests as http


# --- settings and environment -------------------------------------------------------------

VERIFY_TLS = os.getenv("API_VERIFY_TLS", "0") == "1"


def report_status(url, payload):
    return requests.post(url, json=payload, verify=VERIFY_TLS)  # expect: SSC101


VERIFY_DEFAULT_ON = os.environ.get("API_VERIFY_TLS", "1") != "0"


def report_status_verified(url, payload):
    return requests.post(url, json=payload, verify=VERIFY_DEFAULT_ON)  # expect: none


DEFAULTS = {
    "timeout": 10,
    "verify_ssl": False,  # expect: SSC101
}


def load_settings(path):
    settings = dict(DEFAULTS)
    with open(path) as fh:
        settings.update(json.load(fh))
    return settings


def fetch_with_settings(url, path):
    settings = load_settings(path)
    return requests.get(url, timeout=settings["timeout"], verify=settings["verify_ssl"])


def influx_from_django(settings, InfluxDBClient):
    return InfluxDBClient(
        settings.INFLUXDB_HOST,
        ssl=True,
        verify_ssl=getattr(settings, "INFLUXDB_VERIFY_SSL", False),  # expect: SSC511
    )


# --- command lines ------------------------------------------------------------------------


def cli_opt_in():
    parser = argparse.ArgumentParser()
    parser.add_argument("--insecure", action="store_true", help="skip certificate checks")
    args = parser.parse_args()
    return requests.get("https://api.corp.example/", verify=not args.insecure)  # expect: none


def cli_off_by_default():
    parser = argparse.ArgumentParser()
    parser.add_argument("--verify", action="store_true", default=False)
    args = parser.parse_args()
    return requests.get("https://api.corp.example/", verify=args.verify)  # expect: SSC101


# --- class hierarchies and mixins ---------------------------------------------------------


class ApiBase:
    verify = True

    def __init__(self, base_url):
        self.base_url = base_url
        self.session = requests.Session()

    def get(self, path):
        return self.session.get(self.base_url + path)  # expect: none


class LabApi(ApiBase):
    verify = False

    def health(self):
        return requests.get(self.base_url + "/health", verify=self.verify)  # expect: SSC101


class NoVerifyMixin:
    def configure(self, session):
        session.verify = False  # expect: SSC102
        return session


class InternalClient(NoVerifyMixin, ApiBase):
    pass


class TrustedClient(ApiBase):
    def __init__(self, base_url, ca_bundle):
        super().__init__(base_url)
        self.session.verify = ca_bundle  # expect: none


# --- trivial rewrites of reported forms ---------------------------------------------------

requests.get = functools.partial(requests.get, verify=False)  # expect: SSC302 SSC101


def aliased(url, body):
    return send(url, data=body, verify=False)  # expect: SSC101


def aliased_session(url):
    s = HttpSession()
    s.verify = False  # expect: SSC102
    return s.get(url)


fetch_insecure = lambda url: requests.get(url, verify=False)  # expect: SSC101  # noqa: E731


def by_getattr(url):
    return getattr(requests, "get")(url, verify=False)  # expect: SSC101


def by_walrus(url):
    if (check := False) is not None:
        return requests.get(url, verify=check)  # expect: SSC101
    return None


def by_star_args(url):
    args = ("GET", url)
    return requests.request(*args, **{"verify": False})  # expect: SSC101


def by_dict_call(url):
    options = dict(timeout=5, verify=False)  # expect: SSC101
    return requests.get(url, **options)


def by_conditional_import(url):
    return http.get(url, verify=False)  # expect: SSC101


def by_ternary(url, debug=False):
    return requests.get(url, verify=False if not debug else True)  # expect: SSC101


def by_string_false(url):
    return requests.get(url, verify="")  # expect: SSC101


def verified_rewrites(url, ca):
    options = dict(timeout=5, verify=ca)  # expect: none
    return requests.get(url, **options)


def verified_partial(url):
    get = functools.partial(requests.get, timeout=5)  # expect: none
    return get(url)
