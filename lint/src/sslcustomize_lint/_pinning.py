"""Pinning and late name checks: where code turns a check off to do it itself.

``check_hostname = False`` and ``CERT_NONE`` in a branch taken when a fingerprint is
configured (urllib3's ``assert_fingerprint`` then compares the peer's certificate), or in a
function that hashes the peer's certificate (``getpeercert(True)``) and compares the digest,
replace the chain by a pin: not a plain opt-out. The same without the comparison stays a
finding. Likewise ``check_hostname = False`` in a class or function that matches the host name
itself after the handshake (``match_hostname(sock.getpeercert(), host)``).
"""

from __future__ import annotations

import ast
from collections.abc import Callable

__all__ = ["PINNABLE", "calls_host_match", "name_checked_lines", "pinned_lines"]

# Codes of verification turned off that a pin checked in the same place replaces.
PINNABLE = frozenset(
    {"SSC101", "SSC102", "SSC103", "SSC104", "SSC201", "SSC202", "SSC203", "SSC204", "SSC205"}
)
# Words of a configured pin in a branch's test (``if config.ssl_assert_fingerprint:``).
_PIN_WORDS = ("fingerprint", "thumbprint", "pinned", "pinning")
# Calls that compare digests in constant time.
_COMPARISONS = frozenset({"compare_digest"})
# Calls that hash bytes (``hashlib.sha256(der).hexdigest()``, ``cert.digest("sha256")``).
_HASHES = frozenset(
    {"sha1", "sha256", "sha384", "sha512", "md5", "new", "digest", "hexdigest", "fingerprint"}
)


def _called_name(node: ast.Call) -> str:
    func = node.func
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def _peer_certificate_bytes(node: ast.Call) -> bool:
    """``sock.getpeercert(True)`` / ``getpeercert(binary_form=True)``, pyOpenSSL's peer cert."""
    name = _called_name(node)
    if name == "getpeercert":
        given = [*node.args, *(k.value for k in node.keywords if k.arg == "binary_form")]
        return any(isinstance(v, ast.Constant) and v.value is True for v in given)
    return name in {"get_peer_certificate", "get_peer_cert_chain"}


def _compares_peer_digest(function: ast.AST) -> bool:
    """Tell whether a function hashes the peer's certificate and compares the result.

    urllib3's ``assert_fingerprint(cert, fingerprint)`` does all three.
    """
    peer = hashed = compared = False
    for node in ast.walk(function):
        if isinstance(node, ast.Call):
            name = _called_name(node)
            if name == "assert_fingerprint":
                return True
            peer = peer or _peer_certificate_bytes(node)
            hashed = hashed or name in _HASHES
            compared = compared or name in _COMPARISONS
        elif isinstance(node, ast.Compare) and any(
            isinstance(op, ast.Eq | ast.NotEq | ast.In | ast.NotIn) for op in node.ops
        ):
            compared = True
    return peer and hashed and compared


def _reads_pin(test: ast.expr) -> bool:
    """Tell whether a branch's test reads a name or attribute that names a pin."""
    for node in ast.walk(test):
        word = node.id if isinstance(node, ast.Name) else getattr(node, "attr", None)
        if isinstance(word, str) and any(pin in word.lower() for pin in _PIN_WORDS):
            return True
    return False


def pinned_lines(tree: ast.Module, source: bytes | None) -> set[int]:
    """Return the lines where verification is off because a pin is checked instead.

    The body of a branch whose test reads a pin option, in a file that hands the pin to
    urllib3 (``assert_fingerprint``) or compares the peer's digest itself; and the whole of a
    function that compares the peer's digest.
    """
    if source is None or not (
        b"fingerprint" in source or b"getpeercert" in source or b"get_peer_cert" in source
    ):
        return set()
    checks = b"assert_fingerprint" in source
    pinners = {
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _compares_peer_digest(node)
    }
    # A class one of whose methods compares the peer's digest, a function that does or that
    # calls such a function of the file by name: the pin is checked after the handshake.
    lines = _scopes_calling(tree, pinners, _compares_peer_digest)
    if not (checks or pinners):
        return lines
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and node.body and _reads_pin(node.test):
            end = node.body[-1].end_lineno or node.body[-1].lineno
            lines.update(range(node.body[0].lineno, end + 1))
    return lines


# Functions that match a peer certificate against a host name: ssl's (before 3.12, and
# vendored copies of it) and service_identity's.
_HOST_MATCHES = frozenset(
    {
        "match_hostname",
        "verify_hostname",
        "verify_ip_address",
        "verify_service_identity",
        "verify_certificate_hostname",
    }
)
# Errors whose handler, when it neither raises nor re-raises, lets a failed match pass:
# ``except AttributeError: return`` where Python 3.12 removed ``ssl.match_hostname``,
# ``except ValueError`` where the certificate is empty because nothing verified it.
_MATCH_ESCAPES = frozenset({"AttributeError", "ValueError", "Exception", "BaseException"})


def _swallows_a_failed_match(handler: ast.ExceptHandler) -> bool:
    """Tell whether an ``except`` clause catches a failed match and carries on."""
    if any(isinstance(node, ast.Raise) for node in ast.walk(handler)):
        return False
    if handler.type is None:
        return True
    caught = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(
        (c.attr if isinstance(c, ast.Attribute) else getattr(c, "id", "")) in _MATCH_ESCAPES
        for c in caught
    )


def calls_host_match(function: ast.AST) -> bool:
    """Tell whether a function (or class) matches the host name itself after a handshake.

    A match inside a ``try`` whose handler swallows its failure (``except AttributeError:
    return``) does not count: where it fails, nothing is checked.
    """
    swallowed: set[int] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Try) and any(map(_swallows_a_failed_match, node.handlers)):
            swallowed.update(id(inner) for stmt in node.body for inner in ast.walk(stmt))
    return any(
        isinstance(node, ast.Call)
        and id(node) not in swallowed
        and _called_name(node) in _HOST_MATCHES
        for node in ast.walk(function)
    )


def _calls_any(function: ast.AST, names: frozenset[str] | set[str]) -> bool:
    return any(isinstance(n, ast.Call) and _called_name(n) in names for n in ast.walk(function))


def name_checked_lines(tree: ast.Module, source: bytes | None) -> set[int]:
    """Return the lines where ``check_hostname = False`` moves the name check, not drops it.

    A class with a method that matches the host name (``match_hostname``, service_identity's
    ``verify_hostname``) checks it after the handshake in any of its methods; a module-level
    function does when it matches the name itself or calls, by name, a function of the file
    that does.
    """
    if source is None or not any(name.encode() in source for name in _HOST_MATCHES):
        return set()
    checkers = {
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and calls_host_match(node)
    }
    return _scopes_calling(tree, checkers, calls_host_match)


def _scopes_calling(
    tree: ast.Module, names: set[str], checks: Callable[[ast.AST], bool]
) -> set[int]:
    """The lines of the module's classes and functions that check, or call a checker.

    A class checks when one of its methods ``checks`` or calls one of ``names``; a
    module-level function likewise.
    """
    lines: set[int] = set()
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            scopes: list[ast.AST] = [
                m for m in node.body if isinstance(m, ast.FunctionDef | ast.AsyncFunctionDef)
            ]
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            scopes = [node]
        else:
            continue
        if any(checks(scope) or _calls_any(scope, names) for scope in scopes):
            lines.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    return lines
