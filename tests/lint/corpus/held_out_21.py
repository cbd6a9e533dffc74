"""Held-out family 21: client code of real projects, and trivial rewrites of reported forms.

Shapes from client wrappers in real projects (asyncio protocols given a context, httpx clients
with mounted transports, aiohttp connectors built from a context, websocket clients, requests
sessions subclassed to set `verify`, settings classes feeding clients) and from rewrites that
rule suites miss (semgrep-rules' and bandit's tests each cover one spelling of a keyword
argument): the same weakening through a renamed import, a conditional import, an alias of the
module, a wrapper class, a walrus, a star-arg tuple. Own code, nothing copied; written without
reading the linter.
"""

import asyncio
import ssl
import ssl as tls
from ssl import CERT_NONE as NO_CHECK
from ssl import create_default_context as secure_ctx

import aiohttp
import httpx
import requests
import websocket

try:
    import requests as http_client
except ImportError:
    http_client = None


class Settings:
    VERIFY_TLS = False
    TIMEOUT = 10


class StrictSettings:
    VERIFY_TLS = True


# A client whose context turns checking off through aliased names.
def make_client_context():
    ctx = secure_ctx()
    ctx.check_hostname = False  # expect: SSC202
    ctx.verify_mode = NO_CHECK  # expect: SSC201
    return ctx


async def talk(host, protocol_factory):
    loop = asyncio.get_running_loop()
    return await loop.create_connection(protocol_factory, host, 443, ssl=make_client_context())


# The module under another name.
def lax_context():
    ctx = tls.create_default_context()
    ctx.check_hostname = False  # expect: SSC202
    ctx.verify_mode = tls.CERT_NONE  # expect: SSC201
    return ctx


connector = aiohttp.TCPConnector(ssl=lax_context())

# A conditional import keeps the module's name bound to requests.
http_client.get("https://a.example/", verify=False)  # expect: SSC101

# A settings class feeding a client.
requests.get("https://b.example/", verify=Settings.VERIFY_TLS)  # expect: SSC101
requests.get("https://b.example/", verify=StrictSettings.VERIFY_TLS)  # expect: none


class InternalSession(requests.Session):
    """A session for the internal API, whose certificates nobody renewed."""

    def __init__(self):
        super().__init__()
        self.verify = False  # expect: SSC102


class CheckedSession(requests.Session):
    def __init__(self, ca_bundle):
        super().__init__()
        self.verify = ca_bundle  # expect: none


# A walrus and a tuple unpacked into positional arguments.
if (check := False) is not None:
    requests.get("https://c.example/", verify=check)  # expect: SSC101

request_line = ("GET", "https://c.example/")
requests.request(*request_line, verify=0)  # expect: SSC101

mounts = {"https://": httpx.HTTPTransport(verify=False)}  # expect: SSC101
client = httpx.Client(mounts=mounts)
async_client = httpx.AsyncClient(verify=False, http2=True)  # expect: SSC101
async_client_ok = httpx.AsyncClient(verify=secure_ctx(), http2=True)  # expect: none

# websocket-client.
ws = websocket.create_connection("wss://d.example/", sslopt={"cert_reqs": ssl.CERT_NONE})  # expect: SSC501
ws_ok = websocket.create_connection("wss://d.example/", sslopt={"ca_certs": "/etc/ssl/ca.pem"})  # expect: none
ws_app = websocket.WebSocketApp("wss://d.example/")
ws_app.run_forever(sslopt={"check_hostname": False})  # expect: SSC501


# A context made in one function and handed to a client in another, through an attribute.
class Feed:
    def __init__(self):
        self.ctx = ssl.create_default_context()
        self.ctx.check_hostname = False  # expect: SSC202
        self.ctx.verify_mode = ssl.CERT_NONE  # expect: SSC201

    async def read(self, url):
        async with aiohttp.ClientSession() as session:
            async with session.get(url, ssl=self.ctx) as resp:
                return await resp.text()


# Look-alikes.
def strict_context():
    ctx = tls.create_default_context()
    ctx.check_hostname = True  # expect: none
    ctx.verify_mode = tls.CERT_REQUIRED  # expect: none
    return ctx


assert strict_context().verify_mode != NO_CHECK  # expect: none
if make_client_context().verify_mode == ssl.CERT_NONE:  # expect: none
    print("warning: this client does not check certificates")
requests.get("https://e.example/", verify=Settings.TIMEOUT > 0)  # expect: none
