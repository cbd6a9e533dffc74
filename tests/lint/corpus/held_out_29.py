"""Held-out family 29: trivial rewrites of reported forms, written without the linter.

Written without reading the linter's code or its earlier corpus families: each site takes a
form the rule pages (docs/rules/) say is reported and rewrites it the way someone hiding it
would, using only what a static tool can follow honestly (constants, aliases, literal names,
containers built from constants); no value comes from input, files or the network. Ideas from
public evasion write-ups and rule tests of semgrep community rules and CodeQL's data-flow tests
(aliases, ``getattr``/``setattr`` with literal names, ``functools.partial``, ``**`` spreading);
the code is this file's own.

Where the label goes: on the line where the weak value reaches the library (the keyword, the
attribute assignment, the ``setattr``), except that a value written inside a dict or a
``dict(...)`` later spread with ``**``, a ``functools.partial`` and a parameter default are
labelled where they are written (the dict entry, the partial, the default).

Facts checked against the libraries: requests turns verification off for any false ``verify``
(``HTTPAdapter.cert_verify`` tests ``and verify``), so ``0``, ``""``, ``[]`` and ``not True`` are
weakenings, while ``verify=None`` falls back to the session's ``True`` (``merge_setting``) and is
not; ``ssl.VerifyMode(0)`` is ``CERT_NONE``; ``ssl.TLSVersion["TLSv1_1"]`` is the TLS 1.1 member;
``check_hostname = 0`` is stored as false.
"""

import enum
import functools
import os
import ssl
import subprocess
import urllib.request
from ssl import PROTOCOL_TLSv1 as LEGACY_PROTOCOL
from ssl import _create_unverified_context as make_context

import aiohttp
import certifi
import requests as rq
import urllib3
from requests import get as fetch

CA_BUNDLE = "/etc/ssl/corp/ca.pem"
CHECKS_OFF = False
CHECKS_ON = True
WEAK_SUITES = "ALL:" + "@SECLEVEL=0"
STRONG_SUITES = "ECDHE+AESGCM:" + "!aNULL"


class Checking(enum.Enum):
    OFF = False
    ON = True


# -- renamed functions and modules ------------------------------------------------------------------------


def renamed_get(url):
    return fetch(url, verify=False)  # expect: SSC101


def renamed_module(url):
    return rq.Session().post(url, data=b"", verify=0)  # expect: SSC101


def renamed_unverified(url):
    return urllib.request.urlopen(url, context=make_context())  # expect: SSC203


def looked_up_by_name(url):
    return getattr(rq, "get")(url, verify="")  # expect: SSC101


def looked_up_verified(url):
    return getattr(rq, "get")(url, verify=CA_BUNDLE)  # expect: none


# -- values that are false when the code runs ---------------------------------------------------------------


def negated(url):
    return rq.get(url, verify=not True)  # expect: SSC101


def empty_list(url):
    return rq.get(url, verify=[])  # expect: SSC101


def left_unset(url):
    return rq.get(url, verify=None)  # expect: none


def double_negation(url):
    return rq.get(url, verify=not False)  # expect: none


def truthy_call(url):
    return rq.get(url, verify=bool(1))  # expect: none


def constant_test(url):
    return rq.get(url, verify=False if CHECKS_ON else CA_BUNDLE)  # expect: SSC101


def constant_test_verified(url):
    return rq.get(url, verify=CA_BUNDLE if CHECKS_ON else False)  # expect: none


def module_constant(url):
    return rq.get(url, verify=CHECKS_OFF)  # expect: SSC101


def module_constant_on(url):
    return rq.get(url, verify=CHECKS_ON)  # expect: none


def enum_value(url):
    return rq.get(url, verify=Checking.OFF.value)  # expect: SSC101


def enum_value_on(url):
    return rq.get(url, verify=Checking.ON.value)  # expect: none


def walrus(url):
    return rq.get(url, verify=(checks := False))  # expect: SSC101


def walrus_on(url):
    return rq.get(url, verify=(checks := CA_BUNDLE))  # expect: none


async def aiohttp_bool(url):
    async with aiohttp.ClientSession() as session:
        async with session.get(url, ssl=bool(0)) as response:  # expect: SSC103
            return await response.read()


async def aiohttp_bool_on(url):
    async with aiohttp.ClientSession() as session:
        async with session.get(url, ssl=bool(1)) as response:  # expect: none
            return await response.read()


# -- spread, partial, lambda, class attributes ----------------------------------------------------------------


def spread_dict(url):
    options = {"timeout": 5, "verify": False}  # expect: SSC101
    return rq.get(url, **options)


def spread_comprehension(url):
    options = {key: False for key in ("verify",)}  # expect: SSC101
    return rq.get(url, **options)


def spread_verified(url):
    options = {"timeout": 5, "verify": CA_BUNDLE}  # expect: none
    return rq.get(url, **options)


def spread_comprehension_verified(url):
    options = {key: CA_BUNDLE for key in ("verify",)}  # expect: none
    return rq.get(url, **options)


unchecked_get = functools.partial(rq.get, verify=False)  # expect: SSC101
checked_get = functools.partial(rq.get, verify=CA_BUNDLE)  # expect: none
quick_get = lambda url: rq.get(url, verify=False)  # expect: SSC101  # noqa: E731


class ApiClient:
    VERIFY = False

    def __init__(self, base):
        self.base = base

    def get(self, path):
        return rq.get(self.base + path, verify=self.VERIFY)  # expect: SSC101


class BundledClient:
    VERIFY = CA_BUNDLE

    def get(self, url):
        return rq.get(url, verify=self.VERIFY)  # expect: none


def default_parameter(url, verify=False):  # expect: SSC101
    return rq.get(url, verify=verify)


def default_parameter_on(url, verify=True):  # expect: none
    return rq.get(url, verify=verify)


def urllib3_spread(host):
    return urllib3.HTTPSConnectionPool(host, 443, **{"cert_reqs": "CERT_NONE"})  # expect: SSC104


def urllib3_spread_required(host):
    return urllib3.HTTPSConnectionPool(host, 443, **{"cert_reqs": "CERT_REQUIRED"})  # expect: none


# -- setattr and friends on sessions and contexts ----------------------------------------------------------------


def session_setattr(url):
    session = rq.Session()
    setattr(session, "verify", False)  # expect: SSC102
    return session.get(url)


def session_setattr_bundle(url):
    session = rq.Session()
    setattr(session, "verify", CA_BUNDLE)  # expect: none
    return session.get(url)


def context_setattr(url):
    ctx = ssl.create_default_context()
    setattr(ctx, "check_hostname", False)  # expect: SSC202
    setattr(ctx, "verify_mode", ssl.VerifyMode(0))  # expect: SSC201
    return urllib.request.urlopen(url, context=ctx)


def context_zero(url):
    ctx = ssl.create_default_context()
    ctx.check_hostname = 0  # expect: SSC202
    ctx.verify_mode = ssl.VerifyMode.CERT_NONE  # expect: SSC201
    return urllib.request.urlopen(url, context=ctx)


def context_setattr_strict(url):
    ctx = ssl.create_default_context()
    setattr(ctx, "check_hostname", True)  # expect: none
    ctx.verify_mode = ssl.VerifyMode(2)  # expect: none
    return urllib.request.urlopen(url, context=ctx)


def patch_by_setattr():
    setattr(ssl, "_create_default_https_context", ssl._create_unverified_context)  # expect: SSC301


def patch_through_dict():
    ssl.__dict__["_create_default_https_context"] = make_context  # expect: SSC301


def patch_keeps_checks():
    ssl._create_default_https_context = lambda: ssl.create_default_context(cafile=certifi.where())  # expect: none


# -- weak versions and suites behind names ----------------------------------------------------------------------


def aliased_protocol(sock):
    ctx = ssl.SSLContext(LEGACY_PROTOCOL)  # expect: SSC701
    ctx.load_cert_chain("server.pem", "server.key")
    return ctx.wrap_socket(sock, server_side=True)


def floor_by_getattr():
    ctx = ssl.create_default_context()
    ctx.minimum_version = getattr(ssl.TLSVersion, "TLSv1")  # expect: SSC702
    return ctx


def floor_by_item():
    ctx = ssl.create_default_context()
    ctx.minimum_version = ssl.TLSVersion["TLSv1_1"]  # expect: SSC702
    return ctx


def floor_by_getattr_modern():
    ctx = ssl.create_default_context()
    ctx.minimum_version = getattr(ssl.TLSVersion, "TLSv1_2")  # expect: none
    return ctx


def options_rebuilt():
    ctx = ssl.create_default_context()
    ctx.options = ctx.options & ~(ssl.OP_NO_TLSv1 | ssl.OP_NO_TLSv1_1)  # expect: SSC703
    return ctx


def options_rebuilt_stricter():
    ctx = ssl.create_default_context()
    ctx.options = ctx.options | ssl.OP_NO_TLSv1 | ssl.OP_NO_TLSv1_1  # expect: none
    return ctx


def suites_by_constant():
    ctx = ssl.create_default_context()
    ctx.set_ciphers(WEAK_SUITES)  # expect: SSC704
    return ctx


def suites_by_constant_strong():
    ctx = ssl.create_default_context()
    ctx.set_ciphers(STRONG_SUITES)  # expect: none
    return ctx


# -- commands and environment, rebuilt ------------------------------------------------------------------------------


def curl_built_up(url):
    command = ["curl", "-fsSL"]
    command += ["--insecure"]  # expect: SSC402
    return subprocess.run(command + [url], check=True)


def curl_with_ca(url):
    return subprocess.run(["curl", "--cacert", CA_BUNDLE, url], check=True)  # expect: none


def env_update_bundle():
    os.environ.update(REQUESTS_CA_BUNDLE=CA_BUNDLE)  # expect: none
