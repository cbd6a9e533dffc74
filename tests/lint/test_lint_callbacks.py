"""pyOpenSSL callbacks reached through bindings, swallowed name checks, switch defaults.

Issue 36's callback shapes, each reduced to a few lines written from its description, with
its safe twin that must stay silent.
"""

from __future__ import annotations

import pytest
from _lint_source import findings_of

_HEAD = (
    "import functools\nimport ssl\nfrom OpenSSL import SSL\n"
    "from service_identity import VerificationError\n"
    "from service_identity.pyopenssl import verify_hostname\n"
)


def _found(body: str) -> set[tuple[str, int]]:
    """Lint ``body`` after the shared imports; return (code, line) with lines of ``body``."""
    offset = _HEAD.count("\n")
    return {(code, line - offset) for code, line in findings_of(_HEAD + body, "client.py")}


_FACTORY = """\
class Options:
    def connection(self, conn):
        callback = self._make(self.host)
        conn.set_verify(SSL.VERIFY_PEER, callback)
        return conn

    @staticmethod
    def _make(host):
        def check(conn, cert, errno, depth, ok):
            if depth:
                return True
            try:
                verify_hostname(conn, host)
            except VerificationError:
                {handler}
            return {verdict}

        return check
"""

CASES = [
    # a staticmethod's product bound to a name: True on every path, a failed check logged
    pytest.param(_FACTORY.format(handler="pass", verdict="True"), {("SSC208", 4)}, id="factory"),
    # the same callback returning OpenSSL's verdict but swallowing the name check
    pytest.param(_FACTORY.format(handler="pass", verdict="ok"), {("SSC208", 4)}, id="swallow"),
    # twin: the failed name check refuses the certificate
    pytest.param(_FACTORY.format(handler="return False", verdict="ok"), set(), id="refuses"),
    # functools.partial of a callback that accepts all, ``ok or True``
    pytest.param(
        "def cb(tag, conn, cert, errno, depth, ok):\n    return ok or True\n"
        "def connect(conn):\n    conn.set_verify(SSL.VERIFY_PEER, functools.partial(cb, 'x'))\n",
        {("SSC208", 4)},
        id="partial",
    ),
    # twin: ``ok and True`` is OpenSSL's verdict
    pytest.param(
        "def cb(tag, conn, cert, errno, depth, ok):\n    return ok and True\n"
        "def connect(conn):\n    conn.set_verify(SSL.VERIFY_PEER, functools.partial(cb, 'x'))\n",
        set(),
        id="partial-verdict",
    ),
    # a classmethod reached through ``cls``, returning 1 on every path
    pytest.param(
        "class C:\n    @classmethod\n    def cb(cls, conn, cert, errno, depth, ok):\n"
        "        return 1\n"
        "    @classmethod\n    def connect(cls, ctx):\n"
        "        ctx.set_verify(SSL.VERIFY_PEER, cls.cb)\n",
        {("SSC208", 7)},
        id="classmethod",
    ),
    # an info callback that logs a failed host-name check and keeps the connection
    pytest.param(
        "def setup(ctx, log):\n    def info(conn, where, ret):\n        try:\n"
        "            ssl.match_hostname(conn.getpeercert(), 'example.org')\n"
        "        except ssl.CertificateError as e:\n            log.warning('bad %s', e)\n"
        "    ctx.set_info_callback(info)\n",
        {("SSC208", 7)},
        id="info-callback",
    ),
    # twin: it closes the connection
    pytest.param(
        "def setup(ctx, log):\n    def info(conn, where, ret):\n        try:\n"
        "            ssl.match_hostname(conn.getpeercert(), 'example.org')\n"
        "        except ssl.CertificateError:\n            conn.shutdown()\n"
        "    ctx.set_info_callback(info)\n",
        set(),
        id="info-callback-refuses",
    ),
    # Twisted's identity check overridden in a subclass: reported at the ``except``
    pytest.param(
        "class Opts(ClientTLSOptions):\n"
        "    def _identityVerifyingInfoCallback(self, connection, where, ret):\n"
        "        try:\n            verify_hostname(connection, self._hostnameASCII)\n"
        "        except (ssl.CertificateError, VerificationError):\n            pass\n",
        {("SSC208", 5)},
        id="override",
    ),
    # twin: an override that re-raises after logging
    pytest.param(
        "class Opts(ClientTLSOptions):\n"
        "    def _identityVerifyingInfoCallback(self, connection, where, ret):\n"
        "        try:\n            verify_hostname(connection, self._hostnameASCII)\n"
        "        except VerificationError:\n            print('bad')\n            raise\n",
        set(),
        id="override-reraises",
    ),
    # a context factory whose keyword default turns verification off
    pytest.param(
        "class Factory:\n    def __init__(self, *args, verify_certificates=False):\n"
        "        self.verify = verify_certificates\n",
        {("SSC101", 2)},
        id="factory-default",
    ),
    # twins: a verifying default, and a missing value (the library's own default)
    pytest.param(
        "class Factory:\n    def __init__(self, *args, verify_certificates=True):\n"
        "        self.verify = verify_certificates\n"
        "def options(ssl_cert_reqs=None, verify_certs=None):\n    return ssl_cert_reqs\n",
        set(),
        id="factory-default-safe",
    ),
]


@pytest.mark.parametrize(("body", "expected"), CASES)
def test_callback_shapes(body: str, expected: set[tuple[str, int]]) -> None:
    """Each shape is reported where the weakening is chosen; its twin stays silent."""
    assert _found(body) == expected


_PIN_BRANCH = """\
import ssl
import urllib3

def pool(host, fingerprint=None):
    ctx = ssl.create_default_context()
    if fingerprint:
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        return urllib3.HTTPSConnectionPool(host, ssl_context=ctx{extra})
    return urllib3.HTTPSConnectionPool(host, ssl_context=ctx)
"""

_PIN_DIGEST = """\
import hashlib
import ssl

PIN = "ab" * 32

def connect(sock, host):
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    conn = ctx.wrap_socket(sock, server_hostname=host)
    digest = hashlib.sha256(conn.getpeercert(True)).hexdigest()
    {check}
    return conn
"""

PIN_CASES = [
    # verification replaced by a pin that urllib3 checks (``assert_fingerprint``): silent
    pytest.param(_PIN_BRANCH.format(extra=", assert_fingerprint=fingerprint"), set(), id="pool"),
    # the same branch with nothing that checks the pin: an opt-out, reported
    pytest.param(_PIN_BRANCH.format(extra=""), {("SSC202", 7), ("SSC201", 8)}, id="pool-unchecked"),
    # the peer's certificate hashed and compared with the pin: silent
    pytest.param(
        _PIN_DIGEST.format(check="if digest != PIN:\n        raise ssl.SSLError(host)"),
        set(),
        id="digest",
    ),
    # hashed but never compared (only logged): reported
    pytest.param(
        _PIN_DIGEST.format(check="print(digest)"),
        {("SSC202", 8), ("SSC201", 9)},
        id="digest-unchecked",
    ),
]


@pytest.mark.parametrize(("source", "expected"), PIN_CASES)
def test_pinning_is_not_an_opt_out(source: str, expected: set[tuple[str, int]]) -> None:
    """Chain verification off where a pin is checked instead is silent; unchecked, reported."""
    assert findings_of(source, "pinned.py") == expected
