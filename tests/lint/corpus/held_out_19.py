"""Held-out family 19: values false when the code runs, and values that travel to the call.

Shapes from semgrep-rules' requests `disabled-cert-validation` tests and bandit's
requests-ssl-verify-disabled and httpx examples (B501: `verify=False` to requests and httpx
verbs, sessions and clients), dlint's DUO123 tests (`verify` held in variables), CodeQL's
request-without-cert-validation tests (a flag reaching the call through a variable or a
parameter), and wrappers in real projects (settings dicts, enums, options objects, verbs looked
up by name). Own code, nothing copied; written without reading the linter.

Falsy values other than `False` are given to requests, which tests `verify` for truth
(`cert_verify` turns `CERT_NONE` on for any false value); httpx 0.28 accepts only `False`.
"""

import enum
import os
import ssl
import types

import aiohttp
import httpx
import jwt
import requests
import urllib3
from requests.adapters import HTTPAdapter

ENFORCE_TLS = True
STRICT = 0
CA_BUNDLES = []
SETTINGS = {"tls": {"verify": False, "timeout": 10}}


class Checking(enum.Enum):
    ON = True
    OFF = False


class Level(enum.IntEnum):
    NONE = 0
    FULL = 2


# Falsy values of other types than bool.
requests.get("https://a.example/", verify=0.0)  # expect: SSC101
requests.get("https://a.example/", verify=())  # expect: SSC101
requests.post("https://a.example/", data=b"x", verify="")  # expect: SSC101
requests.get("https://a.example/", verify=[])  # expect: SSC101

# Expressions that evaluate to false.
requests.get("https://b.example/", verify=not ENFORCE_TLS)  # expect: SSC101
requests.get("https://b.example/", verify="off" == "on")  # expect: SSC101
requests.get("https://b.example/", verify=len(CA_BUNDLES) > 0)  # expect: SSC101
requests.get("https://b.example/", verify=True if STRICT else False)  # expect: SSC101
requests.get("https://b.example/", verify=None or False)  # expect: SSC101
requests.get("https://b.example/", verify=SETTINGS["tls"]["verify"])  # expect: SSC101
requests.get("https://b.example/", verify=Checking.OFF.value)  # expect: SSC101
requests.Session().get("https://b.example/", verify=Level.NONE)  # expect: SSC101

# Look-alikes that are true, or fall back to the library's verifying default.
requests.get("https://c.example/", verify=False or None)  # expect: none
requests.get("https://c.example/", verify=Checking.OFF)  # expect: none
requests.get("https://c.example/", verify=Level.FULL)  # expect: none
requests.get("https://c.example/", verify=os.environ.get("REQUESTS_CA_BUNDLE"))  # expect: none
requests.get("https://c.example/", verify="false")  # expect: none
requests.get("https://c.example/", verify=not STRICT)  # expect: none
claims = jwt.decode("token", "key", algorithms=["HS256"], verify=False)  # expect: none

# Unset in the environment means off: bool(None) is False.
requests.get("https://d.example/", verify=bool(os.environ.get("CA_BUNDLE")))  # expect: SSC101


# Parameter defaults.
def download(url, check_cert=0):  # expect: SSC101
    return requests.get(url, verify=check_cert)


def download_opt_out(url, *, insecure=False):  # expect: none
    return requests.get(url, verify=not insecure)


# Dicts spread with **: reported where the entry is written.
TRANSFER = dict(timeout=5, verify=False)  # expect: SSC101
requests.put("https://e.example/upload", data=b"", **TRANSFER)

BASE = {"timeout": 5}
LOOSE = {**BASE, "verify": 0}  # expect: SSC101
requests.post("https://e.example/", **LOOSE)

call_options = {}
call_options |= {"verify": False}  # expect: SSC101
requests.delete("https://e.example/item", **call_options)

by_setitem = {}
by_setitem.__setitem__("verify", False)  # expect: SSC101
requests.head("https://e.example/", **by_setitem)

# The keyword itself spelled at run time.
requests.get("https://f.example/", **{"ver" + "ify": False})  # expect: SSC101

# Attributes and items.
client_opts = types.SimpleNamespace(verify=False, timeout=3)
requests.get("https://g.example/", verify=client_opts.verify)  # expect: SSC101


class Uploader:
    def __init__(self):
        self.http = requests.Session()
        self.http.verify = 0  # expect: SSC102


flags = {"verify": True}
flags["verify"] = False
requests.get("https://g.example/", verify=flags["verify"])  # expect: SSC101

# Verbs and clients looked up by name.
getattr(requests, "po" + "st")("https://h.example/", verify=False)  # expect: SSC101
requests.__dict__["get"]("https://h.example/", verify=False)  # expect: SSC101
verb = getattr(httpx, "get")
verb("https://h.example/", verify=False)  # expect: SSC101

# Positional: HTTPAdapter.send(request, stream, timeout, verify).
adapter = HTTPAdapter()
prepared = requests.Request("GET", "https://i.example/").prepare()
adapter.send(prepared, False, (3, 10), False)  # expect: SSC101
adapter.send(prepared, False, (3, 10), True)  # expect: none

# httpx transports and aiohttp.
transport = httpx.HTTPTransport(verify=False)  # expect: SSC101
USE_TLS_CHECKS = True


async def fetch_json(url):
    async with aiohttp.ClientSession() as session:
        async with session.get(url, ssl=not USE_TLS_CHECKS) as resp:  # expect: SSC103
            return await resp.json()


async def fetch_json_checked(url):
    async with aiohttp.ClientSession() as session:
        async with session.get(url, ssl=ssl.create_default_context()) as resp:  # expect: none
            return await resp.json()


# urllib3.
loose_pool = urllib3.PoolManager(cert_reqs=getattr(ssl, "CERT_" + "NONE"))  # expect: SSC104
optional_pool = urllib3.PoolManager(cert_reqs=ssl.CERT_OPTIONAL)  # expect: none
urllib3.disable_warnings(urllib3.exceptions.InsecureRequestWarning)  # expect: SSC105
