"""Precision on real code (issue 36): shapes that look like weakenings and are not.

Each shape is written from its description, a few lines, beside its twin that must still be
reported: code only Python 2 runs, a weak default that every caller overrides, a pin or a late
host-name check that covers only what reaches the sink, callbacks resolved through the class.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from _lint_source import findings_of

from sslcustomize_lint import lint_files
from sslcustomize_lint._files import discover

_LEGACY_HEAD = "import ssl\nimport sys\n"
_WRAP = "        return ssl.wrap_socket(sock, cert_reqs=ssl.CERT_NONE)\n"
_MODERN = "        return ssl.create_default_context().wrap_socket(sock, server_hostname=host)\n"


def _legacy(prelude: str, test: str, *, legacy_in_body: bool = True) -> str:
    """A connect function whose ``if TEST:`` chooses between a legacy and a modern path."""
    first, second = (_WRAP, _MODERN) if legacy_in_body else (_MODERN, _WRAP)
    return (
        f"{_LEGACY_HEAD}{prelude}\ndef connect(sock, host):\n    if {test}:\n{first}"
        f"    else:\n{second}"
    )


_TRY_FLAG = (
    "try:\n    from ssl import create_default_context\n    HAS_CONTEXT = True\n"
    "except ImportError:\n    HAS_CONTEXT = False\n"
)

PYTHON2_ONLY = [
    pytest.param("", 'not hasattr(ssl, "SSLContext")', True, id="hasattr"),
    pytest.param("", "sys.version_info < (3,)", True, id="version-info"),
    pytest.param("", "sys.version_info[0] == 2", True, id="version-major-index"),
    pytest.param("", "sys.version_info.major < 3", True, id="version-major-attr"),
    pytest.param("", "sys.version_info >= (3, 0)", False, id="version-at-least-3"),
    pytest.param("PY2 = sys.version_info[0] == 2\n", "PY2", True, id="module-py2"),
    pytest.param("from six import PY3\n", "PY3", False, id="six-py3"),
    pytest.param("import six\n", "six.PY2", True, id="six-attribute"),
    pytest.param("from .compat import is_py2\n", "is_py2", True, id="compat-module"),
    pytest.param(_TRY_FLAG, "not HAS_CONTEXT", True, id="try-import-flag"),
    pytest.param(_TRY_FLAG, "HAS_CONTEXT", False, id="try-import-flag-else"),
    pytest.param("", 'not hasattr(ssl, "SSLContext") or sys.version_info < (3,)', True, id="or"),
]


@pytest.mark.parametrize(("prelude", "test", "legacy_in_body"), PYTHON2_ONLY)
def test_legacy_path_only_python2_takes_is_silent(
    prelude: str, test: str, *, legacy_in_body: bool
) -> None:
    """``ssl.wrap_socket(cert_reqs=CERT_NONE)`` where only Python 2 goes weakens nothing run."""
    assert findings_of(_legacy(prelude, test, legacy_in_body=legacy_in_body)) == set()


PYTHON3_TOO = [
    # the twin of each: the legacy call on the path Python 3 takes
    pytest.param("", 'hasattr(ssl, "SSLContext")', id="hasattr"),
    pytest.param("", "sys.version_info >= (3,)", id="version-info"),
    pytest.param("PY3 = sys.version_info[0] == 3\n", "PY3", id="module-py3"),
    pytest.param(_TRY_FLAG, "HAS_CONTEXT", id="try-import-flag"),
    # a test that differs between Python 3 versions decides nothing
    pytest.param("", "sys.version_info < (3, 12)", id="minor-version"),
    pytest.param("", 'not hasattr(ssl, "PROTOCOL_TLS_CLIENT")', id="newer-name"),
    # a flag whose ``try`` imports something else too may be false on Python 3
    pytest.param(
        "try:\n    import certifi\n    from ssl import create_default_context\n    OK = True\n"
        "except ImportError:\n    OK = False\n",
        "not OK",
        id="try-other-import",
    ),
    # one operand of ``and`` decided, the other not: undecided
    pytest.param("", 'hasattr(ssl, "SSLContext") and sock.legacy', id="and-undecided"),
]


@pytest.mark.parametrize(("prelude", "test"), PYTHON3_TOO)
def test_legacy_call_on_a_path_python3_takes_is_reported(prelude: str, test: str) -> None:
    """The same call where Python 3 may go is reported (SSC205)."""
    source = _legacy(prelude, test)
    line = source.splitlines().index(_WRAP.rstrip("\n")) + 1
    assert ("SSC205", line) in findings_of(source)


_HELPER = (
    "import ssl\n\n{exports}"
    "class _Context:\n"
    "    def __init__(self, cafile=None, check_hostname=False):\n"
    "        self.check_hostname = check_hostname\n"
    "\n"
    "    def get(self):\n"
    "        context = ssl.create_default_context()\n"
    "        context.check_hostname = self.check_hostname\n"
    "        return context\n"
    "\n"
    "class Connection:\n"
    "    def __init__(self, cafile=None, ssl_check_hostname=True):\n"
    "        self.tls: _Context = {call}\n"
)


def _helper(call: str, exports: str = "") -> tuple[str, int]:
    """The helper module with one construction; the line of the weak default.

    ``exports`` ``_Context = None`` names the class ``Context`` instead: public, so callers
    in other modules may get its default.
    """
    source = _HELPER.format(call=call, exports="" if exports == "_Context = None\n" else exports)
    if exports == "_Context = None\n":
        source = source.replace("_Context", "Context")
    line = next(
        n for n, text in enumerate(source.splitlines(), 1) if "check_hostname=False" in text
    )
    return source, line


@pytest.mark.parametrize(
    "call",
    [
        pytest.param("_Context(cafile, check_hostname=ssl_check_hostname)", id="keyword"),
        pytest.param("_Context(cafile, ssl_check_hostname)", id="position"),
    ],
)
def test_weak_default_every_call_gives_is_silent(call: str) -> None:
    """A helper's ``check_hostname=False`` that every construction in the module replaces."""
    source, _ = _helper(call)
    assert findings_of(source) == set()


@pytest.mark.parametrize(
    ("call", "exports"),
    [
        pytest.param("_Context(cafile)", "", id="one-call-leaves-it"),
        pytest.param("_Context(cafile, **ssl_check_hostname)", "", id="kwargs"),
        pytest.param("_Context(*ssl_check_hostname)", "", id="star-args"),
        pytest.param("_Context(cafile, ssl_check_hostname)", "__all__ = ['_Context']\n", id="all"),
        pytest.param("_Context(cafile, ssl_check_hostname)", "_Context = None\n", id="public"),
        pytest.param("None\n        self.factory = _Context\n", "", id="passed-on"),
        pytest.param("None\n", "", id="never-called"),
        pytest.param(
            "_Context(cafile, ssl_check_hostname)\n\nclass Child(_Context):\n    pass\n",
            "",
            id="subclassed",
        ),
    ],
)
def test_weak_default_some_caller_may_get_is_reported(call: str, exports: str) -> None:
    """The default is reported when a call, or a caller the module cannot see, may leave it."""
    source, line = _helper(call, exports)
    assert ("SSC202", line) in findings_of(source)


def _early_return(test: str, then: str = _MODERN) -> str:
    """``if TEST: <then>`` without ``else``, and the legacy call after it."""
    return f"{_LEGACY_HEAD}\ndef connect(sock, host):\n    if {test}:\n{then}{_WRAP[4:]}"


def test_legacy_call_after_a_python3_return_is_silent() -> None:
    """``if hasattr(ssl, "SSLContext"): return ...`` leaves the rest to Python 2."""
    assert findings_of(_early_return('hasattr(ssl, "SSLContext")')) == set()


@pytest.mark.parametrize(
    ("test", "then"),
    [
        # twins: a return only some Python 3 versions take; a branch that does not return
        pytest.param("sys.version_info >= (3, 12)", _MODERN, id="minor-version"),
        pytest.param('hasattr(ssl, "SSLContext")', "        sock.settimeout(5)\n", id="no-return"),
    ],
)
def test_legacy_call_after_a_branch_python3_may_leave_is_reported(test: str, then: str) -> None:
    """The legacy call after a branch that Python 3 may not take, or may leave, is reported."""
    source = _early_return(test, then)
    line = source.splitlines().index(_WRAP[4:].rstrip("\n")) + 1
    assert ("SSC205", line) in findings_of(source)


_PIN = "        if hashlib.sha256(conn.getpeercert(True)).hexdigest() != self.pin:\n"
_PIN += "            raise ssl.SSLError(host)\n"
_NAME = "        ssl.match_hostname(conn.getpeercert(), host)\n"
_OFF = (
    "        ctx = ssl.create_default_context()\n"
    "        ctx.check_hostname = False\n"
    "        ctx.verify_mode = ssl.CERT_NONE\n"
)


def _dispatcher(check: str) -> str:
    """A class with a checked path and a plain one, chosen by a third method."""
    return (
        "import hashlib\nimport ssl\n\nclass Client:\n"
        "    def _checked(self, sock, host):\n"
        f"{_OFF}        conn = ctx.wrap_socket(sock, server_hostname=host)\n{check}"
        "        return conn\n\n"
        "    def _plain(self, sock, host):\n"
        f"{_OFF}        return ctx.wrap_socket(sock, server_hostname=host)\n\n"
        "    def connect(self, sock, host):\n"
        "        if self.pin:\n            return self._checked(sock, host)\n"
        "        return self._plain(sock, host)\n"
    )


def _lines_of(source: str, text: str) -> list[int]:
    return [n for n, line in enumerate(source.splitlines(), 1) if text in line]


@pytest.mark.parametrize("check", [pytest.param(_PIN, id="pin"), pytest.param(_NAME, id="name")])
def test_check_in_one_path_of_a_class_leaves_the_plain_path_reported(check: str) -> None:
    """A pin or a late name match in one method does not excuse a sibling that has none."""
    source = _dispatcher(check)
    off = _lines_of(source, "check_hostname = False")
    found = findings_of(source)
    assert ("SSC202", off[0]) not in found  # the checked path
    assert ("SSC202", off[1]) in found  # the plain one


def _helper_class(check: str, *, plain_user: bool) -> str:
    """A method that makes the context, and a caller that checks after the handshake."""
    other = (
        "    def probe(self, sock, host):\n"
        "        return self._context().wrap_socket(sock, server_hostname=host)\n"
        if plain_user
        else ""
    )
    return (
        "import hashlib\nimport ssl\n\nclass Client:\n"
        f"    def _context(self):\n{_OFF}        return ctx\n\n"
        "    def connect(self, sock, host):\n"
        "        conn = self._context().wrap_socket(sock, server_hostname=host)\n"
        f"{check}        return conn\n\n{other}"
    )


@pytest.mark.parametrize("check", [pytest.param(_PIN, id="pin"), pytest.param(_NAME, id="name")])
def test_helper_whose_every_caller_checks_after_it_is_silent(check: str) -> None:
    """``_context()`` is covered by the check its only caller makes after the handshake."""
    source = _helper_class(check, plain_user=False)
    if check == _NAME:  # a late name match moves the name check, not the chain's
        source = source.replace("        ctx.verify_mode = ssl.CERT_NONE\n", "")
    assert findings_of(source) == set()


@pytest.mark.parametrize("check", [pytest.param(_PIN, id="pin"), pytest.param(_NAME, id="name")])
def test_helper_with_a_caller_that_does_not_check_is_reported(check: str) -> None:
    """The same helper also used by a method without the check: reported."""
    source = _helper_class(check, plain_user=True)
    assert ("SSC202", _lines_of(source, "check_hostname = False")[0]) in findings_of(source)


def _kept_context(*, plain_user: bool) -> str:
    """``__init__`` keeps a context on ``self``; a method pins it; maybe another does not."""
    other = (
        "    def send(self, sock, host):\n"
        "        return self.ctx.wrap_socket(sock, server_hostname=host)\n"
        if plain_user
        else ""
    )
    return (
        "import hashlib\nimport ssl\n\nclass Client:\n"
        "    def __init__(self, pin):\n        self.pin = pin\n"
        "        self.ctx = ssl.create_default_context()\n"
        "        self.ctx.check_hostname = False\n"
        "        self.ctx.verify_mode = ssl.CERT_NONE\n\n"
        "    def connect(self, sock, host):\n"
        f"        conn = self.ctx.wrap_socket(sock, server_hostname=host)\n{_PIN}"
        f"        return conn\n\n{other}"
    )


def test_context_kept_on_self_for_a_pinning_method_is_silent() -> None:
    """The pin compared by the one method that uses the kept context covers ``__init__``."""
    assert findings_of(_kept_context(plain_user=False)) == set()


def test_context_kept_on_self_for_a_plain_method_too_is_reported() -> None:
    """Another method uses the same context without the pin: ``__init__``'s lines report."""
    source = _kept_context(plain_user=True)
    assert ("SSC202", _lines_of(source, "check_hostname = False")[0]) in findings_of(source)


def _module_helper(*, plain_user: bool) -> str:
    """Module functions: a context maker and a caller that matches the name afterwards."""
    other = (
        "def probe(sock, host):\n    return _context().wrap_socket(sock, server_hostname=host)\n"
        if plain_user
        else ""
    )
    return (
        "import ssl\n\ndef _context():\n    ctx = ssl.create_default_context()\n"
        "    ctx.check_hostname = False\n    return ctx\n\n"
        "def connect(sock, host):\n"
        "    conn = _context().wrap_socket(sock, server_hostname=host)\n"
        "    ssl.match_hostname(conn.getpeercert(), host)\n    return conn\n\n" + other
    )


@pytest.mark.parametrize(("plain_user", "reported"), [(False, False), (True, True)])
def test_module_helper_is_covered_only_by_callers_that_check(
    *, plain_user: bool, reported: bool
) -> None:
    """A module function's helper: silent when its only caller matches the name after it."""
    source = _module_helper(plain_user=plain_user)
    line = _lines_of(source, "check_hostname = False")[0]
    assert (("SSC202", line) in findings_of(source)) is reported


@pytest.mark.parametrize(
    ("offered", "reported"),
    [("__all__ = ['Connection']\n", False), ("__all__ = ['Connection', 'Context']\n", True)],
)
def test_public_helper_left_out_of_the_package_all_is_internal(
    tmp_path: Path, offered: str, *, reported: bool
) -> None:
    """A public-looking helper that the package's ``__all__`` does not offer is internal."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text(offered, encoding="utf-8")
    source, line = _helper("_Context(cafile, ssl_check_hostname)", "_Context = None\n")
    (package / "connection.py").write_text(source, encoding="utf-8")
    found, _ = discover([str(package)])
    result = lint_files(found, jobs=1)
    assert not result.errors
    codes = {(f.code, f.line) for f in result.findings if f.path.endswith("connection.py")}
    assert (("SSC202", line) in codes) is reported


_VERIFYING = "        return ok\n"
_ACCEPTING = "        return True\n"


def _two_classes(first: str, second: str, user: str, base: str = "", last: str = "") -> str:
    """Two classes of one file, each with a verify callback ``cb``; ``user`` calls ``self.cb``.

    ``last``: a third class's ``cb`` after them (the file's last ``cb``).
    """
    source = "from OpenSSL import SSL\n\n"
    for name, body in (("First", first), ("Second", second), ("Third", last)):
        parent = f"({base})" if base and name == "Second" else ""
        source += f"class {name}{parent}:\n    kind = {name!r}\n"
        if body:
            source += f"    def cb(self, conn, cert, errno, depth, ok):\n{body}\n"
        if name == user:
            source += "    def connect(self, ctx):\n"
            source += "        ctx.set_verify(SSL.VERIFY_PEER, self.cb)\n"
        source += "\n"
    return source


@pytest.mark.parametrize(
    ("first", "second", "user", "reported"),
    [
        # the user's own ``cb`` verifies; the file's last ``cb`` (another class's) accepts all
        pytest.param(_VERIFYING, _ACCEPTING, "First", False, id="own-verifies"),
        # twin: the user's own ``cb`` accepts all; the last one in the file verifies
        pytest.param(_ACCEPTING, _VERIFYING, "First", True, id="own-accepts"),
        pytest.param(_VERIFYING, _ACCEPTING, "Second", True, id="last-accepts"),
    ],
)
def test_self_callback_resolves_through_its_own_class(
    first: str, second: str, user: str, *, reported: bool
) -> None:
    """``self.cb`` is the calling class's method, not the file's last ``cb``."""
    source = _two_classes(first, second, user)
    line = _lines_of(source, "set_verify")[0]
    assert (("SSC208", line) in findings_of(source)) is reported


@pytest.mark.parametrize(
    ("first", "second", "reported"),
    [
        # the subclass has no ``cb``: its base's, which accepts all
        pytest.param(_ACCEPTING, "", True, id="inherited-accepts"),
        # the subclass overrides the base's accepting ``cb`` with one that verifies
        pytest.param(_ACCEPTING, _VERIFYING, False, id="override-verifies"),
    ],
)
@pytest.mark.parametrize(
    "last", [pytest.param("", id="alone"), pytest.param(_VERIFYING, id="last")]
)
def test_self_callback_resolves_through_bases_of_the_file(
    first: str, second: str, last: str, *, reported: bool
) -> None:
    """Without its own ``cb``, a class's ``self.cb`` is its base's (a class of the file).

    With ``last``, a later unrelated class's ``cb`` that verifies is not the one used.
    """
    source = _two_classes(first, second, "Second", base="First", last=last)
    line = _lines_of(source, "set_verify")[0]
    assert (("SSC208", line) in findings_of(source)) is reported


@pytest.mark.parametrize(
    ("options", "reported"),
    [
        # OP_LEGACY_SERVER_CONNECT, by bit and by name, alone or OR-ed
        ("0x4", True),
        ("SSL.OP_LEGACY_SERVER_CONNECT", True),
        ("SSL.OP_NO_COMPRESSION | 0x4", True),
        ("0x40000", True),
        # twins: options that weaken nothing (no compression, no tickets, bit 0x8)
        ("SSL.OP_NO_COMPRESSION", False),
        ("SSL.OP_NO_TICKET | 0x8", False),
    ],
)
def test_legacy_server_connect_is_unsafe_renegotiation(options: str, *, reported: bool) -> None:
    """``set_options(0x4)``: a client that renegotiates with servers that lack RFC 5746."""
    source = (
        "from OpenSSL import SSL\n\ndef context():\n"
        "    ctx = SSL.Context(SSL.TLS_CLIENT_METHOD)\n"
        f"    ctx.set_options({options})\n    return ctx\n"
    )
    assert (("SSC703", 5) in findings_of(source)) is reported
