"""Held-out family 17: weak protocol versions in every spelling, and the look-alikes that are not.

Shapes from sonar-python's S4423 check tests (pyOpenSSL methods by position and keyword),
bandit's ssl-insecure-version example (B502-B504: `ssl_version=` to any callable, weak
parameter defaults), semgrep-rules' `weak-ssl-version` (which also flags `SSLv23_METHOD`: it
negotiates and is a look-alike here) and CodeQL's py/insecure-protocol query tests (contexts
restricted through `minimum_version`/`maximum_version` and `options`). Own code, nothing copied;
written without reading the linter.
"""

import functools
import http.client
import smtplib
import socket
import ssl
from ssl import PROTOCOL_TLSv1_1, TLSVersion

import aiohttp
import urllib3
from OpenSSL import SSL
from OpenSSL.SSL import TLSv1_METHOD
from OpenSSL.SSL import Context as OsslContext
from twisted.internet.ssl import CertificateOptions
from urllib3.util.ssl_ import ssl_wrap_socket as u3_wrap

# pyOpenSSL methods, by position and by keyword, through aliases.
relic = SSL.Context(SSL.SSLv3_METHOD)  # expect: SSC701
fossil = OsslContext(method=SSL.SSLv2_METHOD)  # expect: SSC701
tls_one = OsslContext(TLSv1_METHOD)  # expect: SSC701
tls_one_one = SSL.Context(method=SSL.TLSv1_1_METHOD)  # expect: SSC701
any_version = SSL.Context(SSL.TLS_METHOD)  # expect: none
negotiated = SSL.Context(SSL.SSLv23_METHOD)  # expect: none
pinned_twelve = SSL.Context(SSL.TLSv1_2_METHOD)  # expect: none

# pyOpenSSL version floors.
floor_ctx = SSL.Context(SSL.TLS_METHOD)
floor_ctx.set_min_proto_version(SSL.TLS1_VERSION)  # expect: SSC702
floor_ok = SSL.Context(SSL.TLS_METHOD)
floor_ok.set_min_proto_version(SSL.TLS1_2_VERSION)  # expect: none
floor_ok.set_options(SSL.OP_NO_SSLv2 | SSL.OP_NO_SSLv3 | SSL.OP_NO_TLSv1)  # expect: none

# Twisted's options object takes a pyOpenSSL method.
legacy_options = CertificateOptions(method=SSL.TLSv1_METHOD, verify=True)  # expect: SSC701


def dial_old_appliance(host, port):
    """Talk to a device that only speaks TLS 1.0, through urllib3's helper."""
    raw = socket.create_connection((host, port))
    return u3_wrap(raw, ssl_version=ssl.PROTOCOL_TLSv1, server_hostname=host)  # expect: SSC701


def open_channel(host, port, proto=PROTOCOL_TLSv1_1):  # expect: SSC701
    """A helper whose default asks for TLS 1.1; the dialing is elsewhere."""
    return _establish(host, port, proto)


def open_channel_modern(host, port, proto=ssl.PROTOCOL_TLS_CLIENT):  # expect: none
    """The same helper defaulting to the negotiating client protocol."""
    return _establish(host, port, proto)


def open_channel_negotiated(host, port, *, flavour=ssl.PROTOCOL_SSLv23):  # expect: none
    """PROTOCOL_SSLv23 is the old name of PROTOCOL_TLS: it negotiates."""
    return _establish(host, port, flavour)


legacy_pool = urllib3.PoolManager(ssl_version="PROTOCOL_SSLv3", ca_certs="/etc/ssl/ca.pem")  # expect: SSC701
modern_pool = urllib3.PoolManager(ssl_version="PROTOCOL_TLS", ca_certs="/etc/ssl/ca.pem")  # expect: none

peer_cert = ssl.get_server_certificate(("legacy.example", 443), ssl_version=ssl.PROTOCOL_TLSv1)  # expect: SSC701
peer_cert_ok = ssl.get_server_certificate(("modern.example", 443))  # expect: none

# A context factory bound with partial.
make_legacy_ctx = functools.partial(ssl.SSLContext, ssl.PROTOCOL_TLSv1_1)  # expect: SSC701

# The constant looked up by a name built at run time.
# A module-level context is exported: its users may be clients, and PROTOCOL_TLSv1 verifies nothing.
by_name = ssl.SSLContext(getattr(ssl, "PROTOCOL_" + "TLSv1"))  # expect: SSC701 SSC204

# A version held in a dict spread into the call: reported where the entry is written.
POOL_OPTIONS = {
    "ssl_version": ssl.PROTOCOL_TLSv1,  # expect: SSC701
    "cert_reqs": "CERT_REQUIRED",
}
spread_pool = urllib3.HTTPSConnectionPool("legacy.example", 443, **POOL_OPTIONS)

# stdlib version bounds.
bounded = ssl.create_default_context()
bounded.minimum_version = TLSVersion.TLSv1_1  # expect: SSC702
bounded.maximum_version = TLSVersion.TLSv1_3  # expect: none

capped = ssl.create_default_context()
# A cap at TLS 1.0 asks for TLS 1.0; docs/lint.md gives version bounds below TLS 1.2 SSC702.
capped.maximum_version = ssl.TLSVersion.TLSv1  # expect: SSC702

lowest = ssl.create_default_context()
lowest.minimum_version = ssl.TLSVersion.MINIMUM_SUPPORTED  # expect: SSC702

via_local = ssl.create_default_context()
oldest_allowed = ssl.TLSVersion.TLSv1
via_local.minimum_version = oldest_allowed  # expect: SSC702

via_setattr = ssl.create_default_context()
setattr(via_setattr, "minimum_version", TLSVersion.SSLv3)  # expect: SSC702

by_member_name = ssl.create_default_context()
by_member_name.minimum_version = ssl.TLSVersion["TLSv1_1"]  # expect: SSC702

strict = ssl.create_default_context()
strict.minimum_version = ssl.TLSVersion.TLSv1_2  # expect: none
strict.options |= ssl.OP_NO_TLSv1 | ssl.OP_NO_TLSv1_1  # expect: none

reopened = ssl.create_default_context()
reopened.options &= ~ssl.OP_NO_SSLv3  # expect: SSC703

ciphered = ssl.create_default_context()
ciphered.set_ciphers("RC4-SHA:AES128-SHA")  # expect: SSC704
ciphered_ok = ssl.create_default_context()
ciphered_ok.set_ciphers("ECDHE+AESGCM:!aNULL:!eNULL:!RC4:!MD5")  # expect: none

# A weak protocol in a context handed straight to a client: weak and verifies nothing.
legacy_connector = aiohttp.TCPConnector(ssl=ssl.SSLContext(ssl.PROTOCOL_TLSv1))  # expect: SSC701 SSC204
legacy_https = http.client.HTTPSConnection(
    "legacy.example", context=ssl.SSLContext(ssl.PROTOCOL_TLSv1_1)  # expect: SSC701 SSC204
)
negotiating_smtp = smtplib.SMTP_SSL("mail.example", context=ssl.SSLContext(ssl.PROTOCOL_SSLv23))  # expect: SSC204

# Look-alikes: version names read, compared or tabulated, never asked for.
VERSION_LABELS = {ssl.PROTOCOL_TLSv1: "TLS 1.0", ssl.PROTOCOL_TLSv1_1: "TLS 1.1"}  # expect: none


def refuse_old(ctx):
    """Reject a context that was configured for an old protocol."""
    if ctx.protocol in (ssl.PROTOCOL_TLSv1, ssl.PROTOCOL_TLSv1_1):  # expect: none
        raise ValueError("refusing a pre-1.2 protocol")
    if ctx.minimum_version < ssl.TLSVersion.TLSv1_2:  # expect: none
        ctx.minimum_version = ssl.TLSVersion.TLSv1_2  # expect: none
    return ctx


server_side = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)  # expect: none
server_side.load_cert_chain("server.pem", "server.key")
